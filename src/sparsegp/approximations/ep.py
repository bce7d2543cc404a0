"""Expectation propagation: one loop for every Gaussian prior (algorithms.md §5, §6.1).

Pure numerics. Sites are kept in natural parameters ``τ̃`` (precision) and
``ν̃ = τ̃ m``. The loop (:func:`run_ep`) sees the posterior ``N(μ, Σ)`` over the training
latents only through a small interface, :class:`SitePosterior`: its marginals, its
refresh from the sites, ``log|I + K T̃|`` and a sequential sweep. Two posteriors
implement it: :class:`DensePosterior` for a full prior ``N(0, K)`` ([RW06] Alg. 3.5,
in the stable ``B = I + S̃½ K S̃½`` form) and
:class:`~sparsegp.approximations.fitc_ep.FITCPosterior` for the FITC prior ([NGH07]).
:class:`WarmStartedEP` starts each run from the sites of an earlier converged run, as
an optimizer's evidence evaluations want.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, TypeVar, cast

import numpy as np
from scipy.linalg import blas, lapack

from .._linalg import (
    cholesky_in_place,
    cholesky_jitter,
    inverse_lower,
    log_det_from_cholesky,
    matvec,
    solve_lower,
)
from ..likelihoods import Likelihood, Probit, site_from_cavity
from . import sweep_kernels
from .predictor import Predictor

#: The smallest damping :func:`run_ep` lowers an oscillating EP to.
MIN_DAMPING = 0.05

#: Sweeps without a smaller site change after which :func:`run_ep` halves the damping.
_STALL_SWEEPS = 3

#: The fraction of the optimizer's tolerance an evaluation of :class:`WarmStartedEP`
#: settles the evidence to: an order of magnitude below the optimizer's own accuracy.
_SETTLED_EVIDENCE = 0.1

#: The fraction of the optimizer's tolerance the fitted model's final run settles the
#: sites and the evidence to.
_SETTLED_FINAL = 0.01

#: Converged runs a :class:`WarmStartedEP` keeps to start later runs from (each holds
#: its sites and marginals, 4·n floats; all eight 15 MB at n = 60 000).
_KEPT_RUNS = 8

__all__ = [
    "AndersonMixing",
    "ArraySites",
    "DensePosterior",
    "EPState",
    "LikelihoodT",
    "SitePosterior",
    "WarmStart",
    "WarmStartedEP",
    "carried_sites",
    "dense_predictor",
    "cavity_gradient",
    "cavity_gradient_terms",
    "ep_log_evidence_weights",
    "log_evidence",
    "matched_sites",
    "parallel_site_update",
    "run_ep",
    "single_site_update",
    "site_change",
    "site_evidence_term",
    "site_evidence_terms",
    "sites_converged",
    "warm_sites",
]


#: ``site_update(i, mean_i, var_i, tau_i, nu_i) -> (tau_i, nu_i)``: a sequential
#: sweep's new site ``i`` from its current marginal and site.
SiteUpdate = Callable[[int, float, float, float, float], tuple[float, float]]

#: The likelihood a :class:`SitePosterior` moment-matches its sites to: a
#: :data:`~sparsegp.likelihoods.Likelihood` for one latent per point, a
#: :class:`~sparsegp.likelihoods.MultinomialProbit` for the multi-class posterior.
LikelihoodT = TypeVar("LikelihoodT")
_LikelihoodT_contra = TypeVar("_LikelihoodT_contra", contravariant=True)


class SitePosterior(Protocol[_LikelihoodT_contra]):
    """A Gaussian posterior ``N(μ, Σ)`` defined by a prior and sites ``(τ̃, ν̃)``.

    :func:`run_ep` drives it through these methods only; :class:`ArraySites` gives
    them to posteriors that hold their sites as arrays, a partitioned posterior
    (:mod:`~sparsegp.approximations.partitioned_fitc`) computes them block by block.

    Attributes
    ----------
    prior_variance : float or ndarray
        The mean prior variance at the training inputs, ``mean diag K`` (one per
        latent function of a multi-class posterior): the scale a :class:`WarmStart`
        carries the sites across (:func:`carried_sites`).
    checkpoint_is_value : bool
        Whether :meth:`checkpoint` returns the sites themselves, so that any kept
        checkpoint can start a later run, or saves them where they are (a posterior
        over row blocks), so that only the latest can.
    """

    prior_variance: Any
    checkpoint_is_value: bool

    def refresh(self) -> None:
        """Recompute the posterior from the sites from scratch."""

    def marginals(self) -> tuple[np.ndarray, np.ndarray]:
        """Posterior means ``μ`` and variances ``diag Σ`` (valid after a refresh)."""

    def log_det(self) -> float:
        """``log|I + K T̃|`` for the prior covariance ``K``."""

    def site_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Each latent's site ``(τ̃, ν̃)``, shaped as :meth:`marginals` (gathered)."""

    def sites(self) -> object:
        """A copy of the current sites, for :meth:`change_since`."""

    def checkpoint(self) -> object:
        """The current sites and marginals, kept to start a later EP run from
        (:class:`WarmStart`)."""

    def parallel_update(
        self,
        y: np.ndarray | None,
        likelihood: _LikelihoodT_contra,
        damping: float,
        anderson: AndersonMixing,
    ) -> None:
        """Replace every site by its damped moment match at the current marginals."""

    def evidence(self, y: np.ndarray | None, likelihood: _LikelihoodT_contra) -> float:
        """The EP log evidence at the current sites (:func:`log_evidence`)."""

    def change_since(self, sites: object) -> float:
        """:func:`site_change` from ``sites`` (from :meth:`sites`) to the current ones."""

    def sequential_sweep(self, order: np.ndarray, site_update: SiteUpdate) -> None:
        """Visit the sites in ``order``; ``site_update(i, mean_i, var_i, tau_i, nu_i)``
        returns the new site ``(tau_i, nu_i)`` from the current marginal of ``i``."""


class ArraySites:
    """:class:`SitePosterior`'s sweep operations for sites held as arrays in memory."""

    tau: np.ndarray
    nu: np.ndarray
    checkpoint_is_value: bool = True

    def marginals(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def log_det(self) -> float:
        raise NotImplementedError

    def site_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return self.tau, self.nu

    def sites(self) -> tuple[np.ndarray, np.ndarray]:
        return self.tau.copy(), self.nu.copy()

    def checkpoint(self) -> tuple[np.ndarray, ...]:
        """The sites and marginals ``(τ̃, ν̃, μ, σ²)`` (:func:`carried_sites`)."""
        return (*self.sites(), *(m.copy() for m in self.marginals()))

    def parallel_update(
        self,
        y: np.ndarray | None,
        likelihood: Likelihood,
        damping: float,
        anderson: AndersonMixing,
    ) -> None:
        """All sites from the same marginals, then Anderson-mixed."""
        assert y is not None, "an in-memory posterior needs its labels"
        old_tau, old_nu = self.tau, self.nu
        tau, nu = parallel_site_update(
            y, likelihood, old_tau, old_nu, *self.marginals(), damping
        )
        self.tau, self.nu = anderson.step(old_tau, old_nu, tau, nu)

    def evidence(self, y: np.ndarray | None, likelihood: Likelihood) -> float:
        assert y is not None, "an in-memory posterior needs its labels"
        return log_evidence(self, likelihood, y, *self.marginals())

    def change_since(self, sites: object) -> float:
        old_tau, old_nu = cast(tuple[np.ndarray, np.ndarray], sites)
        return site_change(self.tau, self.nu, old_tau, old_nu)


def _mean_diagonal(K: np.ndarray) -> float:
    return float(np.mean(np.diag(K)))


#: ``τ̃_i K_ii`` below which ``(1 − [B⁻¹]_ii)/τ̃_i`` loses more than three digits to
#: cancellation (``[B⁻¹]_ii ≈ 1 − τ̃_i K_ii``); such variances are formed directly.
_CANCELLATION_GUARD = 1e-3


class DensePosterior(ArraySites):
    """EP posterior on a full prior ``N(0, K)``: ``Σ = (K⁻¹ + T̃)⁻¹``, ``μ = Σ ν̃``.

    A refresh factors ``B = I + S̃½ K S̃½ = L Lᵀ`` (eigenvalues ≥ 1, no jitter needed)
    and inverts ``L``: ⅔n³ flops for the marginals (:meth:`refresh`; [RW06] Alg. 3.5,
    lines 9-11, forms ``Σ = K − VᵀV`` with ``V = L⁻¹ S̃½ K`` in 4⁄3 n³).

    Parameters
    ----------
    K : ndarray of shape (n, n)
    tau, nu : ndarray of shape (n,)
    weighted_gradient : callable or None, default=None
        ``W ↦ Σ_ij W_ij ∂K_ij/∂θ`` where the posterior's maker has it, for the evidence
        gradient (:class:`~sparsegp.approximations.dense_ep.DenseEP`).
    """

    def __init__(
        self,
        K: np.ndarray,
        tau: np.ndarray,
        nu: np.ndarray,
        weighted_gradient: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> None:
        self.K = np.asarray(K, dtype=float)
        self.tau = np.array(tau, dtype=float)
        self.nu = np.array(nu, dtype=float)
        self.prior_variance = _mean_diagonal(self.K)
        self.weighted_gradient = weighted_gradient
        self._B = np.empty(self.K.shape)  # B, then its factor (cholesky_in_place)
        self.refresh()

    @classmethod
    def starting_from(
        cls,
        K: np.ndarray,
        start: WarmStart | None,
        weighted_gradient: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> DensePosterior:
        """The posterior on ``K`` from a :class:`WarmStart`'s sites (None: zero sites)."""
        K = np.asarray(K, dtype=float)
        return cls(K, *warm_sites(start, len(K), _mean_diagonal(K)), weighted_gradient)

    def refresh(self) -> None:
        """Factor ``B`` and recompute the marginals, in ⅔n³ flops.

        ``μ = Kν̃ − K S̃½ B⁻¹ S̃½ K ν̃`` by matrix-vector products with ``L⁻¹``. The
        variances need only ``diag B⁻¹`` (squared column norms of ``L⁻¹``):
        ``Σ = S̃^{-½}(I − B⁻¹)S̃^{-½}``, so ``Σ_ii = (1 − [B⁻¹]_ii)/τ̃_i``, which
        cancels when ``τ̃_i K_ii`` is small; those points take
        ``K_ii − ‖L⁻¹ S̃½ K_{·i}‖²`` instead (O(n²) each). [RW06] Alg. 3.5 forms all
        of ``L⁻¹ S̃½ K``: 4⁄3 n³.
        """
        sqrt_tau = np.sqrt(self.tau)
        factor = cholesky_in_place(self._b_matrix(sqrt_tau))
        if factor is None:  # NaN in K or the sites: a clear error, or jitter
            factor = cholesky_jitter(self._b_matrix(sqrt_tau), what="B = I + S½KS½")
        self.chol_B = factor
        inv_L = self.inv_chol_B = inverse_lower(self.chol_B)
        k_diag = np.diag(self.K)
        K_nu = self.K @ self.nu
        self._mean = K_nu - self.K @ (
            sqrt_tau * (inv_L.T @ (inv_L @ (sqrt_tau * K_nu)))
        )
        tau_k = self.tau * k_diag
        direct = tau_k > _CANCELLATION_GUARD
        var = np.empty_like(k_diag)
        b_inv_diag = np.einsum("ij,ij->j", inv_L, inv_L)  # no copy of inv_L's columns
        np.divide(1.0 - b_inv_diag, self.tau, out=var, where=direct)
        if not np.all(direct):
            # rows of the symmetric K gather contiguously, where its columns do not;
            # V = (S̃½ K_{·i})ᵀ L⁻ᵀ row by row, a trmm at half a GEMM's flops
            rows = np.asfortranarray(self.K[~direct] * sqrt_tau)
            V = blas.dtrmm(1.0, inv_L, rows, side=1, lower=1, trans_a=1, overwrite_b=1)
            var[~direct] = k_diag[~direct] - np.einsum("ij,ij->i", V, V)
        self._var = var

    def _b_matrix(self, sqrt_tau: np.ndarray) -> np.ndarray:
        """``B = I + S̃½ K S̃½`` in the buffer the factor of the last refresh took."""
        B = np.multiply(self.K, sqrt_tau[:, None], out=self._B)
        B *= sqrt_tau
        B.flat[:: len(B) + 1] += 1.0
        return B

    def marginals(self) -> tuple[np.ndarray, np.ndarray]:
        return self._mean, self._var

    def log_det(self) -> float:
        return log_det_from_cholesky(self.chol_B)

    @property
    def omega(self) -> np.ndarray:
        """``ω = K⁻¹μ = ν̃ − τ̃ ⊙ μ``: the predictive mean is ``k(x*)ᵀ ω``."""
        return self.nu - self.tau * self._mean

    def sequential_sweep(self, order: np.ndarray, site_update: SiteUpdate) -> None:
        """[RW06] Alg. 3.5: one rank-one change of ``Σ`` per site, O(n²) each."""
        V = solve_lower(self.chol_B, np.sqrt(self.tau)[:, None] * self.K)
        Sigma = np.asfortranarray(self.K - V.T @ V)
        mean = self._mean.copy()
        for i in order:
            s_ii = Sigma[i, i]
            new_tau, new_nu = site_update(i, mean[i], s_ii, self.tau[i], self.nu[i])
            d_tau, d_nu = new_tau - self.tau[i], new_nu - self.nu[i]
            self.tau[i], self.nu[i] = new_tau, new_nu
            column = Sigma[:, i].copy()
            denom = 1.0 + d_tau * s_ii
            mean += column * ((d_nu - d_tau * mean[i]) / denom)
            Sigma = blas.dger(-d_tau / denom, column, column, a=Sigma, overwrite_a=True)


@dataclass(frozen=True)
class EPState:
    """The outcome of :func:`run_ep`.

    Attributes
    ----------
    posterior : SitePosterior
        Refreshed at the final sites (not to be changed afterwards).
    mean, var : ndarray of shape (n,)
        Posterior marginals.
    log_evidence : float
        EP approximation of ``log p(y | X)`` (algorithms.md §5.5).
    n_sweeps : int
        Sweeps performed.
    converged : bool
        Whether the convergence test passed before ``max_sweeps``.
    """

    posterior: SitePosterior[Any]
    mean: np.ndarray
    var: np.ndarray
    log_evidence: float
    n_sweeps: int
    converged: bool

    @property
    def tau(self) -> np.ndarray:
        """Site precisions (of a posterior that holds its sites in memory)."""
        return posterior_of(self, ArraySites).tau

    @property
    def nu(self) -> np.ndarray:
        return posterior_of(self, ArraySites).nu


def _cavities(
    mean: np.ndarray, var: np.ndarray, tau: np.ndarray, nu: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Cavity natural parameters ``(τ_c, ν_c)`` of every site."""
    return 1.0 / var - tau, mean / var - nu


def leave_one_out(state: EPState) -> tuple[np.ndarray, np.ndarray]:
    """Each training latent's cavity mean and variance: EP's approximation of its
    leave-one-out predictive latent ([RW06] §3.6, algorithms.md §0.1).

    A site whose cavity is improper (a negative site precision past the marginal's)
    keeps its marginal.
    """
    tau_c, nu_c = _cavities(state.mean, state.var, *state.posterior.site_arrays())
    proper = tau_c > 0
    var = np.where(proper, 1.0 / np.where(proper, tau_c, 1.0), state.var)
    return np.where(proper, nu_c * var, state.mean), var


def cavity_gradient(state: EPState, y: np.ndarray, likelihood: Likelihood) -> float:
    """``∂ log Z_EP/∂b = Σ_i g_i`` at the cavities: the probit bias's gradient."""
    return cavity_gradient_terms(
        state.tau, state.nu, state.mean, state.var, y, likelihood
    )


def cavity_gradient_terms(
    tau: np.ndarray,
    nu: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    y: np.ndarray,
    likelihood: Likelihood,
) -> float:
    """:func:`cavity_gradient` of some sites: a sum, so row blocks add theirs."""
    tau_c, nu_c = _cavities(mean, var, tau, nu)
    return float(np.sum(likelihood.moments(nu_c / tau_c, 1.0 / tau_c, y).g))


def site_evidence_terms(
    tau: np.ndarray,
    nu: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    y: np.ndarray,
    likelihood: Likelihood,
) -> float:
    """The sites' part of :func:`log_evidence`: all of it but ``−½ log|I + K T̃|``.

    A sum over sites, so row blocks of a partitioned posterior add theirs. On the
    probit, one compiled loop
    (:func:`~sparsegp.approximations.sweep_kernels.probit_site_evidence`).
    """
    if isinstance(likelihood, Probit):
        tau, nu, mean, var, y = _float_arrays(tau, nu, mean, var, y)
        return sweep_kernels.probit_site_evidence(
            tau, nu, mean, var, y, likelihood.bias, likelihood.slope
        )
    tau_c, nu_c = _cavities(mean, var, tau, nu)
    moments = likelihood.moments(nu_c / tau_c, 1.0 / tau_c, y)
    site_terms = site_evidence_term(moments.log_z, tau, nu, tau_c, nu_c)
    return float(np.sum(site_terms)) + 0.5 * float(nu @ mean)


def site_evidence_term(
    log_z: np.ndarray,
    tau: np.ndarray,
    nu: np.ndarray,
    tau_c: np.ndarray,
    nu_c: np.ndarray,
) -> np.ndarray:
    """``log_z`` plus a site's own term of ``log Z_EP`` (algorithms.md §5.5): minus
    the log of the site ``(τ̃, ν̃)``'s Gaussian integral against its cavity
    ``(τ_c, ν_c)``, ``½ log(1 + τ̃/τ_c) + ½ ν_c²/τ_c − ½ (ν̃ + ν_c)²/(τ̃ + τ_c)``."""
    return (
        log_z
        + 0.5 * np.log1p(tau / tau_c)
        + 0.5 * nu_c**2 / tau_c
        - 0.5 * (nu + nu_c) ** 2 / (tau + tau_c)
    )


def log_evidence(
    posterior: ArraySites,
    likelihood: Likelihood,
    y: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
) -> float:
    """EP log evidence for any prior ([RW06] eq. 3.65 in natural parameters, algorithms.md §5.5).

    ``log Z_EP = Σ_i (log Ẑ_i + ½ log(1 + τ̃_i/τ_c,i) + ½ ν_c,i²/τ_c,i
    − ½ (ν̃_i + ν_c,i)²/(τ̃_i + τ_c,i)) − ½ log|I + K T̃| + ½ ν̃ᵀμ``.
    """
    terms = site_evidence_terms(posterior.tau, posterior.nu, mean, var, y, likelihood)
    return terms - 0.5 * posterior.log_det()


def site_change(
    tau: np.ndarray, nu: np.ndarray, old_tau: np.ndarray, old_nu: np.ndarray
) -> float:
    """Largest change of a site parameter, relative to ``1 + |value|`` (one compiled
    loop, :func:`~sparsegp.approximations.sweep_kernels.site_change`)."""
    tau, nu, old_tau, old_nu = _float_arrays(tau, nu, old_tau, old_nu)
    return sweep_kernels.site_change(tau, nu, old_tau, old_nu)


def _float_arrays(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """The arrays as flat contiguous float64 (no copy where they are), for the
    kernels."""
    return tuple(np.ascontiguousarray(a, dtype=float).ravel() for a in arrays)


def sites_converged(
    change: float,
    log_z: float,
    old_log_z: float,
    tol: float,
    evidence_tol: float | None = None,
) -> bool:
    """The convergence test of every EP loop in the package.

    Sites changed by less than ``tol`` (:func:`site_change`) and the log evidence
    by less than ``tol`` relative to ``max(1, |log Z|)``. With ``evidence_tol`` (an
    optimizer's evaluation, :class:`WarmStartedEP`) instead: the log evidence by
    less than ``evidence_tol`` and the sites by less than ``√tol``, or the sites by
    less than ``evidence_tol`` whatever the evidence did — at extreme
    hyperparameters its rounding noise (1e-3 relative per sweep, measured at an
    amplitude near 10⁵) exceeds any such tolerance while the sites stand still.
    """
    relative = abs(log_z - old_log_z) / max(1.0, abs(log_z))
    if evidence_tol is None:
        return change < tol and relative < tol
    return change < evidence_tol or (relative < evidence_tol and change < tol**0.5)


def parallel_site_update(
    y: np.ndarray,
    likelihood: Likelihood,
    tau: np.ndarray,
    nu: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    damping: float,
) -> tuple[np.ndarray, np.ndarray]:
    """New sites, all computed from the same marginals ``(mean, var)`` (damped).

    A site whose cavity is not a proper Gaussian keeps its value. On the probit, one
    compiled loop (:func:`~sparsegp.approximations.sweep_kernels.probit_site_update`).
    """
    if isinstance(likelihood, Probit):
        y, tau, nu, mean, var = _float_arrays(y, tau, nu, mean, var)
        return sweep_kernels.probit_site_update(
            y, tau, nu, mean, var, likelihood.bias, likelihood.slope, damping
        )
    new_tau, new_nu = matched_sites(
        y, likelihood, tau, nu, *_cavities(mean, var, tau, nu)
    )
    return tau + damping * (new_tau - tau), nu + damping * (new_nu - nu)


def matched_sites(
    y: np.ndarray,
    likelihood: Likelihood,
    tau: np.ndarray,
    nu: np.ndarray,
    tau_c: np.ndarray,
    nu_c: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The moment-matched sites (§0.3) at cavities ``(τ_c, ν_c)``; where a cavity is
    not a proper Gaussian the site ``(tau, nu)`` is kept."""
    proper = tau_c > 0.0
    tau_c = np.where(proper, tau_c, 1.0)
    mu_c, var_c = nu_c / tau_c, 1.0 / tau_c
    new_tau, new_nu = site_from_cavity(mu_c, var_c, likelihood.moments(mu_c, var_c, y))
    return np.where(proper, np.maximum(new_tau, 0.0), tau), np.where(proper, new_nu, nu)


def single_site_update(
    y_i: float,
    likelihood: Likelihood,
    tau_i: float,
    nu_i: float,
    mean_i: float,
    var_i: float,
    damping: float,
) -> tuple[float, float]:
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


class AndersonMixing:
    """Anderson acceleration of parallel EP's fixed-point iteration ``s ← g(s)``.

    Type-II Anderson mixing (Walker & Ni 2011, SIAM J. Numer. Anal. 49(4)): the next
    sites are ``g(s_k) − ΔG γ`` with ``γ`` the least-squares fit of the last
    ``memory`` residual differences ``ΔF`` to the residual ``f_k = g(s_k) − s_k``,
    rows weighted by ``1/(1 + |g|)`` as in :func:`site_change`. O(n·memory²) per
    sweep. A mixed step with a negative site precision is replaced by ``g(s_k)``
    and the history restarted; the fixed point is that of ``g``.

    Parameters
    ----------
    memory : int
        Residuals kept.
    """

    def __init__(self, memory: int = 5) -> None:
        self.memory = memory
        self._updates: list[np.ndarray] = []
        self._residuals: list[np.ndarray] = []

    def step(
        self,
        tau: np.ndarray,
        nu: np.ndarray,
        new_tau: np.ndarray,
        new_nu: np.ndarray,
        *,
        per_site: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The next sites after the plain update ``(tau, nu) → (new_tau, new_nu)``.

        ``per_site``: a site whose mixed precision is negative (or not finite) takes
        its plain update and the others keep the mixed step, the history kept — for
        many sites, where some are always improper in a mixed step (the multi-class
        steps: thousands of 10⁵ each sweep, so that restarting never mixed).
        """
        update = np.concatenate([new_tau, new_nu])
        self._updates.append(update)
        self._residuals.append(self.residual(np.concatenate([tau, nu]), update))
        del self._updates[: -self.memory - 1], self._residuals[: -self.memory - 1]
        if len(self._updates) < 2:
            return new_tau, new_nu
        dF = np.diff(np.array(self._residuals), axis=0).T
        gamma = np.linalg.lstsq(dF, self._residuals[-1], rcond=None)[0]
        n = len(tau)
        mixed, proper = self.mixed(self._updates, gamma, n)
        if per_site and not proper:
            improper = ~np.isfinite(mixed[:n]) | ~np.isfinite(mixed[n:])
            improper |= mixed[:n] < 0.0
            mixed[:n][improper], mixed[n:][improper] = (
                new_tau[improper],
                new_nu[improper],
            )
            return mixed[:n], mixed[n:]
        if not proper:
            self._updates, self._residuals = self._updates[-1:], self._residuals[-1:]
            return new_tau, new_nu
        return mixed[:n], mixed[n:]

    @staticmethod
    def residual(sites: np.ndarray, update: np.ndarray) -> np.ndarray:
        """``g(s) − s`` of stacked sites ``(τ̃, ν̃)``, rows weighted by ``1/(1 + |g|)``."""
        weights = 1.0 / (1.0 + np.abs(update))
        return weights * (update - sites)

    @staticmethod
    def mixed(
        updates: Sequence[np.ndarray], gamma: np.ndarray, n: int
    ) -> tuple[np.ndarray, bool]:
        """The mixed step ``g(s_k) − ΔG γ`` from the history of updates, and whether it
        is finite with non-negative precisions (its first ``n`` entries)."""
        dG = np.diff(np.array(updates), axis=0).T
        mixed = updates[-1] - matvec(dG, gamma)
        return mixed, bool(np.all(np.isfinite(mixed)) and not np.any(mixed[:n] < 0.0))


_Posterior = TypeVar("_Posterior")


def posterior_of(state: EPState, kind: type[_Posterior]) -> _Posterior:
    """``state.posterior``, checked to be a ``kind`` (dense or FITC)."""
    if not isinstance(state.posterior, kind):
        raise TypeError(
            f"an EP state on a {kind.__name__} is needed; this one is on a "
            f"{type(state.posterior).__name__}."
        )
    return state.posterior


def _sweep(
    posterior: SitePosterior[LikelihoodT],
    y: np.ndarray | None,
    likelihood: LikelihoodT,
    mode: str,
    damping: float,
    anderson: AndersonMixing,
    rng: np.random.Generator,
) -> None:
    """One EP sweep of :func:`run_ep`: every site updated, then the posterior
    refreshed."""
    if mode == "parallel":
        posterior.parallel_update(y, likelihood, damping, anderson)
    else:
        assert y is not None
        labels = y

        def site_update(
            i: int, mean_i: float, var_i: float, tau_i: float, nu_i: float
        ) -> tuple[float, float]:
            return single_site_update(
                labels[i],
                cast(Likelihood, likelihood),
                tau_i,
                nu_i,
                mean_i,
                var_i,
                damping,
            )

        posterior.sequential_sweep(rng.permutation(len(labels)), site_update)
    posterior.refresh()


def run_ep(
    posterior: SitePosterior[LikelihoodT],
    y: np.ndarray | None,
    likelihood: LikelihoodT,
    *,
    mode: str = "parallel",
    damping: float = 0.5,
    tol: float = 1e-6,
    evidence_tol: float | None = None,
    max_sweeps: int = 100,
    random_state: int | np.random.Generator | None = None,
) -> EPState:
    """Run EP from the posterior's current sites to convergence.

    Parameters
    ----------
    posterior : SitePosterior
        Refreshed at the initial sites; updated in place.
    y : ndarray of shape (n,) or None
        Labels or targets; None for a (partitioned) posterior holding them by its rows.
    likelihood : Likelihood
        Supplies the site moments.
    mode : {"parallel", "sequential"}
        Parallel updates all sites from the same marginals, then refreshes the
        posterior (BLAS-3 work only); sequential visits the sites one by one in
        random order ([RW06] Alg. 3.5, [NGH07] §3), then refreshes.
    damping : float in (0, 1]
        Fraction of the moment-matched change applied at first, halved (down to
        :data:`MIN_DAMPING`) when the sites change no less than three sweeps
        before. The fixed point does not depend on it.
    tol, evidence_tol, max_sweeps : float, float, int
        Tolerances of :func:`sites_converged` (``None``: evidence to ``tol``).
    random_state : int, Generator or None
        Order of the sequential sweeps.
    """
    if y is None and mode != "parallel":
        raise ValueError(
            "Sequential EP needs the labels in memory; a posterior over row blocks "
            "runs parallel sweeps only."
        )
    y = None if y is None else np.asarray(y, dtype=float)
    rng = np.random.default_rng(random_state)
    log_z, converged, n_sweeps = posterior.evidence(y, likelihood), False, 0
    changes: list[float] = []
    anderson = AndersonMixing()
    while n_sweeps < max_sweeps:
        n_sweeps += 1
        old_sites, old_log_z = posterior.sites(), log_z
        _sweep(posterior, y, likelihood, mode, damping, anderson, rng)
        log_z = posterior.evidence(y, likelihood)
        changes.append(posterior.change_since(old_sites))
        if sites_converged(changes[-1], log_z, old_log_z, tol, evidence_tol):
            converged = True
            break
        if len(changes) > _STALL_SWEEPS and changes[-1] >= changes[-1 - _STALL_SWEEPS]:
            damping = max(0.5 * damping, MIN_DAMPING)
            changes = []
            anderson = AndersonMixing()
    mean, var = posterior.marginals()
    return EPState(posterior, mean, var, log_z, n_sweeps, converged)


@dataclass(frozen=True)
class WarmStart:
    """Where an EP run on a new prior starts: the last converged run carried over.

    Attributes
    ----------
    checkpoint : object
        That run's posterior's :meth:`~SitePosterior.checkpoint` (for a posterior in
        memory, its sites and marginals ``(τ̃, ν̃, μ, σ²)``).
    prior_variance : float or ndarray
        That posterior's :attr:`~SitePosterior.prior_variance`.
    y : ndarray of shape (n,) or None
        The labels (None where the posterior holds them).
    likelihood : Likelihood or MultinomialProbit
        The new run's likelihood.
    """

    checkpoint: object
    prior_variance: Any
    y: np.ndarray | None
    likelihood: Any

    def scale_to(self, prior_variance: Any) -> Any:
        """``s = v_new / v_old``, the factor the prior's variance grew by (1 if
        either is not a positive number); elementwise for one variance per latent
        function (a multi-class posterior's)."""
        old, new = (
            np.asarray(self.prior_variance, float),
            np.asarray(prior_variance, float),
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(old > 0.0, new / old, 1.0)
        scale = np.where((scale > 0.0) & (scale < np.inf), scale, 1.0)
        return scale if scale.ndim else float(scale)


def carried_sites(
    y: np.ndarray,
    likelihood: Likelihood,
    tau: np.ndarray,
    nu: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    scale: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Sites of a converged run ``(τ̃, ν̃)`` with marginals ``(μ, σ²)``, carried to a
    prior ``scale`` times as wide and to ``likelihood`` (algorithms.md §5.5).

    Each cavity ``N(μ_c, σ_c²)`` becomes ``N(√s μ_c, s σ_c²)`` and the site is
    moment-matched there. Both limits are exact: where the prior dominates a point its
    cavity is its prior marginal, which scales so; where the likelihood acts as a step
    at the latent scale (the large amplitudes an optimizer drives separable data to)
    the EP fixed point scales with the prior, ``τ̃ → τ̃/s``, ``ν̃ → ν̃/√s``, and this
    gives that. A site with an improper cavity is kept.
    """
    tau_c, nu_c = _cavities(mean, var, tau, nu)
    return matched_sites(y, likelihood, tau, nu, tau_c / scale, nu_c / np.sqrt(scale))


def warm_sites(
    start: WarmStart | None, n: int, prior_variance: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(τ̃, ν̃)`` to start EP from on a prior of mean variance ``prior_variance``:
    zero sites for None, else :func:`carried_sites` of an in-memory ``start``."""
    if start is None:
        return np.zeros(n), np.zeros(n)
    assert start.y is not None, "an in-memory warm start needs its labels"
    tau, nu, mean, var = cast(tuple[np.ndarray, ...], start.checkpoint)
    return carried_sites(
        start.y,
        start.likelihood,
        tau,
        nu,
        mean,
        var,
        start.scale_to(prior_variance),
    )


class _KeptRun(NamedTuple):
    """A converged run :class:`WarmStartedEP` can start from: where it was evaluated
    (None if not said), its posterior's checkpoint and prior variance."""

    at: np.ndarray | None
    checkpoint: object
    prior_variance: float


@dataclass
class WarmStartedEP:
    """EP runs that start from the sites of the converged run evaluated nearest.

    An optimizer evaluates the evidence at nearby hyperparameters one after another;
    an earlier fixed point is a close start once it is carried to the new prior's
    scale and likelihood (:func:`carried_sites`: when the optimizer grows the
    kernel's amplitude, the sites shrink with it). A call that says where it
    evaluates (``at``, the optimizer's point) starts from the kept run nearest to it
    (Euclidean distance; the last :data:`_KEPT_RUNS` are kept): after a line search's
    far trial point the next trial lies back towards the incumbent, whose sites are
    the closer start (from the far point's, such runs take twice their neighbours'
    sweeps). Without ``at``
    (or for a posterior whose checkpoints are not values) a run starts from the last.
    A warm-started run gets a quarter of ``max_sweeps`` (at least 10), and if it has
    not converged by then EP starts again from zero sites.

    The tolerance ``tol`` of ``options`` is the accuracy the optimizer compares
    evidence values to. An evaluation's run stops when the log evidence has settled
    to ``tol / 10`` and the sites to ``√tol``: the EP evidence is stationary in the
    sites at the fixed point (its gradient has no term in their derivatives,
    algorithms.md §5.5), so it converges long before the largest site change does,
    and the gradient's error is of the order of the sites'. It also stops when the
    sites have settled to ``tol / 10``, whatever the evidence's rounding noise
    (:func:`sites_converged`). The fitted model's final run (``final=True``) asks
    ``tol / 100`` of sites and evidence, so that its predictions do not depend,
    beyond that, on the path the optimizer took to its point.

    Parameters
    ----------
    y : ndarray of shape (n,) or None
        None for posteriors that hold their labels (:func:`run_ep`).
    options : dict
        Keyword arguments of :func:`run_ep` (``evidence_tol`` is set here).

    Attributes
    ----------
    n_runs, n_sweeps, n_cold_restarts : int
        Runs, sweeps and cold restarts after a warm start that did not converge.
    """

    y: np.ndarray | None
    options: dict
    n_runs: int = 0
    n_sweeps: int = 0
    n_cold_restarts: int = 0
    _kept: list[_KeptRun] = field(default_factory=list, repr=False)

    @property
    def evidence_tol(self) -> float:
        """The relative change an evaluation's log evidence settles to: ``tol / 10``."""
        return self.options["tol"] * _SETTLED_EVIDENCE

    @property
    def final_tol(self) -> float:
        """The final run's tolerance of sites and evidence: ``tol / 100``."""
        return self.options["tol"] * _SETTLED_FINAL

    def __call__(
        self,
        make_posterior: Callable[[WarmStart | None], SitePosterior[LikelihoodT]],
        likelihood: LikelihoodT,
        final: bool = False,
        at: np.ndarray | None = None,
    ) -> EPState:
        """Run EP on ``make_posterior(start)`` with ``likelihood``.

        ``start`` is the :class:`WarmStart` of the kept run nearest ``at`` (the point
        of the optimizer's parameter space this run evaluates; None: the last run)
        with ``likelihood``, or None for zero sites (:func:`warm_sites`). ``final``:
        the fitted model's run, to the tighter tolerance of the class docstring.
        """
        if final:
            options = self.options | {"tol": self.final_tol}
        else:
            options = self.options | {"evidence_tol": self.evidence_tol}
        state = None
        kept = self._nearest(at)
        if kept is not None:
            start = WarmStart(kept.checkpoint, kept.prior_variance, self.y, likelihood)
            warm_options = options | {"max_sweeps": max(10, options["max_sweeps"] // 4)}
            state = self._run(make_posterior(start), likelihood, warm_options)
            if not state.converged:
                self.n_cold_restarts += 1
        if state is None or not state.converged:
            state = self._run(make_posterior(None), likelihood, options)
        if state.converged:
            self._keep(state.posterior, at)
        return state

    def _nearest(self, at: np.ndarray | None) -> _KeptRun | None:
        """The kept run evaluated nearest ``at`` (the latest of equals), or the last."""
        if not self._kept:
            return None
        located = [] if at is None else [r for r in self._kept if r.at is not None]
        if not located:
            return self._kept[-1]
        at = np.asarray(at, dtype=float)
        return min(reversed(located), key=lambda run: float(np.sum((run.at - at) ** 2)))

    def _keep(self, posterior: SitePosterior[Any], at: np.ndarray | None) -> None:
        run = _KeptRun(
            None if at is None else np.array(at, dtype=float),
            posterior.checkpoint(),
            posterior.prior_variance,
        )
        earlier = self._kept if posterior.checkpoint_is_value else []
        self._kept = [*earlier, run][-_KEPT_RUNS:]

    def _run(
        self,
        posterior: SitePosterior[LikelihoodT],
        likelihood: LikelihoodT,
        options: dict,
    ) -> EPState:
        state = run_ep(posterior, self.y, likelihood, **options)
        self.n_runs += 1
        self.n_sweeps += state.n_sweeps
        return state


def _inverse_from_inverse_factor(inv_L: np.ndarray) -> np.ndarray:
    """``B⁻¹ = L⁻ᵀ L⁻¹`` from ``L⁻¹`` by LAPACK ``lauum`` (n³/3 flops), both triangles."""
    product, info = lapack.dlauum(inv_L, lower=1)
    if info != 0:
        raise np.linalg.LinAlgError(f"dlauum failed with info={info}")
    lower = np.tril(product)  # lauum leaves the input's upper triangle
    inverse = lower + lower.T
    inverse.flat[:: len(inverse) + 1] -= lower.diagonal()
    return inverse


def ep_log_evidence_weights(state: EPState) -> np.ndarray:
    """``W`` with ``∂ log Z/∂θ = Σ_ij W_ij ∂K_ij/∂θ`` at the fixed point (algorithms.md §6.1).

    ``W = ½ (ω ωᵀ − R)`` with ``R = S̃½ B⁻¹ S̃½`` (R&W eq. 5.27): a kernel that
    contracts its own derivatives with ``W`` (:class:`~sparsegp.kernels.CrossCovariance`)
    never forms the ``(n, n, p)`` array of them.

    Parameters
    ----------
    state : EPState
        A converged EP state on a :class:`DensePosterior`.

    Returns
    -------
    ndarray of shape (n, n)
        Symmetric.
    """
    posterior = posterior_of(state, DensePosterior)
    sqrt_tau = np.sqrt(state.tau)
    W = _inverse_from_inverse_factor(posterior.inv_chol_B)
    W *= sqrt_tau[:, None]
    W *= -0.5 * sqrt_tau
    omega = posterior.omega
    return blas.dger(0.5, omega, omega, a=W.T, overwrite_a=True).T


def dense_predictor(state: EPState) -> Predictor:
    """Full EP's predictor ([RW06] Alg. 3.6): mean ``k(x*)ᵀω`` with ``ω = K⁻¹μ``,
    variance ``k** − ‖L⁻¹ S̃½ k(x*)‖²`` with ``L = chol(I + S̃½ K S̃½)``. The prior
    ``K`` (n × n) that the EP state holds is not kept."""
    posterior = posterior_of(state, DensePosterior)
    # a copy: the posterior factors the next refresh's B in the same buffer
    return Predictor(
        weights=posterior.omega,
        chol=posterior.chol_B.copy(),
        scale=np.sqrt(state.tau),
    )
