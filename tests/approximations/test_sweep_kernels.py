"""The compiled sweep kernels against the numpy formulas they replace."""

import numpy as np
import pytest
from scipy import special

from sparsegp import _probit
from sparsegp.approximations import ep, sweep_kernels
from sparsegp.approximations.fitc_ep import _moments
from sparsegp.likelihoods import Probit, site_from_cavity


def _relative_error(value, reference):
    return np.max(np.abs(value - reference) / np.maximum(np.abs(reference), 1e-290))


def test_erfcx_and_log_ndtr_match_scipy_over_both_tails():
    x = np.concatenate([np.linspace(-26, 80, 40_001), [24.999, 25.0, 25.001, 1e4]])
    erfcx = np.array([_probit.erfcx(v) for v in x])
    assert _relative_error(erfcx, special.erfcx(x)) < 1e-12
    assert np.isinf(_probit.erfcx(-27.0)) and np.isinf(special.erfcx(-27.0))
    z = np.concatenate([np.linspace(-60, 37, 40_001), [-1e3, 0.0]])
    log_cdf = np.array([_probit.log_ndtr(v) for v in z])
    assert _relative_error(log_cdf, special.log_ndtr(z)) < 1e-12


def _sites(n=3000, seed=0):
    """Sites and marginals over the probit's regimes: far tails both ways (|z| up to
    about 60), improper cavities (a site precision above the marginal's), labels of
    both signs."""
    rng = np.random.default_rng(seed)
    var = rng.uniform(0.05, 3.0, n)
    tau = rng.uniform(0.0, 2.0, n)
    tau[::7] = 1.0 / var[::7] + rng.uniform(0.01, 1.0, len(tau[::7]))  # improper
    mean = rng.normal(0.0, 1.0, n) * rng.choice([1.0, 10.0, 60.0], n)
    nu = rng.normal(0.0, 1.0, n)
    y = rng.choice([-1.0, 1.0], n)
    return y, tau, nu, mean, var


@pytest.mark.parametrize("bias, slope", [(0.0, 1.0), (0.7, 1.0), (-0.3, 2.5)])
def test_probit_site_update_is_the_damped_moment_matching(bias, slope):
    y, tau, nu, mean, var = _sites()
    likelihood = Probit(bias, slope)
    new_tau, new_nu = sweep_kernels.probit_site_update(
        y, tau, nu, mean, var, bias, slope, 0.8
    )
    tau_c, nu_c = 1.0 / var - tau, mean / var - nu
    proper = tau_c > 0
    mu_c, var_c = nu_c[proper] / tau_c[proper], 1.0 / tau_c[proper]
    matched = site_from_cavity(mu_c, var_c, likelihood.moments(mu_c, var_c, y[proper]))
    expected_tau, expected_nu = tau.copy(), nu.copy()
    expected_tau[proper] = np.maximum(matched[0], 0.0)
    expected_nu[proper] = matched[1]
    expected_tau = tau + 0.8 * (expected_tau - tau)
    expected_nu = nu + 0.8 * (expected_nu - nu)
    # ρ(z + ρ) cancels in the far left tail: ~1e-15 differences of erfcx (its rounding
    # against scipy's) grow by z² ≈ 900 there, and again in g + w μ_c and in the
    # damped step (sites of order one)
    np.testing.assert_allclose(new_tau, expected_tau, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(new_nu, expected_nu, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(new_tau[~proper], tau[~proper])


def test_probit_site_evidence_is_the_sum_of_the_site_terms():
    y, tau, nu, mean, var = _sites()
    proper = 1.0 / var - tau > 0
    y, tau, nu, mean, var = (a[proper] for a in (y, tau, nu, mean, var))
    likelihood = Probit(0.4, 1.5)
    tau_c, nu_c = 1.0 / var - tau, mean / var - nu
    log_z = likelihood.moments(nu_c / tau_c, 1.0 / tau_c, y).log_z
    expected = np.sum(ep.site_evidence_term(log_z, tau, nu, tau_c, nu_c)) + 0.5 * (
        nu @ mean
    )
    value = sweep_kernels.probit_site_evidence(tau, nu, mean, var, y, 0.4, 1.5)
    assert value == pytest.approx(expected, rel=1e-12)
    assert ep.site_evidence_terms(tau, nu, mean, var, y, likelihood) == value


def test_site_change_is_the_largest_relative_change():
    rng = np.random.default_rng(1)
    tau, nu, old_tau, old_nu = rng.normal(size=(4, 500))
    expected = max(
        np.max(np.abs(tau - old_tau) / (1 + np.abs(tau))),
        np.max(np.abs(nu - old_nu) / (1 + np.abs(nu))),
    )
    assert sweep_kernels.site_change(tau, nu, old_tau, old_nu) == expected
    empty = np.zeros(0)
    assert sweep_kernels.site_change(empty, empty, empty, empty) == 0.0
    nu[3] = np.nan  # a failed site is no convergence
    assert np.isnan(sweep_kernels.site_change(tau, nu, old_tau, old_nu))


def test_the_kernels_carry_nan_sites_as_numpy_does():
    y = np.array([1.0, -1.0, 1.0])
    tau, nu, var = np.full(3, 0.1), np.full(3, 0.2), np.ones(3)  # proper cavities
    mean = np.array([0.5, np.nan, -0.5])
    new_tau, new_nu = sweep_kernels.probit_site_update(
        y, tau, nu, mean, var, 0.0, 1.0, 0.5
    )
    assert np.isnan(new_tau[1]) and np.isnan(new_nu[1])
    assert np.isfinite(new_tau[[0, 2]]).all() and np.isfinite(new_nu[[0, 2]]).all()
    assert np.isnan(sweep_kernels.probit_site_evidence(tau, nu, mean, var, y, 0, 1))


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_marginal_moments_into_matches_the_dense_products(dtype, rtol):
    rng = np.random.default_rng(2)
    E = rng.normal(size=(30, 400)).astype(dtype)
    u = rng.normal(size=30).astype(dtype)
    d0, tau = rng.uniform(0.1, 1.0, (2, 400))
    nu = rng.normal(size=400)
    mean, var = np.empty(400), np.empty(400)
    sweep_kernels.marginal_moments_into(E, u, d0, tau, nu, mean, var)
    E64, u64 = E.astype(float), u.astype(float)
    expected = _moments(d0, tau, nu, np.sum(E64 * E64, axis=0), E64.T @ u64)
    np.testing.assert_allclose(mean, expected[0], rtol=rtol, atol=rtol)
    np.testing.assert_allclose(var, expected[1], rtol=rtol)
