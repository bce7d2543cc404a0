"""The sparse regression engine against the dense computation, its gradient against
finite differences, and the M → n limit against exact GP regression."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern, WhiteKernel

from sparsegp.approximations.blocks import LocalBlocks
from sparsegp.approximations.sparse_regression import (
    JITTER,
    bound_and_gradient,
    evaluate_bound,
    new_regression_block,
)


def _problem(n=60, M=7, D=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=n)
    return X, y, rng.normal(size=(M, D))


def _blocks(X, y, cut=25):
    return LocalBlocks(
        [new_regression_block(X[:cut], y[:cut]), new_regression_block(X[cut:], y[cut:])]
    )


def _dense(kernel, X, y, Z, noise, approximation):
    K_uu = kernel(Z) + JITTER * np.mean(np.diag(kernel(Z))) * np.eye(len(Z))
    K_uf = kernel(Z, X)
    Q = K_uf.T @ np.linalg.solve(K_uu, K_uf)
    residual = np.diag(kernel(X) - Q)
    D = noise + (residual if approximation == "fitc" else np.zeros_like(residual))
    value = multivariate_normal(np.zeros(len(y)), Q + np.diag(D)).logpdf(y)
    if approximation == "vfe":
        value -= residual.sum() / (2 * noise)
    A = K_uu + K_uf @ (K_uf.T / D[:, None])
    return value, K_uu, K_uf, A, D


KERNELS = [
    ConstantKernel(1.3) * RBF([0.9, 1.4, 2.0]),
    ConstantKernel(0.7) * Matern(1.1, nu=2.5) + ConstantKernel(0.2),
]


@pytest.mark.parametrize("approximation", ["vfe", "fitc"])
@pytest.mark.parametrize("kernel", KERNELS, ids=["ard_rbf", "matern_offset"])
def test_bound_and_predictions_equal_the_dense_computation(approximation, kernel):
    X, y, Z = _problem()
    bound = evaluate_bound(_blocks(X, y), kernel, Z, 0.05, approximation)
    value, K_uu, K_uf, A, D = _dense(kernel, X, y, Z, 0.05, approximation)
    np.testing.assert_allclose(bound.value, value, rtol=1e-10)
    X_star = np.random.default_rng(1).normal(size=(5, X.shape[1]))
    k_star = kernel(Z, X_star)
    mean, var = bound.predictor().latent_mean_and_variance(k_star, kernel.diag(X_star))
    dense_mean = k_star.T @ np.linalg.solve(A, K_uf @ (y / D))
    inverse_gap = np.linalg.solve(K_uu, k_star) - np.linalg.solve(A, k_star)
    dense_var = kernel.diag(X_star) - np.einsum("ij,ij->j", k_star, inverse_gap)
    np.testing.assert_allclose(mean, dense_mean, atol=1e-10)
    np.testing.assert_allclose(var, dense_var, atol=1e-10)


@pytest.mark.parametrize("approximation", ["vfe", "fitc"])
@pytest.mark.parametrize("kernel", KERNELS, ids=["ard_rbf", "matern_offset"])
def test_gradient_matches_finite_differences(approximation, kernel):
    X, y, Z = _problem()
    blocks, noise, step = _blocks(X, y), 0.05, 1e-6
    _, grad_theta, grad_noise, grad_Z = bound_and_gradient(
        blocks, kernel, Z, noise, approximation
    )

    def value(theta=kernel.theta, noise=noise, Z=Z):
        changed = kernel.clone_with_theta(theta)
        return evaluate_bound(blocks, changed, Z, noise, approximation).value

    def central(f, x, e):
        return (f(x + step * e) - f(x - step * e)) / (2 * step)

    theta = kernel.theta
    fd_theta = [central(lambda t: value(theta=t), theta, e) for e in np.eye(len(theta))]
    # the jitter on K_uu scales with the amplitude; the gradient leaves it out
    np.testing.assert_allclose(grad_theta, fd_theta, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(
        grad_noise, central(lambda s: value(noise=s), noise, 1.0), rtol=1e-6
    )
    fd_Z = np.array(
        [central(lambda z: value(Z=z), Z, e.reshape(Z.shape)) for e in np.eye(Z.size)]
    ).reshape(Z.shape)
    np.testing.assert_allclose(grad_Z, fd_Z, rtol=1e-5, atol=1e-6)


def test_block_count_does_not_change_the_answer():
    X, y, Z = _problem(n=90)
    kernel = KERNELS[0]
    one = bound_and_gradient(
        LocalBlocks([new_regression_block(X, y)]), kernel, Z, 0.1, "vfe"
    )
    three = bound_and_gradient(
        LocalBlocks(
            [new_regression_block(X[a : a + 30], y[a : a + 30]) for a in (0, 30, 60)]
        ),
        kernel,
        Z,
        0.1,
        "vfe",
    )
    np.testing.assert_allclose(one[0].value, three[0].value, rtol=1e-12)
    for a, b in zip(one[1:], three[1:], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("approximation", ["vfe", "fitc"])
def test_blocks_keeping_their_cross_covariance_give_the_same_numbers(approximation):
    """The second pass reads the K_uf and V the first kept, bit for bit what it would
    evaluate again, and the blocks hold nothing afterwards."""
    X, y, Z = _problem(n=90)
    kernel = KERNELS[0]
    kept, blocks = [], _blocks(X, y)
    for keep in (True, False):
        kept.append(bound_and_gradient(blocks, kernel, Z, 0.1, approximation, keep))
        assert all(block.kept is None for block in blocks.blocks)
    (bound, *gradients), (again, *evaluated) = kept
    assert bound.value == again.value
    for a, b in zip(gradients, evaluated, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("approximation", ["vfe", "fitc"])
def test_pseudo_inputs_at_the_training_inputs_give_the_exact_gp(approximation):
    """With Z = X, Q = K: both objectives are the exact log evidence ([RW06] eq. 2.30,
    up to the jitter) and the predictions exact GP regression's."""
    X, y, _ = _problem(n=40)
    kernel, noise = ConstantKernel(1.3) * RBF([0.9, 1.4, 2.0]), 0.05
    bound = evaluate_bound(_blocks(X, y, 20), kernel, X, noise, approximation)
    exact = GaussianProcessRegressor(kernel + WhiteKernel(noise), optimizer=None).fit(
        X, y
    )
    np.testing.assert_allclose(
        bound.value, exact.log_marginal_likelihood_value_, rtol=1e-4
    )
    X_star = np.random.default_rng(2).normal(size=(6, 3))
    mean, var = bound.predictor().latent_mean_and_variance(
        kernel(X, X_star), kernel.diag(X_star)
    )
    exact_mean, exact_std = exact.predict(X_star, return_std=True)
    np.testing.assert_allclose(mean, exact_mean, atol=1e-4)
    np.testing.assert_allclose(var + noise, exact_std**2, atol=1e-4)


def test_vfe_converges_to_the_exact_gp_as_m_grows_to_n():
    """On 2 000 points with nested pseudo-inputs Z ⊂ X, VFE's bound rises towards the
    exact log evidence and reaches it at Z = X (to the jitter), and its predictive
    means and variances approach exact GP regression's ([Tit09] §3: adding a
    pseudo-input never lowers the collapsed bound)."""
    from sklearn.datasets import make_friedman1

    X, y = make_friedman1(n_samples=2000, noise=1.0, random_state=0)
    y = (y - y.mean()) / y.std()
    kernel, noise = ConstantKernel(1.0) * RBF(np.full(10, 1.5)), 0.1
    blocks = LocalBlocks(
        [
            new_regression_block(X[a : a + 512], y[a : a + 512])
            for a in range(0, 2000, 512)
        ]
    )
    exact = GaussianProcessRegressor(kernel + WhiteKernel(noise), optimizer=None).fit(
        X, y
    )
    X_star = np.random.default_rng(3).uniform(size=(200, 10))
    exact_mean, exact_std = exact.predict(X_star, return_std=True)
    order = np.random.default_rng(4).permutation(2000)
    gaps, mean_errors, variance_errors = [], [], []
    for M in (125, 250, 500, 1000, 2000):
        Z = X[order[:M]]
        bound = evaluate_bound(blocks, kernel, Z, noise, "vfe")
        mean, var = bound.predictor().latent_mean_and_variance(
            kernel(Z, X_star), kernel.diag(X_star)
        )
        gaps.append(exact.log_marginal_likelihood_value_ - bound.value)
        mean_errors.append(np.max(np.abs(mean - exact_mean)))
        variance_errors.append(np.max(np.abs(var + noise - exact_std**2)))
    assert np.all(np.diff(gaps) <= 1e-6 * abs(exact.log_marginal_likelihood_value_))
    assert gaps[0] > 10.0 and abs(gaps[-1]) < 1e-3 * abs(gaps[0])
    assert mean_errors[-1] < 1e-3 < mean_errors[0]
    assert variance_errors[-1] < 1e-3 < variance_errors[0]
    assert mean_errors[-2] < mean_errors[0] and variance_errors[-2] < variance_errors[0]
