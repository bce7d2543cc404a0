"""Sparse online GP engine: dense references after every example, deletion, scores."""

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from sparsegp.approximations.online import SparseOnlineGP
from sparsegp.likelihoods import Gaussian, Probit

from ..conftest import ONLINE_KERNEL as KERNEL
from ..conftest import ONLINE_NOISE as NOISE
from ..conftest import regression_data


def gaussian_kl(m0, S0, m1, S1):
    """``KL(N(m0, S0) ‖ N(m1, S1))``."""
    S1_inv = np.linalg.inv(S1)
    diff = m1 - m0
    return 0.5 * (
        np.trace(S1_inv @ S0)
        + diff @ S1_inv @ diff
        - len(m0)
        + np.linalg.slogdet(S1)[1]
        - np.linalg.slogdet(S0)[1]
    )


def test_probit_without_deletion_is_sequential_adf():
    X, y = regression_data(15, seed=1)
    y = np.where(y > 0, 1.0, -1.0)
    likelihood = Probit(0.3)
    state = SparseOnlineGP(KERNEL, likelihood, 100, 0.0, "approximate").update(X, y)
    K = KERNEL(X)
    A, h = K.copy(), np.zeros(len(y))
    for i in range(len(y)):  # the dense ADF update of algorithms.md §0.3
        moments = likelihood.moments(h[i], A[i, i], y[i])
        column = A[:, i].copy()
        A -= moments.w * np.outer(column, column)
        h += moments.g * column
    np.testing.assert_allclose(K @ state.alpha, h, atol=1e-9)
    np.testing.assert_allclose(K + K @ state.C @ K, A, atol=1e-9)


def test_deletion_equals_dense_kl_optimal_reduced_gp():
    """Regression: deleting j equals y_j observed through the projection of f(x_j)."""
    X, y = regression_data(8)
    state = SparseOnlineGP(KERNEL, Gaussian(NOISE), 100, 0.0, "approximate").update(
        X, y
    )
    j = 3
    state.delete(j)
    keep = np.arange(len(y)) != j
    K_r = KERNEL(X[keep])
    H = np.vstack([np.eye(len(K_r)), KERNEL(X[[j]], X[keep]) @ np.linalg.inv(K_r)])
    order = np.r_[np.flatnonzero(keep), j]
    Sigma = np.linalg.inv(np.linalg.inv(K_r) + H.T @ H / NOISE)
    m = Sigma @ H.T @ y[order] / NOISE
    K_r_inv = np.linalg.inv(K_r)
    np.testing.assert_allclose(state.alpha, K_r_inv @ m, atol=1e-8)
    np.testing.assert_allclose(state.C, K_r_inv @ Sigma @ K_r_inv - K_r_inv, atol=1e-7)
    np.testing.assert_allclose(state.Q, K_r_inv, atol=1e-7)


@pytest.mark.parametrize("likelihood", [Gaussian(NOISE), Probit(-0.2)])
def test_exact_score_is_twice_the_kl_divergence(likelihood):
    X, y = regression_data(10, seed=2)
    if isinstance(likelihood, Probit):
        y = np.where(y > 0, 1.0, -1.0)
    state = SparseOnlineGP(KERNEL, likelihood, 100, 0.0, "exact").update(X, y)
    scores = state.scores()
    K = state.K
    mean, cov = K @ state.alpha, K + K @ state.C @ K
    for j in range(len(y)):
        reduced = SparseOnlineGP(KERNEL, likelihood, 100, 0.0, "exact").update(X, y)
        reduced.delete(j)
        keep = np.arange(len(y)) != j
        mean_j = K[:, keep] @ reduced.alpha
        cov_j = K + K[:, keep] @ reduced.C @ K[keep, :]
        assert scores[j] == pytest.approx(
            2 * gaussian_kl(mean_j, cov_j, mean, cov), rel=1e-5
        )


def test_fixed_basis_regression_is_the_dtc_posterior():
    """Eq. 88 for every example on a fixed basis gives DTC in any order (§3.5)."""
    X, y = regression_data(40, seed=8)
    basis = X[:6]
    state = SparseOnlineGP.with_basis(
        KERNEL, Gaussian(NOISE), basis, 6, 1e-6, "approximate"
    ).update(X[::-1], y[::-1])
    K_bb, K_bx = KERNEL(basis), KERNEL(basis, X)
    K_bb_inv = np.linalg.inv(K_bb)
    Sigma_u = np.linalg.inv(K_bb_inv + K_bb_inv @ K_bx @ K_bx.T @ K_bb_inv / NOISE)
    m_u = Sigma_u @ K_bb_inv @ K_bx @ y / NOISE
    np.testing.assert_allclose(state.alpha, K_bb_inv @ m_u, atol=1e-10)
    np.testing.assert_allclose(
        state.C, K_bb_inv @ Sigma_u @ K_bb_inv - K_bb_inv, atol=1e-10
    )
    assert state.n_projected == 40


def test_projected_shortcut_equals_full_update_then_deletion(monkeypatch):
    X, y = regression_data(60, seed=3)
    y = np.where(y > 0, 1.0, -1.0)
    fast = SparseOnlineGP(KERNEL, Probit(), 6, 1e-6, "approximate").update(X, y)
    assert fast.n_projected > 0
    monkeypatch.setattr(SparseOnlineGP, "_newcomer_would_be_deleted", lambda *a: False)
    slow = SparseOnlineGP(KERNEL, Probit(), 6, 1e-6, "approximate").update(X, y)
    np.testing.assert_allclose(fast.basis_vectors, slow.basis_vectors)
    np.testing.assert_allclose(fast.alpha, slow.alpha, atol=1e-9)
    np.testing.assert_allclose(fast.C, slow.C, atol=1e-9)
    np.testing.assert_allclose(fast.Q, slow.Q, atol=1e-7)


def test_state_after_deletions_keeps_its_invariants():
    X, y = regression_data(700, seed=4)  # more than one kernel chunk
    state = SparseOnlineGP(KERNEL, Gaussian(NOISE), 15, 1e-6, "approximate").update(
        X, y
    )
    assert state.size == 15
    assert state.n_seen == 700
    K = KERNEL(state.basis_vectors)
    np.testing.assert_allclose(state.K, K, atol=1e-12)
    np.testing.assert_allclose(state.Q @ K, np.eye(15), atol=1e-6)
    np.testing.assert_allclose(state.C, state.C.T, rtol=1e-12, atol=1e-12)


def test_tolerance_keeps_duplicated_inputs_out_of_the_basis():
    X, y = regression_data(20, seed=5)
    X, y = np.repeat(X, 3, axis=0), np.repeat(y, 3)
    state = SparseOnlineGP(KERNEL, Gaussian(NOISE), 100, 1e-6, "approximate").update(
        X, y
    )
    assert state.size <= 20
    assert state.n_projected >= 40
    assert np.linalg.cond(state.K) < 1e8
    np.testing.assert_allclose(state.Q @ state.K, np.eye(state.size), atol=1e-6)


def test_whitened_covariance_stays_between_zero_and_the_prior_with_deletions():
    X, y = regression_data(3000, seed=6)
    kernel = ConstantKernel(50.0**2) * RBF(0.3)
    state = SparseOnlineGP(kernel, Gaussian(0.01), 30, 1e-8, "approximate").update(X, y)
    assert state.n_deleted > 100
    eigenvalues = np.linalg.eigvalsh(state.W)
    assert eigenvalues.min() > -1e-8 and eigenvalues.max() < 1.0 + 1e-8
    np.testing.assert_allclose(state.L @ state.L.T, state.K, rtol=1e-9, atol=1e-6)


@pytest.mark.parametrize("likelihood", [Gaussian(NOISE), Probit(0.2)])
def test_kept_score_denominators_equal_the_dense_diagonal(likelihood):
    X, y = regression_data(800, seed=7)
    if isinstance(likelihood, Probit):
        y = np.where(y > 0, 1.0, -1.0)
    state = SparseOnlineGP(KERNEL, likelihood, 12, 1e-6, "approximate").update(X, y)
    assert state.n_deleted > 20 and state.n_projected > 100
    np.testing.assert_allclose(
        state.diag_q_plus_c, np.diag(state.Q + state.C), rtol=1e-6, atol=1e-10
    )


def test_buffers_doubling_as_the_set_grows_give_the_same_state(monkeypatch):
    """Buffers that start at 2 elements and double on the way to d + 1 hold the very
    state that buffers allocated at d + 1 hold."""
    from sparsegp.approximations import online

    X, y = regression_data(400, seed=8)
    kernel = ConstantKernel(4.0) * RBF(0.2)

    def streamed():
        return SparseOnlineGP(kernel, Gaussian(NOISE), 40, 1e-8, "approximate").update(
            X, y
        )

    whole = streamed()
    monkeypatch.setattr(online, "_FIRST_CAPACITY", 2)
    doubled = streamed()
    assert whole.n_deleted > 10 and len(doubled._basis) == 41
    for name in ("L", "W", "K", "a", "basis_vectors"):
        np.testing.assert_array_equal(getattr(doubled, name), getattr(whole, name))


def test_a_full_set_grows_and_deletes_in_its_own_buffers():
    """Once the set holds d elements, adding one and deleting one moves rows within
    the buffers allocated for d + 1: no t × t array is allocated per example."""
    X, y = regression_data(300, seed=9)
    state = SparseOnlineGP(
        ConstantKernel(4.0) * RBF(0.2), Gaussian(NOISE), 20, 1e-8, "approximate"
    )
    state.update(X[:100], y[:100])
    buffers = [state._L, state._W, state._basis]
    deleted = state.n_deleted
    state.update(X[100:], y[100:])
    assert state.n_deleted > deleted
    assert all(
        now is before
        for now, before in zip([state._L, state._W, state._basis], buffers, strict=True)
    )
    assert np.shares_memory(state.L, state._L) and np.shares_memory(state.W, state._W)
    np.testing.assert_allclose(
        state.L @ state.L.T, state.kernel(state.basis_vectors), rtol=1e-9, atol=1e-9
    )


@pytest.mark.parametrize("max_basis_vectors", [100, 4])
def test_each_example_s_prediction_is_the_model_of_the_examples_before_it(
    max_basis_vectors,
):
    X, y = regression_data(30, seed=2)
    y = np.where(y > 0, 1.0, -1.0)
    args = (KERNEL, Probit(0.3), max_basis_vectors, 1e-6, "approximate")
    recorded = np.empty((len(y), 2))
    SparseOnlineGP(*args).update(X, y, recorded)
    state = SparseOnlineGP(*args)
    np.testing.assert_allclose(recorded[0], [0.0, KERNEL.diag(X[:1])[0]])  # the prior
    state.update(X[:1], y[:1])
    for i in range(1, len(y)):
        mean, var = state.predictor().latent_mean_and_variance(
            KERNEL(state.basis_vectors, X[i : i + 1]), KERNEL.diag(X[i : i + 1])
        )
        np.testing.assert_allclose(recorded[i], [mean[0], var[0]], atol=1e-10)
        state.update(X[i : i + 1], y[i : i + 1])
