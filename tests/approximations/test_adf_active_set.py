"""The ADF active-set state against the dense posterior (K⁻¹ + Π)⁻¹ on small data."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from sparsegp import _memory
from sparsegp.approximations import adf_active_set
from sparsegp.approximations.adf_active_set import ADFActiveSet
from sparsegp.approximations.ivm import select_randomized_greedy
from sparsegp.kernels import KernelBlocks
from sparsegp.likelihoods import Gaussian, Probit

from ..conftest import small_problem


def make_state(X, y, kernel, likelihood, max_size):
    K = kernel(X)
    return ADFActiveSet(KernelBlocks(kernel, X), np.diag(K), y, likelihood, max_size), K


def include_with_all_columns(state, i):
    state.include(i, state.every_column())


def dense_posterior(K, p, m):
    """A = (K⁻¹ + Π)⁻¹ and h = A Π m, computed directly."""
    A = np.linalg.inv(np.linalg.inv(K) + np.diag(p))
    return A, A @ (p * m)


def empty_state(likelihood, n, d, seed):
    """A state for ``n`` points (sine targets for a Gaussian likelihood) and a random
    order of ``d`` of them to include."""
    X, y, kernel = small_problem(n)
    if isinstance(likelihood, Gaussian):
        y = np.sin(2 * X[:, 0])
    state, K = make_state(X, y, kernel, likelihood, d)
    return X, y, kernel, K, state, np.random.default_rng(seed).permutation(n)[:d]


@pytest.mark.parametrize("likelihood", [Probit(bias=0.3), Gaussian(noise=0.2)])
def test_every_inclusion_matches_the_dense_posterior(likelihood):
    X, y, kernel, K, state, order = empty_state(likelihood, 25, 12, seed=0)
    for step, i in enumerate(order, start=1):
        include_with_all_columns(state, i)
        A, h = dense_posterior(K, state.p, state.m)
        np.testing.assert_allclose(state.a, np.diag(A), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(state.h, h, rtol=1e-8, atol=1e-10)
        active = order[:step]
        sqrt_p = np.sqrt(state.p[active])
        B = np.eye(step) + sqrt_p[:, None] * K[np.ix_(active, active)] * sqrt_p
        L = state.L[:step, :step]
        np.testing.assert_allclose(L @ L.T, B, rtol=1e-10)
        np.testing.assert_allclose(
            L @ state.V[:step], sqrt_p[:, None] * K[active], atol=1e-10
        )
    if isinstance(likelihood, Gaussian):  # exact sites for a Gaussian likelihood
        np.testing.assert_allclose(state.p[order], 1 / 0.2)
        np.testing.assert_allclose(state.m[order], y[order])


def test_all_points_active_equals_one_dense_adf_pass():
    X, y, kernel = small_problem(15)
    lik = Probit(bias=-0.2)
    state, K = make_state(X, y, kernel, lik, 15)
    A, h = K.copy(), np.zeros(15)
    for i in np.random.default_rng(1).permutation(15):
        include_with_all_columns(state, i)
        mom = lik.moments(h[i], A[i, i], y[i])
        expected_p = mom.w / (1 - A[i, i] * mom.w)
        column = A[:, i].copy()
        A -= mom.w * np.outer(column, column)  # dense ADF, algorithms.md §0.3
        h += mom.g * column
        np.testing.assert_allclose(state.p[i], expected_p, rtol=1e-10)
    np.testing.assert_allclose(state.a, np.diag(A), rtol=1e-9)
    np.testing.assert_allclose(state.h, h, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("row_block", [3, 64])
def test_stale_columns_completed_later_equal_full_updates(row_block, monkeypatch):
    """Columns holding every mix of row counts, gathered across several row blocks
    and extended while gathered, equal the state that updates every column."""
    monkeypatch.setattr(adf_active_set, "_ROW_BLOCK", row_block)
    X, y, kernel = small_problem(30)
    lik = Probit(bias=0.1)
    full, _ = make_state(X, y, kernel, lik, 10)
    lazy, _ = make_state(X, y, kernel, lik, 10)
    rng = np.random.default_rng(2)
    order = rng.permutation(30)[:10]
    for i in order:
        include_with_all_columns(full, i)
        tracked = lazy.gather(np.union1d(rng.choice(30, size=6, replace=False), [i]))
        lazy.include(int(np.flatnonzero(tracked.points == i)[0]), tracked)
        lazy.release(tracked, tracked.points != i)
    assert np.ptp(lazy.rows_done) > 0  # a mix of stale and current columns
    lazy.complete(np.arange(30))
    np.testing.assert_allclose(lazy.V, full.V, atol=1e-12)
    np.testing.assert_allclose(lazy.a, full.a, rtol=1e-12)
    np.testing.assert_allclose(lazy.h, full.h, rtol=1e-10, atol=1e-14)


def test_release_stores_what_writing_whole_columns_would(monkeypatch):
    """Only the row blocks from each column's first stale one are written back; the
    store must still equal, bit for bit, the whole gathered columns written over it."""
    monkeypatch.setattr(adf_active_set, "_ROW_BLOCK", 2)
    X, y, kernel = small_problem(30)
    state, _ = make_state(X, y, kernel, Probit(bias=0.1), 12)
    rng = np.random.default_rng(5)
    for i in rng.permutation(30)[:9]:
        tracked = state.gather(np.union1d(rng.choice(30, size=8, replace=False), [i]))
        state.include(int(np.flatnonzero(tracked.points == i)[0]), tracked)
        kept = tracked.points != i
        expected = state.Vt.copy()
        expected[tracked.points[kept], : tracked.size] = tracked.Vt[
            kept, : tracked.size
        ]
        state.release(tracked, kept)
        np.testing.assert_array_equal(state.Vt, expected)
    assert len(np.unique(state.rows_done)) > 2  # columns stale by different blocks


def test_gathered_columns_match_the_store_and_replace_in_place():
    X, y, kernel = small_problem(20)
    state, _ = make_state(X, y, kernel, Probit(), 6)
    for i in (3, 11, 7):
        include_with_all_columns(state, i)
    tracked = state.gather([0, 5, 9])
    np.testing.assert_allclose(tracked.Vt[:, :3], state.Vt[tracked.points, :3])
    np.testing.assert_allclose(tracked.a, state.a[tracked.points])
    tracked.replace([1], state.gather([14]))
    assert list(tracked.points) == [0, 14, 9]
    np.testing.assert_allclose(tracked.h, state.h[[0, 14, 9]])
    np.testing.assert_allclose(
        tracked.kernel_columns.parts[1],
        state.kernel_blocks.columns([0, 14, 9]).parts[1],
    )


def test_entropy_score_is_the_entropy_reduction():
    X, y, kernel = small_problem(12)
    state, K = make_state(X, y, kernel, Probit(), 3)
    include_with_all_columns(state, 0)
    scores = state.entropy_scores(state.every_column())
    for j in (3, 7):
        before = np.linalg.slogdet(dense_posterior(K, state.p, state.m)[0])[1]
        trial, _ = make_state(X, y, kernel, Probit(), 3)
        include_with_all_columns(trial, 0)
        include_with_all_columns(trial, j)
        after = np.linalg.slogdet(dense_posterior(K, trial.p, trial.m)[0])[1]
        np.testing.assert_allclose(scores[j], -0.5 * (after - before), rtol=1e-8)


def full_pass_best(likelihood, h, a, y, candidate):
    """What the selection did before the bound: every score, the others masked."""
    scores = adf_active_set.entropy_reduction(likelihood, h, a, y)
    scores[~candidate] = -np.inf
    best = int(np.argmax(scores))
    return best, scores[best]


@pytest.mark.parametrize("likelihood", [Probit(), Probit(-0.7, 1.9), Gaussian(0.3)])
@pytest.mark.parametrize("seed", range(6))
def test_the_bounded_best_is_the_full_passs_best(likelihood, seed):
    """Marginals of every scale (z from −10⁴ to 10⁴, variances from 0 to 10⁶),
    repeated points (ties: the first wins, as np.argmax), a fifth of them masked:
    the same point and bit for bit the same score as scoring all."""
    rng = np.random.default_rng(seed)
    n = 5_000
    a = 10.0 ** rng.uniform(-8, 6, n)
    a[rng.random(n) < 0.01] = 0.0
    h = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 4, n)
    y = rng.choice([-1.0, 1.0], n)
    copies = rng.choice(n, 200)
    h[copies[:100]], a[copies[:100]], y[copies[:100]] = (
        h[copies[100:]],
        a[copies[100:]],
        y[copies[100:]],
    )
    candidate = rng.random(n) > 0.2
    got = adf_active_set.best_entropy_reduction(likelihood, h, a, y, candidate)
    assert got == full_pass_best(likelihood, h, a, y, candidate)


def test_marginals_that_are_not_numbers_are_scored_as_before():
    """Where a candidate's marginals are not numbers (a broken state), the choice is
    the full pass's (np.argmax's first NaN), not "no candidate" nor another point."""
    candidate = np.ones(5, dtype=bool)
    for broken, variance in (([0, 1, 2, 3, 4], 1.0), ([3], 1.0), ([1], 1e-3)):
        h, a, y = np.linspace(-1.0, 1.0, 5), np.ones(5), np.ones(5)
        h[broken], a[broken] = np.nan, variance  # [1]: its bound below the others
        got = adf_active_set.best_entropy_reduction(Probit(), h, a, y, candidate)
        want = full_pass_best(Probit(), h, a, y, candidate)
        assert got[0] == want[0] == broken[0] and np.isnan(got[1])


def test_the_bounded_best_along_a_selection_and_without_candidates(monkeypatch):
    """Every inclusion of a greedy selection on 400 points picks the full pass's
    point, having scored a few of them once the bound is informative; with no
    candidate left there is none."""
    scored = []
    score = adf_active_set.entropy_reduction

    def recorded(likelihood, h, a, y):
        scored.append(len(h))
        return score(likelihood, h, a, y)

    monkeypatch.setattr(adf_active_set, "entropy_reduction", recorded)
    X, y, kernel = small_problem(400, seed=2)
    state, _ = make_state(X, y, kernel, Probit(0.2), 40)
    columns = state.every_column()
    candidate = np.ones(400, dtype=bool)
    exact_scores = []
    for _ in range(40):
        expected = full_pass_best(
            state.likelihood, columns.h, columns.a, state.y, candidate
        )
        scored.clear()
        assert state.best_entropy_score(columns, candidate) == expected
        exact_scores.append(sum(scored))
        state.include(expected[0], columns)
        candidate[expected[0]] = False
    assert exact_scores[0] > 200 and np.median(exact_scores[10:]) <= 20  # of 400
    assert adf_active_set.best_entropy_reduction(
        Probit(), columns.h, columns.a, state.y, np.zeros(400, dtype=bool)
    ) == (-1, -np.inf)


def test_including_a_stale_column_is_refused():
    X, y, kernel = small_problem(10)
    state, _ = make_state(X, y, kernel, Probit(), 3)
    tracked = state.gather([0, 5])
    include_with_all_columns(state, 1)
    with pytest.raises(ValueError, match="current to 0 rows"):
        state.include(1, tracked)


def test_single_precision_store_tracks_the_double_precision_state():
    """V in float32: the same selection, marginals within float32 accuracy."""
    X, y, kernel = small_problem(300)
    lik = Probit(bias=0.2)
    states = []
    for dtype in (np.float64, np.float32):
        state = ADFActiveSet(KernelBlocks(kernel, X), kernel.diag(X), y, lik, 40, dtype)
        assert state.Vt.dtype == dtype
        select_randomized_greedy(state, 40, np.random.RandomState(0), selection_size=60)
        state.complete(np.arange(300))
        states.append(state)
    double, single = states
    assert single.active == double.active
    np.testing.assert_allclose(single.a, double.a, atol=1e-5)
    np.testing.assert_allclose(single.h, double.h, atol=1e-5)
    np.testing.assert_allclose(single.L[:40, :40], double.L[:40, :40], atol=1e-5)


def test_a_store_too_large_for_memory_names_the_parameter(monkeypatch):
    monkeypatch.setattr(_memory, "available_memory", lambda: 10**5)
    X, y, kernel = small_problem(300)
    with pytest.raises(MemoryError, match="active_set_size"):
        ADFActiveSet(KernelBlocks(kernel, X), kernel.diag(X), y, Probit(), 100)


def test_factor_rebuilt_from_the_sites_equals_the_incremental_one():
    X, _, kernel, _, state, order = empty_state(Probit(bias=0.3), 30, 12, seed=1)
    for i in order:
        include_with_all_columns(state, i)
    active = np.asarray(state.active)
    L, c = adf_active_set.factor_from_sites(
        kernel(X[active]), state.p[active], state.m[active]
    )
    np.testing.assert_allclose(L, state.L[:12, :12], rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(c, state.c[:12], rtol=1e-9, atol=1e-12)
    rebuilt = adf_active_set.active_set_predictor(L, c, state.p[active])
    X_star = np.random.default_rng(2).standard_normal((6, X.shape[1]))
    K_s, k_ss = kernel(X[active], X_star), kernel.diag(X_star)
    for expected, actual in zip(
        state.predictor().latent_mean_and_variance(K_s, k_ss),
        rebuilt.latent_mean_and_variance(K_s, k_ss),
        strict=True,
    ):
        np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("likelihood", [Probit(bias=0.3), Gaussian(noise=0.2)])
def test_log_evidence_from_the_state_equals_the_dense_one(likelihood):
    _, y, _, K, state, order = empty_state(likelihood, 30, 10, seed=3)
    for i in order:
        include_with_all_columns(state, i)
    active = np.asarray(state.active)
    p, m = state.p[active], state.m[active]
    C = K[np.ix_(active, active)] + np.diag(1 / p)
    dense = multivariate_normal(np.zeros(len(active)), C).logpdf(m)
    value = adf_active_set.active_set_log_evidence(state.L, state.c, p)
    assert value == pytest.approx(dense, rel=1e-10)
    if isinstance(likelihood, Gaussian):  # exact sites: the subset's GP evidence
        assert np.allclose(m, y[active]) and np.allclose(p, 1 / 0.2)


@pytest.mark.parametrize("threads", [1, 2])
def test_columns_completed_in_pieces_on_threads_equal_full_updates(
    threads, monkeypatch
):
    """Stale columns completed in pieces (of 7 here), the pieces on a thread pool,
    equal the state that updates every column, whatever the pool."""
    from sparsegp.approximations.blocks import thread_pool

    monkeypatch.setattr(adf_active_set, "_COMPLETE_PIECE", 7)
    X, y, kernel = small_problem(40)
    full, _ = make_state(X, y, kernel, Probit(bias=0.1), 12)
    lazy, _ = make_state(X, y, kernel, Probit(bias=0.1), 12)
    for i in np.random.default_rng(3).permutation(40)[:12]:
        include_with_all_columns(full, i)
        lazy.include(0, lazy.gather([i]))
    with thread_pool(threads) as pool:
        lazy.complete(np.arange(40), pool)
    np.testing.assert_allclose(lazy.V, full.V, atol=1e-12)
    np.testing.assert_allclose(lazy.a, full.a, rtol=1e-12)
    np.testing.assert_allclose(lazy.h, full.h, rtol=1e-10, atol=1e-14)
    assert (lazy.rows_done == 12).all()
