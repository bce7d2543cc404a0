"""Probit, Gaussian and multinomial-probit moments and predictives against
brute-force quadrature."""

import mpmath as mp
import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import log_ndtr, logsumexp
from scipy.stats import norm

from sparsegp.likelihoods import (
    Gaussian,
    MultinomialProbit,
    Probit,
    probit_curvature,
    site_from_cavity,
)


def tilted_by_quadrature(log_lik, mu, var):
    """log Z, mean and variance of p(y|f) N(f|mu, var) on a 400 001-point grid.

    The grid spans the prior and the region the likelihood pulls the mass into, so
    the tails (|z| up to 40, where Z ~ 1e-350) are integrated in log space.
    """
    sd = np.sqrt(var)
    lo, hi = mu - 12 * sd, mu + 12 * sd
    lo, hi = min(lo, -60 * (1 + sd)), max(hi, 60 * (1 + sd))
    f = np.linspace(lo, hi, 400_001)
    log_w = log_lik(f) + norm.logpdf(f, mu, sd)
    log_z = logsumexp(log_w) + np.log(f[1] - f[0])
    weights = np.exp(log_w - logsumexp(log_w))
    mean = weights @ f
    return log_z, mean, weights @ (f - mean) ** 2


CASES = [
    # (mu, var, y, bias, slope): probit arguments z from about -40 to +40
    (0.0, 1.0, 1, 0.0, 1.0),
    (0.5, 0.3, -1, 0.2, 1.0),
    (-3.0, 2.0, 1, -1.0, 1.5),
    (-20.0, 0.5, 1, -5.0, 1.0),
    (-38.0, 0.4, 1, -10.0, 1.0),
    (40.0, 1.0, -1, 13.0, 1.0),
    (25.0, 3.0, 1, 0.0, 0.7),
    (12.0, 0.01, -1, 0.0, 1.0),
]


@pytest.mark.parametrize("mu, var, y, bias, slope", CASES)
def test_probit_moments_match_quadrature(mu, var, y, bias, slope):
    lik = Probit(bias=bias, slope=slope)
    m = lik.moments(mu, var, y)
    log_z, mean, variance = tilted_by_quadrature(
        lambda f: log_ndtr(slope * y * (f + bias)), mu, var
    )
    assert abs(m.z) <= 41
    np.testing.assert_allclose(m.log_z, log_z, rtol=1e-8, atol=1e-8)
    # Lemma P: tilted mean mu + var g, tilted variance var - var^2 w
    np.testing.assert_allclose(mu + var * m.g, mean, rtol=1e-7, atol=1e-7 * var)
    np.testing.assert_allclose(var - var**2 * m.w, variance, rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("mu, var, y, bias, slope", CASES)
def test_probit_moments_derivatives_by_finite_differences(mu, var, y, bias, slope):
    lik = Probit(bias=bias, slope=slope)
    h = 1e-5 * max(1.0, abs(mu))
    m = lik.moments(mu, var, y)
    up, down = lik.moments(mu + h, var, y), lik.moments(mu - h, var, y)
    np.testing.assert_allclose(
        m.g, (up.log_z - down.log_z) / (2 * h), rtol=1e-5, atol=1e-9
    )
    np.testing.assert_allclose(m.w, -(up.g - down.g) / (2 * h), rtol=1e-4, atol=1e-9)


def test_site_from_cavity_reproduces_tilted_moments():
    lik = Probit(bias=0.3)
    mu_c, var_c = np.array([0.4, -2.0, 5.0]), np.array([1.2, 0.5, 4.0])
    y = np.array([-1.0, 1.0, 1.0])
    m = lik.moments(mu_c, var_c, y)
    tau, nu = site_from_cavity(mu_c, var_c, m)
    post_var = 1.0 / (1.0 / var_c + tau)
    post_mean = post_var * (mu_c / var_c + nu)
    np.testing.assert_allclose(post_mean, mu_c + var_c * m.g, rtol=1e-12)
    np.testing.assert_allclose(post_var, var_c - var_c**2 * m.w, rtol=1e-10)


def test_probit_curvature_series_joins_direct_formula():
    z = np.array([-30.0 - 1e-9, -30.0 + 1e-9])
    left, right = probit_curvature(z)
    assert abs(left - right) < 1e-9
    deep = probit_curvature(np.array([-1e3, -1e5]))
    assert np.all((deep > 0) & (deep < 1))


def test_predictive_probability_matches_quadrature():
    lik = Probit(bias=-0.4, slope=1.3)
    log_z, _, _ = tilted_by_quadrature(lambda f: log_ndtr(1.3 * (f - 0.4)), 0.7, 2.5)
    np.testing.assert_allclose(lik.predict_proba(0.7, 2.5), np.exp(log_z), rtol=1e-8)
    np.testing.assert_allclose(
        lik.log_predictive(0.7, 2.5, -1), np.log1p(-np.exp(log_z)), rtol=1e-8
    )


def test_gaussian_moments_match_quadrature():
    lik = Gaussian(noise=0.3)
    m = lik.moments(0.2, 1.5, 1.1)
    log_z, mean, variance = tilted_by_quadrature(
        lambda f: norm.logpdf(1.1, f, np.sqrt(0.3)), 0.2, 1.5
    )
    np.testing.assert_allclose(m.log_z, log_z, rtol=1e-9)
    np.testing.assert_allclose(0.2 + 1.5 * m.g, mean, rtol=1e-8)
    np.testing.assert_allclose(1.5 - 1.5**2 * m.w, variance, rtol=1e-6)


@pytest.mark.parametrize("mu", [-80.0, -3.0, 0.0, 0.7, 40.0])
@pytest.mark.parametrize("likelihood", [Probit(0.4, 1.3), Gaussian(0.5)])
def test_scalar_moments_equal_array_moments(mu, likelihood):
    for var in [1e-3, 1.0, 50.0]:
        for y in [-1.0, 1.0]:
            scalar = likelihood.scalar_moments(mu, var, y)
            array = likelihood.moments(np.array([mu]), np.array([var]), np.array([y]))
            for name in ("log_z", "g", "w"):
                # the scalar path's compiled log Φ (sparsegp._probit) and scipy's
                # differ by 2e-13 at z ≈ 32, scipy's error there against 50 digits
                np.testing.assert_allclose(
                    getattr(scalar, name), getattr(array, name)[0], rtol=1e-12
                )


@pytest.mark.parametrize("path", ["array", "scalar"])
@pytest.mark.parametrize("bias, slope, var", [(0.0, 1.0, 0.0), (0.3, 2.0, 1.5)])
def test_probit_moments_are_accurate_to_1e_10_for_z_within_40(path, bias, slope, var):
    """log Z, g and w against 50-digit arithmetic wherever they are representable
    (w's floor 1e-300 aside). Before ρ(z) came from erfcx for z < 0, w lost ten
    digits near z = −30 (1.4e-10)."""
    mp.mp.dps = 50
    likelihood = Probit(bias, slope)
    s = np.sqrt(1 + slope**2 * var)
    z = np.linspace(-40, 40, 161)
    mu = z * s / slope - bias
    if path == "array":
        m = likelihood.moments(mu, np.full_like(z, var), np.ones_like(z))
        rows = zip(m.z, m.log_z, m.g, m.w, strict=True)
    else:
        scalar = [likelihood.scalar_moments(float(a), var, 1.0) for a in mu]
        rows = [(r.z, r.log_z, r.g, r.w) for r in scalar]
    for z_i, log_z, g, w in rows:
        x = mp.mpf(float(z_i))
        exact_log_z = mp.log1p(-mp.ncdf(-x)) if x > 0 else mp.log(mp.ncdf(x))
        rho = mp.npdf(x) / mp.ncdf(x)
        exact = {
            "log_z": exact_log_z,
            "g": slope * rho / s,
            "w": slope**2 * rho * (rho + x) / s**2,
        }
        for name, ours in (("log_z", log_z), ("g", g), ("w", w)):
            if abs(exact[name]) > 1e-290:
                error = abs((mp.mpf(float(ours)) - exact[name]) / exact[name])
                assert error < 1e-10, (name, float(z_i), float(error))


@pytest.mark.parametrize("likelihood", [Probit(0.4, 1.3), Gaussian(0.5)])
def test_curvature_alone_equals_the_moments_w(likelihood):
    rng = np.random.default_rng(0)
    mu = np.concatenate([np.linspace(-80, 80, 2001), rng.standard_normal(500)])
    var = np.exp(rng.uniform(np.log(1e-8), np.log(1e4), len(mu)))
    y = rng.choice([-1.0, 1.0], len(mu))
    np.testing.assert_array_equal(
        likelihood.curvature(mu, var, y), likelihood.moments(mu, var, y).w
    )


STEP_CASES = [
    # (mu_label, var_label, mu_other, var_other, b_label - b_other)
    (0.3, 1.0, -0.2, 2.0, 0.0),
    (-2.0, 0.5, 1.5, 3.0, 0.4),  # the step far from satisfied
    (4.0, 2.0, -1.0, 0.2, -0.3),  # nearly certain
    (0.0, 50.0, 0.5, 30.0, 1.0),  # wide cavities (large amplitudes)
]


@pytest.mark.parametrize("mu_y, var_y, mu_k, var_k, b", STEP_CASES)
def test_step_moments_match_quadrature_of_each_latents_tilted_marginal(
    mu_y, var_y, mu_k, var_k, b
):
    """``Θ(f_y − f_k + b)`` under independent cavities: integrating out the other
    latent leaves a probit on each, ``Φ((f_y − μ_k + b)/σ_k)`` and
    ``Φ((μ_y + b − f_k)/σ_y)``; ``g = (E f − μ)/σ²``, ``w = (σ² − Var f)/σ⁴``."""
    got = MultinomialProbit(np.zeros(2)).step_moments(mu_y, var_y, mu_k, var_k, b)
    for moments, (mu, var), log_lik in (
        (got.label, (mu_y, var_y), lambda f: log_ndtr((f - mu_k + b) / np.sqrt(var_k))),
        (got.other, (mu_k, var_k), lambda f: log_ndtr((mu_y + b - f) / np.sqrt(var_y))),
    ):
        log_z, mean, variance = tilted_by_quadrature(log_lik, mu, var)
        assert float(got.log_z) == pytest.approx(log_z, abs=1e-8)
        assert float(moments.g) == pytest.approx((mean - mu) / var, rel=1e-6, abs=1e-9)
        assert float(moments.w) == pytest.approx(
            (var - variance) / var**2, rel=1e-5, abs=1e-9
        )


def test_two_class_predictive_is_the_probit_of_the_difference():
    rng = np.random.default_rng(0)
    mean, var = 3 * rng.standard_normal((20, 2)), rng.uniform(0.01, 5, (20, 2))
    bias = np.array([0.3, -0.4])
    got = MultinomialProbit(bias).predict_proba(mean, var)[:, 1]
    m = mean + bias
    expected = norm.cdf((m[:, 1] - m[:, 0]) / np.sqrt(var.sum(axis=1) + 2.0))
    np.testing.assert_allclose(got, expected, atol=1e-9)


def test_multiclass_predictive_matches_adaptive_quadrature():
    """``P(y = c) = ∫ N(t | m_c, s_c²) Π_{j≠c} Φ((t − m_j)/s_j) dt``, by scipy's
    adaptive ``quad`` on 10 classes: 48 Gauss-Hermite nodes on the class's own
    Gaussian are within 5e-4 (2e-4 the largest measured over 20 such points)."""
    rng = np.random.default_rng(1)
    mean, var = 2 * rng.standard_normal((3, 10)), rng.uniform(0.05, 20, (3, 10))
    bias = rng.standard_normal(10)
    got = MultinomialProbit(bias).predict_proba(mean, var)
    m, s = mean + bias, np.sqrt(var + 1.0)
    for i in range(3):
        for c in range(10):
            others = [j for j in range(10) if j != c]

            def integrand(t, i=i, c=c, others=others):
                return norm.pdf(t, m[i, c], s[i, c]) * np.prod(
                    norm.cdf((t - m[i, others]) / s[i, others])
                )

            expected = quad(integrand, -np.inf, np.inf, epsabs=1e-13)[0]
            assert got[i, c] == pytest.approx(expected, abs=5e-4)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, atol=1e-12)


def test_variance_scale_multiplies_the_latent_variances_only():
    """``γ`` scales the latents' variances, not the unit noise: with ``γ`` the
    two-class predictive is ``Φ(Δm/√(γ(σ₀² + σ₁²) + 2))``."""
    rng = np.random.default_rng(2)
    mean, var = 3 * rng.standard_normal((20, 4)), rng.uniform(0.01, 5, (20, 4))
    bias = rng.standard_normal(4)
    scaled = MultinomialProbit(bias, variance_scale=0.3)
    np.testing.assert_allclose(
        scaled.predict_proba(mean, var),
        MultinomialProbit(bias).predict_proba(mean, 0.3 * var),
    )
    two = MultinomialProbit(bias[:2], variance_scale=0.3).predict_proba(
        mean[:, :2], var[:, :2]
    )[:, 1]
    m = mean[:, :2] + bias[:2]
    expected = norm.cdf((m[:, 1] - m[:, 0]) / np.sqrt(0.3 * var[:, :2].sum(1) + 2.0))
    np.testing.assert_allclose(two, expected, atol=1e-9)
