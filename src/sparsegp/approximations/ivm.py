"""Informative Vector Machine: active-set selection, evidence and prediction (algorithms.md §1).

Lawrence, Seeger & Herbrich (2002). Selection grows an :class:`ADFActiveSet` by the
differential-entropy score (eq. 4) in O(n·d²) time and O(n·d) memory; the
hyperparameter objective is the approximate marginal likelihood of the active set
with its sites fixed (algorithms.md §1.8); prediction is eq. 5.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt
from sklearn.gaussian_process.kernels import Kernel

from .._linalg import (
    cho_solve_lower,
    cholesky_jitter,
    inverse_lower,
    log_det_from_cholesky,
    solve_lower_transpose,
)
from .._optimize import ParameterSpace, kernel_block, maximize
from ..kernels import KernelBlocks
from ..likelihoods import Likelihood
from .adf_active_set import ADFActiveSet, active_set_log_evidence, factor_from_sites

__all__ = [
    "GrowingActiveSet",
    "InMemorySelection",
    "grow_active_set",
    "ivm_log_marginal_likelihood",
    "select_active_set",
    "select_greedy",
    "select_random",
    "select_randomized_greedy",
    "subset_log_marginal_likelihood",
]


class Progress(Protocol):
    """A progress bar (e.g. tqdm's): advanced once per greedy inclusion."""

    def update(self, n: int = 1) -> object: ...


class GrowingActiveSet(Protocol):
    """An active set that grows by the phases of [LSH02] §3 wherever its rows live:
    :class:`InMemorySelection`, or
    :class:`~sparsegp.approximations.partitioned_ivm.PartitionedActiveSet`."""

    @property
    def size(self) -> int: ...

    def grow_random(
        self, d: int, rng: np.random.RandomState, *, progress: Progress | None = None
    ) -> None: ...

    def grow_greedy(
        self,
        d: int,
        rng: np.random.RandomState,
        *,
        n_random_start: int = 2,
        progress: Progress | None = None,
    ) -> None: ...

    def grow_randomized(
        self,
        d: int,
        rng: np.random.RandomState,
        *,
        selection_size: int = 500,
        retain: float = 0.5,
        progress: Progress | None = None,
    ) -> None: ...


def grow_active_set(
    selection: GrowingActiveSet,
    d: int,
    rng: np.random.RandomState,
    *,
    strategy: str = "randomized",
    n_random_start: int = 2,
    n_full_greedy: int = 198,
    selection_size: int = 500,
    retain: float = 0.5,
    progress: Progress | None = None,
) -> None:
    """Grow ``selection`` to ``d`` points by one of the strategies of [LSH02] §3.

    ``"greedy"``: ``n_random_start`` random inclusions, then full greedy.
    ``"randomized"``: the same up to ``n_random_start + n_full_greedy`` points, then
    greedy over a selection index of ``selection_size`` points with ``retain`` of
    them kept (the paper's schedule: 2, 198, 500, ½). ``"random"``: uniform (baseline).
    ``progress`` (e.g. a tqdm bar) is advanced once per inclusion.
    """
    if strategy not in ("random", "greedy", "randomized"):
        raise ValueError(
            f"strategy must be 'random', 'greedy' or 'randomized'; got {strategy!r}."
        )
    if strategy == "random":
        selection.grow_random(d, rng, progress=progress)
        return
    greedy_size = d if strategy == "greedy" else min(d, n_random_start + n_full_greedy)
    selection.grow_greedy(
        greedy_size, rng, n_random_start=n_random_start, progress=progress
    )
    if strategy == "randomized":
        selection.grow_randomized(
            d, rng, selection_size=selection_size, retain=retain, progress=progress
        )


@dataclass
class InMemorySelection:
    """The phases of [LSH02] §3 on an in-memory :class:`ADFActiveSet`."""

    state: ADFActiveSet

    @property
    def size(self) -> int:
        return self.state.size

    def grow_random(
        self, d: int, rng: np.random.RandomState, *, progress: Progress | None = None
    ) -> None:
        select_random(self.state, d, rng, progress=progress)

    def grow_greedy(
        self,
        d: int,
        rng: np.random.RandomState,
        *,
        n_random_start: int = 2,
        progress: Progress | None = None,
    ) -> None:
        select_greedy(
            self.state, d, rng, n_random_start=n_random_start, progress=progress
        )

    def grow_randomized(
        self,
        d: int,
        rng: np.random.RandomState,
        *,
        selection_size: int = 500,
        retain: float = 0.5,
        progress: Progress | None = None,
    ) -> None:
        select_randomized_greedy(
            self.state,
            d,
            rng,
            selection_size=selection_size,
            retain=retain,
            progress=progress,
        )


def select_random(
    state: ADFActiveSet,
    d: int,
    rng: np.random.RandomState,
    *,
    progress: Progress | None = None,
) -> None:
    """Include ``d`` points drawn uniformly (the baseline); O(d³), columns left stale."""
    for i in rng.choice(len(state.y), size=d - state.size, replace=False):
        state.include(0, state.gather([i]))
        advance(progress)


def select_greedy(
    state: ADFActiveSet,
    d: int,
    rng: np.random.RandomState,
    *,
    n_random_start: int = 2,
    progress: Progress | None = None,
) -> None:
    """Full greedy selection: ``n_random_start`` random points, then ``argmax Δ_j``.

    All n columns are extended at every inclusion. Short of the store's full size (the
    start of randomized greedy) they are worked on in a buffer ``d`` rows wide, laid
    out row of V by row of V (each inclusion writes one contiguous row), and stored
    back at the end; at its full size in the store, which :func:`select_active_set`
    lays out the same way. Each inclusion takes the best of the points not included
    (:func:`~sparsegp.approximations.adf_active_set.best_entropy_reduction`: a bound of
    every point's score, the exact score of those it cannot rule out).
    """
    if state.size >= d:
        return
    if d < state.Vt.shape[1]:
        columns = state.gather(np.arange(len(state.y)), width=d, layout="F")
    else:
        columns = state.every_column()
    candidate = ~np.isin(columns.points, state.active)  # by position in ``columns``
    while state.size < d:
        if state.size < n_random_start:
            best = rng.choice(np.flatnonzero(candidate))
        else:  # the best of every point not included (its bound pruning the rest)
            best, _ = state.best_entropy_score(columns, candidate)
        state.include(best, columns)
        candidate[best] = False
        advance(progress)
    if columns.Vt is not state.Vt:
        state.release(columns)


def select_randomized_greedy(
    state: ADFActiveSet,
    d: int,
    rng: np.random.RandomState,
    *,
    selection_size: int = 500,
    retain: float = 0.5,
    progress: Progress | None = None,
) -> None:
    """Greedy over a selection index J of fixed size with delayed updates (algorithms.md §1.5).

    After each inclusion, the best ``⌊retain·|J|⌋`` members of J stay, the rest is
    redrawn uniformly from the points outside the active set and the kept ones; only
    J's columns of ``V`` are kept current, in one contiguous buffer. Dropped members
    are stored back with the rows they hold, so a member drawn again is completed
    from there.
    """
    draws = np.random.default_rng(rng.randint(2**32))  # subsets in O(size), not O(n)
    candidate = np.ones(len(state.y), dtype=bool)
    candidate[state.active] = False
    pool = np.flatnonzero(candidate)
    J = state.gather(
        draws.choice(pool, size=min(selection_size, len(pool)), replace=False)
    )
    while state.size < d:
        scores = state.entropy_scores(J)
        best = int(np.argmax(scores))
        state.include(best, J)
        candidate[J.points[best]] = False
        advance(progress)
        if state.size == d:
            break
        ranked = np.argsort(scores)[::-1]
        ranked = ranked[ranked != best]
        n_keep = int(retain * len(J.points))
        replaced = np.append(ranked[n_keep:], best)
        state.release(J, replaced[:-1])
        free = candidate.copy()
        free[J.points[ranked[:n_keep]]] = False
        n_new = min(len(replaced), int(free.sum()))
        new = state.gather(
            draws.choice(np.flatnonzero(free), size=n_new, replace=False),
            width=state.size,
        )
        J.replace(replaced[:n_new], new)
        if n_new < len(replaced):  # the pool is exhausted: the index shrinks
            J = J.take(np.setdiff1d(np.arange(len(J.points)), replaced[n_new:]))


def advance(progress: Progress | None) -> None:
    """Advance ``progress`` by one step, if there is one."""
    if progress is not None:
        progress.update()


def ivm_log_marginal_likelihood(
    K_I: np.ndarray,
    weighted_gradient: Callable[[np.ndarray], np.ndarray],
    p: np.ndarray,
    m: np.ndarray,
) -> tuple[float, np.ndarray]:
    """``log N(m_I | 0, K_I + Π_I⁻¹)`` and its gradient, sites fixed (algorithms.md §1.8).

    Parameters
    ----------
    K_I : ndarray of shape (d, d)
    weighted_gradient : callable
        ``W ↦ Σ_ij W_ij ∂K_ij/∂θ`` (:func:`~sparsegp.kernels.gram_and_weighted_gradient`:
        no d × d × q array of derivatives, which for an ARD kernel on many features
        costs more than the rest of the evaluation).
    p, m : ndarray of shape (d,)
        Site precisions and means of the active points.

    Returns
    -------
    value : float
    gradient : ndarray of shape (q,)
        ``½ βᵀ ∂K β − ½ tr(T ∂K)`` with ``T = (K_I + Π⁻¹)⁻¹``, ``β = T m``.
    """
    sqrt_p = np.sqrt(p)
    L, c = factor_from_sites(K_I, p, m)
    value = active_set_log_evidence(L, c, p)
    beta = sqrt_p * solve_lower_transpose(L, c)
    inverse = inverse_lower(L)
    T = sqrt_p[:, None] * (inverse.T @ inverse) * sqrt_p  # Π½ (L Lᵀ)⁻¹ Π½
    return value, weighted_gradient(0.5 * (np.outer(beta, beta) - T))


def subset_log_marginal_likelihood(
    K_noisy: np.ndarray, K_noisy_gradient: np.ndarray, y: np.ndarray
) -> tuple[float, np.ndarray]:
    """Exact GP regression evidence ``log N(y | 0, K + σ²I)`` and gradient ([RW06] eq. 5.9).

    With a Gaussian likelihood the IVM sites are exact (``Π = I/σ²``, ``m = y``), so
    ``L_IVM`` of algorithms.md §1.8 is this evidence of the active subset; ``K_noisy`` includes the
    noise term, so its gradient covers the noise level too.
    """
    L = cholesky_jitter(K_noisy, what="K_I + σ²I")
    alpha = cho_solve_lower(L, y)
    value = (
        -0.5 * y @ alpha
        - 0.5 * log_det_from_cholesky(L)
        - 0.5 * len(y) * np.log(2 * np.pi)
    )
    inner = np.outer(alpha, alpha) - cho_solve_lower(L, np.eye(len(y)))
    return value, 0.5 * np.tensordot(inner, K_noisy_gradient, axes=([0, 1], [0, 1]))


def maximize_regression_evidence(
    kernel: Kernel, X: np.ndarray, y: np.ndarray, **options: Any
) -> tuple[Kernel, float]:
    """The kernel of largest :func:`subset_log_marginal_likelihood` of ``y`` at ``X``
    (its ``WhiteKernel`` noise among the hyperparameters), by L-BFGS-B from
    ``kernel``, and that log evidence; ``options`` are
    :func:`~sparsegp._optimize.maximize`'s."""
    space = ParameterSpace([kernel_block(kernel)])

    def evidence(x: np.ndarray) -> tuple[float, np.ndarray]:
        K, K_gradient = space.unpack(x)["kernel"](X, eval_gradient=True)
        return subset_log_marginal_likelihood(K, K_gradient, y)

    start = space.pack({"kernel": kernel})
    result = maximize(evidence, start, space.bounds(), **options)
    return space.unpack(result.x)["kernel"], result.value


def select_active_set(
    kernel_blocks: KernelBlocks,
    k_diag: np.ndarray,
    y: np.ndarray,
    likelihood: Likelihood,
    d: int,
    rng: np.random.RandomState,
    *,
    strategy: str = "randomized",
    n_random_start: int = 2,
    n_full_greedy: int = 198,
    selection_size: int = 500,
    retain: float = 0.5,
    progress: Progress | None = None,
    dtype: npt.DTypeLike = np.float64,
) -> ADFActiveSet:
    """An in-memory active set of size ``d`` grown by :func:`grow_active_set`.

    ``dtype`` is the precision of the O(n·d) store (:class:`ADFActiveSet`), laid out
    for full greedy selection (column-major) where it runs to ``d`` — short of it,
    full greedy works in a column-major buffer of its own and the randomized phase
    gathers the store's rows.
    """
    all_greedy = strategy == "greedy" or (
        strategy == "randomized" and d <= n_random_start + n_full_greedy
    )
    layout: Literal["C", "F"] = "F" if all_greedy else "C"
    state = ADFActiveSet(kernel_blocks, k_diag, y, likelihood, d, dtype, layout)
    grow_active_set(
        InMemorySelection(state),
        d,
        rng,
        strategy=strategy,
        n_random_start=n_random_start,
        n_full_greedy=n_full_greedy,
        selection_size=selection_size,
        retain=retain,
        progress=progress,
    )
    return state
