"""EP on a full GP prior against exact answers, dense formulas and finite differences."""

import numpy as np
import pytest
from numpy.polynomial.hermite_e import hermegauss
from scipy.special import log_ndtr
from scipy.stats import norm
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from sparsegp.approximations import ep as ep_module
from sparsegp.approximations.ep import (
    AndersonMixing,
    DensePosterior,
    WarmStart,
    WarmStartedEP,
    carried_sites,
    cavity_gradient,
    dense_predictor,
    ep_log_evidence_weights,
    leave_one_out,
    parallel_site_update,
    run_ep,
    sites_converged,
)
from sparsegp.likelihoods import Probit
from sparsegp.testing import assert_gradient_matches

from ..conftest import dense_ep, small_problem

TIGHT = dict(tol=1e-12, max_sweeps=2000)


def brute_force_posterior(K, y, bias, n_nodes=60):
    """Evidence, mean and covariance of N(0, K) ∏ Φ(y_i (f_i + b)) by tensor quadrature."""
    nodes, weights = hermegauss(n_nodes)
    weights = weights / weights.sum()
    n = len(y)
    grids = np.meshgrid(*([nodes] * n), indexing="ij")
    z = np.stack([g.ravel() for g in grids])  # (n, nodes^n) standard normal points
    w = np.prod(np.meshgrid(*([weights] * n), indexing="ij"), axis=0).ravel()
    f = np.linalg.cholesky(K) @ z
    lik = np.exp(np.sum(log_ndtr(y[:, None] * (f + bias)), axis=0))
    Z = np.sum(w * lik)
    mean = (f * (w * lik)) @ np.ones(len(w)) / Z
    centred = f - mean[:, None]
    cov = (centred * (w * lik)) @ centred.T / Z
    return np.log(Z), mean, cov


def test_single_point_ep_is_exact():
    K = np.array([[1.7]])
    y = np.array([-1.0])
    state = dense_ep(K, y, Probit(bias=0.4), **TIGHT)
    exact = log_ndtr(-0.4 / np.sqrt(1 + 1.7))
    np.testing.assert_allclose(state.log_evidence, exact, rtol=1e-12)
    m = Probit(bias=0.4).moments(0.0, 1.7, -1.0)
    np.testing.assert_allclose(state.mean, 1.7 * m.g, rtol=1e-10)
    np.testing.assert_allclose(state.var, 1.7 - 1.7**2 * m.w, rtol=1e-10)


@pytest.mark.parametrize("mode", ["parallel", "sequential"])
def test_three_points_against_numerical_integration(mode):
    X = np.array([[0.0], [0.6], [2.0]])
    K = 1.5 * np.exp(-0.5 * (X - X.T) ** 2 / 0.8**2)
    y = np.array([1.0, -1.0, 1.0])
    state = dense_ep(K, y, Probit(bias=0.2), mode=mode, **TIGHT)
    log_z, mean, cov = brute_force_posterior(K, y, 0.2)
    # EP is an approximation; for the probit it is known to be very accurate.
    np.testing.assert_allclose(state.log_evidence, log_z, atol=2e-3)
    np.testing.assert_allclose(state.mean, mean, atol=1e-3)
    np.testing.assert_allclose(state.var, np.diag(cov), rtol=1e-2)


def test_fixed_point_marginals_equal_tilted_moments():
    """At convergence every marginal equals its cavity times the true likelihood."""
    X, y, kernel = small_problem(12)
    K = kernel(X)
    lik = Probit(bias=-0.3)
    state = dense_ep(K, y, lik, **TIGHT)
    tau_c = 1 / state.var - state.tau
    mu_c = (state.mean / state.var - state.nu) / tau_c
    for i in range(len(y)):
        f = np.linspace(
            mu_c[i] - 15 / np.sqrt(tau_c[i]), mu_c[i] + 15 / np.sqrt(tau_c[i]), 200_001
        )
        p = np.exp(log_ndtr(y[i] * (f - 0.3))) * norm.pdf(
            f, mu_c[i], 1 / np.sqrt(tau_c[i])
        )
        p /= p.sum()
        mean = p @ f
        np.testing.assert_allclose(state.mean[i], mean, atol=1e-7)
        np.testing.assert_allclose(state.var[i], p @ (f - mean) ** 2, rtol=1e-6)


def test_posterior_equals_dense_formulas():
    X, y, kernel = small_problem(15)
    K = kernel(X)
    state = dense_ep(K, y, Probit(0.1), **TIGHT)
    Sigma = np.linalg.inv(np.linalg.inv(K) + np.diag(state.tau))
    np.testing.assert_allclose(state.var, np.diag(Sigma), rtol=1e-9)
    np.testing.assert_allclose(state.mean, Sigma @ state.nu, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(
        state.posterior.omega, np.linalg.solve(K, state.mean), rtol=1e-6
    )


@pytest.mark.parametrize("n", [40, 300])
@pytest.mark.parametrize("amplitude", [1.0, 1e4])
def test_refresh_marginals_equal_the_dense_posterior_for_tiny_and_zero_sites(
    amplitude, n
):
    """Sites from 0 to 1e3 (and τ̃ K_ii on both sides of the cancellation guard): the
    ⅔n³ refresh gives the marginals of ``(K⁻¹ + T̃)⁻¹`` and ``Σ ν̃``; n = 300 takes
    the recursive triangular inverse (Fortran-ordered) into the weak sites' ``trmm``."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((n, 2))
    K = ConstantKernel(amplitude) * RBF(1.0) + ConstantKernel(1e-3 * amplitude)
    K = K(X) + 1e-6 * amplitude * np.eye(n)
    tau = 10.0 ** rng.uniform(-12, 3, size=n) / amplitude
    tau[:3] = 0.0
    nu = rng.standard_normal(n) * tau
    posterior = DensePosterior(K, tau, nu)
    sqrt_tau = np.sqrt(tau)
    B = np.eye(n) + sqrt_tau[:, None] * K * sqrt_tau
    Sigma = K - K @ (sqrt_tau[:, None] * np.linalg.solve(B, sqrt_tau[:, None] * K))
    mean, var = posterior.marginals()
    np.testing.assert_allclose(var, np.diag(Sigma), rtol=1e-9)
    np.testing.assert_allclose(mean, Sigma @ nu, rtol=1e-8, atol=1e-12 * amplitude)


def test_evidence_equals_rasmussen_williams_3_65():
    X, y, kernel = small_problem(15)
    K = kernel(X)
    lik = Probit(0.25)
    s = dense_ep(K, y, lik, **TIGHT)
    tau_c = 1 / s.var - s.tau
    mu_c = (s.mean / s.var - s.nu) / tau_c
    var_c = 1 / tau_c
    site_var, site_mean = 1 / s.tau, s.nu / s.tau
    C = K + np.diag(site_var)
    expected = (
        -0.5 * np.linalg.slogdet(C)[1]
        - 0.5 * site_mean @ np.linalg.solve(C, site_mean)
        + np.sum(lik.moments(mu_c, var_c, y).log_z)
        + 0.5 * np.sum(np.log(var_c + site_var))
        + np.sum((mu_c - site_mean) ** 2 / (2 * (var_c + site_var)))
    )
    np.testing.assert_allclose(s.log_evidence, expected, rtol=1e-10)


def test_parallel_and_sequential_ep_reach_the_same_fixed_point():
    X, y, kernel = small_problem(25)
    K = kernel(X)
    a = dense_ep(K, y, Probit(0.1), mode="parallel", **TIGHT)
    b = dense_ep(K, y, Probit(0.1), mode="sequential", random_state=3, **TIGHT)
    assert a.converged and b.converged
    np.testing.assert_allclose(a.tau, b.tau, rtol=1e-8)
    np.testing.assert_allclose(a.log_evidence, b.log_evidence, rtol=1e-10)


def test_evidence_gradient_matches_finite_differences():
    X, y, kernel = small_problem(20)
    bias = 0.3

    def log_z(x):  # x = (θ, b)
        K = kernel.clone_with_theta(x[:-1])(X)
        return dense_ep(K, y, Probit(x[-1]), **TIGHT).log_evidence

    K, K_grad = kernel(X, eval_gradient=True)
    state = dense_ep(K, y, Probit(bias), **TIGHT)
    weights = ep_log_evidence_weights(state)
    np.testing.assert_allclose(weights, weights.T, rtol=1e-14, atol=1e-17)
    grad_kernel = np.tensordot(weights, K_grad, axes=([0, 1], [0, 1]))
    grad_bias = cavity_gradient(state, y, Probit(bias))
    assert_gradient_matches(
        log_z, np.append(grad_kernel, grad_bias), np.append(kernel.theta, bias)
    )


def test_predictions_equal_dense_joint_posterior():
    X, y, kernel = small_problem(15)
    X_star = np.random.default_rng(1).standard_normal((4, X.shape[1]))
    K = kernel(X)
    state = dense_ep(K, y, Probit(0.0), **TIGHT)
    mean, var = dense_predictor(state).latent_mean_and_variance(
        kernel(X, X_star), kernel.diag(X_star)
    )
    K_s = kernel(X, X_star)
    site_cov = K + np.diag(1 / state.tau)
    expected_mean = K_s.T @ np.linalg.solve(site_cov, state.nu / state.tau)
    expected_var = kernel.diag(X_star) - np.einsum(
        "ij,ij->j", K_s, np.linalg.solve(site_cov, K_s)
    )
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-8)
    np.testing.assert_allclose(var, expected_var, rtol=1e-8)


def test_warm_started_ep_reaches_the_cold_fixed_point():
    X, y, kernel = small_problem(n=40)
    ep = WarmStartedEP(y, dict(tol=1e-10, max_sweeps=1000))
    likelihood = Probit(0.1)
    first = ep(lambda s: DensePosterior.starting_from(kernel(X), s), likelihood)
    K = kernel.clone_with_theta(kernel.theta + 0.05)(X)
    warm = ep(
        lambda s: DensePosterior.starting_from(K, s),
        likelihood,
        final=True,
    )
    cold = dense_ep(K, y, likelihood, tol=1e-12, max_sweeps=1000)
    assert ep.n_runs == 2 and ep.n_cold_restarts == 0
    assert first.converged and warm.n_sweeps < cold.n_sweeps
    np.testing.assert_allclose(warm.tau, cold.tau, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(warm.log_evidence, cold.log_evidence, rtol=1e-10)


def test_an_optimizer_evaluation_settles_the_evidence_before_the_sites():
    X, y, kernel = small_problem(n=60)
    K = kernel(X)
    exact = dense_ep(K, y, Probit(0.2), tol=1e-12, max_sweeps=1000)
    tol = 1e-4
    runs = {
        final: WarmStartedEP(y, dict(tol=tol, max_sweeps=1000))(
            lambda s: DensePosterior.starting_from(K, s),
            Probit(0.2),
            final=final,
        )
        for final in (False, True)
    }
    evaluation, final = runs[False], runs[True]
    assert evaluation.n_sweeps < final.n_sweeps
    assert abs(evaluation.log_evidence / exact.log_evidence - 1.0) < tol / 10
    assert np.max(np.abs(evaluation.tau - exact.tau) / (1 + exact.tau)) < np.sqrt(tol)
    np.testing.assert_allclose(final.tau, exact.tau, rtol=1e-5, atol=1e-7)


def distance_between_sites(tau, nu, state):
    """Largest difference from ``state``'s sites, relative to their largest value."""
    return max(
        np.max(np.abs(tau - state.tau)) / np.max(state.tau),
        np.max(np.abs(nu - state.nu)) / np.max(np.abs(state.nu)),
    )


@pytest.mark.parametrize("amplitude", [1e-3, 1.0, 1e4])
@pytest.mark.parametrize("scale", [0.5, 4.0])
def test_carried_sites_start_closer_to_the_fixed_point_of_a_rescaled_prior(
    amplitude, scale
):
    X, y, kernel = small_problem(n=40)
    K = amplitude * kernel(X)
    old = dense_ep(K, y, Probit(0.0), **TIGHT)
    new = dense_ep(scale * K, y, Probit(0.0), **TIGHT)
    tau, nu = carried_sites(y, Probit(0.0), old.tau, old.nu, old.mean, old.var, scale)
    carried = distance_between_sites(tau, nu, new)
    assert carried < distance_between_sites(old.tau, old.nu, new)


@pytest.mark.parametrize("amplitude", [1e4, 1e5])
def test_carried_sites_are_exact_in_the_step_likelihood_limit(amplitude):
    X, y, kernel = small_problem(n=40)
    K = amplitude * kernel(X)  # latent values ~ √amplitude: the probit is a step
    old = dense_ep(K, y, Probit(0.0), **TIGHT)
    new = dense_ep(4.0 * K, y, Probit(0.0), **TIGHT)
    tau, nu = carried_sites(y, Probit(0.0), old.tau, old.nu, old.mean, old.var, 4.0)
    assert distance_between_sites(tau, nu, new) < 20.0 / amplitude
    assert distance_between_sites(old.tau, old.nu, new) > 1.0


def test_carried_sites_at_the_same_prior_and_likelihood_are_the_fixed_point():
    X, y, kernel = small_problem(n=40)
    state = dense_ep(kernel(X), y, Probit(0.3), **TIGHT)
    tau, nu = carried_sites(
        y, Probit(0.3), state.tau, state.nu, state.mean, state.var, 1.0
    )
    np.testing.assert_allclose(tau, state.tau, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(nu, state.nu, rtol=1e-8, atol=1e-12)


def test_a_warm_start_rescales_only_between_positive_prior_variances():
    def start(variance):
        return WarmStart(None, variance, None, Probit(0.0))

    assert start(2.0).scale_to(6.0) == 3.0
    assert start(0.0).scale_to(6.0) == start(2.0).scale_to(0.0) == 1.0
    assert start(np.nan).scale_to(6.0) == start(2.0).scale_to(np.inf) == 1.0


def test_a_warm_start_across_an_amplitude_change_takes_fewer_sweeps():
    X, y, kernel = small_problem(n=60)
    K = 1e3 * kernel(X)
    ep = WarmStartedEP(y, dict(tol=1e-8, max_sweeps=1000))
    first = ep(lambda s: DensePosterior.starting_from(K, s), Probit(0.0), final=True)
    carried = ep(
        lambda s: DensePosterior.starting_from(3.0 * K, s), Probit(0.0), final=True
    )
    unscaled = run_ep(
        DensePosterior(3.0 * K, first.tau, first.nu), y, Probit(0.0), tol=1e-10
    )
    assert carried.converged and unscaled.converged
    assert carried.n_sweeps < unscaled.n_sweeps
    np.testing.assert_allclose(carried.log_evidence, unscaled.log_evidence, rtol=1e-9)


def evaluations_at(ep, y, points, posterior_class=DensePosterior):
    """Run ``ep`` at each ``(at, amplitude)``; the starts it was given, in order."""
    X, _, kernel = small_problem(n=len(y))
    starts = []

    def posterior(K):
        def make(start):
            starts.append(start)
            return posterior_class.starting_from(K, start)

        return make

    for at, amplitude in points:
        ep(posterior(amplitude * kernel(X)), Probit(0.0), at=at)
    return starts


def test_a_run_starts_from_the_evaluation_nearest_to_it():
    _, y, kernel = small_problem(n=30)
    ep = WarmStartedEP(y, dict(tol=1e-8, max_sweeps=200))
    near, far = np.array([0.0, 0.0]), np.array([3.0, 0.0])
    starts = evaluations_at(
        ep, y, [(near, 1.0), (far, 4.0), (near + 0.1, 1.1), (None, 1.2)]
    )
    variance = kernel.diag(np.zeros((1, 2)))[0]  # the prior variance at amplitude 1
    assert starts[0] is None
    assert starts[2].prior_variance == pytest.approx(variance)  # not the last run's
    assert starts[3].prior_variance == pytest.approx(1.1 * variance)  # the last run


class SavedInPlace(DensePosterior):
    """A posterior whose checkpoint is not a value (as one over row blocks)."""

    checkpoint_is_value = False


def test_only_the_latest_checkpoint_is_kept_when_it_is_not_a_value():
    _, y, kernel = small_problem(n=30)
    ep = WarmStartedEP(y, dict(tol=1e-8, max_sweeps=200))
    points = [(np.zeros(1), 1.0), (np.ones(1), 4.0), (np.zeros(1), 1.0)]
    starts = evaluations_at(ep, y, points, SavedInPlace)
    variance = kernel.diag(np.zeros((1, 2)))[0]
    assert len(ep._kept) == 1
    assert starts[2].prior_variance == pytest.approx(4.0 * variance)


def test_the_kept_runs_are_bounded():
    _, y, kernel = small_problem(n=30)
    ep = WarmStartedEP(y, dict(tol=1e-8, max_sweeps=200))
    evaluations_at(ep, y, [(np.full(1, float(i)), 1.0 + i) for i in range(12)])
    variance = kernel.diag(np.zeros((1, 2)))[0]
    assert [run.prior_variance for run in ep._kept] == pytest.approx(
        [(1.0 + i) * variance for i in range(4, 12)]
    )


def test_a_warm_start_that_does_not_converge_falls_back_to_zero_sites():
    X, y, kernel = small_problem(n=30)
    K = kernel(X)
    ep = WarmStartedEP(y, dict(tol=1e-8, max_sweeps=200))
    ep(lambda s: DensePosterior.starting_from(K, s), Probit(0.0))
    # a start EP cannot leave: improper cavities keep their sites
    hopeless = (np.full(30, 1e6), np.full(30, -1e6), np.zeros(30), np.ones(30))
    ep._kept = [ep._kept[-1]._replace(checkpoint=hopeless)]
    ep.options["max_sweeps"] = 3
    ep(lambda s: DensePosterior.starting_from(K, s), Probit(0.0))
    assert ep.n_cold_restarts == 1 and ep.n_runs == 3


def test_anderson_mixing_solves_a_linear_fixed_point_faster():
    rng = np.random.default_rng(0)
    n = 20
    Q = np.linalg.qr(rng.standard_normal((2 * n, 2 * n)))[0]
    A = Q @ np.diag(np.linspace(0.5, 0.95, 2 * n)) @ Q.T  # contraction, rate 0.95
    fixed_point = rng.uniform(5.0, 6.0, 2 * n)
    b = fixed_point - A @ fixed_point

    def iterations(mixing):
        x = fixed_point + rng.uniform(-1.0, 1.0, 2 * n)  # precisions stay positive
        for k in range(1, 2000):
            g = A @ x + b
            x_new = np.concatenate(mixing.step(x[:n], x[n:], g[:n], g[n:]))
            if np.max(np.abs(x_new - fixed_point)) < 1e-8:
                return k
            x = x_new
        return 2000

    class Plain:
        def step(self, tau, nu, new_tau, new_nu):
            return new_tau, new_nu

    assert iterations(AndersonMixing()) < iterations(Plain()) / 4


def test_anderson_mixing_never_proposes_a_negative_precision():
    mixing = AndersonMixing()
    mixing.step(np.ones(2), np.zeros(2), np.full(2, 0.5), np.zeros(2))
    # the secant through the residuals -1/3 and -1/4 crosses zero at τ < 0
    tau, _ = mixing.step(np.full(2, 0.5), np.zeros(2), np.full(2, 0.2), np.zeros(2))
    np.testing.assert_array_equal(tau, [0.2, 0.2])


class _PlainIteration:
    """No Anderson mixing: the plain damped parallel update."""

    def step(self, tau, nu, new_tau, new_nu):
        return new_tau, new_nu


def oscillating_problem():
    """Undamped parallel EP on this strongly coupled prior does not settle."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((60, 2))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(60) > 0, 1.0, -1.0)
    return (ConstantKernel(1000.0) * RBF(1.0))(X), y


def test_stalled_sweeps_halve_the_damping_until_ep_converges(monkeypatch):
    K, y = oscillating_problem()
    monkeypatch.setattr(ep_module, "AndersonMixing", _PlainIteration)
    options = dict(mode="parallel", damping=1.0, tol=1e-8, max_sweeps=300)
    monkeypatch.setattr(ep_module, "_STALL_SWEEPS", 10**9)  # the rule switched off
    assert not dense_ep(K, y, Probit(0.5), **options).converged
    monkeypatch.setattr(ep_module, "_STALL_SWEEPS", 3)
    state = dense_ep(K, y, Probit(0.5), **options)
    sequential = dense_ep(
        K, y, Probit(0.5), mode="sequential", damping=0.5, tol=1e-10, max_sweeps=500
    )
    assert state.converged and sequential.converged
    np.testing.assert_allclose(state.log_evidence, sequential.log_evidence, rtol=1e-6)
    np.testing.assert_allclose(state.mean, sequential.mean, rtol=1e-4, atol=1e-6)


def test_a_site_with_an_improper_cavity_keeps_its_value():
    tau, nu = np.array([0.5, 3.0]), np.array([0.1, 0.2])
    mean, var = np.zeros(2), np.array([1.0, 0.5])  # site 2: 1/var − τ̃ = −1 < 0
    new_tau, new_nu = parallel_site_update(
        np.ones(2), Probit(), tau, nu, mean, var, 1.0
    )
    assert new_tau[1] == 3.0 and new_nu[1] == 0.2
    assert new_tau[0] != 0.5 and np.all(np.isfinite(new_tau))


def test_convergence_by_settled_sites_or_by_settled_evidence():
    tol, log_z = 1e-4, -100.0
    # without evidence_tol: sites and evidence within tol
    assert sites_converged(5e-5, log_z, log_z + 5e-3, tol)
    assert not sites_converged(5e-5, log_z, log_z + 2e-2, tol)
    assert not sites_converged(5e-3, log_z, log_z + 5e-5, tol)
    # an evaluation: evidence settled to 1e-6 while the sites move by less than √tol
    assert sites_converged(5e-3, log_z, log_z + 5e-5, tol, evidence_tol=1e-6)
    assert not sites_converged(5e-5, log_z, log_z + 5e-3, tol, evidence_tol=1e-6)
    assert not sites_converged(2e-2, log_z, log_z, tol, evidence_tol=1e-6)
    # or sites settled to 1e-6, the evidence moving by rounding noise
    assert sites_converged(1e-7, log_z, log_z + 0.1, tol, evidence_tol=1e-6)


def test_leave_one_out_is_the_posterior_without_the_point_s_site():
    X, y, kernel = small_problem(15)
    K = kernel(X)
    state = dense_ep(K, y, Probit(0.2), mode="parallel", **TIGHT)
    mean, var = leave_one_out(state)
    for i in range(len(y)):
        tau, nu = state.tau.copy(), state.nu.copy()
        tau[i] = nu[i] = 0.0
        Sigma = np.linalg.inv(np.linalg.inv(K) + np.diag(tau))
        np.testing.assert_allclose(var[i], Sigma[i, i], rtol=1e-8)
        np.testing.assert_allclose(mean[i], Sigma[i] @ nu, rtol=1e-7, atol=1e-10)
