"""``ard`` on every regressor: a length-scale per feature for the default kernel."""

import numpy as np
import pytest
from sklearn.datasets import make_friedman1
from sklearn.gaussian_process.kernels import RBF, WhiteKernel

import sparsegp

REGRESSORS = {
    "IVMRegressor": dict(active_set_size=100),
    "RVMRegressor": dict(),
    "SparseGPRegressor": dict(n_inducing=30),
    "SparseOnlineGPRegressor": dict(max_basis_vectors=100),
}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_ard_finds_the_relevant_features(name):
    """Friedman #1: five of its ten features matter. The isotropic kernel spends its
    one length-scale on all ten; a length-scale per feature lowers the test error."""
    X, y = make_friedman1(n_samples=400, noise=1.0, random_state=0)
    X_test, y_test = make_friedman1(n_samples=1000, noise=1.0, random_state=1)
    errors = {}
    for ard in (False, True):
        model = getattr(sparsegp, name)(ard=ard, random_state=0, **REGRESSORS[name])
        model.fit(X, y)
        errors[ard] = np.sqrt(np.mean((model.predict(X_test) - y_test) ** 2))
    assert errors[True] < 0.9 * errors[False]


@pytest.mark.parametrize("name", sorted(set(REGRESSORS) - {"SparseGPRegressor"}))
def test_ard_true_with_a_given_kernel_is_refused(name):
    """As the classifiers: ``True`` is for the default kernel (SparseGPRegressor's
    default ``True`` uses a given kernel as it is)."""
    X, y = make_friedman1(n_samples=50, random_state=0)
    kernel = RBF(1.0) if name == "RVMRegressor" else RBF(1.0) + WhiteKernel(0.1)
    model = getattr(sparsegp, name)(kernel=kernel, ard=True)
    with pytest.raises(ValueError, match="ard=True"):
        model.fit(X, y)


def test_rvm_widths_that_stopped_on_their_cap_warn(monkeypatch):
    """The RVM regressor's widths come from a sparse GP's L-BFGS-B: stopped on its
    iteration cap, the fit says so."""
    from functools import partial

    from sklearn.exceptions import ConvergenceWarning

    from sparsegp.methods import rvm as rvm_module

    capped = partial(rvm_module.SparseRegression, max_iter=2)
    monkeypatch.setattr(rvm_module, "SparseRegression", capped)
    X, y = make_friedman1(n_samples=200, noise=1.0, random_state=0)
    with pytest.warns(ConvergenceWarning, match="basis its widths"):
        sparsegp.RVMRegressor(ard=True, random_state=0).fit(X, y)
