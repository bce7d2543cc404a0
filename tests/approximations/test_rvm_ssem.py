"""RVM E-steps, Subspace EM and batch EM against dense references (§4)."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import log_ndtr
from scipy.stats import multivariate_normal
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import RBF

from sparsegp.approximations import rvm_ssem
from sparsegp.approximations.rvm_ssem import (
    _ActiveBasis,
    _cavity_consistent_g,
    _trainer,
    batch_em,
    ep_e_step,
    evidence_keeps,
    extrapolated_log_alpha,
    mean_field_e_step,
    regression_e_step,
    subspace_em,
    update_alpha,
    update_noise,
)
from sparsegp.datasets import load_banana
from sparsegp.likelihoods import Probit

from ..conftest import rvm_classification_problem as classification_problem


def sinc_problem(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-5, 5, (n, 1))
    t = np.sinc(X[:, 0] / np.pi) + 0.1 * rng.standard_normal(n)
    Psi = np.column_stack([np.ones(n), RBF(1.0)(X)])
    return Psi, t


def test_regression_e_step_equals_the_dense_posterior_and_evidence():
    rng = np.random.default_rng(1)
    Psi = rng.standard_normal((25, 6))
    t = rng.standard_normal(25)
    alpha, noise = rng.uniform(0.5, 3.0, 6), 0.3
    post = regression_e_step(Psi.T @ Psi, Psi.T @ t, t @ t, 25, alpha, noise)
    Sigma = np.linalg.inv(np.diag(alpha) + Psi.T @ Psi / noise)
    np.testing.assert_allclose(post.covariance(), Sigma, rtol=1e-10)
    np.testing.assert_allclose(post.mean, Sigma @ Psi.T @ t / noise, rtol=1e-10)
    np.testing.assert_allclose(post.sigma_diag, np.diag(Sigma), rtol=1e-10)
    C = noise * np.eye(25) + Psi @ np.diag(1 / alpha) @ Psi.T
    expected = multivariate_normal(np.zeros(25), C).logpdf(t)
    assert post.log_evidence == pytest.approx(expected, rel=1e-10)
    assert post.residual == pytest.approx(np.sum((t - Psi @ post.mean) ** 2))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("seed", range(4))
def test_em_never_decreases_the_evidence_but_by_the_add_prune_term(seed):
    """EM steps increase eq. 11; a basis function entering at α = L or leaving at
    α ≥ L moves it by (q_j² − s_j)/(2L) + O(L⁻²) (Tipping & Faul), so every decrease
    along Subspace EM must shrink like 1/L; batch EM (no entries) never decreases it."""
    Psi, t = sinc_problem(seed=seed)
    for L in (1e3, 1e4, 1e5):
        fit = subspace_em(
            lambda j: Psi[:, j], Psi.shape[1], t, update="em", threshold=L
        )
        assert np.min(np.diff(fit.history)) >= -200.0 / L
    batch = batch_em(Psi, t, update="em", threshold=1e12, max_iter=200)
    assert np.min(np.diff(batch.history)) > -1e-9


@pytest.mark.parametrize("seed", range(3))
def test_mackay_subspace_em_is_monotone_here(seed):
    Psi, t = sinc_problem(seed=seed)
    fit = subspace_em(lambda j: Psi[:, j], Psi.shape[1], t)
    assert np.min(np.diff(fit.history)) > -1e-6


def test_batch_and_subspace_em_reach_the_same_stationary_point():
    """A few well-separated basis functions: one evidence maximum, found by both."""
    rng = np.random.default_rng(3)
    Psi = rng.standard_normal((80, 6))
    t = 2.0 * Psi[:, 1] - 1.0 * Psi[:, 4] + 0.3 * rng.standard_normal(80)
    options = dict(tol=1e-12, max_iter=2000)
    ssem = subspace_em(lambda j: Psi[:, j], 6, t, **options)
    batch = batch_em(Psi, t, **options)
    np.testing.assert_array_equal(np.sort(ssem.relevant), np.sort(batch.relevant))
    assert set(ssem.relevant) >= {1, 4}
    order = np.argsort(ssem.relevant), np.argsort(batch.relevant)
    np.testing.assert_allclose(ssem.alpha[order[0]], batch.alpha[order[1]], rtol=1e-4)
    assert ssem.noise == pytest.approx(batch.noise, rel=1e-6)
    assert ssem.history[-1] == pytest.approx(batch.history[-1], rel=1e-9)


def test_laplace_mean_field_is_the_dense_map():
    Psi, t, alpha = classification_problem()
    sigma_in = 0.7
    post, _ = mean_field_e_step(Psi, alpha, t, sigma_in, "laplace")

    def negative_log_posterior(w):
        z = t * (Psi @ w) / sigma_in
        return -np.sum(log_ndtr(z)) + 0.5 * np.sum(alpha * w * w)

    w_map = minimize(negative_log_posterior, np.zeros(7), method="BFGS", tol=1e-12).x
    np.testing.assert_allclose(post.mean, w_map, atol=1e-5)
    lik = Probit(0.0, 1.0 / sigma_in).moments(Psi @ w_map, np.zeros(40), t)
    Sigma = np.linalg.inv(np.diag(alpha) + Psi.T @ (lik.w[:, None] * Psi))
    np.testing.assert_allclose(post.covariance(), Sigma, rtol=1e-4)


def test_tap_mean_field_solves_its_fixed_point_equations_densely():
    """At convergence: Σ = (A + ΨᵀΩΨ)⁻¹, μ = A⁻¹Ψᵀg, and the cavity variances
    V = s/(1 − ωs) with s = diag(ΨΣΨᵀ) give back g and Ω ([QW03] eqs. 16-19)."""
    Psi, t, alpha = classification_problem(seed=1)
    sigma_in = 0.8
    post, sites = ep_e_step(Psi, alpha, t, sigma_in, max_iter=200)
    assert sites.converged
    Sigma = np.linalg.inv(np.diag(alpha) + Psi.T @ np.diag(sites.omega) @ Psi)
    np.testing.assert_allclose(post.covariance(), Sigma, rtol=1e-6)
    np.testing.assert_allclose(post.mean, Psi.T @ sites.g / alpha, rtol=1e-6, atol=1e-9)
    s = np.einsum("ij,jk,ik->i", Psi, Sigma, Psi)
    V = s / (1.0 - sites.omega * s)
    moments = Probit(0.0, 1.0 / sigma_in).moments(Psi @ post.mean - V * sites.g, V, t)
    np.testing.assert_allclose(moments.g, sites.g, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(
        moments.w / (1.0 - V * moments.w), sites.omega, rtol=1e-5, atol=1e-9
    )


def test_active_basis_grows_and_prunes_as_the_dense_design():
    """Columns written into spare room (past its first capacity of 8), pruned by
    moving the kept ones forward: ``Ψ_R``, ``Ψ_RᵀΨ_R`` and ``Ψ_Rᵀt`` as if built
    afresh."""
    rng = np.random.default_rng(7)
    Psi, t = rng.standard_normal((50, 12)), rng.standard_normal(50)
    basis = _ActiveBasis.empty(t)
    for j in range(10):
        basis.add(j, Psi[:, j])
    mask = np.array([1, 0, 1, 1, 0, 0, 1, 1, 0, 1], bool)
    basis.keep(mask)
    basis.add(10, Psi[:, 10])
    basis.keep(np.ones(len(basis.index), bool))  # nothing pruned: nothing moves
    index = [*np.flatnonzero(mask), 10]
    assert basis.index == index
    np.testing.assert_array_equal(basis.Psi, Psi[:, index])
    np.testing.assert_allclose(basis.gram, Psi[:, index].T @ Psi[:, index], rtol=1e-12)
    np.testing.assert_allclose(basis.psi_t, Psi[:, index].T @ t, rtol=1e-12)


def test_e_step_blocks_are_two_for_a_few_thousand_points_and_bounded_above():
    from sparsegp.approximations.rvm_ssem import E_STEP_BLOCK_ROWS, e_step_row_ranges

    assert len(e_step_row_ranges(1024)) == 1
    for n in (2048, 7291, 2 * E_STEP_BLOCK_ROWS):
        assert len(e_step_row_ranges(n)) == 2
    for n in (2 * E_STEP_BLOCK_ROWS + 1, 50_000, 10**6):
        ranges = e_step_row_ranges(n)
        assert ranges[0][0] == 0 and ranges[-1][1] == n
        assert max(b - a for a, b in ranges) <= E_STEP_BLOCK_ROWS


def test_tap_e_step_over_row_blocks_is_the_one_block_e_step(monkeypatch):
    """The E-step's row blocks (on threads or not) change the sums' order only."""
    from concurrent.futures import ThreadPoolExecutor

    from sparsegp.approximations import rvm_ssem

    Psi, t, alpha = classification_problem(n=200, seed=3)
    one_block, one_sites = ep_e_step(Psi, alpha, t, 1.0, max_iter=200, tol=1e-12)
    monkeypatch.setattr(rvm_ssem, "E_STEP_BLOCK_ROWS", 30)  # 8 blocks of 25 rows
    blocks, sites = ep_e_step(Psi, alpha, t, 1.0, max_iter=200, tol=1e-12)
    with ThreadPoolExecutor(3) as pool:
        threads, thread_sites = ep_e_step(
            Psi, alpha, t, 1.0, max_iter=200, tol=1e-12, pool=pool
        )
    np.testing.assert_array_equal(threads.mean, blocks.mean)
    np.testing.assert_array_equal(thread_sites.omega, sites.omega)
    np.testing.assert_allclose(blocks.mean, one_block.mean, rtol=1e-10)
    np.testing.assert_allclose(blocks.covariance(), one_block.covariance(), rtol=1e-10)
    np.testing.assert_allclose(sites.g, one_sites.g, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sites.omega, one_sites.omega, rtol=1e-9, atol=1e-12)


def test_naive_mean_field_differs_from_tap_but_classifies_alike():
    Psi, t, alpha = classification_problem(seed=2)
    tap, _ = ep_e_step(Psi, alpha, t, 1.0)
    naive, _ = mean_field_e_step(Psi, alpha, t, 1.0, "naive")
    assert not np.allclose(tap.mean, naive.mean)
    np.testing.assert_array_equal(np.sign(Psi @ tap.mean), np.sign(Psi @ naive.mean))


@pytest.mark.parametrize("variance", [0.5, 30.0, 1e4])
def test_cavity_g_solves_its_implicit_equation(variance):
    rng = np.random.default_rng(5)
    y_mean, t = 20 * rng.standard_normal(50), np.sign(rng.standard_normal(50))
    V = np.full(50, variance)
    likelihood = Probit()
    g = _cavity_consistent_g(likelihood, y_mean, V, t, np.zeros(50), tol=1e-12).g
    at_cavity = likelihood.moments(y_mean - V * g, V, t).g
    # floating point limits the residual to about 1e-12 / (1 − V w), 1e-8 at V = 1e4
    np.testing.assert_allclose(g, at_cavity, rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("variant", ["tap", "laplace"])
def test_subspace_em_e_steps_reach_the_cold_started_fixed_point(variant):
    """Warm starts inside SSEM must not stall away from the E-step's fixed point.

    On banana, 30 warm-started Newton steps from ``Ω = 0`` (cavities at the prior
    variance) once halved the step to 1/64 and returned weights with 22 % training
    error where the fixed point has 9 %.
    """
    X, y, _, _ = load_banana()
    Psi = np.column_stack([np.ones(len(X)), RBF(np.sqrt(2))(X)])
    t = y.astype(float)
    fit = subspace_em(
        lambda j: Psi[:, j], Psi.shape[1], t, classification=True, mean_field=variant
    )
    active = Psi[:, fit.relevant]
    if variant == "tap":
        cold, sites = ep_e_step(active, fit.alpha, t, 1.0, max_iter=500)
    else:
        cold, sites = mean_field_e_step(
            active, fit.alpha, t, 1.0, variant, max_iter=500
        )
    assert sites.converged
    np.testing.assert_allclose(
        active @ fit.posterior.mean,
        active @ cold.mean,
        atol=1e-5 * np.abs(active @ cold.mean).max(),
    )


def test_tap_e_step_settles_where_undamped_cavities_alternate():
    """Well-separated blobs: with Ω undamped, adaptive TAP's cavity variances and site
    precisions can alternate between two states for good, and the final E-step of this
    fit does not settle."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((100, 2)) + np.repeat([[0, 0], [4, 0]], 50, axis=0)
    t = np.repeat([1.0, -1.0], 50)
    Psi = np.column_stack([np.ones(100), RBF(1.0)(X, X[::3])])
    with warnings.catch_warnings():
        warnings.filterwarnings("error", "The final mean-field", ConvergenceWarning)
        fit = subspace_em(lambda j: Psi[:, j], Psi.shape[1], t, classification=True)
    active = Psi[:, fit.relevant]
    assert np.mean(np.sign(active @ fit.posterior.mean) != t) < 0.05


def test_classification_subspace_em_prunes_to_the_informative_basis():
    rng = np.random.default_rng(4)
    Psi = rng.standard_normal((200, 8))
    t = np.where(3 * Psi[:, 2] - 2 * Psi[:, 5] > 0, 1.0, -1.0)
    fit = subspace_em(lambda j: Psi[:, j], 8, t, classification=True)
    assert {2, 5} <= set(fit.relevant) and len(fit.relevant) <= 5


def test_noise_updates_are_the_em_step_and_mackay_fixed_point():
    rng = np.random.default_rng(5)
    Psi, t = rng.standard_normal((30, 5)), rng.standard_normal(30)
    alpha, noise = rng.uniform(0.5, 2.0, 5), 0.4
    post = regression_e_step(Psi.T @ Psi, Psi.T @ t, t @ t, 30, alpha, noise)
    expected_sq_error = post.residual + np.trace(Psi @ post.covariance() @ Psi.T)
    assert update_noise(post, alpha, noise, 30, "em") == pytest.approx(
        expected_sq_error / 30, rel=1e-10
    )
    gamma = 1 - alpha * post.sigma_diag
    assert update_noise(post, alpha, noise, 30, "mackay") == pytest.approx(
        post.residual / (30 - gamma.sum()), rel=1e-10
    )


def test_converged_mackay_is_a_stationary_point_of_the_evidence():
    Psi, t = sinc_problem(n=40, seed=6)
    fit = batch_em(Psi, t, tol=1e-14, max_iter=5000)
    P = Psi[:, fit.relevant]

    def evidence(log_alpha, log_noise):
        a, s2 = np.exp(log_alpha), np.exp(log_noise)
        return regression_e_step(P.T @ P, P.T @ t, t @ t, 40, a, s2).log_evidence

    x, eps = np.log(fit.alpha), 1e-5
    for j in range(len(x)):
        e = eps * np.eye(len(x))[j]
        slope = evidence(x + e, np.log(fit.noise)) - evidence(x - e, np.log(fit.noise))
        assert abs(slope / (2 * eps)) < 1e-3
    up = evidence(x, np.log(fit.noise) + eps) - evidence(x, np.log(fit.noise) - eps)
    assert abs(up / (2 * eps)) < 1e-3


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_noise_held_during_the_sweep_is_learnt_afterwards():
    """``learn_noise="after_sweep"``: σ² stays at its initial value while basis
    functions are added and is learnt by the final batch EM, at a stationary point."""
    Psi, t = sinc_problem(seed=7)
    swept = subspace_em(
        lambda j: Psi[:, j],
        Psi.shape[1],
        t,
        noise=0.05,
        learn_noise="after_sweep",
        max_iter=0,
    )
    assert swept.noise == 0.05
    fit = subspace_em(
        lambda j: Psi[:, j],
        Psi.shape[1],
        t,
        noise=0.05,
        learn_noise="after_sweep",
        tol=1e-14,
        max_iter=5000,
    )
    assert fit.noise != 0.05
    P = Psi[:, fit.relevant]
    post = regression_e_step(P.T @ P, P.T @ t, t @ t, len(t), fit.alpha, fit.noise)
    gamma = 1 - fit.alpha * post.sigma_diag
    assert fit.noise == pytest.approx(post.residual / (len(t) - gamma.sum()), rel=1e-6)


def test_em_stopped_by_max_iter_warns():
    Psi, t = sinc_problem(seed=2)
    with pytest.warns(ConvergenceWarning, match="did not converge in 2 iterations"):
        batch_em(Psi, t, max_iter=2)


def _trainer_on(Psi, t, columns, alpha, noise):
    """A regression trainer whose active set is ``columns`` of ``Psi`` at ``alpha``."""
    trainer = _trainer(t, {"noise": noise})
    basis = _ActiveBasis.empty(trainer.t)
    for j in columns:
        basis.add(j, Psi[:, j])
    posterior = regression_e_step(
        basis.gram, basis.psi_t, trainer.t_t, len(t), alpha, noise
    )
    trainer.mean = posterior.mean
    return trainer, basis


def test_entering_alpha_maximises_the_evidence_with_the_others_fixed():
    """Tipping & Faul's s²/(q² − s) against the dense evidence as a function of α_j."""
    Psi, t = sinc_problem()
    columns, alpha, noise = [0, 5, 20, 40], np.array([0.5, 2.0, 1.0, 3.0]), 0.02
    trainer, basis = _trainer_on(Psi, t, columns, alpha, noise)

    def evidence(j, a):
        cols = columns + [j]
        P = Psi[:, cols]
        C = noise * np.eye(len(t)) + P @ np.diag(1 / np.append(alpha, a)) @ P.T
        return multivariate_normal(np.zeros(len(t)), C).logpdf(t)

    entering = {
        j: trainer.entering_alpha(basis, alpha, Psi[:, j]) for j in range(1, 61)
    }
    useful = [j for j, a in entering.items() if a < trainer.threshold]
    assert 0 < len(useful) < 60
    for j in useful[:5]:
        best = entering[j]
        grid = best * np.array([0.5, 0.9, 1.1, 2.0])
        assert all(evidence(j, best) > evidence(j, a) for a in grid)
        result = minimize(
            lambda u, j=j: -evidence(j, np.exp(u[0])), [np.log(best) + 1.0]
        )
        assert np.exp(result.x[0]) == pytest.approx(best, rel=1e-3)
    useless = [j for j, a in entering.items() if a >= trainer.threshold]
    for j in useless[:3]:  # the evidence rises towards α = ∞: it is better left out
        assert evidence(j, 1e3) > evidence(j, 1.0) > evidence(j, 1e-2)


@pytest.mark.parametrize("mean_field", ["tap", "laplace"])
def test_newcomers_data_precision_is_the_product_at_the_e_steps_sites(mean_field):
    """``Ψ_RᵀΩΨ_R`` read off the E-step's factor, with α over eight decades and after
    the M-step's pruning, against the O(n·r²) product at the E-step's sites."""
    Psi, t, _ = classification_problem(n=60, r=8)
    trainer = _trainer(t, {"classification": True, "mean_field": mean_field})
    basis = _ActiveBasis.empty(trainer.t)
    for j in range(8):
        basis.add(j, Psi[:, j])
    alpha = np.logspace(-2, 6, 8)
    trainer.mean = np.zeros(8)
    for _ in range(3):
        alpha, _ = trainer.em_step(basis, alpha)
        omega = trainer.sites.omega
        direct = basis.Psi.T @ (omega[:, None] * basis.Psi)
        np.testing.assert_allclose(trainer._data_precision(), direct, atol=1e-9)


def test_evidence_keeps_is_tipping_and_fauls_test_on_the_dense_evidence():
    """``μ_j² > γ_j Σ_jj`` against ``q_j² > s_j`` from ``C_{−j}``, and the evidence."""
    Psi, t = sinc_problem()
    columns = [0, 3, 9, 20, 31, 40, 52]
    alpha, noise = np.array([0.5, 2.0, 1.0, 3.0, 40.0, 0.2, 8.0]), 0.02
    P = Psi[:, columns]
    posterior = regression_e_step(P.T @ P, P.T @ t, t @ t, len(t), alpha, noise)

    def covariance(precisions):
        return noise * np.eye(len(t)) + P @ np.diag(1 / precisions) @ P.T

    dense = []
    for j in range(len(columns)):
        others = np.delete(np.arange(len(columns)), j)
        C_minus = (
            noise * np.eye(len(t))
            + P[:, others] @ np.diag(1 / alpha[others]) @ P[:, others].T
        )
        s, q = (
            P[:, j] @ np.linalg.solve(C_minus, P[:, j]),
            P[:, j] @ np.linalg.solve(C_minus, t),
        )
        dense.append(q * q > s)
        # the evidence is higher at α_j = ∞ than at s²/(q² − s) if q² ≤ s, else lower
        finite, far = alpha.copy(), alpha.copy()
        finite[j], far[j] = (s * s / (q * q - s) if q * q > s else alpha[j]), 1e8
        evidence = [
            multivariate_normal(np.zeros(len(t)), covariance(a)).logpdf(t)
            for a in (finite, far)
        ]
        assert (evidence[0] > evidence[1]) == dense[-1]
    assert 0 < sum(dense) < len(columns)
    np.testing.assert_array_equal(evidence_keeps(posterior, alpha), dense)


def banana_subspace_em(width_factor, max_iter):
    """Subspace EM classification on banana (Tipping & Faul's newcomers, every
    training input a centre, an RBF of ``width_factor`` × the data's scale): the fit
    and its test error."""
    X, y, X_test, y_test = load_banana()
    kernel = RBF(width_factor * np.sqrt(X.var(axis=0).sum()))
    Psi = np.column_stack([np.ones(len(X)), kernel(X)])
    fit = subspace_em(
        lambda j: Psi[:, j],
        Psi.shape[1],
        np.where(y > 0, 1.0, -1.0),
        classification=True,
        entering="tipping_faul",
        tol=1e-3,
        max_iter=max_iter,
    )
    test_psi = np.column_stack([np.ones(len(X_test)), kernel(X_test, X)])
    latent = test_psi[:, fit.relevant] @ fit.posterior.mean
    return fit, np.mean(np.sign(latent) != np.sign(y_test))


@pytest.mark.parametrize("width_factor", [0.3, 0.5, 1.0])
def test_classification_em_deletes_what_the_evidence_drops_and_converges(width_factor):
    """MacKay's α of a weight the evidence drops climbs to ``L`` a few % per step: at
    0.3× and 1× the final EM hit ``max_iter`` on such a weight (α ≈ 10⁸-10¹⁰). Deleted
    at ``q_j² ≤ s_j`` ([TF03]) it converges, and classifies as well. At 0.5× a weight
    at a finite α that MacKay approaches slowly reached the cap until the final EM
    extrapolated its steps (:func:`extrapolated_log_alpha`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        fit, error = banana_subspace_em(width_factor, max_iter=200)
    assert fit.converged
    assert error < 0.14


def test_tipping_faul_subspace_em_reaches_the_batch_evidence():
    """On the sinc problem the evidence-maximising newcomers reach batch EM's
    evidence, as [QW03]'s newcomers at α = L do here (their gap shows on nearly
    noise-free series: BENCHMARKS.md, Mackey-Glass)."""
    Psi, t = sinc_problem(n=80, seed=3)
    options = dict(noise=0.01, tol=1e-8, max_iter=2000)
    batch = batch_em(Psi, t, **options)
    faul = subspace_em(
        lambda j: Psi[:, j], Psi.shape[1], t, entering="tipping_faul", **options
    )
    assert faul.posterior.log_evidence >= batch.posterior.log_evidence - 0.5
    assert len(faul.relevant) < Psi.shape[1] / 4


def test_the_mean_field_newton_steps_refuse_tap():
    Psi, t, alpha = classification_problem()
    with pytest.raises(ValueError, match="ep_e_step"):
        mean_field_e_step(Psi, alpha, t, 1.0, "tap")


def test_a_warm_ep_e_step_reaches_the_cold_fixed_point():
    Psi, t, alpha = classification_problem(seed=3)
    first, sites = ep_e_step(Psi[:, :-1], alpha[:-1], t, 1.0, max_iter=500)
    cold, cold_sites = ep_e_step(Psi, alpha, t, 1.0, max_iter=500)
    warm, warm_sites = ep_e_step(Psi, alpha, t, 1.0, sites=sites, max_iter=500)
    assert cold_sites.converged and warm_sites.converged
    np.testing.assert_allclose(Psi @ warm.mean, Psi @ cold.mean, atol=1e-6)
    np.testing.assert_allclose(warm.sigma_diag, cold.sigma_diag, rtol=1e-6)


@pytest.mark.parametrize("ratio", [0.995, 0.6, -0.5])
def test_aitken_jump_lands_on_the_limit_of_a_linear_iteration(ratio):
    """Steps shrinking by a common ratio, monotone or alternating: the jump lands on
    the iteration's limit (up to its cap)."""
    limit = np.array([-1.0, 0.5, 3.0])
    x0 = limit + np.array([0.5, -1.0, -5.0])
    x1 = limit + ratio * (x0 - limit)
    x2 = limit + ratio * (x1 - limit)
    jump = extrapolated_log_alpha(x2 - x1, x1 - x0, tol=1e-3)
    expected = np.clip(limit - x2, -np.log(10), np.log(10))
    np.testing.assert_allclose(jump, expected, atol=1e-12)
    assert np.any(np.abs(limit - x2) > np.log(10)) == (ratio == 0.995)


def test_aitken_jump_leaves_settled_and_growing_steps_and_falling_weights():
    """No jump for a step below ``tol``, a step larger than the last (not converging
    linearly) or a step after none; and none at all while every α falls (on
    separable classes every α falls to its floor as the weights grow together)."""
    last = np.array([1e-4, 0.1, 0.0, 0.2])
    step = np.array([5e-5, 0.2, 0.1, -0.3])
    np.testing.assert_array_equal(extrapolated_log_alpha(step, last, 1e-3), 0.0)
    last, step = np.array([-0.2, -0.4]), np.array([-0.1, -0.2])
    np.testing.assert_array_equal(extrapolated_log_alpha(step, last, 1e-3), 0.0)
    assert np.all(extrapolated_log_alpha(-step, -last, 1e-3) > 0)


def test_final_em_at_the_sites_ends_at_a_fixed_point_in_few_e_steps(monkeypatch):
    """On banana at a narrow width, where one MacKay step per E-step approaches a
    weight's α slowly (hundreds of final-EM E-steps), M-steps at each E-step's sites
    stop after a few E-steps at a fixed point of MacKay's update: one more update
    moves no ``log α`` by more than ``tol``, the evidence keeps every weight
    ([TF03]), and the model classifies as well."""
    at_sites, error = banana_subspace_em(0.5, max_iter=2000)
    with monkeypatch.context() as patch:
        patch.setattr(rvm_ssem, "_FINAL_M_STEPS", 1)
        plain, plain_error = banana_subspace_em(0.5, max_iter=2000)
    assert at_sites.converged and plain.converged
    assert at_sites.n_iterations + 300 < plain.n_iterations
    posterior, alpha = at_sites.posterior, at_sites.alpha
    moved = np.log(update_alpha(posterior, alpha, "mackay", 1e12) / alpha)
    assert np.max(np.abs(moved)) < 1e-3
    assert np.all(evidence_keeps(posterior, alpha))
    assert error < plain_error + 0.01


def test_a_final_em_swinging_at_the_sites_goes_on_one_m_step_per_e_step(monkeypatch):
    """Where the M-steps at each E-step's sites swing α back and forth (forced here:
    every other E-step's α ten times what they found), the final EM, after more than
    ``_STALLED_E_STEPS`` E-steps in a row whose largest change is no smaller than an
    earlier one's, makes one M-step per E-step and converges; kept swinging it stops
    at ``max_iter``."""
    real = rvm_ssem._Trainer.em_steps_at_sites
    calls = []

    def swinging(self, basis, alpha, *, tol):
        calls.append(None)
        return real(self, basis, alpha, tol=tol) * (10.0 if len(calls) % 2 else 1.0)

    monkeypatch.setattr(rvm_ssem._Trainer, "em_steps_at_sites", swinging)
    fit, _ = banana_subspace_em(1.0, max_iter=300)
    assert fit.converged
    assert rvm_ssem._STALLED_E_STEPS < len(calls) < 100
    monkeypatch.setattr(rvm_ssem, "_STALLED_E_STEPS", 10**6)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        fit, _ = banana_subspace_em(1.0, max_iter=300)
    assert not fit.converged


def dense_weight_posterior(Psi, alpha, sites):
    """``N(μ, Σ)`` of the weights at fixed sites, from the dense products:
    ``Σ = (A + ΨᵀΩΨ)⁻¹``, ``μ = Σ Ψᵀν̃``."""
    covariance = np.linalg.inv(np.diag(alpha) + Psi.T @ (sites.omega[:, None] * Psi))
    return covariance @ (Psi.T @ sites.nu), np.diag(covariance)


M_STEP_OPTIONS = dict(update="mackay", threshold=1e12, delete_unsupported=False)


def test_m_steps_at_the_sites_are_mackays_on_the_dense_posterior():
    """Two M-steps at an E-step's sites, the second at the posterior rebuilt from its
    factor, are MacKay's updates on the dense ``A + ΨᵀΩΨ`` and ``Ψᵀν̃``; run until α
    settles (no weight leaving here), the result is a fixed point of MacKay's update
    on that posterior."""
    Psi, t, alpha = classification_problem(n=60, r=6, seed=0)
    posterior, sites = ep_e_step(Psi, alpha, t, 1.0, max_iter=500)
    two, kept, _ = rvm_ssem.m_steps_at_sites(
        posterior, alpha, tol=0.0, max_steps=2, **M_STEP_OPTIONS
    )
    assert len(kept) == len(alpha)
    expected = alpha
    for _ in range(2):
        mean, variance = dense_weight_posterior(Psi, expected, sites)
        expected = (1 - expected * variance) / mean**2
    np.testing.assert_allclose(two, expected, rtol=1e-8)
    settled, kept, _ = rvm_ssem.m_steps_at_sites(
        posterior, alpha, tol=1e-10, max_steps=5000, **M_STEP_OPTIONS
    )
    assert len(kept) == len(alpha) and np.all(settled < 1e3)
    mean, variance = dense_weight_posterior(Psi, settled, sites)
    np.testing.assert_allclose(settled, (1 - settled * variance) / mean**2, rtol=1e-8)


def test_a_weight_leaving_at_held_sites_waits_for_the_next_e_step():
    """A weight whose α would reach ``L`` at held sites keeps its α there while the
    others settle; the first M-step at the next E-step's sites prunes it."""
    Psi, t, alpha = classification_problem(n=60, r=6, seed=2)
    posterior, sites = ep_e_step(Psi, alpha, t, 1.0, max_iter=500)
    settled, kept, _ = rvm_ssem.m_steps_at_sites(
        posterior, alpha, tol=1e-10, max_steps=5000, **M_STEP_OPTIONS
    )
    assert len(kept) == len(alpha)
    fresh, _ = ep_e_step(Psi, settled, t, 1.0, sites=sites, max_iter=500)
    _, kept, _ = rvm_ssem.m_steps_at_sites(
        fresh, settled, tol=1e-10, max_steps=5000, **M_STEP_OPTIONS
    )
    assert len(kept) == len(alpha) - 1
    waiting = np.setdiff1d(np.arange(len(alpha)), kept)
    others = np.delete(np.arange(len(alpha)), waiting)
    mean, variance = dense_weight_posterior(Psi, settled, sites)
    moved = (1 - settled * variance) / mean**2 / settled
    assert moved[waiting] > 1.1  # it would have moved on towards L
    np.testing.assert_allclose(moved[others], 1.0, rtol=1e-8)  # the others settled


def test_update_alpha_stays_within_its_floor_and_the_pruning_threshold():
    """A weight whose mean is all but zero gets ``α = L`` (pruned), not an overflow; one
    whose evidence wants ``α → 0`` gets the floor."""
    posterior = rvm_ssem.Posterior(
        np.array([1e-160, 1e6, 0.5]), np.eye(3), np.array([1e-13, 1e-3, 0.1])
    )
    alpha = np.array([1e12, 1e-9, 2.0])
    new = update_alpha(posterior, alpha, "mackay", threshold=1e12)
    assert new[0] == 1e12 and new[1] == rvm_ssem._MIN_ALPHA
    assert new[2] == pytest.approx((1 - 2.0 * 0.1) / 0.25)


def test_a_jump_of_alpha_stays_within_the_same_bounds():
    """Aitken's jump (here one unit of ``log α`` each way) lands on ``L`` and on the
    floor rather than past them, as :func:`update_alpha`'s steps do."""
    alpha = np.array([9e11, 2e-6])
    jumped, paired = rvm_ssem._extrapolated(
        alpha, np.array([1.0, -1.0]), np.array([2.0, -2.0]), 1e-3, threshold=1e12
    )
    assert paired is None
    assert jumped[0] == 1e12 and jumped[1] == rvm_ssem._MIN_ALPHA


@pytest.mark.parametrize("n, expected", [(400, 1), (5000, 1), (5001, 2), (50_000, 10)])
def test_the_sweep_offers_one_per_e_step_up_to_its_rows(n, expected):
    assert rvm_ssem.sweep_offers(n) == expected


def test_offering_several_per_e_step_reaches_one_at_a_times_classifier():
    """Banana's 400 points, the RVM classifier's entering rule: offering the
    dictionary eight at a time (each judged against the same state) makes an eighth
    of the sweep's steps, fewer E-steps in all, and ends at the same decision
    function, with about as many relevance vectors."""
    X, y, X_test, _ = load_banana()
    t = y.astype(float)
    Psi, Psi_test = (
        np.column_stack([np.ones(len(A)), RBF(0.5)(A, X)]) for A in (X, X_test)
    )
    options = dict(classification=True, entering="tipping_faul")
    fits, steps = [], []
    for k in (1, 8):
        offered = []
        fits.append(
            subspace_em(
                lambda j: Psi[:, j],
                Psi.shape[1],
                t,
                offers_per_step=k,
                callback=lambda step, size, offered=offered: offered.append(step),
                **options,
            )
        )
        steps.append(offered)
    assert [len(s) for s in steps] == [401, 51]
    assert steps[1][-1] == 401  # every basis function offered
    assert len(fits[1].history) < 0.6 * len(fits[0].history)  # one per E-step
    latents = [Psi_test[:, fit.relevant] @ fit.posterior.mean for fit in fits]
    assert np.mean(np.sign(latents[0]) == np.sign(latents[1])) > 0.98
    sizes = [len(fit.relevant) for fit in fits]
    assert abs(sizes[1] - sizes[0]) <= 0.3 * sizes[0]
