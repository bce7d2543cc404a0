"""The ADF active-set state shared by the IVM and the NLP method (ALGORITHMS.md §1.2-1.5).

A Gaussian approximation ``N(f | h, A)`` of the posterior over all n training latents,
with sites only on an active set ``I`` (Lawrence, Seeger & Herbrich 2002, eq. 1). It is
stored as ``L`` (k×k, ``L Lᵀ = I + Π½ K_I Π½``), ``V`` (k×n, ``V = L⁻¹ Π½ K_{I,·}``; the
paper's ``M``), ``c`` (``h = Vᵀ c``) and the marginals ``a = diag(A)``, ``h``. No n×n
matrix is ever formed: including a point costs O(n·k) (eqs. 2-3), scoring all
candidates O(n) (eq. 4).

Columns of ``V`` may be left stale and completed on demand (the delayed updating of the
randomized greedy selection, §1.5): ``rows_done[j]`` counts the rows of column j that
are current, and ``a[j]``, ``h[j]`` are valid only where ``rows_done[j] == size``.
"""

from __future__ import annotations

import numpy as np

from .._linalg import solve_lower, solve_lower_transpose

__all__ = ["ADFActiveSet"]

#: Rows per block of the blocked forward substitution in :meth:`ADFActiveSet.complete`.
_ROW_BLOCK = 64


class ADFActiveSet:
    """Incremental ADF posterior with sites on a growing active set.

    Parameters
    ----------
    kernel_block : callable ``(rows, cols) -> ndarray``
        Kernel entries ``K[rows][:, cols]`` for index arrays into the training set;
        ``cols=None`` means all columns (no copy of the inputs is needed then).
    k_diag : ndarray of shape (n,)
        ``diag K``.
    y : ndarray of shape (n,)
        Labels (probit) or targets (Gaussian).
    likelihood : Probit or Gaussian
        Supplies ``moments(mu, var, y)``.
    max_size : int
        Largest active set to be held (preallocates O(n·max_size) memory).
    """

    def __init__(self, kernel_block, k_diag, y, likelihood, max_size):
        n = len(y)
        self.kernel_block = kernel_block
        self.k_diag = np.asarray(k_diag, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.likelihood = likelihood
        self.L = np.zeros((max_size, max_size))
        self.V = np.zeros((max_size, n))
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

    def store_columns_contiguously(self):
        """Re-store ``V`` column-major, for selections that gather a few columns per step.

        Full greedy writes a whole row of ``V`` per inclusion (row-major is faster);
        randomized greedy reads and writes the columns of its selection index.
        """
        if not self.V.flags.f_contiguous:
            V = np.zeros(self.V.shape, order="F")
            V[: self.size] = self.V[: self.size]
            self.V = V

    def complete(self, columns):
        """Bring the listed columns of ``V`` (and their ``a``, ``h``) up to date.

        A blocked forward substitution (ALGORITHMS.md §1.5) over row blocks of
        ``_ROW_BLOCK``: each block is solved for the stale columns that lack any of its
        rows, so a column costs O((k − rows held)·k) plus at most one block of rows
        recomputed, whatever mix of row counts the columns hold.
        """
        columns = np.asarray(columns, dtype=int)
        k = self.size
        stale = columns[self.rows_done[columns] < k]
        if len(stale) == 0:
            return
        active = np.asarray(self.active)
        sqrt_p = np.sqrt(self.p[active])
        held = self.rows_done[stale]
        first = int(held.min()) // _ROW_BLOCK * _ROW_BLOCK
        for start in range(first, k, _ROW_BLOCK):
            stop = min(start + _ROW_BLOCK, k)
            group = stale[held < stop]
            rhs = sqrt_p[start:stop, None] * self.kernel_block(
                active[start:stop], group
            )
            rhs -= self.L[start:stop, :start] @ self.V[:start, group]
            self.V[start:stop, group] = solve_lower(self.L[start:stop, start:stop], rhs)
        V = self.V[:k, stale]
        self.a[stale] = self.k_diag[stale] - np.einsum("ij,ij->j", V, V)
        self.h[stale] = self.c[:k] @ V
        self.rows_done[stale] = k

    def moments(self, columns):
        """Lemma P at the current marginals ``(h_j, a_j)`` of current columns."""
        return self.likelihood.moments(
            self.h[columns], self.a[columns], self.y[columns]
        )

    def entropy_scores(self, columns):
        """Differential-entropy reduction ``Δ_j = −½ log(1 − a_j w_j)`` (000 eq. 4)."""
        w = self.moments(columns).w
        return -0.5 * np.log1p(-self.a[columns] * w)

    def include(self, i, columns=None):
        """Add point ``i`` to the active set (000 eqs. 2-3, ALGORITHMS.md §1.3).

        Parameters
        ----------
        i : int
            A training index not yet active; its column must be current.
        columns : index array, optional
            Columns of ``V`` to extend with the new row; all ``n`` by default. Others
            become stale and are completed later by :meth:`complete`.
        """
        k = self.size
        if self.rows_done[i] != k:
            raise ValueError(f"column {i} is stale; complete() it before including it.")
        if columns is None:
            self.complete(np.arange(len(self.y)))
            columns = slice(None)
        else:
            columns = np.asarray(columns, dtype=int)
            self.complete(columns)
        mom = self.moments(np.array([i]))
        g, w = float(mom.g[0]), float(mom.w[0])
        a_i, h_i = self.a[i], self.h[i]
        p_i = w / (1.0 - a_i * w)
        self.p[i], self.m[i] = p_i, h_i + g / w
        sqrt_p = np.sqrt(p_i)
        row = sqrt_p * self.V[:k, i]
        l0 = np.sqrt(1.0 + p_i * a_i)
        cols = None if isinstance(columns, slice) else columns
        k_row = self.kernel_block(np.array([i]), cols)[0]
        v = (sqrt_p * k_row - self.V[:k, columns].T @ row) / l0
        self.L[k, :k], self.L[k, k] = row, l0
        self.V[k, columns] = v
        self.c[k] = g / np.sqrt(w)
        self.a[columns] -= v * v
        self.h[columns] += self.c[k] * v
        self.rows_done[columns] = k + 1
        self.active.append(int(i))

    def predictive_weights(self):
        """``β = Π_I½ L⁻ᵀ c`` (mean ``k_I(x)ᵀβ``) and ``Π_I½`` for variances (000 eq. 5)."""
        k = self.size
        sqrt_p = np.sqrt(self.p[self.active])
        beta = sqrt_p * solve_lower_transpose(self.L[:k, :k], self.c[:k])
        return beta, sqrt_p
