"""IVM selection over row blocks of the training data: the ADF state where the rows live.

The decomposition is algorithms.md §1.6.

Including a point ``i`` in the active set (algorithms.md §1.3) extends every column of
``V`` by one entry, ``v_j = (√p_i k(x_i, x_j) − V_{·j}ᵀ r)/l₀``, and updates the
marginals ``a_j −= v_j²``, ``h_j += c_k v_j``: given ``x_i`` and the O(k) numbers
``r``, ``p_i``, ``l₀``, ``c_k``, each point's update is local. Each block of rows keeps
its inputs, labels, columns of ``V`` (``rows × d``, preallocated) and marginals; per
inclusion the client sends those O(k + D) numbers to every block, and every block
returns its best candidate by the entropy score ([LSH02] eq. 4) with the column,
marginals and input the next inclusion needs. The client keeps ``L`` (d × d), ``c`` and
the sites. Full greedy and uniform selection keep every column current and choose what
:class:`~sparsegp.approximations.adf_active_set.ADFActiveSet` chooses; in randomized
greedy each block keeps only its share of the selection index current (algorithms.md
§1.5) and completes redrawn members itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from sklearn.gaussian_process.kernels import Kernel

from .._memory import held_bytes
from ..likelihoods import Likelihood
from .adf_active_set import (
    Inclusion,
    active_set_predictor,
    best_entropy_reduction,
    complete_columns,
    entropy_reduction,
)
from .blocks import Blocks
from .ivm import GrowingActiveSet, InMemorySelection, Progress, advance
from .predictor import Predictor

__all__ = [
    "ADFBlock",
    "Candidate",
    "PartitionedActiveSet",
    "new_adf_block",
]


@dataclass
class ADFBlock:
    """One block's share of the ADF state; its arrays are updated in place.

    ``rows_done[j]`` counts the current entries of column ``j`` (all of them until the
    randomized phase, where only the selection ``index`` is kept current); ``L``,
    ``X_I``, ``sqrt_p`` and ``c`` copy the client's factor, active inputs and sites so
    that a stale column can be completed here.
    """

    X: np.ndarray
    y: np.ndarray
    first: int
    Vt: np.ndarray
    a: np.ndarray
    h: np.ndarray
    k_diag: np.ndarray
    candidate: np.ndarray
    rows_done: np.ndarray
    L: np.ndarray
    X_I: np.ndarray
    sqrt_p: np.ndarray
    c: np.ndarray
    index: np.ndarray | None = None
    rng: np.random.Generator | None = None

    def __sizeof__(self) -> int:
        return object.__sizeof__(self) + held_bytes(self)  # what dask moves


@dataclass(frozen=True)
class Candidate:
    """A point as an inclusion needs it: where it is, its input, label, column, marginals."""

    index: int
    score: float
    x: np.ndarray
    y: float
    column: np.ndarray
    a: float
    h: float


def new_adf_block(
    X: np.ndarray,
    y: np.ndarray,
    first: int,
    kernel: Kernel,
    d: int,
    dtype: npt.DTypeLike = np.float64,
) -> ADFBlock:
    """Rows ``first, first + 1, …`` of the data, with the prior marginals ``a = diag K``
    and the block's share of ``V`` in ``dtype`` (the in-memory store's precision)."""
    X = np.asarray(X, dtype=float)
    k_diag = np.asarray(kernel.diag(X), dtype=float)
    return ADFBlock(
        X=X,
        y=np.asarray(y, dtype=float),
        first=first,
        Vt=np.zeros((len(X), d), dtype=dtype, order="F"),  # an inclusion: a column
        a=k_diag.copy(),
        h=np.zeros(len(X)),
        k_diag=k_diag,
        candidate=np.ones(len(X), dtype=bool),
        rows_done=np.zeros(len(X), dtype=int),
        L=np.zeros((d, d)),
        X_I=np.zeros((d, X.shape[1])),
        sqrt_p=np.zeros(d),
        c=np.zeros(d),
    )


def _candidate(block: ADFBlock, position: int, score: float, k: int) -> Candidate:
    return Candidate(
        index=block.first + position,
        score=score,
        x=block.X[position].copy(),
        y=float(block.y[position]),
        column=block.Vt[position, :k].copy(),
        a=float(block.a[position]),
        h=float(block.h[position]),
    )


def _best(block: ADFBlock, likelihood: Likelihood, k: int) -> Candidate | None:
    """The block's candidate of largest entropy reduction ``−½ log(1 − a w)``, among
    its selection index in the randomized phase. Before it the best of the rows not
    included (:func:`~sparsegp.approximations.adf_active_set.best_entropy_reduction`,
    in place: no copies of the block's rows)."""
    if block.index is not None:
        if not len(block.index):
            return None
        scores = entropy_reduction(
            likelihood, block.h[block.index], block.a[block.index], block.y[block.index]
        )
        best = int(np.argmax(scores))
        return _candidate(block, int(block.index[best]), float(scores[best]), k)
    best, score = best_entropy_reduction(
        likelihood, block.h, block.a, block.y, block.candidate
    )
    return None if best < 0 else _candidate(block, best, score, k)


def _log_predictive_sum(
    block: ADFBlock, points: np.ndarray, likelihood: Likelihood, kernel: Kernel, k: int
) -> float:
    """``Σ log p(y_j | x_j)`` over the block's rows among the training ``points``."""
    positions = points[(points >= block.first) & (points < block.first + len(block.y))]
    positions = positions - block.first
    _complete(block, positions, kernel, k)
    return float(
        np.sum(
            likelihood.log_predictive(
                block.h[positions], block.a[positions], block.y[positions]
            )
        )
    )


def _fetch(block: ADFBlock, index: int, k: int) -> Candidate | None:
    position = index - block.first
    if 0 <= position < len(block.y):
        return _candidate(block, position, np.nan, k)
    return None


def _include_and_best(
    block: ADFBlock,
    kernel: Kernel,
    included: Candidate,
    inclusion: Inclusion,
    k: int,
    likelihood: Likelihood,
) -> tuple[ADFBlock, Candidate | None]:
    """:func:`_include`, then the block's best candidate: one round per inclusion."""
    block = _include(block, kernel, included, inclusion, k)
    return block, _best(block, likelihood, k + 1)


def _include(
    block: ADFBlock,
    kernel: Kernel,
    included: Candidate,
    inclusion: Inclusion,
    k: int,
) -> ADFBlock:
    """Extend the block's current columns by the included point's row of ``V``.

    All columns until the randomized phase, then the selection index only; the
    block's copies of ``L``, ``X_I``, ``√p`` and ``c`` gain the new point's entries.
    """
    inclusion.write(block.L, block.c, k)
    block.X_I[k], block.sqrt_p[k] = included.x, inclusion.sqrt_p
    current = slice(None) if block.index is None else block.index
    k_row = kernel(included.x[None, :], block.X[current])[0]
    a, h = block.a[current], block.h[current]  # copies where ``current`` is an index
    block.Vt[current, k] = inclusion.extend(k_row, block.Vt[current, :k], a, h)
    block.a[current], block.h[current] = a, h
    block.rows_done[current] = k + 1
    position = included.index - block.first
    if 0 <= position < len(block.y):
        block.candidate[position] = False
        if block.index is not None:
            block.index = block.index[block.index != position]
    return block


def _complete(block: ADFBlock, positions: np.ndarray, kernel: Kernel, k: int) -> None:
    """Columns ``positions`` brought to ``k`` rows by the in-memory store's
    :func:`~sparsegp.approximations.adf_active_set.complete_columns`, the kernel rows
    of the active inputs the block keeps (``X_I``)."""
    stale = positions[block.rows_done[positions] < k]
    if not len(stale):
        return
    stale = stale[np.argsort(block.rows_done[stale], kind="stable")]
    Vt, a, h = block.Vt[stale, :k], block.a[stale], block.h[stale]  # copies

    def kernel_rows(start: int, stop: int, lacking: int) -> np.ndarray:
        rows = kernel(block.X_I[start:stop], block.X[stale[:lacking]])
        return block.sqrt_p[start:stop, None] * rows

    L = block.L[:k, :k].astype(Vt.dtype, copy=False)
    complete_columns(Vt, block.rows_done[stale], k, L, block.c, kernel_rows, a, h)
    block.Vt[stale, :k], block.a[stale], block.h[stale] = Vt, a, h
    block.rows_done[stale] = k


def _start_index(
    block: ADFBlock,
    seed: int,
    selection_size: int,
    n: int,
    likelihood: Likelihood,
    k: int,
) -> tuple[ADFBlock, Candidate | None]:
    """Enter the randomized phase: a selection index of the block's share of
    ``selection_size`` candidates, drawn with the block's own random stream."""
    block.rng = np.random.default_rng([seed, block.first])
    pool = np.flatnonzero(block.candidate)
    size = min(len(pool), max(1, round(selection_size * len(block.y) / n)))
    block.index = block.rng.choice(pool, size=size, replace=False)
    return block, _best(block, likelihood, k)


def _include_and_redraw(
    block: ADFBlock,
    kernel: Kernel,
    included: Candidate,
    inclusion: Inclusion,
    k: int,
    likelihood: Likelihood,
    retain: float,
) -> tuple[ADFBlock, Candidate | None]:
    """Randomized greedy in the block ([LSH02] §3, algorithms.md §1.5): include, keep
    the best ``⌊retain·|J|⌋`` of the index, redraw the rest, complete the newcomers."""
    size = len(block.index) if block.index is not None else 0
    block = _include(block, kernel, included, inclusion, k)
    assert block.index is not None and block.rng is not None
    index = block.index
    scores = entropy_reduction(
        likelihood, block.h[index], block.a[index], block.y[index]
    )
    kept = index[np.argsort(scores)[::-1]]
    kept = kept[: int(retain * size)]
    free = block.candidate.copy()
    free[kept] = False
    pool = np.flatnonzero(free)
    new = block.rng.choice(pool, size=min(len(pool), size - len(kept)), replace=False)
    _complete(block, new, kernel, k + 1)
    block.index = np.concatenate([kept, new])
    return block, _best(block, likelihood, k + 1)


class PartitionedActiveSet:
    """An IVM active set grown over :class:`Blocks` of :class:`ADFBlock`.

    Exposes what a fitted model needs of
    :class:`~sparsegp.approximations.adf_active_set.ADFActiveSet`: ``active``, the
    sites ``p`` and ``m`` (indexed by training point), ``likelihood`` and
    :meth:`predictor`.

    Parameters
    ----------
    blocks : Blocks
        From :func:`new_adf_block`, in row order.
    n : int
        Training points in all blocks.
    kernel : Kernel
    likelihood : Likelihood
    d : int
        Largest active set (the blocks' ``Vt`` width).
    """

    def __init__(
        self, blocks: Blocks, n: int, kernel: Kernel, likelihood: Likelihood, d: int
    ) -> None:
        self.blocks, self.kernel, self.likelihood = blocks, kernel, likelihood
        self.L = np.zeros((d, d))
        self.c = np.zeros(d)
        self.p, self.m = np.zeros(n), np.zeros(n)
        self.active: list[int] = []
        self.n = n
        self._bests: list[Candidate] | None = None

    @property
    def size(self) -> int:
        return len(self.active)

    def fetch(self, index: int) -> Candidate:
        """Point ``index`` from the block that holds it."""
        found = [c for c in self.blocks.map(_fetch, index, self.size) if c is not None]
        return found[0]

    def best(self) -> Candidate:
        """The candidate of largest entropy reduction over all blocks."""
        if self._bests is None:
            bests = self.blocks.map(_best, self.likelihood, self.size)
            self._bests = [c for c in bests if c is not None]
        return max(self._bests, key=lambda c: c.score)

    def include(
        self, point: Candidate, score: bool = True, retain: float | None = None
    ) -> None:
        """Add ``point`` (algorithms.md §1.3): sites and ``L`` here, columns in the blocks.

        With ``score``, the blocks return their best candidates in the same round
        (for :meth:`best`); with ``retain`` (the randomized phase of
        :meth:`grow_randomized`), they also renew their selection indices.
        """
        k = self.size
        inclusion = Inclusion.of(
            self.likelihood, point.a, point.h, point.y, point.column
        )
        self.p[point.index], self.m[point.index] = inclusion.p, inclusion.m
        inclusion.write(self.L, self.c, k)
        self._bests = None
        if retain is not None:
            bests = self.blocks.update_and_map(
                _include_and_redraw,
                self.kernel,
                point,
                inclusion,
                k,
                self.likelihood,
                retain,
            )
        elif score:
            bests = self.blocks.update_and_map(
                _include_and_best, self.kernel, point, inclusion, k, self.likelihood
            )
        else:
            self.blocks.update(_include, self.kernel, point, inclusion, k)
        if retain is not None or score:
            self._bests = [c for c in bests if c is not None]
        self.active.append(point.index)

    def grow_random(
        self, d: int, rng: np.random.RandomState, *, progress: Progress | None = None
    ) -> None:
        """Include uniform draws up to ``d`` points (the baseline)."""
        for index in rng.choice(self.n, size=d - self.size, replace=False):
            self.include(self.fetch(int(index)), score=False)
            advance(progress)

    def grow_greedy(
        self,
        d: int,
        rng: np.random.RandomState,
        *,
        n_random_start: int = 2,
        progress: Progress | None = None,
    ) -> None:
        """``n_random_start`` uniform draws, then the best of every block's candidates."""
        while self.size < d:
            if self.size < n_random_start:
                pool = np.setdiff1d(np.arange(self.n), self.active)
                self.include(self.fetch(int(rng.choice(pool))))
            else:
                self.include(self.best())
            advance(progress)

    def grow_randomized(
        self,
        d: int,
        rng: np.random.RandomState,
        *,
        selection_size: int = 500,
        retain: float = 0.5,
        progress: Progress | None = None,
    ) -> None:
        """Randomized greedy in the blocks ([LSH02] §3, algorithms.md §1.5): each block
        keeps a selection index of its share of ``selection_size`` candidates (its own
        random stream), ``retain`` of it kept at each inclusion and the rest redrawn
        and completed there; the best over the blocks' indices is included."""
        if self.size >= d:
            return
        bests = self.blocks.update_and_map(
            _start_index,
            int(rng.randint(2**31)),
            selection_size,
            self.n,
            self.likelihood,
            self.size,
        )
        self._bests = [c for c in bests if c is not None]
        while self.size < d:
            self.include(self.best(), retain=retain)
            advance(progress)

    def held_out_nlp(self, points: np.ndarray) -> float:
        """Mean predictive NLP of training ``points``, stale columns completed first."""
        points = np.asarray(points, dtype=int)
        total = sum(
            self.blocks.map(
                _log_predictive_sum, points, self.likelihood, self.kernel, self.size
            )
        )
        return -total / len(points)

    def close(self) -> None:
        """Free the blocks where they live (a cluster's workers): the selection and
        its held-out scores are done."""
        self.blocks.close()

    def predictor(self) -> Predictor:
        """[LSH02] eq. 5's predictor from the active set's sites."""
        return active_set_predictor(self.L, self.c, self.p[self.active])


if TYPE_CHECKING:  # mypy checks that both stores implement the protocol
    _STORES: tuple[type[GrowingActiveSet], ...] = (
        InMemorySelection,
        PartitionedActiveSet,
    )
