"""The methods against each other where theory says they coincide.

FITC with its pseudo-inputs at the training inputs is full EP; the IVM with every point
active and the FITC posterior is full EP; the IVM regressor with every point active is
exact GP regression; the RVM's adaptive-TAP mean field is EP on the weight-space prior;
the online GP without deletion is exact GP regression after every example.
"""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern, WhiteKernel

from sparsegp import EPGPClassifier, FITCGPClassifier, IVMClassifier, IVMRegressor
from sparsegp.approximations.fitc_ep import FITCPrior
from sparsegp.approximations.online import SparseOnlineGP
from sparsegp.approximations.rvm_ssem import ep_e_step
from sparsegp.datasets import make_xor_clusters
from sparsegp.likelihoods import Gaussian, Probit
from sparsegp.testing import assert_latent_close

from ..conftest import ONLINE_KERNEL as KERNEL
from ..conftest import ONLINE_NOISE as NOISE
from ..conftest import dense_ep, fitc_ep, regression_data, small_problem
from ..conftest import rvm_classification_problem as classification_problem


def test_with_pseudo_inputs_at_the_training_inputs_fitc_is_full_ep():
    X, y, kernel = small_problem(n=20)
    prior = FITCPrior.from_kernel(kernel(X), kernel(X), kernel.diag(X), jitter=1e-9)
    likelihood = Probit(-0.2)
    fitc = fitc_ep(prior, y, likelihood, tol=1e-12, random_state=0)
    full = dense_ep(kernel(X), y, likelihood, mode="sequential", damping=1.0, tol=1e-12)
    np.testing.assert_allclose(fitc.log_evidence, full.log_evidence, rtol=1e-6)
    X_test = np.random.default_rng(1).standard_normal((6, 2))
    options = dict(kernel=kernel, optimizer=None, bias=-0.2, random_state=0)
    sparse = FITCGPClassifier(inducing_init=X, jitter=1e-9, **options).fit(X, y)
    dense = EPGPClassifier(ep_mode="sequential", damping=1.0, tol=1e-10, **options).fit(
        X, y
    )
    assert_latent_close(sparse, dense, X_test, rtol=0, atol=1e-5)
    np.testing.assert_allclose(
        sparse.log_marginal_likelihood_value_,
        dense.log_marginal_likelihood_value_,
        rtol=1e-5,
    )


def test_full_ep_and_fitc_share_their_default_tolerance():
    """FITC with Z = X is full EP: by default both settle EP and stop their optimizer
    at the same tolerance (BENCHMARKS.md, "Full EP's tolerance")."""
    assert EPGPClassifier().tol == FITCGPClassifier().tol


def test_fitc_posterior_on_every_point_is_full_ep():
    """With the whole training set active and a fixed kernel, the FITC posterior over
    all sites is the full EP GP classifier's (FITC with Z = X is the exact prior)."""
    X, y = make_xor_clusters(80, random_state=0)
    X_test, _ = make_xor_clusters(50, random_state=1)
    kernel = ConstantKernel(2.0) * RBF(1.5)
    ivm = IVMClassifier(
        kernel, active_set_size=1.0, posterior="fitc", optimizer=None, random_state=0
    ).fit(X, y)
    ep = EPGPClassifier(
        kernel, bias=ivm.bias_, optimizer=None, ep_mode="sequential", tol=1e-8
    ).fit(X, y)
    assert_latent_close(ivm, ep, X_test, rtol=0, atol=1e-4)
    assert ivm.log_marginal_likelihood_value_ == pytest.approx(
        ep.log_marginal_likelihood_value_, abs=1e-3
    )


@pytest.mark.parametrize("normalize_y", [False, True])
def test_regressor_with_all_points_equals_exact_gp_regression(normalize_y):
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (40, 1))
    y = 3.0 + 2.0 * np.sin(X[:, 0]) + 0.1 * rng.standard_normal(40)
    kernel = ConstantKernel(1.0) * RBF(1.0) + WhiteKernel(0.05)
    options = dict(optimizer=None, normalize_y=normalize_y)
    ivm = IVMRegressor(kernel, active_set_size=40, **options).fit(X, y)
    gpr = GaussianProcessRegressor(kernel, **options).fit(X, y)
    X_test = np.linspace(-4, 4, 9)[:, None]
    m1, s1 = ivm.predict(X_test, return_std=True)
    m2, s2 = gpr.predict(X_test, return_std=True)
    np.testing.assert_allclose(m1, m2, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s1, s2, rtol=1e-6)
    np.testing.assert_allclose(
        ivm.log_marginal_likelihood_value_,
        gpr.log_marginal_likelihood_value_,
        rtol=1e-8,
    )


def test_adaptive_tap_is_ep_on_the_weight_space_prior():
    Psi, t, alpha = classification_problem(seed=1)
    post, _ = ep_e_step(Psi, alpha, t, 1.0, tol=1e-12, max_iter=500)
    K = Psi @ np.diag(1 / alpha) @ Psi.T
    ep = dense_ep(
        K, t, Probit(), mode="parallel", damping=1.0, tol=1e-12, max_sweeps=500
    )
    cov_y = Psi @ post.covariance() @ Psi.T
    np.testing.assert_allclose(Psi @ post.mean, ep.mean, atol=1e-7)
    np.testing.assert_allclose(np.diag(cov_y), ep.var, atol=1e-7)
    # the fixed point satisfies [QW03] eq. 16, μ = A⁻¹Ψᵀg, with g at EP's cavities
    V = 1 / (1 / ep.var - ep.tau)
    y_cavity = V * (ep.mean / ep.var - ep.nu)
    g = Probit().moments(y_cavity, V, t).g
    np.testing.assert_allclose(post.mean, Psi.T @ g / alpha, atol=1e-7)


def test_regression_without_deletion_is_exact_gp_after_every_example():
    X, y = regression_data()
    state = SparseOnlineGP(KERNEL, Gaussian(NOISE), 100, 0.0, "approximate")
    for i in range(len(y)):
        state.update(X[i : i + 1], y[i : i + 1])
        K = KERNEL(X[: i + 1])
        inverse = np.linalg.inv(K + NOISE * np.eye(i + 1))
        np.testing.assert_allclose(state.alpha, inverse @ y[: i + 1], atol=1e-9)
        np.testing.assert_allclose(state.C, -inverse, atol=1e-9)
        np.testing.assert_allclose(state.Q @ K, np.eye(i + 1), atol=1e-6)
    mean, var = state.predictor().latent_mean_and_variance(
        KERNEL(X, X[:3]), KERNEL.diag(X[:3])
    )
    gpr = GaussianProcessRegressor(KERNEL + WhiteKernel(NOISE), optimizer=None)
    gpr_mean, gpr_std = gpr.fit(X, y).predict(X[:3], return_std=True)
    np.testing.assert_allclose(mean, gpr_mean, atol=1e-9)
    np.testing.assert_allclose(var + NOISE, gpr_std**2, atol=1e-9)


def test_a_matern_kernel_learnt_by_fitc_at_the_training_inputs_is_full_eps():
    """Both maximise one evidence with their own analytic Matérn gradients."""
    X, y = make_xor_clusters(40, random_state=3)
    kernel = ConstantKernel(1.0) * Matern(1.0, nu=2.5)
    options = dict(kernel=kernel, tol=1e-6, random_state=0)
    sparse = FITCGPClassifier(
        inducing_init=X, optimize_inducing=False, jitter=1e-9, **options
    ).fit(X, y)
    dense = EPGPClassifier(**options).fit(X, y)
    np.testing.assert_allclose(sparse.kernel_.theta, dense.kernel_.theta, atol=1e-3)
    np.testing.assert_allclose(sparse.bias_, dense.bias_, atol=1e-3)
    assert_latent_close(sparse, dense, X[:8], rtol=0, atol=1e-3)
