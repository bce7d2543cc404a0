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
the sites. Full greedy and uniform selection, all columns kept current; the arithmetic
is :class:`~sparsegp.approximations.adf_active_set.ADFActiveSet`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.gaussian_process.kernels import Kernel

from ..likelihoods import Likelihood
from .adf_active_set import active_set_predictor
from .ep import DensePredictor
from .partitioned_fitc import Blocks

__all__ = [
    "ADFBlock",
    "Candidate",
    "PartitionedActiveSet",
    "new_adf_block",
    "select_over_blocks",
]


@dataclass
class ADFBlock:
    """One block's share of the ADF state; its arrays are updated in place."""

    X: np.ndarray
    y: np.ndarray
    first: int
    Vt: np.ndarray
    a: np.ndarray
    h: np.ndarray
    candidate: np.ndarray


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
    X: np.ndarray, y: np.ndarray, first: int, kernel: Kernel, d: int
) -> ADFBlock:
    """Rows ``first, first + 1, …`` of the data, with the prior marginals ``a = diag K``."""
    X = np.asarray(X, dtype=float)
    return ADFBlock(
        X=X,
        y=np.asarray(y, dtype=float),
        first=first,
        Vt=np.zeros((len(X), d)),
        a=np.asarray(kernel.diag(X), dtype=float),
        h=np.zeros(len(X)),
        candidate=np.ones(len(X), dtype=bool),
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
    """The block's candidate of largest entropy reduction ``−½ log(1 − a w)``."""
    pool = np.flatnonzero(block.candidate)
    if not len(pool):
        return None
    w = likelihood.moments(block.h[pool], block.a[pool], block.y[pool]).w
    scores = -0.5 * np.log1p(-block.a[pool] * w)
    best = int(np.argmax(scores))
    return _candidate(block, int(pool[best]), float(scores[best]), k)


def _log_predictive_sum(
    block: ADFBlock, points: np.ndarray, likelihood: Likelihood
) -> float:
    """``Σ log p(y_j | x_j)`` over the block's rows among the training ``points``."""
    positions = points[(points >= block.first) & (points < block.first + len(block.y))]
    positions = positions - block.first
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
    step: tuple[float, np.ndarray, float, float],
    k: int,
    likelihood: Likelihood,
) -> tuple[ADFBlock, Candidate | None]:
    """:func:`_include`, then the block's best candidate: one round per inclusion."""
    block = _include(block, kernel, included, step, k)
    return block, _best(block, likelihood, k + 1)


def _include(
    block: ADFBlock,
    kernel: Kernel,
    included: Candidate,
    step: tuple[float, np.ndarray, float, float],
    k: int,
) -> ADFBlock:
    """Extend the block's columns by the included point's row of ``V`` (in place)."""
    sqrt_p, row, l0, c_k = step
    k_row = kernel(included.x[None, :], block.X)[0]
    v = (sqrt_p * k_row - block.Vt[:, :k] @ row) / l0
    block.Vt[:, k] = v
    block.a -= v * v
    block.h += c_k * v
    position = included.index - block.first
    if 0 <= position < len(block.y):
        block.candidate[position] = False
    return block


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

    def include(self, point: Candidate, score: bool = True) -> None:
        """Add ``point`` (algorithms.md §1.3): sites and ``L`` here, columns in the blocks.

        With ``score``, the blocks return their best candidates in the same round
        (for :meth:`best`).
        """
        k = self.size
        mom = self.likelihood.moments(
            np.array([point.h]), np.array([point.a]), np.array([point.y])
        )
        g, w = float(mom.g[0]), float(mom.w[0])
        p_i = w / (1.0 - point.a * w)
        self.p[point.index], self.m[point.index] = p_i, point.h + g / w
        sqrt_p = np.sqrt(p_i)
        row = sqrt_p * point.column
        l0 = np.sqrt(1.0 + p_i * point.a)
        self.L[k, :k], self.L[k, k] = row, l0
        self.c[k] = g / np.sqrt(w)
        step = (sqrt_p, row, l0, self.c[k])
        self._bests = None
        if score:
            bests = self.blocks.update_and_map(
                _include_and_best, self.kernel, point, step, k, self.likelihood
            )
            self._bests = [c for c in bests if c is not None]
        else:
            self.blocks.update(_include, self.kernel, point, step, k)
        self.active.append(point.index)

    def held_out_nlp(self, points: np.ndarray) -> float:
        """Mean predictive NLP of training ``points`` (every block's columns are current)."""
        points = np.asarray(points, dtype=int)
        total = sum(self.blocks.map(_log_predictive_sum, points, self.likelihood))
        return -total / len(points)

    def predictor(self) -> DensePredictor:
        """[LSH02] eq. 5's predictor from the active set's sites."""
        return active_set_predictor(self.L, self.c, self.p[self.active])


def select_over_blocks(
    state: PartitionedActiveSet,
    d: int,
    rng: np.random.RandomState,
    *,
    strategy: str = "greedy",
    n_random_start: int = 2,
) -> PartitionedActiveSet:
    """Grow ``state`` to ``d`` points: ``"greedy"`` ([LSH02] §3, ``n_random_start``
    uniform draws first) or ``"random"``, drawing as
    :func:`~sparsegp.approximations.ivm.select_active_set` does."""
    if strategy == "random":
        for index in rng.choice(state.n, size=d - state.size, replace=False):
            state.include(state.fetch(int(index)), score=False)
        return state
    while state.size < d:
        if state.size < n_random_start:
            pool = np.setdiff1d(np.arange(state.n), state.active)
            state.include(state.fetch(int(rng.choice(pool))))
        else:
            state.include(state.best())
    return state
