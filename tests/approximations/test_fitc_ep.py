"""FITC-EP ([NGH07]) against dense EP on the FITC covariance and finite differences."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern

from sparsegp.approximations.ep import run_ep
from sparsegp.approximations.fitc_ep import (
    FITCKernelBlocks,
    FITCPosterior,
    FITCPrior,
    InMemoryFITC,
    StructuredFITCPosterior,
    fitc_ep_gradient,
    fitc_predictor,
)
from sparsegp.likelihoods import Gaussian, Probit
from sparsegp.testing import assert_gradient_matches

from ..conftest import dense_ep, fitc_ep, small_problem


def fitc_problem(n=25, M=5, seed=0, kernel=None):
    X, y, default = small_problem(n=n, seed=seed)
    kernel = default if kernel is None else kernel
    Z = np.random.default_rng(seed + 1).standard_normal((M, X.shape[1]))
    prior = FITCPrior.from_kernel(kernel(Z), kernel(Z, X), kernel.diag(X))
    return X, y, Z, kernel, prior


def dense_fitc_covariance(prior):
    return prior.V.T @ prior.V + np.diag(prior.d0)


def test_structured_posterior_equals_dense_after_every_site_update(rng):
    _, _, _, _, prior = fitc_problem()
    K = dense_fitc_covariance(prior)
    n = K.shape[0]
    posterior = StructuredFITCPosterior(prior, np.zeros(n), np.zeros(n))
    tau, nu = np.zeros(n), np.zeros(n)
    for _ in range(80):  # site precisions rise and fall: update and downdate
        i = rng.integers(n)
        tau[i], nu[i] = rng.uniform(0.0, 3.0), rng.standard_normal()
        posterior.update_site(i, tau[i], nu[i])
        A = np.linalg.inv(np.linalg.inv(K) + np.diag(tau))
        A_structured = np.diag(posterior.d) + (
            posterior.P @ posterior.F @ posterior.F.T @ posterior.P.T
        )
        np.testing.assert_allclose(A_structured, A, atol=1e-10)
        np.testing.assert_allclose(
            posterior.nu_D + posterior.P @ posterior.gamma, A @ nu, atol=1e-10
        )
    posterior.rebuild()
    np.testing.assert_allclose(
        posterior.d
        + np.einsum("ij,ij->i", posterior.P @ posterior.F, posterior.P @ posterior.F),
        np.diag(A),
        atol=1e-10,
    )
    np.testing.assert_allclose(
        posterior.nu_D + posterior.P @ posterior.gamma, A @ nu, atol=1e-10
    )


def test_sequential_ep_equals_dense_ep_on_the_fitc_covariance():
    _, y, _, _, prior = fitc_problem()
    likelihood = Probit(0.3)
    structured = fitc_ep(prior, y, likelihood, tol=1e-12, random_state=3)
    dense = dense_ep(
        dense_fitc_covariance(prior),
        y,
        likelihood,
        mode="sequential",
        damping=1.0,
        tol=1e-12,
        random_state=3,
    )
    assert structured.converged and structured.n_sweeps == dense.n_sweeps
    np.testing.assert_allclose(structured.tau, dense.tau, atol=1e-12)
    np.testing.assert_allclose(structured.nu, dense.nu, atol=1e-12)
    np.testing.assert_allclose(structured.mean, dense.mean, atol=1e-10)
    np.testing.assert_allclose(structured.log_evidence, dense.log_evidence, rtol=1e-12)
    parallel = fitc_ep(prior, y, likelihood, mode="parallel", damping=0.5, tol=1e-12)
    np.testing.assert_allclose(parallel.log_evidence, dense.log_evidence, rtol=1e-9)


def test_gaussian_likelihood_gives_the_spgp_evidence():
    _, _, _, _, prior = fitc_problem()
    y = np.random.default_rng(4).standard_normal(prior.V.shape[1])
    noise = 0.3
    state = fitc_ep(prior, y, Gaussian(noise), tol=1e-12)
    K = dense_fitc_covariance(prior) + noise * np.eye(len(y))
    expected = multivariate_normal(np.zeros(len(y)), K).logpdf(y)
    np.testing.assert_allclose(state.log_evidence, expected, rtol=1e-10)


def test_prediction_equals_the_dense_joint_fitc_prior():
    X, y, Z, kernel, prior = fitc_problem()
    state = fitc_ep(prior, y, Probit(0.2), tol=1e-12)
    X_test = np.random.default_rng(7).standard_normal((7, 2))
    mean, var = fitc_predictor(state).latent_mean_and_variance(
        kernel(Z, X_test), kernel.diag(X_test)
    )
    K_uu = kernel(Z) + 1e-6 * np.eye(len(Z))
    Q_sf = kernel(X_test, Z) @ np.linalg.solve(K_uu, kernel(Z, X))
    K_inv = np.linalg.inv(dense_fitc_covariance(prior))
    Sigma = np.linalg.inv(K_inv + np.diag(state.tau))
    expected_mean = Q_sf @ K_inv @ (Sigma @ state.nu)
    expected_var = (
        kernel.diag(X_test)
        - np.einsum("ij,jk,ik->i", Q_sf, K_inv, Q_sf)
        + np.einsum("ij,jk,ik->i", Q_sf @ K_inv, Sigma, Q_sf @ K_inv)
    )
    np.testing.assert_allclose(mean, expected_mean, atol=1e-12)
    np.testing.assert_allclose(var, expected_var, atol=1e-12)


@pytest.mark.parametrize(
    "kernel",
    [
        ConstantKernel(2.0) * RBF([0.9, 1.3]) + ConstantKernel(0.5),
        ConstantKernel(2.0) * Matern([0.9, 1.3], nu=1.5) + ConstantKernel(0.5),
        ConstantKernel(2.0) * Matern(1.1, nu=2.5),
    ],
    ids=["rbf", "matern32", "matern52"],
)
def test_evidence_gradient_matches_finite_differences(kernel):
    X, y, Z, _, _ = fitc_problem(kernel=kernel)
    bias = 0.2

    def evidence(theta, Z, bias):
        likelihood = Probit(bias)
        blocks = FITCKernelBlocks.from_kernel(kernel.clone_with_theta(theta), Z, X)
        state = fitc_ep(blocks.prior(1e-6), y, likelihood, tol=1e-13, max_sweeps=500)
        return state.log_evidence, fitc_ep_gradient(state, y, likelihood, blocks)

    _, (grad_theta, grad_bias, grad_Z) = evidence(kernel.theta, Z, bias)
    p = len(kernel.theta)

    def log_z(x):  # x = (θ, b, Z raveled)
        return evidence(x[:p], x[p + 1 :].reshape(Z.shape), x[p])[0]

    x = np.concatenate([kernel.theta, [bias], Z.ravel()])
    analytic = np.concatenate([grad_theta, [grad_bias], grad_Z.ravel()])
    assert_gradient_matches(log_z, analytic, x, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("amplitude", [1.0, 1e4])
@pytest.mark.parametrize("store_dtype, rtol", [(np.float64, 1e-10), (np.float32, 1e-4)])
def test_refresh_gives_the_dense_posterior_marginals(amplitude, store_dtype, rtol):
    kernel = ConstantKernel(amplitude) * RBF(1.0)
    _, _, _, _, prior = fitc_problem(n=300, M=20, kernel=kernel)
    rng = np.random.default_rng(4)
    tau = 10.0 ** rng.uniform(-6, 3, 300) / amplitude**0.5
    nu = rng.standard_normal(300) * tau
    posterior = FITCPosterior(prior, tau, nu, store_dtype)
    A = np.linalg.inv(np.linalg.inv(dense_fitc_covariance(prior)) + np.diag(tau))
    mean, var = posterior.marginals()
    assert posterior.E.dtype == store_dtype and var.dtype == mean.dtype == np.float64
    np.testing.assert_allclose(var, np.diag(A), rtol=rtol)
    np.testing.assert_allclose(mean, A @ nu, rtol=rtol, atol=rtol * np.std(A @ nu))


def test_the_gradient_from_float32_sweeps_is_the_float64_gradient():
    """The optimizer's gradient at a float32-swept fixed point (the finite-difference
    test above checks the float64 one)."""
    kernel = ConstantKernel(2.0) * RBF([0.9, 1.3]) + ConstantKernel(0.5)
    X, y, Z, _, _ = fitc_problem(n=200, M=10, kernel=kernel)
    blocks = FITCKernelBlocks.from_kernel(kernel, Z, X)
    prior, likelihood, n = blocks.prior(1e-6), Probit(0.2), len(y)
    gradients = [
        fitc_ep_gradient(
            run_ep(
                FITCPosterior(prior, np.zeros(n), np.zeros(n), store_dtype),
                y,
                likelihood,
                tol=1e-7,
                max_sweeps=500,
            ),
            y,
            likelihood,
            blocks,
        )
        for store_dtype in (np.float32, np.float64)
    ]
    single, double = (np.concatenate([g[0], [g[1]], g[2].ravel()]) for g in gradients)
    # measured: 6e-6 of the largest component
    np.testing.assert_allclose(
        single, double, rtol=0, atol=2e-5 * np.max(np.abs(double))
    )


def test_each_state_is_differentiated_at_its_own_kernel_and_inputs():
    X, y, Z, kernel, _ = fitc_problem()
    likelihood = Probit(0.1)
    data = InMemoryFITC(X, y, 1e-6, differentiable=True)
    older = run_ep(data.posterior(kernel, Z, None), y, likelihood, tol=1e-10)
    run_ep(data.posterior(kernel, Z + 0.3, None), y, likelihood, tol=1e-10)
    fresh = InMemoryFITC(X, y, 1e-6, differentiable=True)
    alone = run_ep(fresh.posterior(kernel, Z, None), y, likelihood, tol=1e-10)
    for got, want in zip(
        data.gradient(older, likelihood),
        fresh.gradient(alone, likelihood),
        strict=True,
    ):
        np.testing.assert_array_equal(got, want)


def test_a_posterior_without_derivatives_refuses_the_gradient():
    X, y, Z, kernel, _ = fitc_problem()
    data = InMemoryFITC(X, y, 1e-6, differentiable=False)
    state = run_ep(data.posterior(kernel, Z, None), y, Probit(0.0), tol=1e-6)
    with pytest.raises(ValueError, match="differentiable=True"):
        data.gradient(state, Probit(0.0))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_refresh_over_cache_sized_chunks_equals_the_dense_products(
    monkeypatch, dtype
):
    """``V diag(G) Vᵀ``, ``V (t ⊙ ν̃)`` and the marginals summed over column chunks
    (here of 64 columns, the last shorter) equal the products of the whole ``V``."""
    from sparsegp._linalg import cholesky_jitter
    from sparsegp.approximations import fitc_ep

    monkeypatch.setattr(fitc_ep, "CHUNK_BYTES", 1)
    rng = np.random.default_rng(3)
    M, n = 7, 300
    V = rng.standard_normal((M, n)).astype(dtype)
    d0, tau = rng.uniform(0.1, 1.0, n), rng.uniform(0.0, 2.0, n)
    nu = rng.standard_normal(n)
    assert len(fitc_ep.column_chunks(V)) == 5
    workspace = fitc_ep.chunk_workspace(V)
    VGVt, V_t_nu = fitc_ep.site_statistics(V, d0, tau, nu, workspace)
    V64, t = V.astype(float), 1.0 / (1.0 + tau * d0)
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(VGVt, (V64 * (tau * t)) @ V64.T, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(V_t_nu, V64 @ (t * nu), rtol=rtol, atol=rtol)
    chol_B = cholesky_jitter(np.eye(M) + VGVt)
    u = np.linalg.solve(chol_B, V_t_nu)
    mean, var = fitc_ep.fitc_marginal_moments(
        V, d0, tau, nu, chol_B, u, None, workspace
    )
    E = np.linalg.solve(chol_B, V64)
    np.testing.assert_allclose(var, d0 * t + t**2 * np.sum(E**2, axis=0), rtol=rtol)
    np.testing.assert_allclose(mean, t * (d0 * nu + E.T @ u), rtol=rtol, atol=rtol)
