"""Every regressor's joint predictions: ``return_cov``, ``sample_y`` and the latent
moments, as ``GaussianProcessRegressor`` offers them."""

import numpy as np
import pytest
from sklearn.base import is_classifier
from sklearn.datasets import make_friedman1
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

import sparsegp
from sparsegp.estimators._base import validate_dense

REGRESSORS = {
    "IVMRegressor": dict(active_set_size=30),
    "RVMRegressor": dict(),
    "SparseGPRegressor": dict(n_inducing=20, max_iter=50),
    "SparseOnlineGPRegressor": dict(max_basis_vectors=30),
}


def test_every_regressor_is_here():
    regressors = {
        name
        for name in sparsegp.__all__
        if not is_classifier(getattr(sparsegp, name)())
    }
    assert regressors == set(REGRESSORS)


@pytest.fixture(params=sorted(REGRESSORS))
def fitted(request):
    X, y = make_friedman1(n_samples=200, noise=1.0, random_state=0)
    estimator = getattr(sparsegp, request.param)(**REGRESSORS[request.param])
    if "random_state" in estimator.get_params():
        estimator.set_params(random_state=0)
    return estimator.fit(X, y), X[:7]


def test_covariance_diagonal_is_the_variance(fitted):
    model, X = fitted
    mean, std = model.predict(X, return_std=True)
    mean_cov, cov = model.predict(X, return_cov=True)
    np.testing.assert_allclose(mean_cov, mean)
    np.testing.assert_allclose(np.diag(cov), std**2, rtol=1e-6)
    np.testing.assert_allclose(cov, cov.T, atol=1e-10 * np.max(np.abs(cov)))
    assert np.all(np.linalg.eigvalsh(cov) > 0)
    with pytest.raises(RuntimeError, match="At most one"):
        model.predict(X, return_std=True, return_cov=True)


def test_latent_variance_is_the_predictive_one_less_the_noise(fitted):
    model, X = fitted
    _, std = model.predict(X, return_std=True)
    latent_mean, latent_var = model.latent_mean_and_variance(X)
    np.testing.assert_allclose(latent_mean, model.predict(X))
    noise = std**2 - latent_var
    assert np.all(latent_var >= 0) and np.all(noise > 0)
    np.testing.assert_allclose(noise, noise[0], rtol=1e-6)  # one noise variance


def test_samples_follow_the_predictive_distribution(fitted):
    model, X = fitted
    samples = model.sample_y(X, n_samples=4000, random_state=0)
    mean, cov = model.predict(X, return_cov=True)
    assert samples.shape == (len(X), 4000)
    scale = np.sqrt(np.diag(cov))
    np.testing.assert_allclose(samples.mean(axis=1), mean, atol=0.1 * scale.max())
    np.testing.assert_allclose(samples.std(axis=1), scale, rtol=0.1)
    np.testing.assert_array_equal(samples, model.sample_y(X, 4000, random_state=0))


EXACT_LIMITS = {
    # each regressor where its posterior is exact GP regression's: every point kept
    "IVMRegressor": dict(active_set_size=60),
    "SparseGPRegressor": dict(n_inducing=60),
    "SparseOnlineGPRegressor": dict(max_basis_vectors=60, tol=0.0),
}


@pytest.mark.parametrize("name", sorted(EXACT_LIMITS))
def test_covariance_equals_the_dense_exact_gp_where_every_point_is_kept(name):
    """With the kernel held and every training point kept, the joint predictive
    covariance is exact GP regression's (the dense computation, scikit-learn's)."""
    X, y = make_friedman1(n_samples=60, noise=1.0, random_state=0)
    kernel = ConstantKernel(4.0) * RBF(2.0) + WhiteKernel(0.2)
    exact = GaussianProcessRegressor(kernel, optimizer=None, normalize_y=True)
    exact.fit(X, y)
    model = getattr(sparsegp, name)(kernel, optimizer=None, **EXACT_LIMITS[name])
    model.fit(X, y)
    X_test = make_friedman1(n_samples=8, random_state=1)[0]
    mean, cov = model.predict(X_test, return_cov=True)
    exact_mean, exact_cov = exact.predict(X_test, return_cov=True)
    # scikit-learn's kernel holds the WhiteKernel: its covariance is of y, as ours
    np.testing.assert_allclose(mean, exact_mean, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(cov, exact_cov, rtol=1e-3, atol=1e-4)


def test_rvm_covariance_is_its_weights_posterior_through_the_basis():
    """The RVM's latent covariance is ``Ψ* Σ Ψ*ᵀ`` with ``Σ = (L Lᵀ)⁻¹``, the
    weights' posterior (the dense computation, from the fitted factor)."""
    X, y = make_friedman1(n_samples=150, noise=1.0, random_state=0)
    model = sparsegp.RVMRegressor().fit(X, y)
    X_test = make_friedman1(n_samples=6, random_state=1)[0]
    predictor = model.model_.predictor
    psi = model.model_.kernel(
        model.model_.points, validate_dense(model, X_test, reset=False)
    )
    if predictor.bias_feature:
        psi = np.vstack([np.ones((1, psi.shape[1])), psi])
    sigma = np.linalg.inv(predictor.chol @ predictor.chol.T)
    dense = model.y_std_**2 * (psi.T @ sigma @ psi) + np.eye(len(X_test)) * model.noise_
    _, cov = model.predict(X_test, return_cov=True)
    np.testing.assert_allclose(cov, dense, rtol=1e-8)
