"""Expectation propagation for a full GP prior (R&W Alg. 3.5/3.6; ALGORITHMS.md §6.1).

Pure numerics: a kernel matrix and labels in, sites / posterior / evidence / gradient out.
Sites are kept in natural parameters ``τ̃`` (precision) and ``ν̃ = τ̃ m``; the posterior
over the training latents is ``N(μ, Σ)`` with ``Σ = (K⁻¹ + T̃)⁻¹``, ``μ = Σ ν̃``, always
recomputed through the stable ``B = I + S̃½ K S̃½`` (eigenvalues ≥ 1, no jitter needed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import blas

from .._linalg import cholesky_jitter, log_det_from_cholesky, solve_lower
from ..likelihoods import site_from_cavity

__all__ = [
    "EPState",
    "ep_log_evidence_gradient",
    "parallel_site_update",
    "predict_latent",
    "run_ep",
    "single_site_update",
    "site_evidence_terms",
    "sites_converged",
]


@dataclass(frozen=True)
class EPState:
    """An EP posterior over the training latents and what prediction needs.

    Attributes
    ----------
    tau, nu : ndarray of shape (n,)
        Site natural parameters.
    mean, var : ndarray of shape (n,)
        Posterior marginals ``μ`` and ``diag Σ``.
    chol_B : ndarray of shape (n, n)
        Lower Cholesky factor of ``B = I + S̃½ K S̃½``.
    omega : ndarray of shape (n,)
        ``ω = K⁻¹μ = ν̃ − τ̃ ⊙ μ``; the predictive mean is ``k(x*)ᵀ ω``.
    log_evidence : float
        EP approximation of ``log p(y | X)`` (ALGORITHMS.md §5.5).
    n_sweeps : int
        Sweeps performed.
    converged : bool
        Whether the convergence test passed before ``max_sweeps``.
    """

    tau: np.ndarray
    nu: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    chol_B: np.ndarray
    omega: np.ndarray
    log_evidence: float
    n_sweeps: int
    converged: bool


def _factor(K, tau):
    """``L = chol(I + S̃½ K S̃½)`` and ``V = L⁻¹ S̃½ K``, so that ``Σ = K − VᵀV``."""
    sqrt_tau = np.sqrt(tau)
    B = np.eye(len(tau)) + sqrt_tau[:, None] * K * sqrt_tau[None, :]
    L = cholesky_jitter(B, what="B = I + S½KS½")
    return L, solve_lower(L, sqrt_tau[:, None] * K)


def _refresh(K, tau, nu):
    """Posterior marginals from the sites in O(n³) (R&W Alg. 3.5, lines 9-11)."""
    L, V = _factor(K, tau)
    var = np.diag(K) - np.einsum("ij,ij->j", V, V)
    mean = K @ nu - V.T @ (V @ nu)
    return mean, var, L


def _cavities(mean, var, tau, nu):
    """Cavity natural parameters ``(τ_c, ν_c)`` of every site."""
    return 1.0 / var - tau, mean / var - nu


def site_evidence_terms(likelihood, y, mean, var, tau, nu):
    """The prior-independent part of the EP log evidence (ALGORITHMS.md §5.5).

    ``log Z_EP = site_evidence_terms − ½ log|I + K T̃| + ½ ν̃ᵀμ`` for any prior
    covariance ``K`` (R&W eq. 3.65 in natural parameters).
    """
    tau_c, nu_c = _cavities(mean, var, tau, nu)
    moments = likelihood.moments(nu_c / tau_c, 1.0 / tau_c, y)
    site_terms = (
        moments.log_z
        + 0.5 * np.log1p(tau / tau_c)
        + 0.5 * nu_c**2 / tau_c
        - 0.5 * (nu + nu_c) ** 2 / (tau + tau_c)
    )
    return float(np.sum(site_terms))


def _log_evidence(likelihood, y, mean, var, tau, nu, L):
    """EP log evidence with ``log|I + K T̃| = log|B|``."""
    terms = site_evidence_terms(likelihood, y, mean, var, tau, nu)
    return terms - 0.5 * log_det_from_cholesky(L) + 0.5 * float(nu @ mean)


def sites_converged(tau, nu, old_tau, old_nu, log_z, old_log_z, tol):
    """The convergence test of every EP loop in the package.

    Sites changed by less than ``tol`` relative to ``1 + |value|`` and the log
    evidence by less than ``tol`` relative to ``max(1, |log Z|)``.
    """
    site_change = max(
        np.max(np.abs(tau - old_tau) / (1.0 + np.abs(tau)), initial=0.0),
        np.max(np.abs(nu - old_nu) / (1.0 + np.abs(nu)), initial=0.0),
    )
    return site_change < tol and abs(log_z - old_log_z) < tol * max(1.0, abs(log_z))


def parallel_site_update(y, likelihood, tau, nu, mean, var, damping):
    """New sites, all computed from the same marginals ``(mean, var)`` (damped)."""
    tau_c, nu_c = _cavities(mean, var, tau, nu)
    mu_c, var_c = nu_c / tau_c, 1.0 / tau_c
    new_tau, new_nu = site_from_cavity(mu_c, var_c, likelihood.moments(mu_c, var_c, y))
    tau = (1.0 - damping) * tau + damping * np.maximum(new_tau, 0.0)
    nu = (1.0 - damping) * nu + damping * new_nu
    return tau, nu


def single_site_update(y_i, likelihood, tau_i, nu_i, mean_i, var_i, damping):
    """Damped moment-matched site ``i`` from its marginal ``N(mean_i, var_i)``.

    Returns the old site unchanged when the cavity is not a proper Gaussian.
    """
    tau_c = 1.0 / var_i - tau_i
    if tau_c <= 0.0:
        return tau_i, nu_i
    nu_c = mean_i / var_i - nu_i
    mu_c, var_c = nu_c / tau_c, 1.0 / tau_c
    new_tau, new_nu = site_from_cavity(
        mu_c, var_c, likelihood.scalar_moments(mu_c, var_c, y_i)
    )
    return (
        tau_i + damping * (max(float(new_tau), 0.0) - tau_i),
        nu_i + damping * (float(new_nu) - nu_i),
    )


def _sequential_sweep(K, y, likelihood, tau, nu, mean, damping, order):
    """Update the sites one at a time with rank-one changes of Σ (O(n²) each)."""
    tau, nu, mean = tau.copy(), nu.copy(), mean.copy()
    V = _factor(K, tau)[1]
    Sigma_f = np.asfortranarray(K - V.T @ V)
    for i in order:
        s_ii = Sigma_f[i, i]
        new_tau, new_nu = single_site_update(
            y[i], likelihood, tau[i], nu[i], mean[i], s_ii, damping
        )
        d_tau, d_nu = new_tau - tau[i], new_nu - nu[i]
        tau[i], nu[i] = new_tau, new_nu
        column = Sigma_f[:, i].copy()
        denom = 1.0 + d_tau * s_ii
        mean += column * ((d_nu - d_tau * mean[i]) / denom)
        Sigma_f = blas.dger(-d_tau / denom, column, column, a=Sigma_f, overwrite_a=True)
    return tau, nu


def run_ep(
    K,
    y,
    likelihood,
    *,
    tau=None,
    nu=None,
    mode="parallel",
    damping=0.5,
    tol=1e-6,
    max_sweeps=100,
    random_state=None,
) -> EPState:
    """Run EP to convergence on the prior ``N(0, K)`` and the given likelihood.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Prior covariance of the training latents.
    y : ndarray of shape (n,)
        Labels in ``{-1, +1}`` (or targets for a Gaussian likelihood).
    likelihood : Probit or Gaussian
        Supplies ``moments(mu, var, y)``.
    tau, nu : ndarray of shape (n,), optional
        Initial sites (warm start); zeros by default.
    mode : {"parallel", "sequential"}
        Parallel updates all sites from the same marginals (one O(n³) refresh per
        sweep); sequential is R&W Alg. 3.5 (rank-one update per site, random order).
    damping : float in (0, 1]
        Fraction of the moment-matched change applied to each site.
    tol : float
        Converged when the largest change of a site parameter, relative to
        ``1 + |value|``, and the change of the log evidence are both below ``tol``.
    max_sweeps : int
        Upper bound on sweeps.
    random_state : int, Generator or None
        Visiting order of the sequential sweeps.
    """
    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(y)
    rng = np.random.default_rng(random_state)
    tau = np.zeros(n) if tau is None else np.array(tau, dtype=float)
    nu = np.zeros(n) if nu is None else np.array(nu, dtype=float)
    mean, var, L = _refresh(K, tau, nu)
    log_z = _log_evidence(likelihood, y, mean, var, tau, nu, L)
    converged = False
    n_sweeps = 0
    for sweep in range(1, max_sweeps + 1):
        n_sweeps = sweep
        old_tau, old_nu, old_log_z = tau, nu, log_z
        if mode == "parallel":
            tau, nu = parallel_site_update(y, likelihood, tau, nu, mean, var, damping)
        else:
            order = rng.permutation(n)
            tau, nu = _sequential_sweep(K, y, likelihood, tau, nu, mean, damping, order)
        mean, var, L = _refresh(K, tau, nu)
        log_z = _log_evidence(likelihood, y, mean, var, tau, nu, L)
        if sites_converged(tau, nu, old_tau, old_nu, log_z, old_log_z, tol):
            converged = True
            break
    return EPState(
        tau=tau,
        nu=nu,
        mean=mean,
        var=var,
        chol_B=L,
        omega=nu - tau * mean,
        log_evidence=log_z,
        n_sweeps=n_sweeps,
        converged=converged,
    )


def ep_log_evidence_gradient(state: EPState, K_gradient, y, likelihood):
    """Gradient of the EP log evidence at the fixed point (ALGORITHMS.md §6.1).

    ``∂ log Z/∂θ = ½ ωᵀ (∂K/∂θ) ω − ½ tr(R ∂K/∂θ)`` with ``R = S̃½ B⁻¹ S̃½`` (R&W
    eq. 5.27), and ``∂ log Z/∂b = Σ_i g_i`` at the cavities.

    Parameters
    ----------
    state : EPState
        A converged EP state (the formula holds at the fixed point only).
    K_gradient : ndarray of shape (n, n, p)
        ``∂K/∂θ_j`` for each kernel hyperparameter (scikit-learn's layout).
    y : ndarray of shape (n,)
        Labels.
    likelihood : Probit
        The likelihood EP ran with.

    Returns
    -------
    grad_kernel : ndarray of shape (p,)
    grad_bias : float
    """
    sqrt_tau = np.sqrt(state.tau)
    C = solve_lower(state.chol_B, np.diag(sqrt_tau))
    R = C.T @ C
    omega = state.omega
    data_fit = np.einsum("i,ijk,j->k", omega, K_gradient, omega)
    trace = np.tensordot(R, K_gradient, axes=([0, 1], [0, 1]))
    tau_c, nu_c = _cavities(state.mean, state.var, state.tau, state.nu)
    g = likelihood.moments(nu_c / tau_c, 1.0 / tau_c, y).g
    return 0.5 * (data_fit - trace), float(np.sum(g))


def predict_latent(state: EPState, K_cross, k_diag):
    """Latent predictive mean and variance at test points (R&W Alg. 3.6).

    Parameters
    ----------
    state : EPState
    K_cross : ndarray of shape (n, m)
        ``k(X_train, X_test)``.
    k_diag : ndarray of shape (m,)
        Prior variances ``k(x*, x*)``.
    """
    mean = K_cross.T @ state.omega
    v = solve_lower(state.chol_B, np.sqrt(state.tau)[:, None] * K_cross)
    var = k_diag - np.einsum("ij,ij->j", v, v)
    return mean, np.maximum(var, 0.0)
