"""The probit's special functions and moments for one site, compiled (numba).

``erfcx`` and ``log Φ`` from ``erfc``, to about 1e-13 relative of scipy's (the far
left tail's ``exp(x²)`` without the rounding of ``x²``), and Lemma P (algorithms.md
§0.2) for one site: what :meth:`~sparsegp.likelihoods.Probit.scalar_moments` returns
and what the compiled sweeps (:mod:`~sparsegp.approximations.sweep_kernels`) loop over.
"""

from __future__ import annotations

import math

import numba

__all__ = ["ASYMPTOTIC_Z", "argument", "erfcx", "log_ndtr", "moments"]

_SQRT_2 = math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_PI = 1.0 / math.sqrt(math.pi)
#: Above it ``erfcx`` is its asymptotic series, whose first omitted term
#: (10395 / (64 x¹²)) is below 3e-15 there; below it ``exp(x²) erfc(x)``.
_ERFCX_SERIES_X = 25.0
#: Below it the probit curvature ``ρ(z + ρ)`` is its asymptotic series, accurate to
#: 2e-11 there, where the direct form cancels (algorithms.md §0.2).
ASYMPTOTIC_Z = -30.0


@numba.njit(cache=True, nogil=True)
def _exp_square(x: float) -> float:
    """``exp(x²)`` without the rounding of ``x²``: ``x² = hi + lo`` exactly (Dekker's
    product, ``x`` split in halves of 26 bits), ``exp(hi)(1 + lo)``. The rounded
    ``x²`` alone costs ``x²`` ulps (4e-14 relative at x = 20), which the probit's far
    tail amplifies by ``z²`` more in ``ρ(z + ρ)``."""
    hi = x * x
    scaled = 134217729.0 * x  # 2^27 + 1
    head = scaled - (scaled - x)
    tail = x - head
    lo = ((head * head - hi) + 2.0 * head * tail) + tail * tail
    return math.exp(hi) * (1.0 + lo)


@numba.njit(cache=True, nogil=True)
def erfcx(x: float) -> float:
    """The scaled complementary error function ``exp(x²) erfc(x)`` (inf below about
    −26.6, where it overflows, as scipy's)."""
    if x < _ERFCX_SERIES_X:
        return _exp_square(x) * math.erfc(x)
    h = 1.0 / (2.0 * x * x)  # Σ_k (−1)^k (2k − 1)!! h^k, k ≤ 5
    series = 1.0 - h * (
        1.0 - 3.0 * h * (1.0 - 5.0 * h * (1.0 - 7.0 * h * (1.0 - 9.0 * h)))
    )
    return _INV_SQRT_PI / x * series


@numba.njit(cache=True, nogil=True)
def log_ndtr(z: float) -> float:
    """``log Φ(z)``: ``−z²/2 + log(erfcx(−z/√2)/2)`` below zero, ``log1p(−Φ(−z))``
    above."""
    if z < 0.0:
        return -0.5 * z * z + math.log(0.5 * erfcx(-z / _SQRT_2))
    return math.log1p(-0.5 * math.erfc(z / _SQRT_2))


@numba.njit(cache=True, nogil=True)
def argument(
    mu: float, var: float, y: float, bias: float, slope: float
) -> tuple[float, float]:
    """The probit argument ``z = λ y (mu + b) / s`` and ``s = √(1 + λ² var)`` of a
    site whose latent is ``N(mu, var)``."""
    s = math.sqrt(1.0 + slope * slope * var)
    return slope * y * (mu + bias) / s, s


@numba.njit(cache=True, nogil=True)
def moments(
    mu: float, var: float, y: float, bias: float, slope: float
) -> tuple[float, float, float]:
    """``(z, g, w)`` of ``Probit(bias, slope).moments(mu, var, y)`` for one site: the
    probit argument, ``d log Z/d mu`` and ``−d² log Z/d mu²`` clamped into
    ``[1e-300, (1 − 1e-12)/var]``, the curvature by its asymptotic series below
    ``z = −30``."""
    z, s = argument(mu, var, y, bias, slope)
    rho = _SQRT_2_OVER_PI / erfcx(-z / _SQRT_2)
    if z < ASYMPTOTIC_Z:
        inv2 = 1.0 / (z * z)
        curvature = 1.0 - inv2 + 6 * inv2**2 - 50 * inv2**3 + 518 * inv2**4
    else:
        curvature = rho * (z + rho)
    w_max = (1.0 - 1e-12) / var if var > 0 else math.inf
    w = min(max(slope**2 * curvature / (s * s), 1e-300), w_max)
    return z, slope * y * rho / s, w
