"""``scipy.sparse`` input (a LIBSVM file loads as CSR) gives the dense fit's answers."""

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from sklearn.datasets import make_moons

from sparsegp import (
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    IVMRegressor,
    NLPSparseGPClassifier,
    RVMClassifier,
    RVMRegressor,
    SparseGPRegressor,
    SparseOnlineGPClassifier,
    SparseOnlineGPRegressor,
)

CLASSIFIERS = [
    EPGPClassifier(random_state=0, max_iter_optimizer=5),
    FITCGPClassifier(n_inducing=5, max_iter_optimizer=5, random_state=0),
    IVMClassifier(active_set_size=20, random_state=0),
    NLPSparseGPClassifier(max_basis_vectors=15, max_outer_iterations=2, random_state=0),
    RVMClassifier(random_state=0),
    SparseOnlineGPClassifier(max_basis_vectors=20, random_state=0),
]
REGRESSORS = [
    IVMRegressor(active_set_size=20, random_state=0),
    RVMRegressor(random_state=0),
    SparseOnlineGPRegressor(max_basis_vectors=20, random_state=0),
    SparseGPRegressor(n_inducing=20, random_state=0),
]


def sparse_problem():
    X, y = make_moons(60, noise=0.2, random_state=0)
    X = np.column_stack([X, np.zeros(60)])  # a column with no stored entries
    X[::3, 0] = 0.0
    return X, y


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=lambda e: type(e).__name__)
def test_sparse_and_dense_classifier_fits_agree(estimator):
    X, y = sparse_problem()
    dense = estimator.fit(X, y).predict_proba(X)
    sparse = estimator.fit(csr_matrix(X), y).predict_proba(csr_matrix(X))
    np.testing.assert_allclose(sparse, dense, rtol=1e-8, atol=1e-10)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("estimator", REGRESSORS, ids=lambda e: type(e).__name__)
def test_sparse_and_dense_regressor_fits_agree(estimator):
    X, y = sparse_problem()
    target = np.sin(3 * X[:, 0]) + X[:, 1]
    dense = estimator.fit(X, target).predict(X, return_std=True)
    sparse = estimator.fit(csr_matrix(X), target).predict(
        csr_matrix(X), return_std=True
    )
    for got, expected in zip(sparse, dense, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-10)
