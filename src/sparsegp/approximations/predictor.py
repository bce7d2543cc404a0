"""The one form of every engine's latent prediction.

Every posterior this library fits sees a test point ``x`` only through ``ψ(x)``, the
kernel column ``k(points, x)`` (a leading 1 where a finite linear model keeps a bias),
and ``k(x, x)``, and predicts

    mean ``ψᵀw``,    variance ``c·k(x, x) + uᵀWu``,    ``u = L⁻¹(s ⊙ ψ)``:

``w`` the weights (GPflow's ``α``), ``L`` a lower-triangular whitening factor with an
optional row scale ``s``, ``W`` the whitened correction and ``c`` the prior's share
(algorithms.md §0.7). Each engine builds its own instance:

===================  =====================  ==========  ================  ===
engine               ``L``                  ``s``       ``W``             ``c``
===================  =====================  ==========  ================  ===
full EP, IVM, NLP    ``chol(I + S½KS½)``    ``√τ̃``      ``−I``            1
FITC, VFE            ``L_u = chol(K_uu)``   1           ``B⁻¹ − I``       1
online GP            ``chol(K_BV)``         1           ``W_Csató − I``   1
RVM                  ``chol(Σ⁻¹)``          1           ``I``             0
===================  =====================  ==========  ================  ===

A whitened ``W`` has entries of order one whatever the conditioning of ``K``, so its
product loses no more precision than the triangular solves did (GPflow's cached
``Q = L⁻ᵀWL⁻¹`` does, by ``cond(L)``). Several outputs (a multinomial model's classes)
stack ``w`` and ``W`` per output and ``L`` per set of points: output ``p`` sees the
``p mod G``-th of ``G`` equal shares of ``ψ``'s rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._linalg import solve_lower

__all__ = ["Predictor"]


@dataclass(frozen=True)
class Predictor:
    """A fitted posterior's latent predictive moments (see the module's docstring).

    Attributes
    ----------
    weights : ndarray of shape (m,), or (m, P) for P outputs
        ``w`` on one share of ``ψ``'s rows.
    chol : ndarray of shape (r, r), or (G, r, r) for G shares
        ``L``.
    scale : ndarray of shape (r,) or None
        ``s`` (``None``: ones).
    inner : ndarray of shape (r, r), (P, r, r), or None
        ``W`` (``None``: ``−I``, where the data only remove variance).
    prior_share : float
        ``c``: 1 for a Gaussian process, 0 for a finite linear model.
    bias_feature : bool
        ``ψ`` starts with a constant 1 (the RVM's bias weight).
    """

    weights: np.ndarray
    chol: np.ndarray
    scale: np.ndarray | None = None
    inner: np.ndarray | None = None
    prior_share: float = 1.0
    bias_feature: bool = False

    @property
    def n_outputs(self) -> int:
        """``P``: 1 for a binary classifier or a regressor."""
        return 1 if self.weights.ndim == 1 else self.weights.shape[1]

    def latent_mean_and_variance(
        self, K_cross: np.ndarray, k_diag: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The latent mean and variance of test points, each (m*,) or (m*, P).

        Parameters
        ----------
        K_cross : ndarray of shape (G·m, m*)
            ``k(points, X*)``, the ``G`` shares stacked.
        k_diag : ndarray of shape (m*,) or (m*, G)
            ``k(x, x)``, a column per share.
        """
        if self.n_outputs == 1:
            psi = self._design(K_cross)
            u = self._whitened(0, psi)
            var = self._variance(0, u, k_diag)
            return psi.T @ self.weights, np.maximum(var, 0.0)
        shares = np.split(K_cross, self.chol.shape[0] if self.chol.ndim == 3 else 1)
        mean = np.empty((K_cross.shape[1], self.n_outputs))
        var = np.empty_like(mean)
        whitened = [self._whitened(g, share) for g, share in enumerate(shares)]
        for p in range(self.n_outputs):
            g = p % len(shares)
            prior = k_diag if k_diag.ndim == 1 else k_diag[:, g]
            mean[:, p] = shares[g].T @ self.weights[:, p]
            var[:, p] = self._variance(p, whitened[g], prior)
        return mean, np.maximum(var, 0.0)

    def latent_covariance(self, K_cross: np.ndarray, K_star: np.ndarray) -> np.ndarray:
        """The latent posterior covariance of test points, ``c·K** + UᵀWU`` (one
        output)."""
        if self.n_outputs != 1:
            raise ValueError("a joint covariance is defined for one output only.")
        u = self._whitened(0, self._design(K_cross))
        if self.inner is None:
            return self.prior_share * K_star - u.T @ u
        return self.prior_share * K_star + u.T @ (self.inner @ u)

    def _design(self, K_cross: np.ndarray) -> np.ndarray:
        if self.bias_feature:
            return np.vstack([np.ones((1, K_cross.shape[1])), K_cross])
        return K_cross

    def _whitened(self, share: int, psi: np.ndarray) -> np.ndarray:
        chol = self.chol if self.chol.ndim == 2 else self.chol[share]
        scaled = psi if self.scale is None else self.scale[:, None] * psi
        return solve_lower(chol, scaled) if len(chol) else np.zeros_like(scaled)

    def _variance(self, output: int, u: np.ndarray, prior: np.ndarray) -> np.ndarray:
        if self.inner is None:
            return self.prior_share * prior - np.einsum("ij,ij->j", u, u)
        inner = self.inner if self.inner.ndim == 2 else self.inner[output]
        return self.prior_share * prior + np.einsum("ij,ij->j", u, inner @ u)
