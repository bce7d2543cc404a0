"""Csató's sparse online GP: one pass, a bounded basis-vector set, KL-optimal deletion.

The posterior process after the examples seen so far is represented on a basis-vector
(BV) set of size ``t ≤ d`` (algorithms.md §3.1, Csató 2002, ch. 3):

    mean  ⟨f(x)⟩ = k_BV(x)ᵀ α,       cov  k(x, x′) + k_BV(x)ᵀ C k_BV(x′).

Csató propagates ``α``, ``C`` and ``Q = K_BV⁻¹`` by rank-one recursions. When the
kernel's amplitude is large beside the noise, ``K_BV`` is ill-conditioned, ``C`` and
``Q`` have entries of order ``cond(K_BV)``, and the posterior variance
``k(x, x) + kᵀ C k`` is a difference of numbers ~10⁹ times larger than itself: on a long
stream it went negative and the updates overflowed. Here the same posterior is kept in
the whitened coordinates of ``K_BV = L Lᵀ``: ``a = Lᵀ α`` and ``W = I + Lᵀ C L``, the
posterior covariance of the BV latents divided by the prior's, with eigenvalues in
``[0, 1]``. With ``u = L⁻¹ k(x)`` the marginal is ``μ = uᵀ a`` and
``σ² = γ + uᵀ W u``, ``γ = k(x, x) − uᵀu``: a sum of non-negative terms. Every update of
Csató's is a small change of ``(L, a, W)``: the projected update (eq. 88) a rank-one
change of ``W``; a new BV one row of ``L``; the KL-optimal deletion (eqs. 78, 80, 81)
Givens rotations that move the deleted element's direction last, then the Gaussian
conditional of the other coordinates given that one at zero. O(t²) per example.

Kernel values are computed once per chunk of examples (chunk against BV set and chunk
against itself), so the per-example work is a handful of O(t²) vector operations.
``L``, ``W`` and the BV inputs live in buffers allocated once for ``d + 1`` elements:
growing or shrinking the set moves their rows in place (compiled), and a deletion's
rotations and conditional run in one compiled loop, with no t × t copy. ``K_BV``
itself is not kept (only the exact score needs it, and it is evaluated then).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from scipy.linalg import blas
from sklearn.gaussian_process.kernels import Kernel

from .._linalg import cho_solve_lower, solve_lower
from .._threads import fit_threads
from ..likelihoods import Likelihood
from .predictor import Predictor

#: Examples whose kernel rows are evaluated in one call.
_CHUNK = 256
#: BV elements the buffers hold at first; they double as the set grows, up to d + 1.
_FIRST_CAPACITY = 64


class SparseOnlineGP:
    """State of the sparse online GP and its update by one example at a time.

    Parameters
    ----------
    kernel : sklearn kernel
        Latent covariance (noise excluded).
    likelihood : Probit or Gaussian
        Provides ``scalar_moments(mu, var, y)`` (Lemma P of algorithms.md §0.2).
    max_basis_vectors : int
        The cap ``d`` on the BV set.
    tol : float
        ``ε_tol``: an example whose residual ``γ < tol·k(x, x)`` gets the projected
        update (eq. 88) and never enters the BV set.
    score : {"approximate", "exact"}
        Deletion score: eq. 85 (mean term only) or eq. 83 (the KL divergence).

    Attributes
    ----------
    basis_vectors : ndarray of shape (t, n_features)
        A view of the preallocated buffer, as are ``L`` and ``W``.
    L : ndarray of shape (t, t)
        Lower Cholesky factor of ``K_BV``.
    a : ndarray of shape (t,)
        Whitened posterior mean ``Lᵀ α``.
    W : ndarray of shape (t, t)
        Whitened posterior covariance ``I + Lᵀ C L``.
    K : ndarray of shape (t, t)
        ``K_BV``, evaluated when asked (by the exact score and by tests): the state
        keeps its factor ``L`` only.
    diag_q_plus_c : ndarray of shape (t,)
        ``diag(Q + C)``, the denominators of the deletion scores (eq. 85), kept by
        O(t) updates and recomputed every ``t`` changes of the BV set.
    n_seen, n_deleted, n_projected : int
        Examples processed; BV elements deleted; examples given the projected update.
    """

    def __init__(
        self,
        kernel: Kernel,
        likelihood: Likelihood,
        max_basis_vectors: int,
        tol: float,
        score: str,
    ) -> None:
        self.kernel = kernel
        self.likelihood = likelihood
        self.max_basis_vectors = max_basis_vectors
        self.tol = tol
        self.score = score
        self._size = 0
        self._allocate(min(max_basis_vectors + 1, _FIRST_CAPACITY), 0)
        self.a = np.zeros(0)
        self.diag_q_plus_c = np.zeros(0)
        self._changes = 0
        self.n_seen = 0
        self.n_deleted = 0
        self.n_projected = 0
        self.fixed_basis = False

    @classmethod
    def with_basis(
        cls,
        kernel: Kernel,
        likelihood: Likelihood,
        basis_vectors: np.ndarray,
        max_basis_vectors: int,
        tol: float,
        score: str,
    ) -> SparseOnlineGP:
        """A predefined BV set, held fixed: ``α = 0``, ``C = 0`` ([Csa02] §3.6).

        Every example is then projected onto the basis (eq. 88). Elements whose
        residual against the ones before them is below ``tol`` are dropped, so ``K_BV``
        stays invertible.
        """
        state = cls(kernel, likelihood, max_basis_vectors, tol, score)
        state._allocate(len(basis_vectors) + 1, basis_vectors.shape[1])
        keep: list[int] = []
        K_all = kernel(basis_vectors)
        for i in range(len(basis_vectors)):
            k_star = K_all[i, i]
            u = state._whiten(K_all[keep, i])
            gamma = k_star - float(u @ u)
            if gamma >= tol * k_star:
                state._grow(basis_vectors[i], u, gamma)
                keep.append(i)
        state.a = np.zeros(state.size)
        np.fill_diagonal(state.W, 1.0)
        state.diag_q_plus_c = state._exact_diag_q_plus_c()
        state.fixed_basis = True
        return state

    def _allocate(self, capacity: int, n_features: int) -> None:
        """Buffers for up to ``capacity`` BV elements of ``n_features`` inputs (empty)."""
        self._size = 0
        self._L = np.zeros(capacity * capacity)
        self._W = np.zeros(capacity * capacity)
        self._basis = np.empty((capacity, n_features))

    def _make_room(self) -> None:
        """Double the buffers (up to ``d + 1`` elements) if the set fills them: a copy
        at each doubling only, so the set's growth costs O(d²) in all."""
        capacity = len(self._basis)
        if self._size < capacity:
            return
        t, old = self._size, (self._L, self._W, self._basis)
        self._allocate(min(2 * capacity, self.max_basis_vectors + 1), old[2].shape[1])
        for new, previous in zip((self._L, self._W), old[:2], strict=True):
            new[: t * t] = previous[: t * t]
        self._basis[:t] = old[2][:t]
        self._size = t

    def _square(self, buffer: np.ndarray) -> np.ndarray:
        """The t × t matrix a buffer holds row after row (a contiguous view)."""
        t = self._size
        return buffer[: t * t].reshape(t, t)

    @property
    def L(self) -> np.ndarray:
        """Lower Cholesky factor of ``K_BV`` (t × t)."""
        return self._square(self._L)

    @property
    def W(self) -> np.ndarray:
        """Whitened posterior covariance ``I + Lᵀ C L`` (t × t)."""
        return self._square(self._W)

    @property
    def K(self) -> np.ndarray:
        """``K_BV`` (t × t), evaluated: keeping it would cost every growth and deletion
        a third more of moved rows, for the exact score only."""
        return self.kernel(self.basis_vectors)

    @property
    def basis_vectors(self) -> np.ndarray:
        """The BV inputs (t × n_features)."""
        return self._basis[: self._size]

    @property
    def size(self) -> int:
        """Current number of basis vectors ``t``."""
        return self._size

    @property
    def alpha(self) -> np.ndarray:
        """Csató's ``α = L⁻ᵀ a``: the posterior mean is ``k_BV(x)ᵀ α``."""
        return self._unwhiten(self.a)

    @property
    def Q(self) -> np.ndarray:
        """``K_BV⁻¹``."""
        return cho_solve_lower(self.L, np.eye(self.size))

    @property
    def C(self) -> np.ndarray:
        """Csató's ``C = L⁻ᵀ (W − I) L⁻¹``."""
        L_inv = solve_lower(self.L, np.eye(self.size))
        return L_inv.T @ (self.W - np.eye(self.size)) @ L_inv

    def _whiten(self, k: np.ndarray) -> np.ndarray:
        """``L⁻¹ k`` by BLAS ``trsv`` (``L`` is C-ordered, so ``Lᵀ`` is Fortran's)."""
        if not self.size:
            return np.zeros(0)
        return blas.dtrsv(self.L.T, np.asarray(k, dtype=float), lower=0, trans=1)

    def update(
        self, X: np.ndarray, y: np.ndarray, predictive: np.ndarray | None = None
    ) -> SparseOnlineGP:
        """Process the examples ``(X[i], y[i])`` in order ([Csa02] §3.6, one pass).

        ``predictive`` (n × 2), if given, receives each example's latent mean and
        variance just before it is absorbed: the model of the examples before it, so
        a prediction of an example it has not seen (in one pass).

        BLAS runs on one thread here (:func:`~sparsegp._threads.fit_threads`, the
        estimators' own policy; a no-op inside a fit): the O(t²) operations are too
        small to share, and threads that spin between them slow a busy machine by an
        order of magnitude.
        """
        with fit_threads():
            for start in range(0, len(X), _CHUNK):
                self._update_chunk(
                    X[start : start + _CHUNK],
                    y[start : start + _CHUNK],
                    None if predictive is None else predictive[start : start + _CHUNK],
                )
        return self

    def _update_chunk(
        self, X: np.ndarray, y: np.ndarray, predictive: np.ndarray | None
    ) -> None:
        if self._basis.shape[1] != X.shape[1]:  # the first examples
            self._allocate(len(self._basis), X.shape[1])
        K_chunk = self.kernel(X)
        # Column j of ``cross`` is the kernel between the chunk and basis vector j; it
        # follows the BV set as elements are appended and deleted.
        cross = np.zeros((len(X), self.max_basis_vectors + 1))
        if self.size:
            cross[:, : self.size] = self.kernel(X, self.basis_vectors)
        for i in range(len(X)):
            t = self.size
            grown, deleted = self._update_one(
                X[i],
                float(y[i]),
                cross[i, :t],
                K_chunk[i, i],
                None if predictive is None else predictive[i],
            )
            if grown:  # the new element is the chunk's example i
                cross[:, t] = K_chunk[:, i]
            if deleted is not None:
                cross[:, deleted:t] = cross[:, deleted + 1 : t + 1]
            self.n_seen += 1

    def _update_one(
        self,
        x: np.ndarray,
        y: float,
        k: np.ndarray,
        k_star: float,
        predictive: np.ndarray | None = None,
    ) -> tuple[bool, int | None]:
        """One example: eqs. 57/64 (full) or 88 (projected), then deletion if needed.

        Returns whether the BV set grew by ``x`` and which element, if any, was deleted;
        writes the example's latent mean and variance before the update into
        ``predictive`` if given.
        """
        u = self._whiten(k)
        gamma = max(k_star - float(u @ u), 0.0)
        v = self.W @ u
        var = gamma + max(float(u @ v), 0.0)
        mean = float(u @ self.a)
        if predictive is not None:
            predictive[:] = mean, var
        moments = self.likelihood.scalar_moments(mean, var, y)
        q, r = float(moments.g), -float(moments.w)
        s_hat = self._unwhiten(v)  # Csató's ŝ = Ck + ê
        if self.fixed_basis or gamma < self.tol * k_star:
            self._projected_update(v, s_hat, q, r, gamma)
            return False, None
        e_hat = self._unwhiten(u)
        Ck = s_hat - e_hat
        diag_after = self.diag_q_plus_c + e_hat**2 / gamma + r * Ck**2
        if self._newcomer_would_be_deleted(Ck, diag_after, q, r, gamma):
            self._projected_update(v, s_hat, q, r, gamma)
            return False, None
        self._grow(x, u, gamma)
        root = math.sqrt(gamma)
        self.a = np.append(self.a + q * v, q * root)
        self.W[-1, -1] = 1.0
        self._add_outer(r, np.append(v, root))
        self.diag_q_plus_c = np.append(diag_after, 1.0 / gamma + r)
        self._count_change()
        if self.size <= self.max_basis_vectors:
            return True, None
        deleted = int(np.argmin(self.scores()))
        self.delete(deleted)
        return True, deleted

    def _unwhiten(self, w: np.ndarray) -> np.ndarray:
        """``L⁻ᵀ w``: whitened coordinates back to Csató's."""
        if not self.size:
            return np.zeros(0)
        return blas.dtrsv(self.L.T, np.asarray(w, dtype=float), lower=0, trans=0)

    def _newcomer_would_be_deleted(
        self, Ck: np.ndarray, diag_after: np.ndarray, q: float, r: float, gamma: float
    ) -> bool:
        """Whether a full update would be followed by deleting the newcomer itself.

        Only for the approximate score and a full BV set. The scores after the full
        update follow from ``α′ = α + q·Ck`` and ``diag(Q′ + C′)`` (``diag_after``)
        in O(t²), and the newcomer's is ``q²γ/(1 + γr)`` (algorithms.md §3.4). When it is the
        smallest, the projected update (eq. 88) *is* full update plus deletion of
        the newcomer (algorithms.md §3.2), at less cost: [Csa02] §3.6's speed-up, here exact.
        """
        if self.score != "approximate" or self.size < self.max_basis_vectors:
            return False
        alpha = self.alpha + q * Ck
        newcomer = q * q * gamma / (1.0 + gamma * r)
        return newcomer < np.min(alpha**2 / diag_after)

    def _add_outer(self, scale: float, v: np.ndarray) -> None:
        """``W += scale · v vᵀ`` in place (BLAS ``dger`` on the Fortran view ``Wᵀ``)."""
        blas.dger(scale, v, v, a=self.W.T, overwrite_a=True)

    def _exact_diag_q_plus_c(self) -> np.ndarray:
        """``diag(Q + C) = diag(L⁻ᵀ W L⁻¹)``, O(t³)."""
        L_inv = solve_lower(self.L, np.eye(self.size))
        return np.einsum("ij,ij->j", L_inv, self.W @ L_inv)

    def _count_change(self) -> None:
        """Recompute ``diag(Q + C)`` once per ``t`` changes of the BV set."""
        self._changes += 1
        if self._changes >= max(self.size, 10):
            self._changes = 0
            self.diag_q_plus_c = self._exact_diag_q_plus_c()

    def _projected_update(
        self, v: np.ndarray, s_hat: np.ndarray, q: float, r: float, gamma: float
    ) -> None:
        """Eq. 88 whitened: ``a += qη v``, ``W += rη v vᵀ``, ``v = W u``, ``η = 1/(1 + γr)``."""
        eta = 1.0 / (1.0 + gamma * r)
        if self.size:
            self.a = self.a + q * eta * v
            self._add_outer(r * eta, v)
            self.diag_q_plus_c = self.diag_q_plus_c + (r * eta) * s_hat**2
        self.n_projected += 1

    def _grow(self, x: np.ndarray, u: np.ndarray, gamma: float) -> None:
        """Append ``x``: a row ``[uᵀ, √γ]`` of ``L`` (eq. 64) and a zero row of ``W``.

        ``a`` and the new diagonal entry of ``W`` are the caller's.
        """
        self._make_room()
        t = self.size
        self._basis[t] = x
        for buffer in (self._L, self._W):
            _restride(buffer, t, t, t + 1)
            buffer[t * (t + 1) : (t + 1) ** 2] = 0.0
        self._size = t + 1
        L = self.L
        L[t, :t] = u
        L[t, t] = math.sqrt(gamma)

    def scores(self) -> np.ndarray:
        """Importance of each BV element: eq. 85, or eq. 83 for ``score="exact"``."""
        if self.score == "approximate":
            return self.alpha**2 / self.diag_q_plus_c
        C, Q = self.C, self.Q
        q_diag, c_diag = np.diag(Q), np.diag(C)
        mean_term = self.alpha**2 / (q_diag + c_diag)
        S = np.linalg.solve(np.eye(self.size) + C @ self.K, C)
        return mean_term - np.diag(S) / q_diag + np.log1p(c_diag / q_diag)

    def delete(self, j: int) -> None:
        """Remove BV element ``j`` by the KL-optimal projection (eqs. 78, 80, 81).

        Rows of ``L`` without row ``j`` are lower triangular but for one
        superdiagonal from column ``j`` on; Givens rotations of columns ``(i, i+1)``,
        applied alike to the whitened coordinates of ``a`` and ``W``, clear it. The
        last coordinate is then the part of ``f(x_j)`` the other elements do not
        explain, and eqs. 78-81 are the Gaussian conditional of the others given it
        at zero: ``a′ = a_r − W_rλ a_λ / W_λλ``, ``W′ = W_rr − W_rλ W_λr / W_λλ``.
        """
        t = self.size
        keep = np.arange(t) != j
        unit = np.zeros(t)
        unit[j] = 1.0
        column_j = self._unwhiten(self.W @ self._whiten(unit))
        self.diag_q_plus_c = (
            self.diag_q_plus_c[keep] - column_j[keep] ** 2 / column_j[j]
        )  # eqs. 80-81 on the diagonal: −(Q* + C*)²/(q* + c*)
        a = self.a.copy()
        _rotate_out_and_condition(self.L, a, self.W, j)
        for buffer in (self._L, self._W):
            _restride(buffer, t - 1, t, t - 1)
        self._basis[j : t - 1] = self._basis[j + 1 : t]
        self._size = t - 1
        self.a = a[:-1]
        self.n_deleted += 1
        self._count_change()

    def predictor(self) -> Predictor:
        """The posterior as it stands (algorithms.md §3.6): ``μ* = k_BVᵀα`` and
        ``σ*² = k** − ‖u‖² + uᵀWu`` with ``u = L⁻¹k_BV``, so the whitened correction
        is ``W − I``; a copy, the state's buffers change with the next example."""
        inner = self.W.copy()
        inner[np.diag_indices_from(inner)] -= 1.0
        return Predictor(weights=self.alpha, chol=self.L.copy(), inner=inner)


@numba.njit(cache=True)
def _rotate_out_and_condition(
    L: np.ndarray, a: np.ndarray, W: np.ndarray, j: int
) -> None:
    """Delete element ``j`` in place: ``L`` (t × t) loses row ``j``, Givens rotations of
    columns ``(i, i+1)``, ``i ≥ j``, clear the superdiagonal that leaves and are applied
    alike to ``a`` and to ``W``'s rows and columns; then the other coordinates are
    conditioned on the last at zero (eqs. 78-81 whitened). The reduced state is left in
    ``L[:t-1, :t-1]``, ``a[:t-1]`` and ``W[:t-1, :t-1]``."""
    t = L.shape[0]
    _remove_row(L, j)
    for i in range(j, t - 1):
        x, y = L[i, i], L[i, i + 1]
        rho = math.hypot(x, y)
        c, s = (1.0, 0.0) if rho == 0.0 else (x / rho, y / rho)
        for r in range(i, t - 1):
            first, second = L[r, i], L[r, i + 1]
            L[r, i], L[r, i + 1] = c * first + s * second, c * second - s * first
        first, second = a[i], a[i + 1]
        a[i], a[i + 1] = c * first + s * second, c * second - s * first
        for r in range(t):
            first, second = W[r, i], W[r, i + 1]
            W[r, i], W[r, i + 1] = c * first + s * second, c * second - s * first
        for col in range(t):
            first, second = W[i, col], W[i + 1, col]
            W[i, col], W[i + 1, col] = c * first + s * second, c * second - s * first
    w_last = max(W[t - 1, t - 1], np.finfo(np.float64).tiny)
    shift = a[t - 1] / w_last
    for r in range(t - 1):
        a[r] -= W[r, t - 1] * shift
        scale = W[r, t - 1] / w_last
        for col in range(t - 1):
            W[r, col] -= scale * W[col, t - 1]


@numba.njit(cache=True)
def _remove_row(A: np.ndarray, j: int) -> None:
    """In place: rows ``j+1…`` of ``A`` move up one, over row ``j``."""
    for r in range(j, A.shape[0] - 1):
        for c in range(A.shape[1]):
            A[r, c] = A[r + 1, c]


@numba.njit(cache=True)
def _restride(buffer: np.ndarray, rows: int, old: int, new: int) -> None:
    """In place: ``rows`` rows stored ``old`` apart move to ``new`` apart, keeping their
    first ``min(old, new)`` entries; a widened row's new entries are zero."""
    if new > old:  # last row first: no row overwrites one not yet moved
        for r in range(rows - 1, -1, -1):
            for c in range(new - 1, old - 1, -1):
                buffer[r * new + c] = 0.0
            for c in range(old - 1, -1, -1):
                buffer[r * new + c] = buffer[r * old + c]
    else:
        for r in range(rows):
            for c in range(new):
                buffer[r * new + c] = buffer[r * old + c]
