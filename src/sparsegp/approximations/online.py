"""Csató's sparse online GP: one pass, a bounded basis-vector set, KL-optimal deletion.

The posterior process after the examples seen so far is represented on a basis-vector
(BV) set of size ``t ≤ d`` (``ALGORITHMS.md`` §3.1, Csató 2002, ch. 3):

    mean  ⟨f(x)⟩ = k_BV(x)ᵀ α,       cov  k(x, x′) + k_BV(x)ᵀ C k_BV(x′),

with ``Q = K_BV⁻¹`` carried along as an explicit inverse (its conditioning is kept by
admitting only inputs whose feature-space residual γ is at least ``tol·k(x, x)``).
Each example costs O(t²): a full update that grows the BV set (eqs. 57, 64) or a
projected update that does not (eq. 88); when the set exceeds ``d`` the element whose
removal loses least (score eq. 85, or eq. 83 in O(t³)) is deleted by the KL-optimal
projection (eqs. 78, 80, 81).

Kernel values are computed once per chunk of examples (chunk against BV set and chunk
against itself), so the per-example work is a handful of O(t²) vector operations.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import blas
from threadpoolctl import threadpool_limits

#: Examples whose kernel rows are evaluated in one call.
_CHUNK = 256


class SparseOnlineGP:
    """State of the sparse online GP and its update by one example at a time.

    Parameters
    ----------
    kernel : sklearn kernel
        Latent covariance (noise excluded).
    likelihood : Probit or Gaussian
        Provides ``scalar_moments(mu, var, y)`` (Lemma P of ``ALGORITHMS.md`` §0.2).
    max_basis_vectors : int
        The cap ``d`` on the BV set.
    tol : float
        ``ε_tol``: an example whose residual ``γ < tol·k(x, x)`` gets the projected
        update (eq. 88) and never enters the BV set.
    score : {"approximate", "exact"}
        Deletion score: eq. 85 (mean term only, O(t)) or eq. 83 (the KL divergence,
        O(t³)).

    Attributes
    ----------
    basis_vectors : ndarray of shape (t, n_features)
    alpha : ndarray of shape (t,)
    C : ndarray of shape (t, t)
    Q : ndarray of shape (t, t)
        ``K_BV⁻¹``.
    K : ndarray of shape (t, t)
        ``K_BV`` (used by the exact score and by tests).
    n_seen, n_deleted, n_projected : int
        Examples processed; BV elements deleted; examples given the projected update.
    """

    def __init__(self, kernel, likelihood, max_basis_vectors, tol, score):
        self.kernel = kernel
        self.likelihood = likelihood
        self.max_basis_vectors = max_basis_vectors
        self.tol = tol
        self.score = score
        self.basis_vectors = None
        self.alpha = np.zeros(0)
        self.C = np.zeros((0, 0))
        self.Q = np.zeros((0, 0))
        self.K = np.zeros((0, 0))
        self.n_seen = 0
        self.n_deleted = 0
        self.n_projected = 0
        self.fixed_basis = False

    @classmethod
    def with_basis(
        cls, kernel, likelihood, basis_vectors, max_basis_vectors, tol, score
    ):
        """A predefined BV set, held fixed: ``α = 0``, ``C = 0``, ``Q = K_BV⁻¹`` (003 §3.6).

        Every example is then projected onto the basis (eq. 88). Elements whose
        residual against the ones before them is below ``tol`` are dropped, so ``K_BV``
        stays invertible.
        """
        state = cls(kernel, likelihood, max_basis_vectors, tol, score)
        state.basis_vectors = np.empty((0, basis_vectors.shape[1]))
        keep: list[int] = []
        K_all = kernel(basis_vectors)
        for i in range(len(basis_vectors)):
            k_star = K_all[i, i]
            k = K_all[keep, i]
            e_hat = state.Q @ k
            gamma = k_star - k @ e_hat
            if gamma >= tol * k_star:
                state._grow(basis_vectors[i], k, k_star, e_hat, gamma)
                keep.append(i)
        state.alpha = np.zeros(state.size)
        state.fixed_basis = True
        return state

    @property
    def size(self) -> int:
        """Current number of basis vectors ``t``."""
        return len(self.Q)

    def update(self, X, y):
        """Process the examples ``(X[i], y[i])`` in order (003 §3.6, one pass).

        BLAS runs on one thread here: the O(t²) operations are too small to share, and
        threads that spin between them slow a busy machine by an order of magnitude.
        """
        with threadpool_limits(1, user_api="blas"):
            for start in range(0, len(X), _CHUNK):
                self._update_chunk(X[start : start + _CHUNK], y[start : start + _CHUNK])
        return self

    def _update_chunk(self, X, y):
        if self.basis_vectors is None:
            self.basis_vectors = np.empty((0, X.shape[1]))
        K_chunk = self.kernel(X)
        # Column j of ``cross`` is the kernel between the chunk and basis vector j; it
        # follows the BV set as elements are appended and deleted.
        cross = np.zeros((len(X), self.max_basis_vectors + 1))
        if self.size:
            cross[:, : self.size] = self.kernel(X, self.basis_vectors)
        for i in range(len(X)):
            t = self.size
            grown, deleted = self._update_one(
                X[i], float(y[i]), cross[i, :t], K_chunk[i, i]
            )
            if grown:  # the new element is the chunk's example i
                cross[:, t] = K_chunk[:, i]
            if deleted is not None:
                cross[:, deleted:t] = cross[:, deleted + 1 : t + 1]
            self.n_seen += 1

    def _update_one(self, x, y, k, k_star):
        """One example: eqs. 57/64 (full) or 88 (projected), then deletion if needed.

        Returns whether the BV set grew by ``x`` and which element, if any, was deleted.
        """
        Ck = self.C @ k
        mu = float(k @ self.alpha)
        var = max(k_star + float(k @ Ck), 0.0)
        moments = self.likelihood.scalar_moments(mu, var, y)
        q, r = float(moments.g), -float(moments.w)
        e_hat = self.Q @ k
        gamma = max(k_star - float(k @ e_hat), 0.0)
        if (
            self.fixed_basis
            or gamma < self.tol * k_star
            or self._newcomer_would_be_deleted(Ck, e_hat, q, r, gamma)
        ):
            self._projected_update(Ck + e_hat, q, r, gamma)
            return False, None
        self.alpha = np.append(self.alpha + q * Ck, q)
        s = np.append(Ck, 1.0)
        self._grow(x, k, k_star, e_hat, gamma)
        self.C = blas.dger(r, s, s, a=self.C, overwrite_a=True)
        if self.size <= self.max_basis_vectors:
            return True, None
        deleted = int(np.argmin(self.scores()))
        self.delete(deleted)
        return True, deleted

    def _newcomer_would_be_deleted(self, Ck, e_hat, q, r, gamma):
        """Whether a full update would be followed by deleting the newcomer itself.

        Only for the approximate score and a full BV set. The scores after the full
        update follow from the vectors at hand in O(t): ``α′ = α + q·Ck``,
        ``C′_ii = C_ii + r·(Ck)_i²``, ``Q′_ii = Q_ii + ê_i²/γ``, and the newcomer's is
        ``q²γ/(1 + γr)`` (§3.4). When it is the smallest, the projected update (eq. 88)
        *is* full update plus deletion of the newcomer (§3.2), at O(t²) less cost:
        003 §3.6's speed-up, here exact.
        """
        if self.score != "approximate" or self.size < self.max_basis_vectors:
            return False
        alpha = self.alpha + q * Ck
        denominator = np.diag(self.Q) + e_hat**2 / gamma + np.diag(self.C) + r * Ck**2
        newcomer = q * q * gamma / (1.0 + gamma * r)
        return newcomer < np.min(alpha**2 / denominator)

    def _projected_update(self, s_hat, q, r, gamma):
        """Eq. 88: ``α += qη ŝ``, ``C += rη ŝŝᵀ`` with ``η = 1/(1 + γr)``."""
        eta = 1.0 / (1.0 + gamma * r)
        self.alpha = self.alpha + q * eta * s_hat
        if self.size:
            self.C = blas.dger(r * eta, s_hat, s_hat, a=self.C, overwrite_a=True)
        self.n_projected += 1

    def _grow(self, x, k, k_star, e_hat, gamma):
        """Append ``x`` to the BV set: zero-padded ``C``, ``Q`` by eq. 64, ``K_BV``.

        ``α`` is the caller's to extend.
        """
        t = self.size
        self.basis_vectors = np.vstack([self.basis_vectors, x[None, :]])
        self.C = _pad(self.C)
        self.K = _pad(self.K)
        self.K[t, :t] = k
        self.K[:t, t] = k
        self.K[t, t] = k_star
        v = np.append(e_hat, -1.0)
        self.Q = blas.dger(1.0 / gamma, v, v, a=_pad(self.Q), overwrite_a=True)

    def scores(self):
        """Importance of each BV element: eq. 85, or eq. 83 for ``score="exact"``."""
        q_diag, c_diag = np.diag(self.Q), np.diag(self.C)
        mean_term = self.alpha**2 / (q_diag + c_diag)
        if self.score == "approximate":
            return mean_term
        S = np.linalg.solve(np.eye(self.size) + self.C @ self.K, self.C)
        return mean_term - np.diag(S) / q_diag + np.log1p(c_diag / q_diag)

    def delete(self, j):
        """Remove BV element ``j`` by the KL-optimal projection, eqs. 78, 80 and 81."""
        keep = np.arange(self.size) != j
        a_star, c_star, q_star = self.alpha[j], self.C[j, j], self.Q[j, j]
        Q_star = self.Q[keep, j]
        QC_star = Q_star + self.C[keep, j]
        scale = c_star + q_star
        self.alpha = self.alpha[keep] - (a_star / scale) * QC_star
        C = np.ascontiguousarray(self.C[np.ix_(keep, keep)])
        C = blas.dger(1.0 / q_star, Q_star, Q_star, a=C, overwrite_a=True)
        C = blas.dger(-1.0 / scale, QC_star, QC_star, a=C, overwrite_a=True)
        Q = np.ascontiguousarray(self.Q[np.ix_(keep, keep)])
        Q = blas.dger(-1.0 / q_star, Q_star, Q_star, a=Q, overwrite_a=True)
        # dger rounds (βx_i)x_j and (βx_j)x_i differently: restore exact symmetry.
        self.C, self.Q = 0.5 * (C + C.T), 0.5 * (Q + Q.T)
        self.K = self.K[np.ix_(keep, keep)]
        self.basis_vectors = self.basis_vectors[keep]
        self.n_deleted += 1

    def latent_mean_and_variance(self, K_cross, k_diag):
        """``μ* = k_BVᵀα`` and ``σ*² = k** + k_BVᵀ C k_BV`` (§3.6); ``K_cross`` is t×m."""
        mean = K_cross.T @ self.alpha
        var = k_diag + np.einsum("im,im->m", K_cross, self.C @ K_cross)
        return mean, np.maximum(var, 0.0)


def _pad(A):
    """``A`` with a zero row and column appended."""
    t = len(A)
    padded = np.zeros((t + 1, t + 1))
    padded[:t, :t] = A
    return padded
