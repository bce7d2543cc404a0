"""A parallel EP sweep's per-site arithmetic on the probit, as compiled loops.

A row block's share of a sweep (:mod:`~sparsegp.approximations.partitioned_fitc`) is,
besides its BLAS products, a few dozen numpy calls per step on arrays of the block's
rows; each call holds the interpreter's lock while numpy dispatches it, so threads
working on blocks at once queue for that lock (issue 47). Here each step is one numba
call that releases the lock:

- the damped moment matching of :func:`~sparsegp.approximations.ep.parallel_site_update`;
- the evidence's site terms of :func:`~sparsegp.approximations.ep.site_evidence_terms`;
- :func:`~sparsegp.approximations.ep.site_change`;
- the marginals of :func:`~sparsegp.approximations.fitc_ep.fitc_marginal_moments`
  from a piece of ``E = L_B⁻¹ V``;
- an upper bound of every candidate's IVM score, for
  :func:`~sparsegp.approximations.adf_active_set.best_entropy_reduction`.

The formulas are those functions' (algorithms.md §0.2-§0.3, §5.3, §5.5), term for
term; tests hold them to the numpy versions. The probit's moments for one site are
:mod:`sparsegp._probit`'s.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .. import _probit

__all__ = [
    "marginal_moments_into",
    "probit_score_bounds",
    "probit_site_evidence",
    "probit_site_update",
    "site_change",
]


@numba.njit(cache=True, nogil=True)
def probit_site_update(
    y: np.ndarray,
    tau: np.ndarray,
    nu: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    bias: float,
    slope: float,
    damping: float,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~sparsegp.approximations.ep.parallel_site_update` on
    ``Probit(bias, slope)``: every site moment-matched from its cavity (a site whose
    cavity is not a proper Gaussian kept), then damped."""
    new_tau, new_nu = np.empty_like(tau), np.empty_like(nu)
    for i in range(len(tau)):
        tau_c = 1.0 / var[i] - tau[i]
        nu_c = mean[i] / var[i] - nu[i]
        matched_tau, matched_nu = tau[i], nu[i]
        if tau_c > 0.0:
            mu_c, var_c = nu_c / tau_c, 1.0 / tau_c
            _, g, w = _probit.moments(mu_c, var_c, y[i], bias, slope)
            denominator = 1.0 - var_c * w
            matched_tau = max(w / denominator, 0.0)
            matched_nu = (g + w * mu_c) / denominator
        new_tau[i] = tau[i] + damping * (matched_tau - tau[i])
        new_nu[i] = nu[i] + damping * (matched_nu - nu[i])
    return new_tau, new_nu


@numba.njit(cache=True, nogil=True)
def probit_site_evidence(
    tau: np.ndarray,
    nu: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    y: np.ndarray,
    bias: float,
    slope: float,
) -> float:
    """:func:`~sparsegp.approximations.ep.site_evidence_terms` on
    ``Probit(bias, slope)``: ``Σ_i (log Ẑ_i + ½ log(1 + τ̃/τ_c) + ½ ν_c²/τ_c
    − ½ (ν̃ + ν_c)²/(τ̃ + τ_c)) + ½ ν̃ᵀμ``."""
    total = 0.0
    for i in range(len(tau)):
        tau_c = 1.0 / var[i] - tau[i]
        nu_c = mean[i] / var[i] - nu[i]
        z, _ = _probit.argument(nu_c / tau_c, 1.0 / tau_c, y[i], bias, slope)
        total += (
            _probit.log_ndtr(z)
            + 0.5 * math.log1p(tau[i] / tau_c)
            + 0.5 * nu_c**2 / tau_c
            - 0.5 * (nu[i] + nu_c) ** 2 / (tau[i] + tau_c)
        )
        total += 0.5 * nu[i] * mean[i]
    return total


@numba.njit(cache=True, nogil=True)
def site_change(
    tau: np.ndarray, nu: np.ndarray, old_tau: np.ndarray, old_nu: np.ndarray
) -> float:
    """:func:`~sparsegp.approximations.ep.site_change`: the largest change of a site
    parameter, relative to ``1 + |value|``; NaN if a change is (as numpy's ``max``)."""
    largest = 0.0
    for i in range(len(tau)):
        change_tau = abs(tau[i] - old_tau[i]) / (1.0 + abs(tau[i]))
        change_nu = abs(nu[i] - old_nu[i]) / (1.0 + abs(nu[i]))
        if change_tau != change_tau or change_nu != change_nu:
            return math.nan
        largest = max(largest, change_tau, change_nu)
    return largest


@numba.njit(cache=True, nogil=True)
def marginal_moments_into(
    E: np.ndarray,
    u: np.ndarray,
    d0: np.ndarray,
    tau: np.ndarray,
    nu: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
) -> None:
    """The FITC marginals of the columns of ``E = L_B⁻¹ V`` (M × columns, C order):
    ``μ_i = t(d₀ν̃_i + E_iᵀu)``, ``Σ_ii = d₀t + t²‖E_i‖²`` with ``t = 1/(1 + τ̃ d₀)``
    (algorithms.md §5.3), written into ``mean`` and ``var``; ``‖E_i‖²`` and ``E_iᵀu``
    in one pass over ``E``, in its precision as numpy's products are."""
    columns = E.shape[1]
    norms = np.zeros(columns, dtype=E.dtype)
    projections = np.zeros(columns, dtype=E.dtype)
    for row in range(E.shape[0]):
        weight = u[row]
        for j in range(columns):
            value = E[row, j]
            norms[j] += value * value
            projections[j] += value * weight
    for j in range(columns):
        t = 1.0 / (1.0 + tau[j] * d0[j])
        mean[j] = t * (d0[j] * nu[j] + projections[j])
        var[j] = d0[j] * t + t**2 * norms[j]


@numba.njit(cache=True, nogil=True)
def probit_score_bounds(
    h: np.ndarray,
    a: np.ndarray,
    y: np.ndarray,
    candidate: np.ndarray,
    bias: float,
    slope: float,
    ceiling: np.ndarray,
    z_first: float,
    per_unit: float,
) -> tuple[np.ndarray, int]:
    """Upper bounds of ``a_j w_j`` for the IVM's score on ``Probit(bias, slope)``
    (−1 where ``candidate`` is False), and the candidate of the largest (−1 if none,
    or if a candidate's marginals are not numbers).

    ``w_j = λ² c(z_j)/s_j²`` clamped (algorithms.md §0.2), ``c(z) = ρ(z)(z + ρ(z))``
    decreasing in ``z``: ``ceiling[k]`` bounds ``c`` on ``[z_first + k/per_unit,
    z_first + (k + 1)/per_unit)``, ``1`` below the grid (``c < 1``), the last entry
    above it. One pass of a few flops a row, where the score itself needs ``erfcx``.
    """
    bounds = np.empty(len(h))
    best, largest = -1, -1.0
    last = len(ceiling) - 1
    for j in range(len(h)):
        if not candidate[j]:
            bounds[j] = -1.0
            continue
        s2 = 1.0 + slope * slope * a[j]
        z = slope * y[j] * (h[j] + bias) / math.sqrt(s2)
        if z != z:  # not a number: no bound, the caller scores all
            return bounds, -1
        cell = math.floor((z - z_first) * per_unit)
        if cell < 0.0:
            c = 1.0
        elif cell >= last:
            c = ceiling[last]
        else:
            c = ceiling[int(cell)]
        bounds[j] = a[j] * max(slope * slope * c / s2, 1e-300)
        if bounds[j] != bounds[j]:  # not a number: no bound, the caller scores all
            return bounds, -1
        if bounds[j] > largest:
            best, largest = j, bounds[j]
    return bounds, best
