"""EP on the FITC prior with M pseudo-inputs (seed 004; ALGORITHMS.md §5).

Pure numerics: kernel blocks ``K_uu``, ``K_uf``, ``diag K_ff`` and labels in; sites,
evidence, evidence sensitivities and predictions out, all in O(n·M²) time and O(n·M)
memory. The prior is ``K_FITC = VᵀV + diag(d₀)`` with ``V = L_u⁻¹ K_uf``.

The posterior keeps 004's structured form ``A = D + P F Fᵀ Pᵀ``, ``h = ν_D + P γ``,
written in the whitened coordinates of ``V`` (``P = diag(t) Vᵀ`` instead of
``diag(t) K_fu``), so that after a refresh ``F = L_B⁻ᵀ`` with
``L_B L_Bᵀ = I + V diag(G) Vᵀ`` — the matrix the evidence and the predictions need
too. 004 keeps ``F`` lower-triangular and changes it by a Cholesky rank-one
update/downdate; any square root will do (ALGORITHMS.md §5.2), and here a site update
multiplies ``F`` by a symmetric rank-one square root, ``F ← F (I − β a aᵀ)``: one BLAS
``dger``, O(M²), positive definite by construction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import blas

from .._linalg import (
    cholesky_jitter,
    log_det_from_cholesky,
    solve_lower,
    solve_lower_transpose,
)
from .ep import (
    parallel_site_update,
    single_site_update,
    site_evidence_terms,
    sites_converged,
)

__all__ = [
    "EvidenceSensitivities",
    "FITCEPState",
    "FITCPosterior",
    "FITCPrior",
    "fitc_ep_sensitivities",
    "predict_latent_fitc",
    "predictive_weights",
    "run_fitc_ep",
]


@dataclass(frozen=True)
class FITCPrior:
    """The FITC prior ``K_FITC = VᵀV + diag(d₀)`` (004 eqs. 1-3).

    Attributes
    ----------
    chol_uu : ndarray of shape (M, M)
        ``L_u = chol(K_uu + ε_u I)``.
    V : ndarray of shape (M, n)
        ``L_u⁻¹ K_uf``.
    d0 : ndarray of shape (n,)
        ``diag K_ff − diag Q_ff``, clipped at zero.
    """

    chol_uu: np.ndarray
    V: np.ndarray
    d0: np.ndarray

    @classmethod
    def from_kernel(cls, K_uu, K_uf, k_diag, jitter=1e-6):
        """Build the prior from kernel blocks; ``jitter`` is ``ε_u`` (004 fn. 3)."""
        K_uu = np.asarray(K_uu, dtype=float)
        chol_uu = cholesky_jitter(
            K_uu + jitter * np.eye(len(K_uu)), what="K_uu at the pseudo-inputs"
        )
        V = solve_lower(chol_uu, np.asarray(K_uf, dtype=float))
        d0 = np.maximum(
            np.asarray(k_diag, dtype=float) - np.einsum("ij,ij->j", V, V), 0
        )
        return cls(chol_uu=chol_uu, V=V, d0=d0)

    @property
    def n_inducing(self) -> int:
        return self.V.shape[0]


class FITCPosterior:
    """The EP posterior ``N(h, A)`` on the FITC prior, kept in 004's structured form.

    ``A = D + P F Fᵀ Pᵀ`` and ``h = ν_D + P γ`` (ALGORITHMS.md §5.2). Marginals of one
    point and a site update cost O(M²) (:meth:`visit_site`), a refresh from the
    sites O(n·M²) (:meth:`refresh`).

    Parameters
    ----------
    prior : FITCPrior
    tau, nu : ndarray of shape (n,)
        Site natural parameters.
    """

    def __init__(self, prior: FITCPrior, tau, nu):
        self.prior = prior
        self.tau = np.array(tau, dtype=float)
        self.nu = np.array(nu, dtype=float)
        self.refresh()

    def refresh(self):
        """Recompute the structure from the sites (ALGORITHMS.md §5.3), O(n·M²)."""
        prior = self.prior
        t = 1.0 / (1.0 + self.tau * prior.d0)
        G = self.tau * t
        self.d = prior.d0 * t
        self.P = np.asfortranarray(t[:, None] * prior.V.T)
        self.chol_B = cholesky_jitter(
            np.eye(prior.n_inducing) + (prior.V * G) @ prior.V.T,
            what="I + V G Vᵀ",
        )
        self.F = np.asfortranarray(
            solve_lower_transpose(self.chol_B, np.eye(prior.n_inducing))
        )
        self.nu_D = self.d * self.nu
        self.gamma = self.F @ (self.F.T @ (self.P.T @ self.nu))

    def marginals(self):
        """Posterior means ``h`` and variances ``diag A`` of all points, O(n·M²)."""
        PF = self.P @ self.F
        return self.nu_D + self.P @ self.gamma, self.d + np.einsum("ij,ij->i", PF, PF)

    def visit_site(self, i, new_site):
        """Replace site ``i`` by ``new_site(mean_i, var_i, tau_i, nu_i)``, O(M²).

        The marginal handed to ``new_site`` and the update share one product
        ``Fᵀ p_i``: sequential EP's inner step.
        """
        p = self.P[i]
        a = self.F.T @ p
        mean_i = float(self.nu_D[i] + p @ self.gamma)
        var_i = float(self.d[i] + a @ a)
        tau_i, nu_i = new_site(mean_i, var_i, float(self.tau[i]), float(self.nu[i]))
        self._apply_site(i, a, mean_i, tau_i, nu_i)

    def update_site(self, i, tau_i, nu_i):
        """Set site ``i`` to ``(tau_i, nu_i)`` and update the structure in O(M²)."""
        mean_i = float(self.nu_D[i] + self.P[i] @ self.gamma)
        self._apply_site(i, self.F.T @ self.P[i], mean_i, tau_i, nu_i)

    def _apply_site(self, i, a, h_i, tau_i, nu_i):
        """ALGORITHMS.md §5.4 with 004's ``ν`` typo fixed; ``a = Fᵀ p_i``, ``h_i``.

        ``F Fᵀ − c x xᵀ`` with ``x = F a`` equals ``F (I − c a aᵀ) Fᵀ``, and
        ``I − c a aᵀ = (I − β a aᵀ)²`` for ``β = c / (1 + √(1 − c‖a‖²))``. Falls back
        to a full refresh if round-off makes a denominator non-positive.
        """
        x = self.F @ a
        s = float(a @ a)
        d_i = float(self.d[i])
        pi, delta = tau_i - float(self.tau[i]), nu_i - float(self.nu[i])
        self.tau[i], self.nu[i] = tau_i, nu_i
        precision_ratio = 1.0 + pi * (d_i + s)
        tau_1 = 1.0 + pi * d_i
        c = pi / precision_ratio
        shrink = 1.0 - c * s
        if precision_ratio <= 0.0 or tau_1 <= 0.0 or shrink <= 0.0:
            self.refresh()
            return
        beta = c / (1.0 + math.sqrt(shrink))
        self.F = blas.dger(-beta, x, a, a=self.F, overwrite_a=True)
        self.gamma += ((delta - pi * h_i) / tau_1 * shrink) * x
        self.d[i] = d_i / tau_1
        self.P[i] /= tau_1
        self.nu_D[i] = d_i / tau_1 * nu_i


@dataclass(frozen=True)
class FITCEPState:
    """Converged EP on the FITC prior and what the gradient and predictions need.

    Attributes
    ----------
    prior : FITCPrior
    tau, nu : ndarray of shape (n,)
        Site natural parameters.
    mean, var : ndarray of shape (n,)
        Posterior marginals ``h`` and ``diag A``.
    chol_B : ndarray of shape (M, M)
        ``chol(I + V diag(G) Vᵀ)``, ``G = τ̃ / (1 + τ̃ d₀)``.
    log_evidence : float
    n_sweeps : int
    converged : bool
    """

    prior: FITCPrior
    tau: np.ndarray
    nu: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    chol_B: np.ndarray
    log_evidence: float
    n_sweeps: int
    converged: bool

    @property
    def G(self):
        """``τ̃ / (1 + τ̃ d₀)``: the site precisions seen through the FITC residual."""
        return self.tau / (1.0 + self.tau * self.prior.d0)


def _log_evidence(posterior: FITCPosterior, likelihood, y, mean, var):
    """``log Z_EP`` with ``log|I + K_FITC T̃| = Σ log(1 + τ̃ d₀) + log|B|`` (§5.5)."""
    tau, nu = posterior.tau, posterior.nu
    log_det = np.sum(np.log1p(tau * posterior.prior.d0)) + log_det_from_cholesky(
        posterior.chol_B
    )
    terms = site_evidence_terms(likelihood, y, mean, var, tau, nu)
    return terms - 0.5 * log_det + 0.5 * float(nu @ mean)


def run_fitc_ep(
    prior: FITCPrior,
    y,
    likelihood,
    *,
    tau=None,
    nu=None,
    mode="sequential",
    damping=1.0,
    tol=1e-6,
    max_sweeps=100,
    random_state=None,
) -> FITCEPState:
    """Run EP on the FITC prior to convergence (ALGORITHMS.md §5.5).

    Parameters
    ----------
    prior : FITCPrior
    y : ndarray of shape (n,)
        Labels in ``{-1, +1}`` (targets for a Gaussian likelihood).
    likelihood : Probit or Gaussian
    tau, nu : ndarray of shape (n,), optional
        Initial sites (warm start); zeros by default.
    mode : {"sequential", "parallel"}
        Sequential is 004's EP: sites in a random order, each an O(M²) update of the
        structured posterior, then an O(n·M²) refresh. Parallel updates all sites from
        the same marginals, then refreshes.
    damping : float in (0, 1]
    tol : float
        Convergence test of :func:`~sparsegp.approximations.ep.sites_converged`.
    max_sweeps : int
    random_state : int, Generator or None
        Visiting order (the same orders as :func:`~.ep.run_ep` for the same seed).
    """
    y = np.asarray(y, dtype=float)
    n = len(y)
    rng = np.random.default_rng(random_state)
    posterior = FITCPosterior(
        prior,
        np.zeros(n) if tau is None else tau,
        np.zeros(n) if nu is None else nu,
    )
    mean, var = posterior.marginals()
    log_z = _log_evidence(posterior, likelihood, y, mean, var)
    converged = False
    n_sweeps = 0
    for sweep in range(1, max_sweeps + 1):
        n_sweeps = sweep
        old_tau, old_nu, old_log_z = posterior.tau.copy(), posterior.nu.copy(), log_z
        if mode == "parallel":
            tau, nu = parallel_site_update(
                y, likelihood, posterior.tau, posterior.nu, mean, var, damping
            )
            posterior.tau, posterior.nu = tau, nu
        else:
            for i in rng.permutation(n):

                def new_site(mean_i, var_i, tau_i, nu_i, y_i=y[i]):
                    return single_site_update(
                        y_i, likelihood, tau_i, nu_i, mean_i, var_i, damping
                    )

                posterior.visit_site(i, new_site)
        posterior.refresh()
        mean, var = posterior.marginals()
        log_z = _log_evidence(posterior, likelihood, y, mean, var)
        if sites_converged(
            posterior.tau, posterior.nu, old_tau, old_nu, log_z, old_log_z, tol
        ):
            converged = True
            break
    return FITCEPState(
        prior=prior,
        tau=posterior.tau,
        nu=posterior.nu,
        mean=mean,
        var=var,
        chol_B=posterior.chol_B,
        log_evidence=log_z,
        n_sweeps=n_sweeps,
        converged=converged,
    )


@dataclass(frozen=True)
class EvidenceSensitivities:
    """``log Z_EP`` as a linear function of the kernel blocks' perturbations.

    At the EP fixed point, ``d log Z_EP = ⟨dK_uf, kernel_uf⟩ − ⟨dK_uu, kernel_uu⟩
    + ⟨d diag K_ff, kernel_diag⟩`` (ALGORITHMS.md §5.6, ``F′``, ``H′``, ``c``), and
    ``∂ log Z_EP/∂b = bias``.
    """

    kernel_uf: np.ndarray
    kernel_uu: np.ndarray
    kernel_diag: np.ndarray
    bias: float


def fitc_ep_sensitivities(state: FITCEPState, y, likelihood) -> EvidenceSensitivities:
    """The matrices ``F′``, ``H′`` and ``c`` of ALGORITHMS.md §5.6, in O(n·M²).

    Generic form ``∂log Z = ½ ωᵀ ∂K ω − ½ tr(B ∂K)`` (R&W eq. 5.27) with
    ``K = K_FITC``, ``ω = ν̃ − T̃ h``, ``B = (K_FITC + T̃⁻¹)⁻¹``, pushed through
    ``K_FITC = Wᵀ K_uf + diag(k − diag Q_ff)``-style chain rules with
    ``W = K_uu⁻¹ K_uf``. The sites are held fixed (EP fixed point).
    """
    prior = state.prior
    G = state.G
    W = solve_lower_transpose(prior.chol_uu, prior.V)
    E = solve_lower(state.chol_B, prior.V * G)
    omega = state.nu - state.tau * state.mean
    WE = W @ E.T
    WB = W * G - WE @ E
    c = 0.5 * (omega**2 - (G - np.einsum("ij,ij->j", E, E)))
    w_omega = W @ omega
    Wc = W * c
    kernel_uf = np.outer(w_omega, omega) - WB - 2.0 * Wc
    kernel_uu = 0.5 * np.outer(w_omega, w_omega) - 0.5 * (WB @ W.T) - Wc @ W.T
    tau_c = 1.0 / state.var - state.tau
    nu_c = state.mean / state.var - state.nu
    g = likelihood.moments(nu_c / tau_c, 1.0 / tau_c, y).g
    return EvidenceSensitivities(
        kernel_uf=kernel_uf,
        kernel_uu=0.5 * (kernel_uu + kernel_uu.T),
        kernel_diag=c,
        bias=float(np.sum(g)),
    )


def predictive_weights(state: FITCEPState):
    """``ŵ = L_u⁻ᵀ L_B⁻ᵀ L_B⁻¹ V (ν̃ ⊙ t)``: the predictive mean is ``k_u(x)ᵀ ŵ``."""
    prior = state.prior
    t = 1.0 / (1.0 + state.tau * prior.d0)
    inner = solve_lower(state.chol_B, prior.V @ (state.nu * t))
    return solve_lower_transpose(
        prior.chol_uu, solve_lower_transpose(state.chol_B, inner)
    )


def predict_latent_fitc(state: FITCEPState, weights, K_u_star, k_diag):
    """Latent predictive mean and variance at test points (004 §3.1; §5.7).

    ``μ* = k_uᵀ ŵ`` (O(M)), ``σ*² = k** − ‖a*‖² + ‖L_B⁻¹ a*‖²`` with
    ``a* = L_u⁻¹ k_u`` (O(M²)).

    Parameters
    ----------
    state : FITCEPState
    weights : ndarray of shape (M,)
        From :func:`predictive_weights`.
    K_u_star : ndarray of shape (M, m)
        ``k(X̄, X*)``.
    k_diag : ndarray of shape (m,)
    """
    a = solve_lower(state.prior.chol_uu, K_u_star)
    b = solve_lower(state.chol_B, a)
    var = k_diag - np.einsum("ij,ij->j", a, a) + np.einsum("ij,ij->j", b, b)
    return K_u_star.T @ weights, np.maximum(var, 0.0)
