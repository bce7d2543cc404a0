"""Relevance vector machine trained by Subspace EM (algorithms.md §4).

Quiñonero-Candela & Winther (2003). Weights ``w`` of ``M`` basis functions (kernel
columns at the training inputs plus a bias) have priors ``N(0, α_j⁻¹)``; basis functions
with ``α_j ≥ L`` are pruned. Subspace EM (SSEM, [QW03] Fig. 1) visits the basis functions
one by one: each newcomer enters with ``α = L``, then one E-step and one M-step run on
the active set ``R``; once all have been visited, batch EM runs on ``R`` to
convergence. An E-step costs O(n·|R|² + |R|³) instead of the batch method's O(M³).

Regression has the exact Gaussian E-step ([QW03] eqs. 6-7) and evidence (eq. 11);
classification (probit ``Φ(t·y/σ_in)``) uses the mean-field E-step of [QW03] §4: adaptive
TAP, which is EP, run by the package's one EP loop on the weight-space prior
(:func:`ep_e_step`), or the Laplace (``V = 0``) and naive mean-field cavity variances,
solved by damped Newton steps in μ (eq. 19, :func:`mean_field_e_step`).

[TF03] Tipping, M. E. and Faul, A. C. (2003). Fast marginal likelihood maximisation for
sparse Bayesian models. AISTATS: the evidence as a function of one α (newcomers, and the
classifier's deletions in the final EM).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._linalg import (
    cho_solve_lower,
    cholesky_jitter,
    cholesky_permuted,
    log_det_from_cholesky,
    solve_lower,
    weighted_gram,
)
from ..exceptions import warn_at_caller
from ..likelihoods import Moments, Probit
from .blocks import LocalBlocks, ThreadBlocks, balanced_row_ranges, mapped_on
from .ep import run_ep
from .partitioned_fitc import FITCBlock, PartitionedFITCPosterior
from .predictor import Predictor

#: Smallest precision of a weight (prior standard deviation 1 000).
_MIN_ALPHA = 1e-6
#: Smallest noise variance, relative to the mean squared target (:func:`_mean_square`).
_MIN_NOISE = 1e-10
#: Newton steps (EP sweeps, adaptive TAP) of a mean-field E-step inside EM ([QW03]:
#: "typically 20"; warm-started, so an E-step that stops short is continued by the next)
#: and of the final one.
_E_STEP_ITER, _FINAL_E_STEP_ITER = 30, 300
#: EP sweeps of an adaptive-TAP E-step after a newcomer entered, in the sweep over the
#: dictionary: a generalised EM step, continued by the next (algorithms.md §4.3). Three
#: were needed while the final EM made one M-step per E-step (with one it ran past
#: ``max_iter`` at n = 10 000); with its M-steps at the sites two give the same test
#: error and NLP, and one too, but the fit then depends more on how the dictionary is
#: offered (algorithms.md §4.3). The final EM keeps full E-steps.
_SWEEP_TAP_E_STEP_ITER = 2
#: Training points per basis function a classifier's sweep offers between two E-steps
#: (:func:`sweep_offers`): where the data need hundreds of relevance vectors, offering
#: one centre per E-step is most of a fit, and offering several is faster at no loss
#: in test error (algorithms.md §4.3).
ROWS_PER_OFFER = 5000
#: EP's tolerance (:func:`~sparsegp.approximations.ep.sites_converged`) in an adaptive-TAP
#: E-step inside EM, and in the final one. Inside EM the next E-step continues from the
#: sites: 1e-6 there is faster than 1e-8 and gives the test error and NLP the Newton
#: steps gave at 1e-8 (algorithms.md §0.6).
_E_STEP_TOL, _FINAL_E_STEP_TOL = 1e-6, 1e-8
#: The most M-steps of a classifier's final EM at one E-step's sites
#: (:func:`m_steps_at_sites`), each O(|R|³): far fewer E-steps, each O(n·|R|²), than
#: one M-step per E-step makes (algorithms.md §0.6, §4.4).
_FINAL_M_STEPS = 100
#: E-steps in a row, each with a largest ``log α`` change no smaller than an earlier
#: E-step's, beyond which a classifier's final EM makes one M-step per E-step instead
#: of M-steps at the sites (held sites can swing a weight's α back and forth,
#: algorithms.md §4.4).
_STALLED_E_STEPS = 10
#: The most one Aitken extrapolation of the classifier's final EM moves a ``log α``
#: (:func:`extrapolated_log_alpha`): a factor of 10 either way.
_MAX_LOG_ALPHA_JUMP = np.log(10.0)
#: The most rows of a block of an adaptive-TAP E-step (:func:`e_step_row_ranges`),
#: and the fewest of the two blocks it makes of up to twice as many rows: larger
#: blocks were faster on two threads, and two blocks faster than one where the rows
#: allow them (algorithms.md §0.6).
E_STEP_BLOCK_ROWS, _SMALLEST_E_STEP_BLOCK_ROWS = 8192, 1024

__all__ = [
    "MeanFieldSites",
    "RVMFit",
    "batch_em",
    "e_step_row_ranges",
    "ep_e_step",
    "mean_field_e_step",
    "relevance_predictor",
    "regression_e_step",
    "subspace_em",
    "update_alpha",
    "update_noise",
]


@dataclass(frozen=True)
class Posterior:
    """Gaussian posterior ``N(μ, Σ)`` of the active weights.

    Attributes
    ----------
    mean : ndarray of shape (r,)
    chol : ndarray of shape (r, r)
        Lower Cholesky factor of ``Σ⁻¹``.
    sigma_diag : ndarray of shape (r,)
        ``diag Σ``.
    log_evidence : float
        Eq. 11 (regression); NaN for classification.
    residual : float
        ``‖t − Ψ_R μ‖²`` (regression; NaN for classification).
    """

    mean: np.ndarray
    chol: np.ndarray
    sigma_diag: np.ndarray
    log_evidence: float = np.nan
    residual: float = np.nan

    def covariance(self) -> np.ndarray:
        """``Σ`` (r × r)."""
        inv = solve_lower(self.chol, np.eye(len(self.mean)))
        return inv.T @ inv


def relevance_predictor(
    fit: RVMFit, with_bias: bool
) -> tuple[np.ndarray, np.ndarray, Predictor]:
    """``fit``'s relevant basis functions in index order, their ``α`` and the
    predictor on them (with ``with_bias``, basis function 0 is the bias): latent mean
    ``ψ(x)ᵀμ`` and variance ``ψ(x)ᵀΣψ(x) = ‖L⁻¹ψ(x)‖²``, ``L = chol(Σ⁻¹)`` and
    ``ψ(x) = (1, k(x, x_r)…)`` with the bias ([QW03] eqs. 9-10, without the noise):
    a finite linear model, the prior's ``k(x, x)`` does not enter. O(r²) per point."""
    order = np.argsort(fit.relevant)
    relevant = fit.relevant[order]
    chol = cholesky_permuted(fit.posterior.chol, order)
    predictor = Predictor(
        weights=fit.posterior.mean[order],
        chol=chol,
        inner=np.eye(len(chol)),
        prior_share=0.0,
        bias_feature=bool(with_bias and relevant[0] == 0),
    )
    return relevant, fit.alpha[order], predictor


def _posterior_from_precision(
    precision: np.ndarray, rhs: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    chol = cholesky_jitter(precision, what="A + ΨᵀΩΨ")
    inv = solve_lower(chol, np.eye(len(rhs)))
    return chol, cho_solve_lower(chol, rhs), np.einsum("ij,ij->j", inv, inv)


def regression_e_step(
    gram: np.ndarray,
    psi_t: np.ndarray,
    t_t: float,
    n: int,
    alpha: np.ndarray,
    noise: float,
) -> Posterior:
    """Posterior of the active weights and the log evidence ([QW03] eqs. 6, 7, 11).

    Parameters
    ----------
    gram : ndarray of shape (r, r)
        ``Ψ_Rᵀ Ψ_R``.
    psi_t : ndarray of shape (r,)
        ``Ψ_Rᵀ t``.
    t_t : float
        ``tᵀ t``.
    n : int
        Number of targets.
    alpha : ndarray of shape (r,)
    noise : float
        ``σ²``.
    """
    chol, mean, sigma_diag = _posterior_from_precision(
        gram / noise + np.diag(alpha), psi_t / noise
    )
    fit = t_t - psi_t @ mean  # tᵀ(t − Ψμ)
    log_evidence = -0.5 * (
        n * np.log(2 * np.pi * noise)
        + log_det_from_cholesky(chol)
        - np.sum(np.log(alpha))
        + fit / noise
    )
    residual = t_t - 2 * psi_t @ mean + mean @ gram @ mean
    return Posterior(
        mean, chol, sigma_diag, float(log_evidence), float(max(residual, 0))
    )


def _bounded_alpha(alpha: np.ndarray, threshold: float) -> np.ndarray:
    """``alpha`` within ``[_MIN_ALPHA, threshold]`` (:func:`update_alpha` says why)."""
    return np.clip(alpha, _MIN_ALPHA, threshold)


def update_alpha(
    posterior: Posterior, alpha: np.ndarray, update: str, threshold: float
) -> np.ndarray:
    """EM ``1/(μ² + Σ_jj)`` or MacKay ``γ_j/μ_j²`` update of α ([QW03] eq. 12).

    MacKay's update with ``μ_j = 0`` prunes (``α_j = L``). α is kept at or above
    ``_MIN_ALPHA``: on separable classes the evidence drives α to 0 and the weights to
    infinity (a prior standard deviation of 1 000 is wide enough for any scaled data);
    and at or below ``L``, where a weight counts as pruned: the one weight a model
    keeps rather than none (:meth:`_Trainer.em_step`) stays there, where beyond it
    ``γ_j = 1 − α_j Σ_jj`` is rounding and MacKay's steps ran away to overflow.
    """
    mu2 = posterior.mean**2
    if update == "em":
        new = 1.0 / (mu2 + posterior.sigma_diag)
    else:
        gamma = np.maximum(1.0 - alpha * posterior.sigma_diag, 1e-12)
        with np.errstate(divide="ignore", over="ignore"):
            new = np.where(mu2 > 0, gamma / np.where(mu2 > 0, mu2, 1.0), threshold)
    return _bounded_alpha(new, threshold)


def extrapolated_log_alpha(
    step: np.ndarray, last_step: np.ndarray, tol: float
) -> np.ndarray:
    """Aitken's Δ² jump of each ``log α`` towards the limit of its EM iteration.

    Where a weight's last two steps ``last_step``, ``step`` shrink by a common ratio
    ``ρ = step/last_step`` with ``|ρ| < 1`` (linear convergence, monotone or
    alternating), the iteration's limit lies ``step·ρ/(1 − ρ)`` beyond the current
    value (Aitken's Δ² process, [MK08] ch. 4, per coordinate). The jump is at most
    ``_MAX_LOG_ALPHA_JUMP``, and zero for weights whose step is below ``tol`` or not
    shrinking. No α jumps while every one falls: the weights grow together, as on
    separable classes, where the limit is the floor of α and speed only sharpens the
    probabilities (:func:`_not_converged_message`; algorithms.md §4.4).
    """
    if np.all(step < 0.0):
        return np.zeros_like(step)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        ratio = step / last_step
        linear = (np.abs(ratio) < 1.0) & (np.abs(step) >= tol)
        jump = np.where(linear, step * ratio / (1.0 - ratio), 0.0)
    return np.clip(jump, -_MAX_LOG_ALPHA_JUMP, _MAX_LOG_ALPHA_JUMP)


def evidence_keeps(posterior: Posterior, alpha: np.ndarray) -> np.ndarray:
    """Whether each active weight has ``q_j² > s_j``: a finite evidence-maximising α.

    With the others fixed the evidence peaks at ``α_j = ∞`` when ``q_j² ≤ s_j``
    ([TF03]; docs/algorithms.md §4.4). From ``Σ_jj = 1/(α_j + s_j)`` and
    ``μ_j = q_j/(α_j + s_j)``, ``s_j = γ_j/Σ_jj`` and ``q_j = μ_j/Σ_jj``, so the test is
    ``μ_j² > γ_j Σ_jj`` on the E-step's own posterior, at no cost.
    """
    gamma = 1.0 - alpha * posterior.sigma_diag
    return posterior.mean**2 > gamma * posterior.sigma_diag


def m_steps_at_sites(
    posterior: Posterior,
    alpha: np.ndarray,
    *,
    update: str,
    threshold: float,
    delete_unsupported: bool,
    tol: float,
    max_steps: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """M-steps of a classifier's α with one E-step's sites held, until none moves.

    With the sites held the weights' posterior is Gaussian, ``Σ = (A + G)⁻¹``,
    ``μ = Σ b`` (:func:`_held_site_statistics`), so each further M-step
    (:func:`update_alpha`) costs O(|R|³) instead of an O(n·|R|²) E-step. They stop
    when no ``log α`` moves by ``tol``, or after ``max_steps``. Only the first, at the
    E-step's own sites, prunes (at ``L`` and, with ``delete_unsupported``, where
    :func:`evidence_keeps` fails): a weight that would leave at held sites keeps its
    α until the next E-step's first M-step judges it, as held sites deleted weights
    that fresh ones keep (IDA thyroid). A ``log α`` converging linearly jumps to its
    limit at most every second step (:func:`extrapolated_log_alpha`). A generalised
    EM step: the next E-step recomputes the sites at the new α (algorithms.md §4.4).
    Returns the kept weights' α after the last M-step, their positions in ``alpha``
    as given, and their posterior mean before that step.
    """
    precision, projection = _held_site_statistics(posterior, alpha)
    kept, mean = np.arange(len(alpha)), posterior.mean
    waiting = np.zeros(len(alpha), dtype=bool)
    last_step = None
    for step in range(1, max_steps + 1):
        new_alpha = update_alpha(posterior, alpha, update, threshold)
        leaving = leaving_after_m_step(
            posterior, alpha, new_alpha, threshold, delete_unsupported
        )
        keep = np.ones(len(alpha), dtype=bool)
        if step == 1:  # at the E-step's own sites the weights leave
            keep = _kept(leaving, new_alpha)
        else:  # at held sites they wait, α held, for the next E-step's first M-step
            waiting |= leaving
            new_alpha[waiting] = alpha[waiting]
        pruned = not np.all(keep)
        log_alpha_step = np.log(new_alpha[keep]) - np.log(alpha[keep])
        alpha, kept, mean = new_alpha[keep], kept[keep], posterior.mean[keep]
        waiting = waiting[keep]
        if step == max_steps or (not pruned and np.max(np.abs(log_alpha_step)) < tol):
            break
        alpha, last_step = _extrapolated(
            alpha, log_alpha_step, last_step, tol, threshold
        )
        precision = precision[np.ix_(keep, keep)]
        projection = projection[keep]
        chol, mu, sigma_diag = _posterior_from_precision(
            precision + np.diag(alpha), projection
        )
        posterior = Posterior(mu, chol, sigma_diag)
    return alpha, kept, mean


def _held_site_statistics(
    posterior: Posterior, alpha: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``G = Ψ_RᵀΩΨ_R`` and ``b = Ψ_Rᵀν̃`` of an adaptive-TAP E-step's sites, read off
    its posterior: ``G = L Lᵀ − A`` from the factor of ``Σ⁻¹ = A + G``, ``b = L Lᵀ μ``
    (:func:`ep_e_step`'s ``μ = Σ b``); O(|R|³). For the Newton E-steps
    (:func:`mean_field_e_step`), settled, ``(A + G) μ = G μ + Ψᵀg`` is the same
    Gaussian surrogate's ``b``."""
    factor = posterior.chol
    return data_precision(factor, alpha), factor @ (factor.T @ posterior.mean)


def data_precision(chol: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """``Ψ_RᵀΩΨ_R`` read off the factor ``L Lᵀ = A + Ψ_RᵀΩΨ_R`` of an E-step, O(r³)
    instead of the O(n·r²) product. Subtracting ``A`` perturbs entry ``(i, j)`` by
    about ``ε·√(α_i α_j)``, the size of the Cholesky factorisation's own backward
    error on ``A_new + Ψ_RᵀΩΨ_R`` wherever ``α`` did not fall by orders of magnitude.
    """
    precision = chol @ chol.T
    precision[np.diag_indices_from(precision)] -= alpha
    return precision


def leaving_after_m_step(
    posterior: Posterior,
    alpha: np.ndarray,
    new_alpha: np.ndarray,
    threshold: float,
    delete_unsupported: bool,
) -> np.ndarray:
    """The weights an M-step from ``alpha`` to ``new_alpha`` prunes: at ``L`` and, with
    ``delete_unsupported``, where :func:`evidence_keeps` fails ([TF03]'s deletion,
    algorithms.md §4.4)."""
    leaving = new_alpha >= threshold
    if delete_unsupported:
        leaving |= ~evidence_keeps(posterior, alpha)
    return leaving


def _kept(leaving: np.ndarray, new_alpha: np.ndarray) -> np.ndarray:
    """The weights not ``leaving``, or the strongest one rather than an empty model."""
    keep = ~leaving
    if not np.any(keep):
        keep[np.argmin(new_alpha)] = True
    return keep


def update_noise(
    posterior: Posterior, alpha: np.ndarray, noise: float, n: int, update: str
) -> float:
    """EM or MacKay update of ``σ²`` ([QW03] eq. 12 and algorithms.md §4.2)."""
    well_determined = np.sum(1.0 - alpha * posterior.sigma_diag)
    if update == "em":
        return (posterior.residual + noise * well_determined) / n
    return posterior.residual / max(n - well_determined, 1e-12)


@dataclass(frozen=True)
class MeanFieldSites:
    """Per-example statistics of the mean-field E-step, to warm-start the next one.

    Attributes
    ----------
    g : ndarray of shape (n,)
        ``∂ log ⟨Φ⟩/∂y`` at the cavity ([QW03] eq. 17).
    omega : ndarray of shape (n,)
        Site precisions ``Ω`` ([QW03] eq. 18).
    converged : bool
        Whether the E-step settled within its iterations.
    nu : ndarray of shape (n,) or None
        EP's site means in natural form ``ν̃`` (:func:`ep_e_step`).
    """

    g: np.ndarray
    omega: np.ndarray
    converged: bool = True
    nu: np.ndarray | None = None


def _cavity_consistent_g(
    likelihood: Probit,
    y_mean: np.ndarray,
    V: np.ndarray,
    t: np.ndarray,
    g: np.ndarray,
    *,
    tol: float,
    max_steps: int = 10,
) -> Moments:
    """Solve ``g_i = ∂ log Z_i/∂y^c`` at ``y^c_i = ŷ_i − V_i g_i`` ([QW03] eq. 18) for ``g``.

    Scalar Newton steps per example, ``g ← g − (g − G)/(1 − V w)``, from the previous
    ``g``: the plain update ``g ← G`` contracts only by ``V w``, which nears 1 when ``V``
    is a wide prior variance (naive mean field). Returns the likelihood moments at the
    final cavity; their ``g`` is the solution.
    """
    for _ in range(max_steps):
        moments = likelihood.moments(y_mean - V * g, V, t)
        residual = g - moments.g
        if np.max(np.abs(residual)) <= tol * (1 + np.max(np.abs(moments.g))):
            return moments
        g = g - residual / (1.0 - V * moments.w)
    return likelihood.moments(y_mean - V * g, V, t)


def _cavity_variance(variant: str, prior_var: np.ndarray) -> np.ndarray:
    """Cavity variances ``V``: 0 (``"laplace"``, MAP weights) or ``[ΨA⁻¹Ψᵀ]_ii``
    (``"naive"`` mean field); adaptive TAP is :func:`ep_e_step`."""
    if variant == "laplace":
        return np.zeros(len(prior_var))
    if variant == "naive":
        return prior_var
    raise ValueError(
        f"variant must be 'laplace' or 'naive' (TAP: ep_e_step); got {variant!r}."
    )


def _precision_cholesky(
    Psi: np.ndarray, alpha: np.ndarray, omega: np.ndarray
) -> np.ndarray:
    """The Cholesky factor of the weights' posterior precision ``A + ΨᵀΩΨ``."""
    return cholesky_jitter(
        np.diag(alpha) + weighted_gram(Psi.T, omega), what="A + ΨᵀΩΨ"
    )


def _next_step_size(step_size: float, norm: float, last_norm: float) -> float:
    """The Newton step's fraction ``η``: halved (down to 1/64) when the step is longer
    than the last, an oscillation; doubled (up to 1) when shorter."""
    if norm > last_norm:
        return max(step_size / 2, 1 / 64)
    return min(2 * step_size, 1.0)


def _settled(
    norm: float, mu: np.ndarray, g_new: np.ndarray, g: np.ndarray, tol: float
) -> bool:
    """Whether the Newton step's size ``norm`` and the change of ``g`` are below
    ``tol`` relative to ``μ`` and ``g``."""
    return bool(
        norm < tol * (1 + np.max(np.abs(mu)))
        and np.max(np.abs(g_new - g)) < tol * (1 + np.max(np.abs(g_new)))
    )


def ep_e_step(
    Psi: np.ndarray,
    alpha: np.ndarray,
    t: np.ndarray,
    sigma_in: float,
    *,
    sites: MeanFieldSites | None = None,
    max_iter: int = _E_STEP_ITER,
    tol: float = 1e-8,
    pool: Executor | None = None,
) -> tuple[Posterior, MeanFieldSites]:
    """Adaptive-TAP posterior of the weights ([QW03] §4, eqs. 16-19), which is EP's.

    The latents ``y = Ψw`` have the prior ``Ψ A⁻¹ Ψᵀ = VᵀV`` with ``V = A^{-½} Ψᵀ``: a
    FITC prior (algorithms.md §5.1) whose inducing values are the weights
    (``L_u = A^{-½}``) and whose residual ``d₀`` is zero, so
    :func:`~sparsegp.approximations.ep.run_ep` runs its parallel sweeps on it
    (O(n·r²) each), from the previous E-step's sites when given, over the row blocks
    of :func:`e_step_row_ranges`
    (:class:`~sparsegp.approximations.partitioned_fitc.PartitionedFITCPosterior`),
    worked on by the thread ``pool`` where given: the blocks depend on n alone, so
    the posterior does not depend on the pool. The weights' posterior is then
    ``Σ = (A + ΨᵀΩΨ)⁻¹``, ``μ = Σ Ψᵀ ν̃`` with ``Ω = diag τ̃``, and ``g = ν̃ − τ̃ ⊙ m``
    at the latents' marginal means ``m`` (eq. 17); the factor of ``Σ⁻¹`` is EP's
    ``L_B`` scaled by ``A^½``, no further O(n·r²) product.
    """
    sqrt_alpha = np.sqrt(alpha)
    posterior = _weight_space_posterior(Psi, sqrt_alpha, t, sites, pool)
    state = run_ep(
        posterior,
        None,
        Probit(0.0, 1.0 / sigma_in),
        damping=1.0,
        tol=tol,
        max_sweeps=max_iter,
    )
    tau, nu = posterior.site_arrays()
    # A + ΨᵀΩΨ = A^½ (I + V Ω Vᵀ) A^½ = A^½ L_B L_Bᵀ A^½: EP's factor serves
    chol = sqrt_alpha[:, None] * posterior.chol_B
    mu = cho_solve_lower(chol, Psi.T @ nu)
    inv = solve_lower(chol, np.eye(len(alpha)))
    posterior_of_weights = Posterior(mu, chol, np.einsum("ij,ij->j", inv, inv))
    g = nu - tau * state.mean
    return posterior_of_weights, MeanFieldSites(g, tau, state.converged, nu)


def _weight_space_posterior(
    Psi: np.ndarray,
    sqrt_alpha: np.ndarray,
    t: np.ndarray,
    sites: MeanFieldSites | None,
    pool: Executor | None,
) -> PartitionedFITCPosterior:
    """:func:`ep_e_step`'s EP posterior on its row blocks, at ``sites`` (None: zero
    sites), the blocks made on the ``pool``."""
    n = len(t)
    tau, nu = np.zeros(n), np.zeros(n)
    if sites is not None and sites.nu is not None:
        tau, nu = sites.omega, sites.nu
    made = mapped_on(
        pool,
        lambda rows: _weight_space_block(
            Psi[rows[0] : rows[1]], sqrt_alpha, t, tau, nu, rows
        ),
        e_step_row_ranges(n),
    )
    blocks = [block for block, _ in made]
    return PartitionedFITCPosterior(
        LocalBlocks(blocks) if pool is None else ThreadBlocks(blocks, pool),
        np.diag(1.0 / sqrt_alpha),
        sum(variances for _, variances in made) / n,
        np.diag(sqrt_alpha),
    )


def e_step_row_ranges(n: int) -> list[tuple[int, int]]:
    """The row blocks of an adaptive-TAP E-step on ``n`` points: at most
    :data:`E_STEP_BLOCK_ROWS` rows each, and two of at least 1 024 rows where ``n``
    allows, so that two threads share a fit of a few thousand points."""
    half = -(-n // 2)
    largest = min(E_STEP_BLOCK_ROWS, max(_SMALLEST_E_STEP_BLOCK_ROWS, half))
    return balanced_row_ranges(n, largest)


def _weight_space_block(
    Psi: np.ndarray,
    sqrt_alpha: np.ndarray,
    t: np.ndarray,
    tau: np.ndarray,
    nu: np.ndarray,
    rows: tuple[int, int],
) -> tuple[FITCBlock, float]:
    """The block of ``rows`` of :func:`ep_e_step`'s prior (``V_c = A^{-½} Ψ_cᵀ`` from
    their rows ``Ψ_c``, ``d₀ = 0``) with their labels and sites, and the sum of their
    prior variances ``‖V_i‖²``."""
    V = np.ascontiguousarray(Psi.T / sqrt_alpha[:, None])
    start, stop = rows
    block = FITCBlock(
        X=np.zeros((stop - start, 0)),
        y=t[start:stop],
        V=V,
        V_sweep=V,
        d0=np.zeros(stop - start),
        tau=tau[start:stop].copy(),
        nu=nu[start:stop].copy(),
    )
    return block, float(np.einsum("ij,ij->", V, V))


def mean_field_e_step(
    Psi: np.ndarray,
    alpha: np.ndarray,
    t: np.ndarray,
    sigma_in: float,
    variant: str,
    *,
    mean: np.ndarray | None = None,
    sites: MeanFieldSites | None = None,
    max_iter: int = 30,
    tol: float = 1e-8,
) -> tuple[Posterior, MeanFieldSites]:
    """Mean-field posterior of the weights for probit classification ([QW03] eqs. 16-19).

    Iterates the cavity statistics and Newton steps ``μ ← μ + η Σ(Ψᵀg − Aμ)``,
    ``Σ = (A + ΨᵀΩΨ)⁻¹``, until ``μ`` and ``g`` settle; ``Ω`` moves by the same
    fraction ``η`` (:func:`_next_step_size`). The cavity variances do not depend on
    the sites here.

    Parameters
    ----------
    Psi : ndarray of shape (n, r)
        Active columns of the design matrix.
    alpha : ndarray of shape (r,)
    t : ndarray of shape (n,)
        Labels in ``{-1, +1}``.
    sigma_in : float
        Input noise of ``Φ(t·y/σ_in)``.
    variant : {"laplace", "naive"}
        The cavity variances (:func:`_cavity_variance`).
    mean, sites : ndarray of shape (r,), MeanFieldSites, optional
        Warm starts for ``μ`` and for ``g, Ω`` (the previous E-step's): pass both, as a
        warm ``μ`` beside ``Ω = 0`` is far from consistent and can stall.
    max_iter, tol : int, float
        Newton steps ([QW03]: "about 20"); relative change of ``μ``, ``g`` that ends them.
    """
    likelihood = Probit(0.0, 1.0 / sigma_in)
    n, r = Psi.shape
    mu = np.zeros(r) if mean is None else np.asarray(mean, dtype=float).copy()
    g = np.zeros(n) if sites is None else sites.g.copy()
    omega = np.zeros(n) if sites is None else sites.omega.copy()
    V = _cavity_variance(variant, (Psi * Psi) @ (1.0 / alpha))
    chol = _precision_cholesky(Psi, alpha, omega)
    step_size, last_norm, settled = 1.0, np.inf, False
    for _ in range(max_iter):
        moments = _cavity_consistent_g(likelihood, Psi @ mu, V, t, g, tol=tol)
        g_new = moments.g
        omega += step_size * (moments.w / (1.0 - V * moments.w) - omega)
        chol = _precision_cholesky(Psi, alpha, omega)
        step = cho_solve_lower(chol, Psi.T @ g_new - alpha * mu)
        norm = np.max(np.abs(step))
        mu += step_size * step
        settled = _settled(norm, mu, g_new, g, tol)
        step_size = _next_step_size(step_size, norm, last_norm)
        g, last_norm = g_new, norm
        if settled:
            break
    inv = solve_lower(chol, np.eye(r))
    posterior = Posterior(mu, chol, np.einsum("ij,ij->j", inv, inv))
    return posterior, MeanFieldSites(g, omega, settled)


@dataclass
class _ActiveBasis:
    """Active columns ``Ψ_R`` with ``Ψ_RᵀΨ_R`` and ``Ψ_Rᵀt`` kept incrementally.

    ``Psi`` is a view of ``columns``, a column-major array with room for more: a
    newcomer is written into it (its capacity doubles when full) and pruning moves
    the kept columns to its front, instead of a new n × |R| array each time, whose
    copies and first touches are a measurable share of a large fit (algorithms.md
    §0.6).
    """

    t: np.ndarray
    index: list
    Psi: np.ndarray
    gram: np.ndarray
    psi_t: np.ndarray
    columns: np.ndarray | None = None

    @classmethod
    def empty(cls, t: np.ndarray) -> _ActiveBasis:
        n = len(t)
        return cls(t, [], np.zeros((n, 0)), np.zeros((0, 0)), np.zeros(0))

    def add(self, j: int, column: np.ndarray) -> None:
        """Append basis function ``j`` (its column ``ψ_j``): O(n·|R|)."""
        cross = self.Psi.T @ column
        r = len(self.index)
        gram = np.empty((r + 1, r + 1))
        gram[:r, :r], gram[:r, r], gram[r, :r] = self.gram, cross, cross
        gram[r, r] = column @ column
        self.gram = gram
        if self.columns is None or self.columns.shape[1] == r:
            columns = np.empty((len(self.t), max(8, 2 * r)), order="F")
            columns[:, :r] = self.Psi
            self.columns = columns
        self.columns[:, r] = column
        self.Psi = self.columns[:, : r + 1]
        self.psi_t = np.append(self.psi_t, column @ self.t)
        self.index.append(j)

    def keep(self, mask: np.ndarray) -> None:
        """Drop the active basis functions where ``mask`` is False."""
        if np.all(mask):
            return
        self.index = [j for j, k in zip(self.index, mask, strict=True) if k]
        if self.columns is None:
            self.Psi = self.Psi[:, mask]
        else:  # each kept column moves forward, one contiguous copy each
            kept = np.flatnonzero(mask)
            for position, column in enumerate(kept):
                self.columns[:, position] = self.columns[:, column]
            self.Psi = self.columns[:, : len(kept)]
        self.gram = self.gram[np.ix_(mask, mask)]
        self.psi_t = self.psi_t[mask]


@dataclass(frozen=True)
class RVMFit:
    """Result of SSEM or batch EM.

    Attributes
    ----------
    relevant : ndarray of int
        Indices (into the basis) of the surviving basis functions.
    alpha : ndarray
        Their precisions.
    posterior : Posterior
        Of their weights.
    noise : float
        ``σ²`` (regression) or NaN.
    history : list of float
        Log evidence after each E-step (regression), for monitoring.
    n_iterations : int
        E-steps taken.
    converged : bool
        The final EM stopped on ``tol`` (not ``max_iter``) and, for classification,
        the final mean-field E-step settled.
    """

    relevant: np.ndarray
    alpha: np.ndarray
    posterior: Posterior
    noise: float
    history: list
    n_iterations: int
    converged: bool = True


class _Trainer:
    """E-step, M-step and pruning on an :class:`_ActiveBasis`, for both likelihoods."""

    def __init__(
        self,
        t: np.ndarray,
        *,
        classification: bool,
        update: str,
        threshold: float,
        noise: float,
        learn_noise: bool,
        sigma_in: float,
        mean_field: str,
        pool: Executor | None = None,
    ) -> None:
        self.t = np.asarray(t, dtype=float)
        self.classification = classification
        self.update = update
        self.threshold = threshold
        self.noise = noise
        self.learn_noise = learn_noise
        self.sigma_in = sigma_in
        self.mean_field = mean_field
        #: The threads of the adaptive-TAP E-steps' row blocks (:func:`ep_e_step`).
        self.pool = pool
        #: Prune a weight as soon as the evidence peaks at α = ∞ ([TF03]'s deletion)
        #: instead of waiting for MacKay's updates to carry α there.
        self.delete_unsupported = False
        self.t_t = float(self.t @ self.t)
        self.history: list[float] = []
        self.mean = np.zeros(0)
        self.sites: MeanFieldSites | None = None
        self.em_converged = True
        #: ``(chol, Ω-weights, g)`` of the current state for :meth:`entering_alpha`;
        #: every newcomer skipped in a row reuses it, an EM step discards it.
        self._entering_state: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        #: The last classification E-step's factor of ``A + Ψ_RᵀΩΨ_R``, its ``α`` and
        #: the M-step's ``keep`` mask (:meth:`_data_precision`).
        self._last_factor: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def e_step(
        self,
        basis: _ActiveBasis,
        alpha: np.ndarray,
        *,
        final: bool = False,
        sweep: bool = False,
    ) -> Posterior:
        """The E-step: to convergence when ``final``, a few EP sweeps in the ``sweep``
        over the dictionary (adaptive TAP), else at most ``_E_STEP_ITER`` steps."""
        if self.classification and self.mean_field == "tap":
            max_iter = (
                _FINAL_E_STEP_ITER
                if final
                else _SWEEP_TAP_E_STEP_ITER
                if sweep
                else _E_STEP_ITER
            )
            posterior, self.sites = ep_e_step(
                basis.Psi,
                alpha,
                self.t,
                self.sigma_in,
                sites=self.sites,
                max_iter=max_iter,
                tol=_FINAL_E_STEP_TOL if final else _E_STEP_TOL,
                pool=self.pool,
            )
        elif self.classification:
            posterior, self.sites = mean_field_e_step(
                basis.Psi,
                alpha,
                self.t,
                self.sigma_in,
                self.mean_field,
                mean=self.mean,
                sites=self.sites,
                max_iter=_FINAL_E_STEP_ITER if final else _E_STEP_ITER,
            )
        else:
            posterior = regression_e_step(
                basis.gram, basis.psi_t, self.t_t, len(self.t), alpha, self.noise
            )
        self.history.append(posterior.log_evidence)
        return posterior

    def em_step(
        self, basis: _ActiveBasis, alpha: np.ndarray, *, sweep: bool = False
    ) -> tuple[np.ndarray, Posterior]:
        """One E-step (:meth:`e_step`) and M-step on ``R``, then pruning; the new α."""
        self._entering_state = None
        posterior = self.e_step(basis, alpha, sweep=sweep)
        new_alpha = update_alpha(posterior, alpha, self.update, self.threshold)
        if self.learn_noise and not self.classification:
            self.noise = max(
                update_noise(posterior, alpha, self.noise, len(self.t), self.update),
                _MIN_NOISE * _mean_square(self.t),
            )
        leaving = leaving_after_m_step(
            posterior, alpha, new_alpha, self.threshold, self.delete_unsupported
        )
        keep = _kept(leaving, new_alpha)
        basis.keep(keep)
        self.mean = posterior.mean[keep]
        self._last_factor = (posterior.chol, alpha, keep)
        return new_alpha[keep], posterior

    def _data_precision(self) -> np.ndarray:
        """``Ψ_RᵀΩΨ_R`` at the last E-step's sites, for the basis the M-step kept
        (:func:`data_precision`)."""
        assert self._last_factor is not None
        chol, alpha, keep = self._last_factor
        return data_precision(chol, alpha)[np.ix_(keep, keep)]

    def entering_alpha(
        self, basis: _ActiveBasis, alpha: np.ndarray, psi: np.ndarray
    ) -> float:
        """The evidence-maximising α of a newcomer ``ψ``, or ``L`` if it adds nothing.

        With the others fixed, the evidence in α_j peaks at ``s²/(q² − s)`` when
        ``q² > s`` (Tipping & Faul 2003, eqs. 19-21), where, for the Gaussian (or, in
        classification, the mean-field site) approximation with precisions ``ω`` and
        ``g = ∂ log Z/∂y`` at the current weights,
        ``s = ψᵀΩψ − ‖L⁻¹Ψ_RᵀΩψ‖²`` (``L Lᵀ = A + Ψ_RᵀΩΨ_R``) and ``q = ψᵀg``.
        O(n·|R| + |R|²) per newcomer; ``L`` (O(n·|R|² + |R|³)) once per state.
        """
        sites = self.sites
        if self.classification and sites is None:
            return self.threshold
        if self._entering_state is None:
            if sites is not None:  # classification
                omega, g = sites.omega, sites.g
                precision = self._data_precision()
            else:  # Ω = I/σ²: the Gram matrix kept by the basis serves
                omega = np.full(len(self.t), 1.0 / self.noise)
                g = (self.t - basis.Psi @ self.mean) / self.noise
                precision = basis.gram / self.noise
            chol = cholesky_jitter(np.diag(alpha) + precision, what="A + ΨᵀΩΨ")
            self._entering_state = (chol, omega, g)
        chol, omega, g = self._entering_state
        weighted = omega * psi
        projected = solve_lower(chol, basis.Psi.T @ weighted)
        s = psi @ weighted - projected @ projected
        q = psi @ g
        if not q * q > s > 0:
            return self.threshold
        return max(s * s / (q * q - s), _MIN_ALPHA)

    def em_steps_at_sites(
        self, basis: _ActiveBasis, alpha: np.ndarray, *, tol: float
    ) -> np.ndarray:
        """One E-step (:meth:`e_step`), then M-steps at its sites until no ``log α``
        moves by ``tol`` (:func:`m_steps_at_sites`) and pruning; the new α."""
        self._entering_state = self._last_factor = None
        posterior = self.e_step(basis, alpha)
        alpha, kept, self.mean = m_steps_at_sites(
            posterior,
            alpha,
            update=self.update,
            threshold=self.threshold,
            delete_unsupported=self.delete_unsupported,
            tol=tol,
            max_steps=_FINAL_M_STEPS,
        )
        keep = np.zeros(len(basis.index), dtype=bool)
        keep[kept] = True
        basis.keep(keep)
        return alpha

    def converge(
        self,
        basis: _ActiveBasis,
        alpha: np.ndarray,
        *,
        tol: float,
        max_iter: int,
        callback: Callable[[int, int], object] | None = None,
        final: bool = True,
    ) -> tuple[np.ndarray, int]:
        """Batch EM on ``R`` until the relative change of the monitored quantity < tol.

        Regression monitors the log evidence; classification (no evidence formula in
        [QW03]) the largest change of ``log α`` from one E-step to the next. A
        classifier's ``final`` EM runs its M-steps at each E-step's sites until α
        settles there (:meth:`em_steps_at_sites`: MacKay's update carries some α a
        fraction of a per cent per step, and those steps cost O(|R|³) there against
        the E-step's O(n·|R|²)), until more than :data:`_STALLED_E_STEPS` E-steps in a row
        change ``log α`` no less than an earlier one did, then one M-step per E-step.
        Only the ``final`` EM of a fit warns (and marks the fit unconverged) when it
        stops at ``max_iter``.
        """
        iterations, log_alpha_step = 0, None
        at_sites = final and self.classification
        smallest, stalled = np.inf, 0
        for iterations in range(1, max_iter + 1):
            size = len(alpha)
            before = self.history[-1] if self.history else -np.inf
            previous = alpha
            if at_sites:
                alpha = self.em_steps_at_sites(basis, alpha, tol=tol)
            else:
                alpha, _ = self.em_step(basis, alpha)
            if callback is not None:
                callback(iterations, len(alpha))
            if len(alpha) != size:
                log_alpha_step = None
                continue
            if self.classification:
                log_alpha_step = np.log(alpha) - np.log(previous)
                change = np.max(np.abs(log_alpha_step))
            else:
                after = self.history[-1]
                change = abs(after - before) / max(abs(after), 1e-300)
            if change < tol:
                break
            stalled = stalled + 1 if change >= smallest else 0
            smallest = min(smallest, change)
            if at_sites and stalled > _STALLED_E_STEPS:
                at_sites = False  # one M-step per E-step from here
        else:  # max_iter = 0 asks for no final EM, which is not a failure to converge
            if final and max_iter > 0:
                self.em_converged = False
                warn_at_caller(
                    _not_converged_message(max_iter, len(alpha), log_alpha_step),
                    ConvergenceWarning,
                )
        return alpha, iterations

    def finish(
        self, basis: _ActiveBasis, alpha: np.ndarray, n_iterations: int
    ) -> RVMFit:
        posterior = self.e_step(basis, alpha, final=True)
        if self.sites is not None and not self.sites.converged:
            warn_at_caller(
                f"The final mean-field E-step did not settle in {_FINAL_E_STEP_ITER} "
                "Newton steps (EP sweeps for adaptive TAP); the weights are not at a "
                "fixed point of [QW03] eqs. 16-19 "
                "(with naive mean field, α at its floor makes the cavity variances "
                "too wide for double precision).",
                ConvergenceWarning,
            )
        return RVMFit(
            relevant=np.asarray(basis.index, dtype=int),
            alpha=alpha,
            posterior=posterior,
            noise=np.nan if self.classification else self.noise,
            history=self.history,
            n_iterations=n_iterations,
            converged=self.em_converged
            and (self.sites is None or self.sites.converged),
        )


def _extrapolated(
    alpha: np.ndarray,
    step: np.ndarray,
    last_step: np.ndarray | None,
    tol: float,
    threshold: float,
) -> tuple[np.ndarray, np.ndarray | None]:
    """``alpha`` after :func:`extrapolated_log_alpha` of its last two steps (within
    :func:`update_alpha`'s bounds), and the step the next extrapolation pairs with:
    None after a jump (the next two steps are measured afresh), ``step`` while there
    is no pair or nothing to jump."""
    if last_step is None:
        return alpha, step
    jump = extrapolated_log_alpha(step, last_step, tol)
    if not np.any(jump):
        return alpha, step
    return _bounded_alpha(alpha * np.exp(jump), threshold), None


def _not_converged_message(
    max_iter: int, n_active: int, log_alpha_step: np.ndarray | None
) -> str:
    """Why the final EM stopped at ``max_iter``, and what helps.

    Every ``log α`` of a classifier still falling means the weights are growing
    together: on separable classes the likelihood rises without bound along the
    weights' direction, and EM follows them (``α = 1/(m² + Σ)``), so no ``max_iter``
    ends it.
    """
    where = f"RVM EM did not converge in {max_iter} iterations ({n_active} basis "
    if log_alpha_step is not None and np.all(log_alpha_step < 0):
        return where + (
            "functions active): every α is still falling (log α by "
            f"{-np.max(log_alpha_step):.2g} or more per iteration) — the classes look "
            "separable and the weights grow without bound, so more iterations only "
            "make the probabilities more confident. Raise tol to stop earlier."
        )
    return where + "functions active); raise max_iter or tol."


def _mean_square(t: np.ndarray) -> float:
    """``tᵀt / n``, or 1 when every target is zero (the scale noise is measured in)."""
    power = float(np.dot(t, t)) / len(t)
    return power if power > 0 else 1.0


def _trainer(t: np.ndarray, options: dict) -> _Trainer:
    return _Trainer(
        t,
        classification=options.get("classification", False),
        update=options.get("update", "mackay"),
        threshold=options.get("threshold", 1e12),
        noise=options.get("noise", 0.01 * (np.var(t) or _mean_square(t))),
        learn_noise=options.get("learn_noise", True),
        sigma_in=options.get("sigma_in", 1.0),
        mean_field=options.get("mean_field", "tap"),
        pool=options.get("pool"),
    )


def _batch_start(
    trainer: _Trainer,
    column: Callable[[int], np.ndarray],
    first: int,
    *,
    tol: float,
    max_iter: int,
) -> tuple[_ActiveBasis, np.ndarray, int]:
    """``R``, α and the E-steps taken by batch EM on basis functions ``0 … first − 1``
    (none if ``first`` is 0).

    They enter together at ``α = 1/first²``, as :func:`batch_em` starts, and EM runs
    until ``tol``. One at a time from an empty ``R``, the sweep adds only functions that
    raise the evidence alone; where the data are fitted only by several functions with
    opposing weights (a kernel wide for the data, or few points: banana's first 100,
    IDA twonorm with 4·ℓ₀, sinc on [−10, 10] with ℓ₀) none does, and the sweep ends at
    a model of low evidence — a classifier near chance (docs/algorithms.md §4.3).
    """
    basis = _ActiveBasis.empty(trainer.t)
    for j in range(first):
        basis.add(j, column(j))
    alpha = np.full(first, 1.0 / max(first, 1) ** 2)
    trainer.mean = np.zeros(first)
    if not first:
        return basis, alpha, 0
    alpha, iterations = trainer.converge(
        basis, alpha, tol=tol, max_iter=max_iter, final=False
    )
    return basis, alpha, iterations


def _entering_rule(trainer: _Trainer, options: dict) -> str:
    """``options["entering"]``: "threshold" (default), a newcomer enters with α = L, as
    [QW03]; "tipping_faul", at the α that maximises the evidence with the others fixed,
    ``s²/(q² − s)``, and not at all when ``q² ≤ s`` (Tipping & Faul 2003, the option
    algorithms.md §4.3 recommends). Naive mean-field classification keeps
    "threshold": its cavity variances are prior variances, growing as 1/α, and a
    newcomer at its evidence-maximising α can overflow them (banana, n = 200)."""
    if trainer.classification and trainer.mean_field == "naive":
        return "threshold"
    return str(options.get("entering", "threshold"))


def _offer(
    trainer: _Trainer,
    basis: _ActiveBasis,
    alpha: np.ndarray,
    offered: range,
    column: Callable[[int], np.ndarray],
    entering: str,
) -> np.ndarray:
    """One step of the Subspace EM sweep: the basis functions ``offered`` enter ``R``
    by the ``entering`` rule, each judged against the same state (Tipping & Faul's α
    with the others fixed), then one EM step if any entered; the new ``α``."""
    empty = len(alpha) == 0
    newcomers = []
    for j in offered:
        psi = column(j)
        start = trainer.threshold
        if entering == "tipping_faul" and not empty:
            start = trainer.entering_alpha(basis, alpha, psi)
        if start < trainer.threshold or entering == "threshold" or empty:
            newcomers.append((j, psi, start))
        # else q² ≤ s: the evidence is highest without this function
    for j, psi, start in newcomers:
        basis.add(j, psi)
        alpha = np.append(alpha, start)
        trainer.mean = np.append(trainer.mean, 0.0)
    if newcomers:
        alpha, _ = trainer.em_step(basis, alpha, sweep=True)
    return alpha


def _grow(
    trainer: _Trainer,
    column: Callable[[int], np.ndarray],
    candidates: range,
    *,
    offers_per_step: int,
    entering: str,
    callback: Callable[[int, int], object] | None,
    tol: float,
    max_iter: int,
) -> tuple[_ActiveBasis, np.ndarray, int]:
    """The sweep of :func:`subspace_em`: batch EM on the functions before
    ``candidates`` (:func:`_batch_start`), then ``candidates`` offered
    ``offers_per_step`` at a time (:func:`_offer`), σ² held unless ``learn_noise`` is
    True; ``R``, ``α`` and the E-steps taken."""
    first = candidates.start
    learn_noise = bool(trainer.learn_noise)
    trainer.learn_noise = trainer.learn_noise is True
    basis, alpha, iterations = _batch_start(
        trainer, column, first, tol=tol, max_iter=max_iter
    )
    if first and callback is not None:
        callback(first, len(alpha))
    steps = range(first, candidates.stop, offers_per_step)
    for j in steps:
        offered = range(j, min(j + offers_per_step, candidates.stop))
        alpha = _offer(trainer, basis, alpha, offered, column, entering)
        if callback is not None:
            callback(offered[-1] + 1, len(alpha))
    trainer.learn_noise = learn_noise
    return basis, alpha, iterations + len(steps)


def sweep_offers(n: int) -> int:
    """Basis functions a classifier's Subspace EM sweep offers between two E-steps on
    ``n`` training points: one ([QW03] Fig. 1) up to :data:`ROWS_PER_OFFER` points,
    ``⌈n / ROWS_PER_OFFER⌉`` beyond, so that the sweep's E-steps (O(n·|R|²) each)
    cost as many row operations as [QW03]'s at that size (algorithms.md §4.3)."""
    return max(1, -(-n // ROWS_PER_OFFER))


def subspace_em(
    column: Callable[[int], np.ndarray],
    n_basis: int,
    t: np.ndarray,
    *,
    tol: float = 1e-6,
    max_iter: int = 500,
    callback: Callable[[int, int], object] | None = None,
    batch_start: int = 0,
    offers_per_step: int = 1,
    **options: object,
) -> RVMFit:
    """Subspace EM ([QW03] Fig. 1): grow ``R`` ``offers_per_step`` functions at a time.

    Parameters
    ----------
    column : callable ``j -> ψ_j`` of shape (n,)
        Basis function ``j`` evaluated at the training inputs.
    n_basis : int
        ``M``; basis functions are visited in index order.
    t : ndarray of shape (n,)
        Targets, or labels in ``{-1, +1}`` with ``classification=True``.
    tol, max_iter : float, int
        Stopping rule of the final batch EM on ``R``.
    callback : callable ``(step, size)``, optional
        Progress report.
    batch_start : int, default=0
        The sweep starts from batch EM on the first ``batch_start`` basis functions
        (:func:`_batch_start`); 0: from an empty ``R``, as [QW03].
    offers_per_step : int, default=1
        Functions offered between two E-steps (:func:`_offer`, :func:`sweep_offers`).
    **options
        ``entering`` (:func:`_entering_rule`), ``classification`` (False), ``update``
        ("mackay" or "em"), ``threshold`` (L, 1e12), ``noise`` (initial σ², (0.1·std
        t)²), ``learn_noise`` (True: in every M-step, as [QW03]; ``"after_sweep"``: σ²
        held at ``noise`` in the sweep), ``sigma_in`` (1.0), ``mean_field`` ("tap",
        "naive" or "laplace"), ``pool`` (threads for the adaptive-TAP E-steps' rows,
        :func:`ep_e_step`; None: this thread).
    """
    trainer = _trainer(t, options)
    entering = _entering_rule(trainer, options)
    basis, alpha, grow_iterations = _grow(
        trainer,
        column,
        range(min(batch_start, n_basis), n_basis),
        offers_per_step=offers_per_step,
        entering=entering,
        callback=callback,
        tol=tol,
        max_iter=max_iter,
    )
    # MacKay's α of a weight the evidence drops grows slowly per E-step, so the final
    # EM ran to max_iter on most classification fits. Not in the sweep, whose sites and
    # α have not settled, nor in regression, where σ² is still moving: deleting there
    # cost test error and MSE (algorithms.md §0.6).
    trainer.delete_unsupported = trainer.classification and entering == "tipping_faul"
    alpha, iterations = trainer.converge(basis, alpha, tol=tol, max_iter=max_iter)
    return trainer.finish(basis, alpha, grow_iterations + iterations)


def batch_em(
    Psi: np.ndarray,
    t: np.ndarray,
    *,
    initial_alpha: np.ndarray | None = None,
    tol: float = 1e-6,
    max_iter: int = 500,
    callback: Callable[[int, int], object] | None = None,
    **options: object,
) -> RVMFit:
    """The batch baseline: all ``M`` basis functions active from the start.

    ``initial_alpha`` defaults to ``1/M²`` for every weight, as Tipping's and
    sklearn-rvm's batch RVMs start (a nearly unconstrained fit; from a tight prior,
    MacKay's updates settle at a high-noise optimum of lower evidence).
    """
    trainer = _trainer(t, options)
    Psi = np.asarray(Psi, dtype=float)
    basis = _ActiveBasis(
        trainer.t, list(range(Psi.shape[1])), Psi, Psi.T @ Psi, Psi.T @ trainer.t
    )
    if initial_alpha is None:
        initial_alpha = 1.0 / Psi.shape[1] ** 2
    alpha = np.full(Psi.shape[1], float(initial_alpha))
    trainer.mean = np.zeros(Psi.shape[1])
    alpha, iterations = trainer.converge(
        basis, alpha, tol=tol, max_iter=max_iter, callback=callback
    )
    return trainer.finish(basis, alpha, iterations)
