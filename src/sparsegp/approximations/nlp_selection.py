"""Validation-based basis selection and hyperparameters by the NLP loss (algorithms.md §2).

Sundararajan, Shevade & Keerthi (2009). The sparse ADF posterior of the IVM
(:class:`ADFActiveSet`) is grown one basis vector at a time; each step draws a working
set of κ candidates and includes the one that most lowers the negative log predictive
loss of the training points outside the active set (eqs. 2.7-2.8),

``NLP(u) = −(1/n_c) Σ_{j∉u} log Φ(λ y_j (h_j + b) / √(1 + λ² a_j))``.

A candidate is scored from the current state in O(n·k) (eq. 2.14) — all κ of them in
one compiled loop (:mod:`.nlp_scoring`), O(κ·n·k); on a sample of s validation points,
O(κ·s·k). The hyperparameters (kernel θ, bias b, slope λ) then follow the gradient of the same loss
with the active set and its sites held fixed (algorithms.md §2.5).
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.special import log_ndtr
from sklearn.gaussian_process.kernels import Kernel

from .._linalg import cho_solve_lower, cholesky_jitter, solve_lower
from ..kernels import CrossCovariance
from ..likelihoods import Probit, inverse_mills_ratio
from .adf_active_set import ADFActiveSet, CurrentColumns
from .nlp_scoring import LOG_PHI_TABLE, candidate_loss_sums

__all__ = [
    "HeldOutLoss",
    "ValidationLoss",
    "candidate_losses",
    "nlp_loss",
    "select_by_nlp",
    "validation_loss",
]


class HeldOutLoss(NamedTuple):
    """A mean loss over ``n_points`` points and the standard error of that mean."""

    value: float
    standard_error: float
    n_points: int


def nlp_loss(
    state: ADFActiveSet, outside: np.ndarray, pool: Executor | None = None
) -> HeldOutLoss:
    """``NLP(u)`` of eq. 2.8 over the training points ``outside`` (a boolean mask).

    Their stale columns are completed first (on the thread ``pool``, where given). The
    standard error is that of a mean of ``n_c`` per-point losses, ``sd/√n_c`` (0 for a
    single point).
    """
    log_p = state.held_out_log_predictive(np.flatnonzero(outside), pool)
    spread = float(np.std(log_p, ddof=1)) if len(log_p) > 1 else 0.0
    return HeldOutLoss(float(-np.mean(log_p)), spread / np.sqrt(len(log_p)), len(log_p))


#: Entries (float64) of the largest ``K(X, validation sample)`` a selection pass keeps:
#: 200 MB, 10⁴ training points against a sample of 2 500.
_KEPT_KERNEL_ENTRIES = 25_000_000


def candidate_losses(
    state: ADFActiveSet,
    candidates: CurrentColumns,
    validation: CurrentColumns,
    live: np.ndarray | None = None,
    validation_kernel: np.ndarray | None = None,
) -> np.ndarray:
    """``NLP(u ∪ {j})`` for each candidate ``j``, without including any (eq. 2.14).

    Including ``j`` moves the marginals to ``a′ = a − w_j A_{·j}²``, ``h′ = h + g_j
    A_{·j}`` (``A_{·j} = K_{·j} − Vᵀ V_{·j}``, Lemma P's ``g_j, w_j`` at ``(h_j, a_j)``).
    O(κ·s·k) for κ candidates and s validation points.

    Parameters
    ----------
    state : ADFActiveSet
    candidates : CurrentColumns
        Current columns of κ training points outside the active set.
    validation : CurrentColumns
        Of s distinct training points the loss averages over: all outside the active
        set (eq. 2.14), or a uniform sample (unbiased); a candidate is left out of
        its own loss.
    live : bool array of shape (s,), optional
        The validation points still outside the active set (default: all).
    validation_kernel : ndarray of shape (n, s), optional
        ``K(X, validation)`` (:func:`_validation_kernel`), else computed here.

    Returns
    -------
    ndarray of shape (κ,)
        In the order of ``candidates.points``; ``inf`` for a candidate that is the
        only live validation point.
    """
    likelihood = state.likelihood
    if not isinstance(likelihood, Probit):
        raise TypeError("The NLP criterion (eq. 2.8) is that of the probit likelihood.")
    k = state.size
    if validation_kernel is None:
        A = state.kernel_blocks.block(candidates.points, validation.kernel_columns)
    else:
        A = validation_kernel[candidates.points]  # a copy
    A -= candidates.Vt[:, :k] @ validation.Vt[:, :k].T
    moments = likelihood.moments(candidates.h, candidates.a, state.y[candidates.points])
    live = np.ones(len(validation.points), bool) if live is None else live
    sums, counts = candidate_loss_sums(
        A,
        moments.g,
        moments.w,
        candidates.points,
        validation.h,
        validation.a,
        state.y[validation.points],
        validation.points,
        live,
        likelihood.slope,
        likelihood.bias,
        LOG_PHI_TABLE,
    )
    out = np.full(len(counts), np.inf)  # no other point to validate on
    return np.divide(sums, counts, out=out, where=counts > 0)


def select_by_nlp(
    state: ADFActiveSet,
    d: int,
    rng: np.random.RandomState,
    *,
    working_set_size: int | None = 59,
    validation_size: int | None = None,
) -> np.ndarray:
    """Grow ``state`` to ``d`` basis vectors by the NLP criterion ([SSK09] §2.5, steps 3-6).

    The first point is drawn at random; each later one is the best of a working set
    of ``min(n_c, working_set_size)`` points drawn afresh from the ``n_c`` points
    outside the active set (``working_set_size=None``: all of them; 1: random
    selection, the paper's baseline). Candidates are scored on all ``n_c`` points, or,
    with ``validation_size``, on a uniform sample of that many drawn for the pass.

    Only the validation points' columns are kept current (one contiguous set,
    extended at each inclusion); a working set is completed from the store where
    stale (the delayed updating of algorithms.md §1.5), so an inclusion costs
    O((s + κ)·k) rather than O(n·k).

    Returns
    -------
    outside : bool array of shape (n,)
        The training points outside the grown active set.
    """
    n = len(state.y)
    if d >= n:
        raise ValueError(
            f"NLP selection needs d < n to keep a validation point; d={d}."
        )
    outside = np.ones(n, dtype=bool)
    outside[state.active] = False
    draws = np.random.default_rng(rng.randint(2**32))  # subsets in O(size), not O(n)
    validation, position, live = _validation_sample(
        state, outside, validation_size, draws
    )
    kernel = _validation_kernel(state, validation, d, working_set_size)
    while state.size < d:
        working = _working_set(state, outside, working_set_size, draws)
        candidates = _current_columns(state, working, validation, position)
        best = 0
        if len(working) > 1:
            losses = candidate_losses(state, candidates, validation, live, kernel)
            best = int(np.argmin(losses))
        i = int(candidates.points[best])
        state.include(best, candidates, also=(validation,))
        outside[i] = False
        stored = position[candidates.points] < 0
        state.release(candidates, np.flatnonzero(stored & outside[candidates.points]))
        if position[i] >= 0:
            live[position[i]] = False
            if np.count_nonzero(live) < 2 and state.size < d:  # a small sample used up
                state.release(validation, np.flatnonzero(live))
                validation, position, live = _validation_sample(
                    state, outside, validation_size, draws
                )
                kernel = _validation_kernel(state, validation, d, working_set_size)
    state.release(validation, np.flatnonzero(live))
    return outside


def _working_set(
    state: ADFActiveSet,
    outside: np.ndarray,
    working_set_size: int | None,
    draws: np.random.Generator,
) -> np.ndarray:
    """The candidates of one inclusion: ``working_set_size`` points drawn afresh from
    those outside (all of them for ``None``), one for the first inclusion."""
    pool = np.flatnonzero(outside)
    kappa = len(pool) if working_set_size is None else working_set_size
    if state.size == 0:
        kappa = 1
    return draws.choice(pool, size=min(kappa, len(pool)), replace=False)


def _validation_kernel(
    state: ADFActiveSet,
    validation: CurrentColumns,
    d: int,
    working_set_size: int | None,
) -> np.ndarray | None:
    """``K(X, validation)`` for every training point, where the pass's candidates will
    ask for more rows than that and it fits in ``_KEPT_KERNEL_ENTRIES``; else None.

    The κ·(d − k) candidate rows left in a pass are then read from one large product
    instead of one skinny block per inclusion, which computes each row κ·(d − k)/n
    times over in a pass.
    """
    n, s = len(state.y), len(validation.points)
    kappa = n if working_set_size is None else min(working_set_size, n)
    if kappa * (d - state.size) < n or n * s > _KEPT_KERNEL_ENTRIES:
        return None
    return state.kernel_blocks.block(np.arange(n), validation.kernel_columns)


def _validation_sample(
    state: ADFActiveSet,
    outside: np.ndarray,
    size: int | None,
    rng: np.random.Generator,
) -> tuple[CurrentColumns, np.ndarray, np.ndarray]:
    """Current columns of ``size`` random points ``outside`` (all of them if ``None``),
    their positions there by training index (−1 if absent), and which are still outside."""
    pool = np.flatnonzero(outside)
    if size is not None and size < len(pool):
        pool = rng.choice(pool, size=size, replace=False)
    validation = state.gather(pool)
    position = np.full(len(outside), -1)
    position[validation.points] = np.arange(len(pool))
    return validation, position, np.ones(len(pool), dtype=bool)


def _current_columns(
    state: ADFActiveSet,
    points: np.ndarray,
    validation: CurrentColumns,
    position: np.ndarray,
) -> CurrentColumns:
    """Current columns of ``points``: copied from ``validation`` where it holds them,
    completed from the store otherwise."""
    held = position[points] >= 0
    from_store = state.gather(points[~held])
    if not held.any():
        return from_store
    from_validation = validation.take(position[points[held]])
    return CurrentColumns.concatenate(from_validation, from_store)


@dataclass(frozen=True)
class ValidationLoss:
    """``NLP(u)`` at fixed sites and its gradient (algorithms.md §2.5).

    Attributes
    ----------
    value : float
    kernel_gradient : ndarray of shape (len(kernel.theta),)
        With respect to the kernel's log-space hyperparameters.
    bias_gradient, slope_gradient : float
        With respect to ``b`` and ``λ``.
    """

    value: float
    kernel_gradient: np.ndarray
    bias_gradient: float
    slope_gradient: float


def _outside_marginals(
    K_u: np.ndarray, K_cu: np.ndarray, k_cc: np.ndarray, p: np.ndarray, m: np.ndarray
) -> tuple[np.ndarray, ...]:
    """``h = K_cu β``, ``a = k_cc − rowsum(K_cu T ⊙ K_cu)``, ``β = T m`` and ``K_cu T``
    with ``T = (K_u + Π⁻¹)⁻¹``, through ``B = I + Π½ K_u Π½``."""
    sqrt_p = np.sqrt(p)
    B = cholesky_jitter(
        np.eye(len(p)) + sqrt_p[:, None] * K_u * sqrt_p, what="B = I + Π½KΠ½"
    )
    C = solve_lower(B, np.diag(sqrt_p))
    beta = sqrt_p * cho_solve_lower(B, sqrt_p * m)
    Z = K_cu @ (C.T @ C)
    a = np.maximum(k_cc - np.einsum("ij,ij->i", Z, K_cu), 0.0)
    return K_cu @ beta, a, beta, Z


def validation_loss(
    kernel: Kernel,
    likelihood: Probit,
    X_active: np.ndarray,
    p: np.ndarray,
    m: np.ndarray,
    X_outside: np.ndarray,
    y_outside: np.ndarray,
) -> ValidationLoss:
    """``NLP(u)`` and its gradient with the active set and its sites fixed (algorithms.md §2.5).

    With ``T = (K_u + Π⁻¹)⁻¹`` and ``β = T m``, the points outside have marginals
    ``h = K_cu β`` and ``a = k_cc − rowsum(K_cu T ⊙ K_cu)``, equal to the ADF state at
    the hyperparameters the active set was chosen with. O(n·d²) once, then O(n·d) per
    kernel hyperparameter. The kernel must be stationary (``k(x, x)`` constant), as
    :func:`~sparsegp.kernels.check_input_differentiable` ensures.

    Parameters
    ----------
    kernel : Kernel
    likelihood : Probit
    X_active : ndarray of shape (d, D)
    p, m : ndarray of shape (d,)
        Site precisions and means of the active points.
    X_outside : ndarray of shape (n_c, D)
    y_outside : ndarray of shape (n_c,)
        Labels in ``{-1, +1}``.

    Returns
    -------
    ValidationLoss
    """
    active_block = CrossCovariance(kernel, X_active)
    cross_block = CrossCovariance(kernel, X_outside, X_active)
    h, a, beta, Z = _outside_marginals(
        active_block.value, cross_block.value, kernel.diag(X_outside), p, m
    )
    lam, b = likelihood.slope, likelihood.bias
    moments = likelihood.moments(h, a, y_outside)
    n_c = len(y_outside)
    G_h = -moments.g / n_c
    G_a = -0.5 * (moments.g**2 - moments.w) / n_c
    s = np.sqrt(1.0 + lam * lam * a)
    rho = inverse_mills_ratio(moments.z)
    slope_gradient = -np.sum(rho * y_outside * (h + b) / s**3) / n_c

    weights_cross = np.outer(G_h, beta) - 2.0 * G_a[:, None] * Z
    weights_active = -np.outer(Z.T @ G_h, beta) + (Z.T * G_a) @ Z
    one = X_outside[:1]
    kernel_gradient = (
        cross_block.gradients(weights_cross)[0]
        + active_block.gradients(weights_active)[0]
        + CrossCovariance(kernel, one).gradients(np.array([[G_a.sum()]]))[0]
    )
    return ValidationLoss(
        value=float(-np.mean(log_ndtr(moments.z))),
        kernel_gradient=kernel_gradient,
        bias_gradient=float(-np.sum(moments.g) / n_c),
        slope_gradient=float(slope_gradient),
    )
