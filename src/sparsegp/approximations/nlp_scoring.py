"""The NLP selection's candidate losses as one compiled loop (algorithms.md §2.2).

Scoring κ candidates on s validation points evaluates ``log Φ`` κ·s times per
inclusion (eq. 2.14): 118 000 times for the default κ = 59, s = 2 000. scipy's
``log_ndtr`` costs about 20 ns per value, as much as the rest of an inclusion; here the
marginal update, the probit argument and ``log Φ`` run in one numba loop with no κ × s
temporaries, and ``log Φ`` is read from a cubic Hermite table of scipy's values and
derivatives (absolute error below 1e-10, algorithms.md §2.2): about 5 ns per value.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from scipy.special import log_ndtr

from ..likelihoods import inverse_mills_ratio

__all__ = ["LOG_PHI_TABLE", "candidate_loss_sums", "interpolated_log_ndtr"]

#: Range and step of the table; below it the asymptotic series, above it ``log Φ = 0``
#: (``Φ(−9) < 1.2e-19``).
_Z_LOW, _Z_HIGH, _STEPS_PER_UNIT = -38.0, 9.0, 64
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
#: numba's fast-math flags without ``nnan``/``ninf``: a NaN argument must stay NaN, not
#: index the table.
_FAST_MATH = {"contract", "arcp", "afn", "reassoc", "nsz"}


def _hermite_table() -> np.ndarray:
    """Per interval of ``1/64``, the cubic in ``t ∈ [0, 1)`` matching ``log Φ`` and its
    derivative ``φ/Φ`` at both ends; error ≤ h⁴/384 · max|(log Φ)⁗| < 1e-10."""
    n_intervals = (int(_Z_HIGH) - int(_Z_LOW)) * _STEPS_PER_UNIT
    z = _Z_LOW + np.arange(n_intervals + 1) / _STEPS_PER_UNIT
    value = log_ndtr(z)
    slope = inverse_mills_ratio(z) / _STEPS_PER_UNIT  # per unit of t
    f0, f1, d0, d1 = value[:-1], value[1:], slope[:-1], slope[1:]
    return np.ascontiguousarray(
        np.stack(
            [f0, d0, 3.0 * (f1 - f0) - 2.0 * d0 - d1, 2.0 * (f0 - f1) + d0 + d1],
            axis=1,
        )
    )


#: Coefficients of :func:`interpolated_log_ndtr`, one row per interval.
LOG_PHI_TABLE = _hermite_table()


@numba.njit(cache=True, fastmath=_FAST_MATH)
def interpolated_log_ndtr(z: float, table: np.ndarray) -> float:
    """``log Φ(z)`` from ``table`` (:data:`LOG_PHI_TABLE`), to 1e-10 absolute.

    Below the table, the asymptotic series
    ``log φ(z) − log(−z) + log(1 − z⁻² + 3z⁻⁴ − 15z⁻⁶ + 105z⁻⁸)`` (its next term,
    945z⁻¹⁰, is below 2e-13 there).
    """
    if z >= _Z_HIGH:
        return 0.0
    if z <= _Z_LOW:
        u = 1.0 / (z * z)
        return (
            -0.5 * z * z
            - _LOG_SQRT_2PI
            - math.log(-z)
            + math.log1p(u * (-1.0 + u * (3.0 + u * (-15.0 + 105.0 * u))))
        )
    if z != z:  # NaN
        return z
    u = (z - _Z_LOW) * _STEPS_PER_UNIT
    i = int(u)
    t = u - i
    return table[i, 0] + t * (table[i, 1] + t * (table[i, 2] + t * table[i, 3]))


@numba.njit(cache=True, fastmath=_FAST_MATH)
def candidate_loss_sums(
    A: np.ndarray,
    g: np.ndarray,
    w: np.ndarray,
    candidates: np.ndarray,
    h: np.ndarray,
    a: np.ndarray,
    y: np.ndarray,
    points: np.ndarray,
    live: np.ndarray,
    slope: float,
    bias: float,
    table: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``−Σ_v log Φ(z′_vj)`` and the number of terms, for each candidate ``j``.

    ``z′_vj = λ y_v (h_v + g_j A_jv + b) / √(1 + λ² max(a_v − w_j A_jv², 0))`` over the
    live validation points ``v`` other than ``j`` itself (eq. 2.14).

    Parameters
    ----------
    A : ndarray of shape (κ, s)
        ``A_jv``, the current posterior covariance of candidate j and point v.
    g, w : ndarray of shape (κ,)
        Lemma P at the candidates' marginals.
    candidates : int ndarray of shape (κ,)
        Their training indices.
    h, a, y : ndarray of shape (s,)
        The validation points' marginals and ±1 labels.
    points : int ndarray of shape (s,)
        Their training indices.
    live : bool ndarray of shape (s,)
        Which of them still count.
    slope, bias : float
    table : ndarray
        :data:`LOG_PHI_TABLE`.
    """
    kappa, s = A.shape
    sums = np.zeros(kappa)
    counts = np.zeros(kappa, dtype=np.int64)
    lam2 = slope * slope
    for j in range(kappa):
        total, count = 0.0, 0
        for v in range(s):
            if not live[v] or points[v] == candidates[j]:
                continue
            x = A[j, v]
            variance = max(a[v] - w[j] * x * x, 0.0)
            z = (
                slope
                * y[v]
                * (h[v] + g[j] * x + bias)
                / math.sqrt(1.0 + lam2 * variance)
            )
            total += interpolated_log_ndtr(z, table)
            count += 1
        sums[j] = -total
        counts[j] = count
    return sums, counts
