"""IVM selection, evidence and eq. 5 prediction against dense references."""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

from sparsegp.approximations.adf_active_set import ADFActiveSet
from sparsegp.approximations.ivm import (
    ivm_log_marginal_likelihood,
    select_active_set,
    select_greedy,
    subset_log_marginal_likelihood,
)
from sparsegp.kernels import KernelBlocks, gram_and_weighted_gradient
from sparsegp.likelihoods import Probit
from sparsegp.testing import assert_gradient_matches

from ..conftest import block_of, small_problem


def select(K, y, likelihood, d, seed=0, **options):
    """Active-set selection on a dense kernel matrix (greedy unless told otherwise)."""
    options.setdefault("strategy", "greedy")
    return select_active_set(
        block_of(K),
        np.diag(K),
        y,
        likelihood,
        d,
        np.random.RandomState(seed),
        **options,
    )


def test_randomized_with_whole_index_selects_what_full_greedy_selects():
    X, y, kernel = small_problem(60)
    K = kernel(X)
    a = select(K, y, Probit(0.2), 20, seed=0)
    b = select(
        K,
        y,
        Probit(0.2),
        20,
        seed=0,
        strategy="randomized",
        n_full_greedy=3,
        selection_size=60,
        retain=1.0,
    )
    assert a.active == b.active


def test_greedy_picks_the_largest_entropy_reduction():
    X, y, kernel = small_problem(40)
    K = kernel(X)
    state = ADFActiveSet(block_of(K), np.diag(K), y, Probit(), 6)
    select_greedy(state, 5, np.random.RandomState(1))
    scores = state.entropy_scores(state.every_column())
    scores[state.active] = -np.inf
    chosen = np.argmax(scores)
    select_greedy(state, 6, np.random.RandomState(1))
    assert state.active[-1] == chosen


def test_randomized_selection_is_faithful_with_stale_columns():
    """After randomized selection, completing all columns gives the dense posterior."""
    X, y, kernel = small_problem(80)
    K = kernel(X)
    state = select(
        K,
        y,
        Probit(-0.1),
        25,
        seed=3,
        strategy="randomized",
        n_full_greedy=5,
        selection_size=20,
        retain=0.5,
    )
    state.complete(np.arange(80))
    s = np.sqrt(state.p)  # A = (K⁻¹ + Π)⁻¹ in a form that does not invert K
    A = K - (K * s) @ np.linalg.solve(np.eye(80) + s[:, None] * K * s, s[:, None] * K)
    np.testing.assert_allclose(state.a, np.diag(A), rtol=1e-6, atol=1e-9)
    assert len(set(state.active)) == 25


@pytest.mark.parametrize("length_scale", [0.9, [0.9, 2.0]])
def test_ivm_evidence_value_and_gradient(length_scale):
    X, y, kernel = small_problem(30)
    kernel = kernel.clone_with_theta(kernel.theta).set_params(
        k2__length_scale=length_scale
    )
    K = kernel(X)
    state = select(K, y, Probit(0.3), 10, seed=0)
    I = np.asarray(state.active)  # noqa: E741 (the papers' active set)
    p, m = state.p[I], state.m[I]

    def value(theta):
        K_I, weighted_gradient = gram_and_weighted_gradient(
            kernel.clone_with_theta(theta), X[I]
        )
        return ivm_log_marginal_likelihood(K_I, weighted_gradient, p, m)

    v, g = value(kernel.theta)
    C = K[np.ix_(I, I)] + np.diag(1 / p)
    expected = (
        -0.5 * m @ np.linalg.solve(C, m)
        - 0.5 * np.linalg.slogdet(C)[1]
        - 5 * np.log(2 * np.pi)
    )
    np.testing.assert_allclose(v, expected, rtol=1e-10)
    for j in range(len(kernel.theta)):
        e = 1e-6 * np.eye(len(kernel.theta))[j]
        fd = (value(kernel.theta + e)[0] - value(kernel.theta - e)[0]) / 2e-6
        np.testing.assert_allclose(g[j], fd, rtol=1e-6)


def test_subset_evidence_gradient_matches_finite_differences():
    X, _, _ = small_problem(15)
    y = np.sin(X[:, 0])
    kernel = ConstantKernel(1.5) * RBF(0.7) + WhiteKernel(0.2)
    v, g = subset_log_marginal_likelihood(*kernel(X, eval_gradient=True), y)
    gpr = GaussianProcessRegressor(kernel, optimizer=None).fit(X, y)
    np.testing.assert_allclose(v, gpr.log_marginal_likelihood_value_, rtol=1e-9)
    no_grad = np.zeros((15, 15, 0))

    def value(theta):
        return subset_log_marginal_likelihood(
            kernel.clone_with_theta(theta)(X), no_grad, y
        )[0]

    assert_gradient_matches(value, g, kernel.theta, step=1e-6, rtol=1e-6)


def test_prediction_equals_dense_joint_posterior():
    X, y, kernel = small_problem(30)
    X_star = np.random.default_rng(4).standard_normal((5, 2))
    K = kernel(X)
    state = select(K, y, Probit(0.0), 12, seed=0)
    mean, var = state.predictor().latent_mean_and_variance(
        kernel(X[state.active], X_star), kernel.diag(X_star)
    )
    I = np.asarray(state.active)  # noqa: E741 (the papers' active set)
    C = K[np.ix_(I, I)] + np.diag(1 / state.p[I])
    K_s = kernel(X[I], X_star)
    np.testing.assert_allclose(mean, K_s.T @ np.linalg.solve(C, state.m[I]), rtol=1e-8)
    np.testing.assert_allclose(
        var,
        kernel.diag(X_star) - np.einsum("ij,ij->j", K_s, np.linalg.solve(C, K_s)),
        rtol=1e-8,
    )


def test_an_unknown_strategy_is_refused_not_half_run():
    X, y, kernel = small_problem(n=40, seed=3)
    with pytest.raises(ValueError, match="strategy"):
        select_active_set(
            KernelBlocks(kernel, X),
            kernel.diag(X),
            y,
            Probit(0.0),
            10,
            np.random.RandomState(0),
            strategy="randomised",
        )


def test_regression_evidence_is_maximised_as_scikit_learn_maximises_it():
    """The kernel and log evidence of :func:`maximize_regression_evidence` against
    scikit-learn's ``GaussianProcessRegressor`` (dense, its own optimiser) from the
    same start."""
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    from sparsegp.approximations.ivm import maximize_regression_evidence

    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(60, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(60)
    kernel = ConstantKernel(1.0) * RBF(1.0) + WhiteKernel(0.1)
    learnt, value = maximize_regression_evidence(kernel, X, y)
    reference = GaussianProcessRegressor(kernel).fit(X, y)
    assert value == pytest.approx(reference.log_marginal_likelihood_value_, abs=1e-4)
    np.testing.assert_allclose(learnt.theta, reference.kernel_.theta, atol=1e-2)
