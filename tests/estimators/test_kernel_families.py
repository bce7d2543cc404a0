"""Matérn 3/2 and 5/2, isotropic and ARD, wherever the RBF works: every classifier
learns them (or, for the RVM, uses them as its basis) and classifies as well."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern

import sparsegp
from sparsegp.datasets import load_banana

CLASSIFIERS = {
    "ep": lambda kernel: sparsegp.EPGPClassifier(kernel, random_state=0),
    "fitc": lambda kernel: sparsegp.FITCGPClassifier(
        kernel, n_inducing=10, random_state=0
    ),
    "ivm": lambda kernel: sparsegp.IVMClassifier(
        kernel, active_set_size=40, random_state=0
    ),
    "nlp": lambda kernel: sparsegp.NLPSparseGPClassifier(
        kernel, max_basis_vectors=40, random_state=0
    ),
    "online": lambda kernel: sparsegp.SparseOnlineGPClassifier(
        kernel, max_basis_vectors=40, random_state=0
    ),
    "rvm": lambda kernel: sparsegp.RVMClassifier(kernel, random_state=0),
}

KERNELS = {
    "rbf": lambda ls: ConstantKernel() * RBF(ls),
    "matern32": lambda ls: ConstantKernel() * Matern(ls, nu=1.5),
    "matern52 ard": lambda ls: ConstantKernel() * Matern([ls, ls], nu=2.5),
}


def banana_errors(make, kernel):
    X, y, X_test, y_test = load_banana()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = make(kernel).fit(X[:300], y[:300])
    return np.mean(model.predict(X_test) != y_test), model


@pytest.mark.parametrize("name", list(CLASSIFIERS))
@pytest.mark.parametrize("family", ["matern32", "matern52 ard"])
def test_every_classifier_learns_a_matern_as_well_as_the_rbf(name, family):
    make = CLASSIFIERS[name]
    rbf_error, _ = banana_errors(make, KERNELS["rbf"](1.0))
    error, model = banana_errors(make, KERNELS[family](1.0))
    assert error < rbf_error + 0.03
    if name != "rvm":  # the RVM's basis is fixed, as [QW03]'s
        assert model.kernel_.get_params() != KERNELS[family](1.0).get_params()
