"""Validation-based basis selection and hyperparameters by the NLP loss (algorithms.md §2).

Sundararajan, Shevade & Keerthi (2009). The sparse ADF posterior of the IVM
(:class:`ADFActiveSet`) is grown one basis vector at a time; each step draws a working
set of κ candidates and includes the one that most lowers the negative log predictive
loss of the training points outside the active set (eqs. 2.7-2.8),

``NLP(u) = −(1/n_c) Σ_{j∉u} log Φ(λ y_j (h_j + b) / √(1 + λ² a_j))``.

A candidate is scored from the current state in O(n·k) (eq. 2.14) — all κ of them in one
vectorised step, O(κ·n·k); on a sample of s validation points, O(κ·s·k). The
hyperparameters (kernel θ, bias b, slope λ) then follow the gradient of the same loss
with the active set and its sites held fixed (algorithms.md §2.5).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr
from sklearn.gaussian_process.kernels import Kernel

from .._linalg import cho_solve_lower, cholesky_jitter, solve_lower
from ..kernels import CrossCovariance
from ..likelihoods import Probit, inverse_mills_ratio
from .adf_active_set import ADFActiveSet

__all__ = [
    "ValidationLoss",
    "candidate_losses",
    "nlp_loss",
    "select_by_nlp",
    "validation_loss",
]


def nlp_loss(state: ADFActiveSet, outside: np.ndarray) -> float:
    """``NLP(u)`` of eq. 2.8 over the (current) columns ``outside`` of ``state``."""
    log_p = state.likelihood.log_predictive(
        state.h[outside], state.a[outside], state.y[outside]
    )
    return float(-np.mean(log_p))


def candidate_losses(
    state: ADFActiveSet, candidates: np.ndarray, validation: np.ndarray
) -> np.ndarray:
    """``NLP(u ∪ {j})`` for each candidate ``j``, without including any (eq. 2.14).

    Including ``j`` changes the marginals by ``a′ = a − w_j A_{·j}²`` and
    ``h′ = h + g_j A_{·j}`` with ``A_{·j} = K_{·j} − Vᵀ V_{·j}`` and Lemma P's
    ``g_j, w_j`` at ``(h_j, a_j)``; the loss then averages over the validation points
    other than ``j``. O(κ·s·k) for κ candidates and s validation points, all columns
    of ``state`` being current.

    Parameters
    ----------
    state : ADFActiveSet
        With all columns current.
    candidates : int array of shape (κ,)
        Training indices outside the active set.
    validation : int array of shape (s,)
        Distinct training indices outside the active set the loss averages over: all
        of them for eq. 2.14 itself, or a uniform sample (an unbiased estimate of
        it); candidates among them are left out of their own loss.

    Returns
    -------
    ndarray of shape (κ,)
    """
    candidates = np.asarray(candidates, dtype=int)
    validation = np.asarray(validation, dtype=int)
    V = state.V
    A = state.kernel_blocks(validation, candidates) - (
        V[:, validation].T @ V[:, candidates]
    )
    moments = state.likelihood.moments(
        state.h[candidates], state.a[candidates], state.y[candidates]
    )
    a_new = np.maximum(state.a[validation, None] - moments.w * A * A, 0.0)
    h_new = state.h[validation, None] + moments.g * A
    log_p = state.likelihood.log_predictive(h_new, a_new, state.y[validation, None])
    own = validation[:, None] == candidates  # a candidate's own row, if sampled
    log_p[own] = 0.0
    return -np.sum(log_p, axis=0) / (len(validation) - own.sum(axis=0))


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
    with ``validation_size``, on that many of them drawn afresh at each inclusion.
    """
    n = len(state.y)
    if d >= n:
        raise ValueError(
            f"NLP selection needs d < n to keep a validation point; d={d}."
        )
    outside = np.ones(n, dtype=bool)
    outside[state.active] = False
    columns = state.every_column()
    while state.size < d:
        pool = np.flatnonzero(outside)
        kappa = len(pool) if working_set_size is None else working_set_size
        if state.size == 0 or kappa == 1:
            i = rng.choice(pool)
        else:
            working = rng.choice(pool, size=min(kappa, len(pool)), replace=False)
            validation = pool
            if validation_size is not None and validation_size < len(pool):
                validation = rng.choice(pool, size=validation_size, replace=False)
            i = working[np.argmin(candidate_losses(state, working, validation))]
        state.include(i, columns)
        outside[i] = False
    return outside


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
    sqrt_p = np.sqrt(p)
    active_block = CrossCovariance(kernel, X_active)
    cross_block = CrossCovariance(kernel, X_outside, X_active)
    K_u, K_cu = active_block.value, cross_block.value
    B = cholesky_jitter(
        np.eye(len(p)) + sqrt_p[:, None] * K_u * sqrt_p, what="B = I + Π½KΠ½"
    )
    C = solve_lower(B, np.diag(sqrt_p))
    T = C.T @ C
    beta = sqrt_p * cho_solve_lower(B, sqrt_p * m)
    Z = K_cu @ T
    h = K_cu @ beta
    a = np.maximum(kernel.diag(X_outside) - np.einsum("ij,ij->i", Z, K_cu), 0.0)

    lam, b = likelihood.slope, likelihood.bias
    moments = likelihood.moments(h, a, y_outside)
    n_c = len(y_outside)
    G_h = -moments.g / n_c
    G_a = -0.5 * (moments.g**2 - moments.w) / n_c
    s = np.sqrt(1.0 + lam * lam * a)
    rho = inverse_mills_ratio(moments.z, moments.log_z)
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
