"""Sparse online GP: dense references after every example, deletion, scores, estimators."""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
from sklearn.utils.estimator_checks import parametrize_with_checks

from sparsegp import SparseOnlineGPClassifier, SparseOnlineGPRegressor
from sparsegp.approximations.online import SparseOnlineGP
from sparsegp.datasets import make_xor_clusters
from sparsegp.likelihoods import Gaussian, Probit

KERNEL = ConstantKernel(1.5) * RBF(0.8)
NOISE = 0.1


def regression_data(n=25, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, np.sin(X[:, 0]) + 0.3 * rng.normal(size=n)


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


def test_partial_fit_in_chunks_equals_fit():
    X, y = regression_data(300, seed=6)
    params = dict(
        kernel=KERNEL + WhiteKernel(NOISE),
        max_basis_vectors=20,
        optimizer=None,
        shuffle=False,
        normalize_y=False,  # else the first chunk sets the scale
    )
    whole = SparseOnlineGPRegressor(**params).fit(X, y)
    chunked = SparseOnlineGPRegressor(**params)
    for start, stop in [(0, 1), (1, 50), (50, 51), (51, 300)]:
        chunked.partial_fit(X[start:stop], y[start:stop])
    np.testing.assert_allclose(chunked.predict(X), whole.predict(X), atol=1e-10)
    np.testing.assert_array_equal(chunked.basis_vectors_, whole.basis_vectors_)


def test_classifier_partial_fit_in_chunks_equals_fit():
    X, y = make_xor_clusters(200, random_state=0)
    params = dict(kernel=KERNEL, max_basis_vectors=15, optimizer=None, shuffle=False)
    whole = SparseOnlineGPClassifier(**params).fit(X, y)
    chunked = SparseOnlineGPClassifier(**params)
    chunked.partial_fit(X[:70], y[:70], classes=[-1, 1]).partial_fit(X[70:], y[70:])
    np.testing.assert_allclose(
        chunked.predict_proba(X), whole.predict_proba(X), atol=1e-10
    )


def test_classifier_learns_xor_with_few_basis_vectors():
    X, y = make_xor_clusters(400, random_state=0)
    X_test, y_test = make_xor_clusters(2000, random_state=1)
    clf = SparseOnlineGPClassifier(max_basis_vectors=20, random_state=0).fit(X, y)
    assert len(clf.basis_vectors_) <= 20
    assert np.mean(clf.predict(X_test) != y_test) < 0.17
    mean, var = clf.latent_mean_and_variance(X_test)
    assert np.all(var > 0)


def test_regressor_approaches_exact_gp_as_the_basis_grows():
    from sklearn.datasets import make_friedman1

    X, y = make_friedman1(n_samples=600, noise=1.0, random_state=0)
    X_test, y_test = make_friedman1(n_samples=500, noise=1.0, random_state=1)
    reg = SparseOnlineGPRegressor(max_basis_vectors=150, random_state=0).fit(X, y)
    again = SparseOnlineGPRegressor(max_basis_vectors=150, random_state=0).fit(X, y)
    np.testing.assert_array_equal(reg.predict(X_test), again.predict(X_test))
    exact = GaussianProcessRegressor(reg.kernel_, optimizer=None, normalize_y=True)
    exact_mean, exact_std = exact.fit(X, y).predict(X_test, return_std=True)
    exact_mse = np.mean((exact_mean - y_test) ** 2)
    assert exact_mse < 3.0  # the noise variance is 1: the hyperparameters are sound
    assert np.mean((reg.predict(X_test) - y_test) ** 2) < 1.3 * exact_mse
    full = SparseOnlineGPRegressor(
        reg.kernel_, max_basis_vectors=600, optimizer=None, random_state=0
    ).fit(X, y)
    mean, std = full.predict(X_test, return_std=True)
    np.testing.assert_allclose(mean, exact_mean, rtol=1e-6)
    np.testing.assert_allclose(std, exact_std, rtol=1e-6)


def test_regressor_hyperparameters_are_those_of_exact_gp_regression():
    """With the subsample the whole data, the kernel is GPR's, restarts included."""
    X, y = regression_data(60, seed=9)
    kernel = KERNEL + WhiteKernel(NOISE)
    reg = SparseOnlineGPRegressor(
        kernel, n_hyperparameter_samples=60, n_restarts_optimizer=3, random_state=0
    ).fit(X, y)
    gpr = GaussianProcessRegressor(kernel, n_restarts_optimizer=3, random_state=0)
    gpr.fit(X, (y - y.mean()) / y.std())
    np.testing.assert_allclose(reg.kernel_.theta, gpr.kernel_.theta)


def test_second_pass_keeps_basis_size_and_does_not_hurt():
    X, y = regression_data(400, seed=7)
    params = dict(
        kernel=KERNEL + WhiteKernel(NOISE), max_basis_vectors=10, optimizer=None
    )
    one = SparseOnlineGPRegressor(random_state=0, **params).fit(X, y)
    two = SparseOnlineGPRegressor(n_passes=2, random_state=0, **params).fit(X, y)
    assert len(two.basis_vectors_) <= 10
    exact = GaussianProcessRegressor(KERNEL + WhiteKernel(NOISE), optimizer=None).fit(
        X, y
    )
    target = exact.predict(X)
    error_one = np.mean((one.predict(X) - target) ** 2)
    error_two = np.mean((two.predict(X) - target) ** 2)
    assert error_two <= 1.5 * error_one


def test_bad_input_gets_clear_errors():
    X, y = make_xor_clusters(40, random_state=0)
    with pytest.raises(ValueError, match="classes must be passed"):
        SparseOnlineGPClassifier().partial_fit(X, y)
    clf = SparseOnlineGPClassifier(optimizer=None).partial_fit(X, y, classes=[-1, 1])
    with pytest.raises(ValueError, match="not among the classes"):
        clf.partial_fit(X[:2], [2, 2])
    with pytest.raises(ValueError, match="one class only"):
        SparseOnlineGPClassifier().partial_fit(X[y > 0], y[y > 0], classes=[-1, 1])
    with pytest.raises(ValueError, match="WhiteKernel"):
        SparseOnlineGPRegressor(kernel=KERNEL).fit(X, y)
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SparseOnlineGPRegressor().fit(X_nan, y)
    with pytest.raises(ValueError, match="max_basis_vectors"):
        SparseOnlineGPRegressor(max_basis_vectors=0).fit(X, y)


@parametrize_with_checks(
    [
        SparseOnlineGPRegressor(
            max_basis_vectors=10, n_hyperparameter_samples=30, n_restarts_optimizer=0
        ),
        SparseOnlineGPClassifier(
            max_basis_vectors=10, n_hyperparameter_samples=30, n_restarts_optimizer=0
        ),
    ]
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_a_long_stream_with_a_large_amplitude_stays_finite_and_keeps_learning():
    # A GPR's ARD kernel for Friedman #1 (amplitude 135², noise 0.93). With Csató's
    # α, C, Q recursions the posterior variance k** + kᵀCk cancelled to garbage
    # (cond K_BV ≈ 1e9) and predictions were NaN before 10 000 examples.
    from sklearn.datasets import make_friedman1

    kernel = ConstantKernel(135.0**2) * RBF(
        [1.42, 1.42, 3.59, 28.4, 52.7, 1e5, 910, 1e5, 2.29e4, 882]
    ) + WhiteKernel(0.927)
    X, y = make_friedman1(100_000, noise=1.0, random_state=1)
    X_test, y_test = make_friedman1(2000, noise=0.0, random_state=2)
    model = SparseOnlineGPRegressor(kernel, max_basis_vectors=100, optimizer=None)
    model.partial_fit(X[:5000], y[:5000])
    early = np.mean((model.predict(X_test) - y_test) ** 2)
    model.partial_fit(X[5000:], y[5000:])
    late = model.predict(X_test)
    assert np.all(np.isfinite(late))
    assert np.mean((late - y_test) ** 2) < early


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


def test_verbose_pass_shows_a_progress_bar_and_changes_nothing(capsys):
    X, y = regression_data(12_000, seed=3)
    options = dict(kernel=KERNEL + WhiteKernel(NOISE), optimizer=None, random_state=0)
    quiet = SparseOnlineGPRegressor(max_basis_vectors=30, **options).fit(X, y)
    loud = SparseOnlineGPRegressor(max_basis_vectors=30, verbose=1, **options).fit(X, y)
    assert "online pass 1" in capsys.readouterr().err
    np.testing.assert_array_equal(loud.predict(X[:50]), quiet.predict(X[:50]))
