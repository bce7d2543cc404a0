"""The ADF active-set state shared by the IVM and the NLP method (algorithms.md §1.2-1.5).

A Gaussian approximation ``N(f | h, A)`` of the posterior over all n training latents,
with sites only on an active set ``I`` (Lawrence, Seeger & Herbrich 2002, eq. 1). It is
stored as ``L`` (k×k, ``L Lᵀ = I + Π½ K_I Π½``), ``V`` (k×n, ``V = L⁻¹ Π½ K_{I,·}``; the
paper's ``M``), ``c`` (``h = Vᵀ c``) and the marginals ``a = diag(A)``, ``h``. No n×n
matrix is ever formed: including a point costs O(n·k) (eqs. 2-3), scoring all
candidates O(n) (eq. 4).

``V`` is held transposed (``Vt``, n × d, one contiguous row per training point), so a
point's column is one contiguous read. Columns may be left stale and completed on
demand (the delayed updating of the randomized greedy selection, algorithms.md §1.5):
``rows_done[j]`` counts the rows of column j that are current, and ``a[j]``, ``h[j]``
are the marginals at those rows (completing a column only adds its new rows' terms).
Work on a set of points
goes through :class:`CurrentColumns`, a contiguous copy of their columns kept current
as points are included; :meth:`ADFActiveSet.every_column` is the same view onto the
whole store, without a copy.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from .._linalg import (
    cholesky_jitter,
    log_det_from_cholesky,
    matvec,
    solve_lower,
    solve_lower_in_place,
    solve_lower_transpose,
)
from .._memory import require_memory
from ..kernels import KernelBlocks, KernelColumns
from ..likelihoods import Likelihood, Probit, probit_curvature
from .blocks import balanced_row_ranges, mapped_on
from .predictor import Predictor
from .sweep_kernels import probit_score_bounds

__all__ = [
    "ADFActiveSet",
    "CurrentColumns",
    "Inclusion",
    "active_set_log_evidence",
    "active_set_predictor",
    "best_entropy_reduction",
    "entropy_reduction",
    "factor_from_sites",
]

#: Rows per block of the blocked forward substitution in :meth:`ADFActiveSet.gather`.
_ROW_BLOCK = 128

#: The most columns :meth:`ADFActiveSet.complete` completes at once.
_COMPLETE_PIECE = 4096


def complete_columns(
    Vt: np.ndarray,
    held: np.ndarray,
    k: int,
    L: np.ndarray,
    c: np.ndarray,
    kernel_rows: Callable[[int, int, int], np.ndarray],
    a: np.ndarray,
    h: np.ndarray,
) -> None:
    """Complete the rows ``held[j]:k`` of columns ``V_{·j} = L⁻¹ Π½ K_{I,j}``, in place,
    and their ``a_j = k_jj − Σ_t V_tj²``, ``h_j = Σ_t c_t V_tj`` (algorithms.md §1.2) by
    the new rows' terms (in float64 whatever V's precision).

    A blocked forward substitution over row blocks of ``_ROW_BLOCK`` (algorithms.md
    §1.5): sorted by ``held``, the columns lacking rows of a block are a prefix of the
    set, so each block is one kernel block, one product with the rows above it and one
    triangular solve: O((k − rows held)·k) a column, plus at most one block of rows.

    ``Vt`` (m × ≥ k) holds the columns as rows, sorted by ``held`` (ascending), each
    current in its first ``held[j]`` entries, as ``a``, ``h`` are; ``L`` is the factor
    in ``Vt``'s dtype, zeros above its diagonal; ``kernel_rows(start, stop, lacking)``
    gives ``Π½ K`` of the active points ``start:stop`` against the first ``lacking``
    columns.
    """
    if not len(held) or held[0] >= k:
        return
    for start in range(int(held[0]) // _ROW_BLOCK * _ROW_BLOCK, k, _ROW_BLOCK):
        stop = min(start + _ROW_BLOCK, k)
        lacking = int(np.searchsorted(held, stop))
        V = Vt[:lacking].T
        L_block = L[start:stop, start:stop]
        rhs = kernel_rows(start, stop, lacking).astype(V.dtype, copy=False)
        if start:
            rhs -= L[start:stop, :start] @ V[:start]
        partial = slice(int(np.searchsorted(held, start, side="right")), lacking)
        if partial.start < lacking:
            # rows held in this block: given L_block x (L is stored with zeros
            # above its diagonal), the solve returns them
            known = np.arange(start, stop)[:, None] < held[None, partial]
            rhs[:, partial] = np.where(
                known, L_block @ (V[start:stop, partial] * known), rhs[:, partial]
            )
        V[start:stop] = solve_lower_in_place(L_block, rhs)
        new = V[start:stop]
        if partial.start < lacking:
            new = new.copy()
            new[:, partial] *= ~known
        a[:lacking] -= np.einsum("ij,ij->j", new, new, dtype=float)
        h[:lacking] += matvec(new.T, c[start:stop].astype(new.dtype))


def entropy_reduction(
    likelihood: Likelihood, h: np.ndarray, a: np.ndarray, y: np.ndarray
) -> np.ndarray:
    """The IVM's score ``Δ_j = −½ log(1 − a_j w_j)`` ([LSH02] eq. 4) of points with
    marginals ``h``, ``a`` and labels ``y``: the differential-entropy reduction of
    including each."""
    return -0.5 * np.log1p(-a * likelihood.curvature(h, a, y))


#: The grid of ``z`` on which :func:`best_entropy_reduction` bounds the probit's
#: curvature ``c(z)``, eight cells a unit over ``[−40, 40]``, and ``c`` at each cell's
#: left end: ``c`` decreases, so it bounds the cell (raised by 1e-10 for the rounding
#: of the scores' own ``c``, ``s²`` and the series' join at ``z = −30``, 2e-11).
_Z_FIRST, _CELLS_PER_UNIT = -40.0, 8.0
_CURVATURE_CEILING = probit_curvature(
    np.arange(_Z_FIRST, 40.0 + 0.5 / _CELLS_PER_UNIT, 1.0 / _CELLS_PER_UNIT)
) * (1.0 + 1e-10)


def best_entropy_reduction(
    likelihood: Likelihood,
    h: np.ndarray,
    a: np.ndarray,
    y: np.ndarray,
    candidate: np.ndarray,
) -> tuple[int, float]:
    """``argmax`` of :func:`entropy_reduction` over the ``candidate`` points (the
    first of equals, as ``np.argmax``) and its score; ``(-1, -inf)`` without one.

    On the probit only the points whose score can reach the best are scored: a bound
    of every ``a_j w_j`` (its curvature at the left end of a grid cell of ``z``,
    :func:`~sparsegp.approximations.sweep_kernels.probit_score_bounds`), the exact
    score of the point of largest bound, then the exact scores of the points whose
    bound reaches it — a few per 10⁴ after the first inclusions (algorithms.md §1.4).
    The scores are those of the full pass, so is the choice: the erfcx of every point
    took two thirds of a greedy selection at n = 10⁶.
    """
    if not isinstance(likelihood, Probit):
        return _best_of_all(likelihood, h, a, y, candidate)
    h, a, y = (np.ascontiguousarray(v, dtype=float) for v in (h, a, y))
    bounds, seed = probit_score_bounds(
        h,
        a,
        y,
        np.ascontiguousarray(candidate, dtype=bool),
        likelihood.bias,
        likelihood.slope,
        _CURVATURE_CEILING,
        _Z_FIRST,
        _CELLS_PER_UNIT,
    )
    reached = (
        entropy_reduction(
            likelihood, h[seed : seed + 1], a[seed : seed + 1], y[seed : seed + 1]
        )[0]
        if seed >= 0
        else np.nan
    )
    if not np.isfinite(reached):  # no candidate, or marginals not numbers: as before
        return _best_of_all(likelihood, h, a, y, candidate)
    # Δ ≥ reached ⇔ a w ≥ 1 − e^{−2·reached}, lowered by 1e-9 for the rounding of both
    rows = np.flatnonzero(bounds >= -np.expm1(-2.0 * reached) * (1.0 - 1e-9))
    scores = entropy_reduction(likelihood, h[rows], a[rows], y[rows])
    best = int(np.argmax(scores))
    return int(rows[best]), float(scores[best])


def _best_of_all(
    likelihood: Likelihood,
    h: np.ndarray,
    a: np.ndarray,
    y: np.ndarray,
    candidate: np.ndarray,
) -> tuple[int, float]:
    """:func:`best_entropy_reduction` by scoring every candidate."""
    scores = entropy_reduction(likelihood, h, a, y)
    scores[~candidate] = -np.inf
    best = int(np.argmax(scores))
    return (best, float(scores[best])) if candidate[best] else (-1, -np.inf)


@dataclass(frozen=True)
class Inclusion:
    """What including one point adds to the ADF state (algorithms.md §1.3).

    Attributes
    ----------
    p, m : float
        The point's site precision and mean.
    sqrt_p : float
        ``√p``.
    row : ndarray of shape (k,)
        The new row of ``L`` left of its diagonal, ``√p V_{·i}``.
    l0 : float
        The new diagonal entry of ``L``, ``√(1 + p a_i)``.
    c : float
        The new entry of ``c``, ``g / √w``.
    """

    p: float
    m: float
    sqrt_p: float
    row: np.ndarray
    l0: float
    c: float

    @classmethod
    def of(
        cls, likelihood: Likelihood, a: float, h: float, y: float, column: np.ndarray
    ) -> Inclusion:
        """The inclusion of a point with marginals ``a``, ``h``, label ``y`` and
        current column ``V_{·i}`` (ADF moment matching, Lemma P of §0.2)."""
        mom = likelihood.moments(np.array([h]), np.array([a]), np.array([y]))
        g, w = float(mom.g[0]), float(mom.w[0])
        p = w / (1.0 - a * w)
        sqrt_p = np.sqrt(p)
        return cls(
            p, h + g / w, sqrt_p, sqrt_p * column, np.sqrt(1.0 + p * a), g / np.sqrt(w)
        )

    def write(self, L: np.ndarray, c: np.ndarray, k: int) -> None:
        """Put the new row of ``L`` and entry of ``c`` at position ``k``."""
        L[k, :k], L[k, k] = self.row, self.l0
        c[k] = self.c

    def extend(
        self, k_row: np.ndarray, Vt: np.ndarray, a: np.ndarray, h: np.ndarray
    ) -> np.ndarray:
        """The new entry ``v_j = (√p k(x_i, x_j) − V_{·j}ᵀ r)/l₀`` of each column in
        ``Vt`` (rows × k), with ``a −= v²`` and ``h += c v`` applied in place."""
        v = self.sqrt_p * k_row - matvec(Vt, self.row.astype(Vt.dtype))
        v /= self.l0
        a -= v * v
        h += self.c * v
        return v


@dataclass
class CurrentColumns:
    """The columns of ``V`` for a set of training points, current to ``size`` rows.

    Attributes
    ----------
    points : ndarray of shape (S,)
        Training indices.
    Vt : ndarray of shape (S, max_size)
        Row ``s`` holds ``V[:size, points[s]]`` in its first ``size`` entries.
    a, h : ndarray of shape (S,)
        The marginals of the points.
    kernel_columns : KernelColumns
        The points prepared for kernel blocks.
    size : int
        The active-set size these columns are current to.
    """

    points: np.ndarray
    Vt: np.ndarray
    a: np.ndarray
    h: np.ndarray
    kernel_columns: KernelColumns
    size: int

    def replace(self, positions: np.ndarray, other: CurrentColumns) -> None:
        """Overwrite the points at ``positions`` with ``other``'s, in place."""
        if other.size != self.size:
            raise ValueError("Both column sets must be current to the same size.")
        k = self.size
        self.points[positions] = other.points
        self.Vt[positions, :k] = other.Vt[:, :k]
        self.a[positions] = other.a
        self.h[positions] = other.h
        self.kernel_columns.replace(positions, other.kernel_columns)

    @staticmethod
    def concatenate(first: CurrentColumns, second: CurrentColumns) -> CurrentColumns:
        """The points of ``first`` followed by those of ``second`` (a copy)."""
        if first.size != second.size:
            raise ValueError("Both column sets must be current to the same size.")
        return CurrentColumns(
            np.concatenate([first.points, second.points]),
            np.concatenate([first.Vt, second.Vt]),
            np.concatenate([first.a, second.a]),
            np.concatenate([first.h, second.h]),
            KernelColumns.concatenate(first.kernel_columns, second.kernel_columns),
            first.size,
        )

    def take(self, positions: np.ndarray) -> CurrentColumns:
        """The points at ``positions`` (a copy)."""
        return CurrentColumns(
            self.points[positions],
            self.Vt[positions],
            self.a[positions],
            self.h[positions],
            self.kernel_columns.take(positions),
            self.size,
        )


class ADFActiveSet:
    """Incremental ADF posterior with sites on a growing active set.

    Parameters
    ----------
    kernel_blocks : KernelBlocks
        The kernel on the training inputs.
    k_diag : ndarray of shape (n,)
        ``diag K``.
    y : ndarray of shape (n,)
        Labels (probit) or targets (Gaussian).
    likelihood : Probit or Gaussian
        Supplies ``moments(mu, var, y)``.
    max_size : int
        Largest active set to be held (preallocates O(n·max_size) memory; a
        ``MemoryError`` before any work if it will not fit).
    dtype : numpy float dtype, default=float64
        Precision of ``V`` (and of a copy of ``L`` used with it). ``float32`` halves
        the O(n·d) memory and runs the completion's products about twice as fast; the
        marginals ``a``, ``h``, the sites and ``L`` stay in float64.
    layout : {"C", "F"}, default="C"
        The store's order: ``"C"`` (each column of ``V`` a contiguous row of the
        store) for sets gathered point by point; ``"F"`` (each row of ``V`` a
        contiguous column) for a selection that extends every column at each
        inclusion (full greedy to ``max_size``), which then writes one contiguous
        column and reads the store by a column-major GEMV.
    """

    def __init__(
        self,
        kernel_blocks: KernelBlocks,
        k_diag: np.ndarray,
        y: np.ndarray,
        likelihood: Likelihood,
        max_size: int,
        dtype: npt.DTypeLike = np.float64,
        layout: Literal["C", "F"] = "C",
    ) -> None:
        n = len(y)
        store = np.dtype(dtype)
        require_memory(
            store.itemsize * n * max_size,
            f"The active-set store V ({max_size} × {n} {store.name})",
            "lower active_set_size (or max_basis_vectors), or fit on a subsample",
        )
        self.kernel_blocks = kernel_blocks
        self.k_diag = np.asarray(k_diag, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.likelihood = likelihood
        self.L = np.zeros((max_size, max_size))
        #: ``L`` in V's precision, for the products and solves with ``V``.
        self.L_v = self.L if store == self.L.dtype else self.L.astype(store)
        self.Vt: np.ndarray = np.zeros((n, max_size), dtype=store, order=layout)
        self.c = np.zeros(max_size)
        self.a = self.k_diag.copy()
        self.h = np.zeros(n)
        self.p = np.zeros(n)
        self.m = np.zeros(n)
        self.rows_done = np.zeros(n, dtype=int)
        self.active: list[int] = []

    @property
    def size(self) -> int:
        """Number of points included so far."""
        return len(self.active)

    @property
    def V(self) -> np.ndarray:
        """``V`` (k × n) as a view of the store; only current columns are meaningful."""
        return self.Vt[:, : self.size].T

    def every_column(self) -> CurrentColumns:
        """All n columns, completed where stale, as a view onto the store (no copy)."""
        self.complete(np.flatnonzero(self.rows_done < self.size))
        return CurrentColumns(
            np.arange(len(self.y)),
            self.Vt,
            self.a,
            self.h,
            self.kernel_blocks.columns(),
            self.size,
        )

    def gather(
        self,
        points: npt.ArrayLike,
        width: int | None = None,
        layout: Literal["C", "F"] = "C",
    ) -> CurrentColumns:
        """A current copy of the columns of ``points``, ordered by the rows they hold.

        ``width`` is the room for rows in the copy: ``max_size`` by default, so the
        set can be extended by :meth:`include`; the current size if it will be copied
        elsewhere. ``layout="F"`` lays the copy out row of V by row of V: each
        :meth:`include` then writes its new row contiguously and reads the rows
        above it by one column-major GEMV — for a set of all n points (full greedy
        selection), where a C-ordered copy would touch n cache lines per row.

        Stale columns are completed by :func:`complete_columns`.
        """
        points = np.asarray(points, dtype=int)
        held = self.rows_done[points]
        order = np.argsort(held, kind="stable")
        points, held = points[order], held[order]
        k = self.size
        Vt = np.empty(
            (len(points), self.Vt.shape[1] if width is None else width),
            self.Vt.dtype,
            order=layout,
        )
        Vt[:, :k] = self.Vt[points, :k]
        kernel_columns = self.kernel_blocks.columns(points, layout)
        a, h = self.a[points], self.h[points]  # current at the rows held
        self._forward_substitute(Vt, held, kernel_columns, a, h)
        return CurrentColumns(points, Vt, a, h, kernel_columns, k)

    def _forward_substitute(
        self,
        Vt: np.ndarray,
        held: np.ndarray,
        kernel_columns: KernelColumns,
        a: np.ndarray,
        h: np.ndarray,
    ) -> None:
        """:func:`complete_columns` with this store's factor, sites and kernel rows."""
        active = np.asarray(self.active, dtype=int)
        sqrt_p = np.sqrt(self.p[active])

        def kernel_rows(start: int, stop: int, lacking: int) -> np.ndarray:
            return self.kernel_blocks.block(
                active[start:stop],
                kernel_columns,
                lacking,
                row_scale=sqrt_p[start:stop],
            )

        complete_columns(Vt, held, self.size, self.L_v, self.c, kernel_rows, a, h)

    def release(
        self, columns: CurrentColumns, positions: np.ndarray | slice = slice(None)
    ) -> None:
        """Store the columns at ``positions`` of a gathered set back, current.

        A column is written from the row block (of ``_ROW_BLOCK``) holding its first
        stale row: :meth:`gather` copied the rows above it from the store and the
        forward substitution left them untouched, so the store is the same as if the
        whole column were written, at a fraction of the memory traffic.
        """
        k = columns.size
        positions = np.arange(len(columns.points))[positions]
        points = columns.points[positions]
        first_block = self.rows_done[points] // _ROW_BLOCK * _ROW_BLOCK
        order = np.argsort(first_block, kind="stable")
        first_block = first_block[order]
        for start in range(int(first_block[0]) if len(order) else k, k, _ROW_BLOCK):
            count = int(np.searchsorted(first_block, start, side="right"))
            stop = min(start + _ROW_BLOCK, k)
            self.Vt[points[order[:count]], start:stop] = columns.Vt[
                positions[order[:count]], start:stop
            ]
        self.a[points] = columns.a[positions]
        self.h[points] = columns.h[positions]
        self.rows_done[points] = k

    def complete(self, points: npt.ArrayLike, pool: Executor | None = None) -> None:
        """Bring the stored columns of ``points`` (and their ``a``, ``h``) up to date.

        The stale ones in pieces of at most ``_COMPLETE_PIECE``, each gathered and
        released on its own: they touch different rows of the store, so the thread
        ``pool`` (this thread without) works on them at once, and the pieces depend on
        the points alone, so the columns do not depend on the pool."""
        points = np.asarray(points, dtype=int)
        stale = points[self.rows_done[points] < self.size]
        if not len(stale):
            return

        def complete_piece(bounds: tuple[int, int]) -> None:
            self.release(self.gather(stale[bounds[0] : bounds[1]], width=self.size))

        mapped_on(
            pool, complete_piece, balanced_row_ranges(len(stale), _COMPLETE_PIECE)
        )

    def held_out_nlp(self, points: np.ndarray) -> float:
        """Mean predictive NLP of training ``points`` (outside the active set), their
        columns completed first ([LSH02] §3's O(n) criterion)."""
        return float(-np.mean(self.held_out_log_predictive(points)))

    def held_out_log_predictive(
        self, points: np.ndarray, pool: Executor | None = None
    ) -> np.ndarray:
        """``log p(y_j | h_j, a_j)`` of each of the training ``points``, their columns
        completed first (by :meth:`complete`, on ``pool``)."""
        self.complete(points, pool)
        return self.likelihood.log_predictive(
            self.h[points], self.a[points], self.y[points]
        )

    def entropy_scores(self, columns: CurrentColumns) -> np.ndarray:
        """:func:`entropy_reduction` of the points of ``columns``."""
        return entropy_reduction(
            self.likelihood, columns.h, columns.a, self.y[columns.points]
        )

    def best_entropy_score(
        self, columns: CurrentColumns, candidate: np.ndarray
    ) -> tuple[int, float]:
        """:func:`best_entropy_reduction` over the ``candidate`` points of
        ``columns`` (a mask by position): their position and score."""
        return best_entropy_reduction(
            self.likelihood, columns.h, columns.a, self.y[columns.points], candidate
        )

    def include(
        self,
        position: int,
        columns: CurrentColumns,
        also: tuple[CurrentColumns, ...] = (),
    ) -> None:
        """Add ``columns.points[position]`` to the active set (algorithms.md §1.3).

        The new row of ``V`` (O(k) per column) extends every column of ``columns`` and
        of the sets in ``also`` (e.g. the validation points of the NLP selection);
        other stored columns become stale and are completed later by :meth:`gather`.
        """
        k = self.size
        for extended in (columns, *also):
            if extended.size != k:
                raise ValueError(
                    f"columns are current to {extended.size} rows, the active set has "
                    f"{k}; gather() them again before including from them."
                )
        i = int(columns.points[position])
        inclusion = Inclusion.of(
            self.likelihood,
            columns.a[position],
            columns.h[position],
            self.y[i],
            columns.Vt[position, :k].astype(float),
        )
        self.p[i], self.m[i] = inclusion.p, inclusion.m
        inclusion.write(self.L, self.c, k)
        if self.L_v is not self.L:
            self.L_v[k, : k + 1] = self.L[k, : k + 1]
        for extended in (columns, *also):
            k_row = self.kernel_blocks.block([i], extended.kernel_columns)[0]
            extended.Vt[:, k] = inclusion.extend(
                k_row, extended.Vt[:, :k], extended.a, extended.h
            )
            extended.size = k + 1
            if extended.Vt is self.Vt:
                self.rows_done[:] = k + 1
        self.active.append(i)

    def close(self) -> None:
        """Nothing held elsewhere: the store goes with this object
        (:meth:`~sparsegp.approximations.partitioned_ivm.PartitionedActiveSet.close`
        frees a cluster's blocks)."""

    def predictor(self) -> Predictor:
        """Prediction from the active set ([LSH02] eq. 5), frozen; the O(n·d) state is not kept.

        With sites ``Π_I`` on the active set this is the dense EP predictor of
        [RW06] Alg. 3.6 on ``I``: ``L``, ``Π_I½`` and ``β = Π_I½ L⁻ᵀ c`` (mean
        ``k_I(x)ᵀβ``, variance ``k** − ‖L⁻¹ Π_I½ k_I‖²``).
        """
        return active_set_predictor(self.L, self.c, self.p[self.active])


def factor_from_sites(
    K_I: np.ndarray, p: np.ndarray, m: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``L`` and ``c`` of an active set rebuilt from its kernel and sites, in O(d³).

    ``L`` is the Cholesky factor of ``I + Π½ K_I Π½`` (the one the inclusions built row
    by row) and ``c = L⁻¹ Π½ m`` (so that ``h = Vᵀc`` is the posterior mean
    ``K (K_I + Π⁻¹)⁻¹ m``): what :func:`active_set_predictor` and
    :func:`active_set_log_evidence` take, without the O(n·d) state.
    """
    sqrt_p = np.sqrt(p)
    L = cholesky_jitter(
        np.eye(len(p)) + sqrt_p[:, None] * K_I * sqrt_p, what="B = I + Π½KΠ½"
    )
    return L, solve_lower(L, sqrt_p * m)


def active_set_log_evidence(
    L: np.ndarray, c: np.ndarray, p_active: np.ndarray
) -> float:
    """``L_IVM = log N(m_I | 0, K_I + Π_I⁻¹)`` (algorithms.md §1.8) from the state, in O(d).

    With ``B = I + Π½ K_I Π½ = L Lᵀ`` and ``c = L⁻¹ Π½ m``:
    ``log|K_I + Π⁻¹| = 2 Σ log L_ii − Σ log p_i`` and ``mᵀ(K_I + Π⁻¹)⁻¹m = ‖c‖²``; no
    d × d kernel matrix or O(d³) solve (algorithms.md §0.6).
    """
    k = len(p_active)
    log_det = log_det_from_cholesky(L[:k, :k]) - np.sum(np.log(p_active))
    return float(-0.5 * (log_det + c[:k] @ c[:k] + k * np.log(2.0 * np.pi)))


def active_set_predictor(
    L: np.ndarray, c: np.ndarray, p_active: np.ndarray
) -> Predictor:
    """[LSH02] eq. 5's predictor from the first ``k = len(p_active)`` rows of ``L``, ``c``.

    ``β = Π_I½ L⁻ᵀ c``: mean ``k_I(x)ᵀβ``, variance ``k** − ‖L⁻¹ Π_I½ k_I‖²``.
    """
    k = len(p_active)
    sqrt_p = np.sqrt(p_active)
    beta = sqrt_p * solve_lower_transpose(L[:k, :k], c[:k])
    return Predictor(weights=beta, chol=L[:k, :k].copy(), scale=sqrt_p)
