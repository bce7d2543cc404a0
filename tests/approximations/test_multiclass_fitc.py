"""Multi-class EP on one FITC prior against a dense multi-class EP written here,
its evidence gradient against finite differences, and its threads."""

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from sparsegp.approximations import multiclass_fitc
from sparsegp.approximations.blocks import thread_pool
from sparsegp.approximations.ep import WarmStart, WarmStartedEP, run_ep
from sparsegp.approximations.multiclass_fitc import (
    LATENT_NOISE,
    InMemoryMultiClassFITC,
    StepCavities,
    StepSites,
    fit_variance_scale,
    multiclass_fitc_predictor,
)
from sparsegp.kernels import KernelPerClass
from sparsegp.likelihoods import MultinomialProbit
from sparsegp.testing import assert_gradient_matches

OPTIONS = dict(mode="parallel", damping=0.8, tol=1e-10, max_sweeps=500)


def three_blobs(n=36, seed=0):
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % 3
    centres = np.array([[0.0, 0.0], [1.5, 0.5], [0.3, 1.6]])
    return centres[labels] + 0.7 * rng.normal(size=(n, 2)), labels


def dense_multiclass_ep(K, labels, bias, n_classes, sweeps=400, damping=0.5):
    """Multi-class EP with explicit covariance matrices: each step's two cavities
    from the current marginals, its tilted marginals matched by the probit formulas,
    sites damped; returns the marginals and the EP log evidence."""
    n = len(K)
    prior = K + LATENT_NOISE * np.eye(n)
    tl, nl, to, no = (np.zeros((n, n_classes)) for _ in range(4))
    steps = labels[:, None] != np.arange(n_classes)
    rows = np.arange(n)

    def posterior():
        T = to + (~steps) * tl.sum(1, keepdims=True)
        N = no + (~steps) * nl.sum(1, keepdims=True)
        covs = [
            np.linalg.inv(np.linalg.inv(prior) + np.diag(T[:, c]))
            for c in range(n_classes)
        ]
        means = np.column_stack([covs[c] @ N[:, c] for c in range(n_classes)])
        variances = np.column_stack([np.diag(S) for S in covs])
        return T, N, covs, means, variances

    def cavities(means, variances):
        vy, my = variances[rows, labels][:, None], means[rows, labels][:, None]
        return (
            (1 / vy - tl, my / vy - nl),
            (1 / variances - to, means / variances - no),
        )

    for _ in range(sweeps):
        _, _, _, means, variances = posterior()
        (tcy, ncy), (tco, nco) = cavities(means, variances)
        my, vy, mo, vo = ncy / tcy, 1 / tcy, nco / tco, 1 / tco
        s = np.sqrt(vy + vo)
        z = (my - mo + bias[labels][:, None] - bias) / s
        ratio = norm.pdf(z) / norm.cdf(z)
        # tilted marginals of the step Θ(f_y − f_k)
        new = []
        for m, v, sign in ((my, vy, 1.0), (mo, vo, -1.0)):
            mean_t = m + sign * v * ratio / s
            var_t = v - v**2 * ratio * (z + ratio) / s**2
            tau = 1 / var_t - 1 / v
            new += [tau, mean_t / var_t - m / v]
        for old, value in zip((tl, nl, to, no), new, strict=True):
            old += damping * (np.where(steps, value, 0.0) - old)
    T, N, covs, means, variances = posterior()
    (tcy, ncy), (tco, nco) = cavities(means, variances)
    z = (ncy / tcy - nco / tco + bias[labels][:, None] - bias) / np.sqrt(
        1 / tcy + 1 / tco
    )
    log_z = 0.0
    for c in range(n_classes):  # log ∫ N(f | 0, K) exp(−½ fᵀTf + Nᵀf) df
        sign, logdet = np.linalg.slogdet(np.eye(n) + prior @ np.diag(T[:, c]))
        log_z += -0.5 * logdet + 0.5 * N[:, c] @ covs[c] @ N[:, c]
    for tau, nu, tc, nc in ((tl, nl, tcy, ncy), (to, no, tco, nco)):
        # minus log ∫ N(f | cavity) exp(−½ τ f² + ν f) df
        term = (
            0.5 * np.log1p(tau / tc)
            + 0.5 * nc**2 / tc
            - 0.5 * (nu + nc) ** 2 / (tau + tc)
        )
        log_z += np.sum(np.where(steps, term, 0.0))
    log_z += np.sum(np.where(steps, norm.logcdf(z), 0.0))
    return means, variances, log_z


def fitted_state(
    X, labels, kernel, Z, bias, n_threads=1, jitter=1e-8, per_class_priors=False
):
    with thread_pool(n_threads) as pool:
        data = InMemoryMultiClassFITC(
            X, labels, 3, jitter, True, pool, n_threads, per_class_priors
        )
        posterior = data.posterior(kernel, Z, None)
        state = run_ep(posterior, None, MultinomialProbit(bias), **OPTIONS)
        gradient = data.gradient(state, MultinomialProbit(bias))
    return data, state, gradient


def test_inducing_inputs_at_the_data_give_the_dense_multiclass_ep():
    X, labels = three_blobs()
    kernel = ConstantKernel(2.0) * RBF(0.8)
    bias = np.array([0.2, -0.1, 0.0])
    _, state, _ = fitted_state(X, labels, kernel, X, bias, jitter=1e-10)
    means, variances, log_z = dense_multiclass_ep(kernel(X), labels, bias, 3)
    assert state.converged
    np.testing.assert_allclose(state.mean, means, atol=1e-6)
    np.testing.assert_allclose(state.var, variances, atol=1e-6)
    assert state.log_evidence == pytest.approx(log_z, abs=1e-6)


def test_threads_give_the_same_posterior_and_gradient():
    X, labels = three_blobs(seed=1)
    kernel, Z, bias = ConstantKernel(1.5) * RBF(1.0), X[:7], np.zeros(3)
    _, one, grad_one = fitted_state(X, labels, kernel, Z, bias, n_threads=1)
    _, two, grad_two = fitted_state(X, labels, kernel, Z, bias, n_threads=2)
    np.testing.assert_array_equal(one.mean, two.mean)
    assert one.log_evidence == two.log_evidence
    for a, b in zip(grad_one, grad_two, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_evidence_gradient_matches_finite_differences():
    X, labels = three_blobs(seed=2)
    kernel, Z0 = ConstantKernel(1.5) * RBF([0.9, 1.2]), X[::6].copy()
    n_theta, n_z = len(kernel.theta), Z0.size

    def evidence(x):
        k = kernel.clone_with_theta(x[:n_theta])
        bias = x[n_theta : n_theta + 3]
        Z = x[n_theta + 3 :].reshape(Z0.shape)
        _, state, (g_theta, g_bias, g_Z) = fitted_state(X, labels, k, Z, bias)
        return state.log_evidence, np.concatenate([g_theta, g_bias, g_Z.ravel()])

    x0 = np.concatenate([kernel.theta, [0.3, -0.2, 0.1], Z0.ravel()])
    assert len(x0) == n_theta + 3 + n_z
    assert_gradient_matches(
        lambda x: evidence(x)[0], evidence(x0)[1], x0, rtol=1e-4, atol=1e-6
    )


def per_class_kernel(kernel):
    return KernelPerClass([kernel.clone_with_theta(kernel.theta) for _ in range(3)])


def test_a_prior_per_class_that_repeats_one_prior_is_the_shared_model():
    """Each class's own kernel and pseudo-inputs, all equal: the shared model's
    posterior and evidence; its gradient in each class's θ and X̄ sums to the
    shared one's."""
    X, labels = three_blobs(seed=6)
    kernel, Z, bias = ConstantKernel(1.5) * RBF([0.9, 1.2]), X[:6], np.zeros(3)
    _, shared, (g_theta, g_bias, g_Z) = fitted_state(X, labels, kernel, Z, bias)
    _, own, (c_theta, c_bias, c_Z) = fitted_state(
        X,
        labels,
        per_class_kernel(kernel),
        np.vstack([Z] * 3),
        bias,
        per_class_priors=True,
    )
    np.testing.assert_allclose(own.mean, shared.mean, atol=1e-10)
    assert own.log_evidence == pytest.approx(shared.log_evidence, abs=1e-10)
    np.testing.assert_allclose(c_theta.reshape(3, -1).sum(0), g_theta, atol=1e-8)
    np.testing.assert_allclose(c_Z.reshape(3, *Z.shape).sum(0), g_Z, atol=1e-8)
    np.testing.assert_allclose(c_bias, g_bias, atol=1e-10)
    X_test = np.random.default_rng(1).normal(size=(4, 2))
    one = multiclass_fitc_predictor(shared).latent_mean_and_variance(
        kernel(Z, X_test), kernel.diag(X_test)
    )
    each = multiclass_fitc_predictor(own).latent_mean_and_variance(
        np.vstack([kernel(Z, X_test)] * 3), np.column_stack([kernel.diag(X_test)] * 3)
    )
    for a, b in zip(one, each, strict=True):
        np.testing.assert_allclose(b, a, atol=1e-8)


def test_evidence_gradient_with_a_prior_per_class_matches_finite_differences():
    X, labels = three_blobs(seed=7)
    kernel = KernelPerClass(
        [
            ConstantKernel(a) * RBF([scale, 1.1])
            for a, scale in ((1.5, 0.9), (0.8, 1.3), (2.0, 0.7))
        ]
    )
    Z0 = np.vstack([X[::9], X[1::9] + 0.1, X[2::9] - 0.1])
    n_theta = len(kernel.theta)

    def evidence(x):
        k = kernel.clone_with_theta(x[:n_theta])
        bias = x[n_theta : n_theta + 3]
        Z = x[n_theta + 3 :].reshape(Z0.shape)
        _, state, (g_theta, g_bias, g_Z) = fitted_state(
            X, labels, k, Z, bias, per_class_priors=True
        )
        return state.log_evidence, np.concatenate([g_theta, g_bias, g_Z.ravel()])

    x0 = np.concatenate([kernel.theta, [0.3, -0.2, 0.1], Z0.ravel()])
    assert_gradient_matches(
        lambda x: evidence(x)[0], evidence(x0)[1], x0, rtol=1e-4, atol=1e-6
    )


def test_threads_give_the_same_model_with_a_prior_per_class():
    X, labels = three_blobs(seed=8)
    kernel, Z = per_class_kernel(ConstantKernel(1.5) * RBF(1.0)), X[:9]
    one = fitted_state(X, labels, kernel, Z, np.zeros(3), 1, per_class_priors=True)
    two = fitted_state(X, labels, kernel, Z, np.zeros(3), 2, per_class_priors=True)
    np.testing.assert_array_equal(one[1].mean, two[1].mean)
    for a, b in zip(one[2], two[2], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_a_prior_per_class_needs_a_kernel_per_class_and_equal_sets():
    X, labels = three_blobs()
    data = InMemoryMultiClassFITC(X, labels, 3, 1e-8, True, per_class_priors=True)
    with pytest.raises(ValueError, match="CompoundKernel of 3 kernels"):
        data.posterior(RBF(1.0), X[:6], None)
    with pytest.raises(ValueError, match="3 equal sets"):
        data.posterior(per_class_kernel(RBF(1.0)), X[:7], None)


def test_bias_gradient_sums_to_zero_shifts_do_not_matter():
    X, labels = three_blobs(seed=3)
    kernel, Z = ConstantKernel(1.0) * RBF(1.0), X[:5]
    _, state, (_, g_bias, _) = fitted_state(
        X, labels, kernel, Z, np.array([0.4, 0, -1])
    )
    _, shifted, _ = fitted_state(X, labels, kernel, Z, np.array([1.4, 1, 0]))
    assert np.sum(g_bias) == pytest.approx(0.0, abs=1e-10)
    assert shifted.log_evidence == pytest.approx(state.log_evidence, abs=1e-10)


def test_predictor_with_inducing_inputs_at_the_data_is_the_dense_gp_prediction():
    """``f* | f̃`` is the prior conditional: mean ``k*ᵀ(K + I)⁻¹μ``, variance
    ``k** − k*ᵀ(K + I)⁻¹k* + k*ᵀ(K + I)⁻¹Σ(K + I)⁻¹k*`` per class."""
    X, labels = three_blobs(seed=4)
    X_test = np.random.default_rng(0).normal(size=(5, 2))
    kernel = ConstantKernel(1.0) * RBF(1.0)
    _, state, _ = fitted_state(X, labels, kernel, X, np.zeros(3), jitter=1e-10)
    predictor = multiclass_fitc_predictor(state)
    mean, var = predictor.latent_mean_and_variance(
        kernel(X, X_test), kernel.diag(X_test)
    )
    noisy_prior = kernel(X) + LATENT_NOISE * np.eye(len(X))
    A = np.linalg.solve(noisy_prior, kernel(X, X_test))
    for c, posterior in enumerate(state.posterior.classes):
        Sigma = np.linalg.inv(np.linalg.inv(noisy_prior) + np.diag(posterior.tau))
        np.testing.assert_allclose(mean[:, c], A.T @ state.mean[:, c], atol=1e-6)
        expected = kernel.diag(X_test) - np.sum(A * kernel(X, X_test), 0)
        expected += np.einsum("ij,ik,kj->j", A, Sigma, A)
        np.testing.assert_allclose(var[:, c], expected, atol=1e-6)


@pytest.mark.parametrize("per_class_priors", [False, True])
def test_warm_started_runs_reach_the_cold_fixed_point(per_class_priors):
    """From the sites of another kernel's run (with a prior per class, the classes'
    amplitudes changed by different factors) EP reaches the cold run's fixed point."""
    X, labels = three_blobs(seed=5)
    data = InMemoryMultiClassFITC(X, labels, 3, 1e-8, True, None, 1, per_class_priors)
    first, kernel = ConstantKernel(1.0) * RBF(1.0), ConstantKernel(3.0) * RBF(0.7)
    Z = X[:8]
    if per_class_priors:
        first = per_class_kernel(first)
        kernel = KernelPerClass([ConstantKernel(a) * RBF(0.7) for a in (3.0, 0.5, 1.0)])
        Z = np.vstack([X[:8], X[8:16], X[16:24]])
    likelihood = MultinomialProbit(np.zeros(3))
    ep = WarmStartedEP(None, OPTIONS)
    ep(lambda start: data.posterior(first, Z, start), likelihood)
    warm = ep(lambda start: data.posterior(kernel, Z, start), likelihood, final=True)
    cold = run_ep(data.posterior(kernel, Z, None), None, likelihood, **OPTIONS)
    assert warm.converged and ep.n_cold_restarts == 0
    np.testing.assert_allclose(warm.mean, cold.mean, atol=1e-6)
    assert warm.log_evidence == pytest.approx(cold.log_evidence, abs=1e-6)


def test_a_prior_per_class_carries_each_latents_cavities_by_its_own_scale():
    """``scale_to`` per latent (1 where a variance is not positive); the label's
    cavities widen by the label's class's factor, the others' by their own."""
    start = WarmStart(None, np.array([1.0, 2.0, 0.0]), None, None)
    np.testing.assert_array_equal(
        start.scale_to(np.array([2.0, 1.0, 3.0])), [2, 0.5, 1]
    )
    assert WarmStart(None, 2.0, None, None).scale_to(3.0) == 1.5
    ones = np.ones((2, 3))
    cavities = StepCavities(ones, ones, ones, ones).scaled(
        np.array([4.0, 1.0, 9.0]), np.array([0, 2])
    )
    np.testing.assert_allclose(cavities.tau_label, [[0.25] * 3, [1 / 9] * 3])
    np.testing.assert_allclose(cavities.nu_label, [[0.5] * 3, [1 / 3] * 3])
    np.testing.assert_allclose(cavities.tau_other, [[0.25, 1, 1 / 9]] * 2)
    np.testing.assert_allclose(cavities.nu_other, [[0.5, 1, 1 / 3]] * 2)


def test_step_sites_of_the_label_sum_over_the_other_classes():
    labels = np.array([0, 2])
    label_mask = labels[:, None] == np.arange(3)
    sites = StepSites(
        *(
            np.where(label_mask, 0.0, np.arange(1.0, 7.0).reshape(2, 3) + k)
            for k in range(4)
        )
    )
    tau, _ = sites.class_sites(label_mask)
    assert tau[0, 0] == sites.tau_other[0, 0] + sites.tau_label[0].sum()
    assert tau[1, 0] == sites.tau_other[1, 0]


def sampled_labels(mean, latent_var, rng):
    """Labels drawn from the multinomial probit with latents ``N(mean, latent_var)``."""
    noisy = mean + np.sqrt(latent_var + LATENT_NOISE) * rng.standard_normal(mean.shape)
    return np.argmax(noisy, axis=1)


@pytest.mark.parametrize("true_scale", [0.3, 1.0])
def test_variance_scale_recovers_an_overstated_variance(true_scale):
    """Cavities whose latent variances are ``1/γ₀`` times those the labels were drawn
    with: the fitted ``γ`` is ``γ₀`` (within sampling error); right variances keep 1."""
    rng = np.random.default_rng(0)
    n, C = 4000, 4
    mean, latent_var = 2.0 * rng.standard_normal((n, C)), rng.uniform(1, 6, (n, C))
    labels = sampled_labels(mean, latent_var, rng)
    reported = latent_var / true_scale + LATENT_NOISE
    fitted = fit_variance_scale(MultinomialProbit(np.zeros(C)), mean, reported, labels)
    assert fitted.variance_scale == pytest.approx(true_scale, abs=0.1)
    np.testing.assert_array_equal(fitted.bias, np.zeros(C))


def test_variance_scale_reads_evenly_spaced_points_beyond_its_budget(monkeypatch):
    """Past ``VARIANCE_SCALE_POINTS`` it reads that many points spread over all rows:
    here the first half of the cavities is over-stated, the second not, and a fit on
    the first rows alone would find γ₀."""
    monkeypatch.setattr(multiclass_fitc, "VARIANCE_SCALE_POINTS", 2000)
    rng = np.random.default_rng(1)
    n, C = 8000, 3
    mean, latent_var = 2.0 * rng.standard_normal((n, C)), rng.uniform(1, 6, (n, C))
    labels = sampled_labels(mean, latent_var, rng)
    reported = latent_var + LATENT_NOISE
    reported[: n // 2] = latent_var[: n // 2] / 0.2 + LATENT_NOISE
    first = fit_variance_scale(
        MultinomialProbit(np.zeros(C)), mean[:2000], reported[:2000], labels[:2000]
    )
    spread = fit_variance_scale(MultinomialProbit(np.zeros(C)), mean, reported, labels)
    assert first.variance_scale < 0.3
    assert spread.variance_scale > first.variance_scale + 0.1


def test_variance_scale_skips_points_without_finite_cavities():
    """Rows with an infinite or NaN cavity are left out; with none left, ``γ = 1``."""
    rng = np.random.default_rng(2)
    n, C = 2000, 3
    mean, latent_var = 2.0 * rng.standard_normal((n, C)), rng.uniform(1, 6, (n, C))
    labels = sampled_labels(mean, latent_var, rng)
    reported = latent_var / 0.3 + LATENT_NOISE
    clean = fit_variance_scale(MultinomialProbit(np.zeros(C)), mean, reported, labels)
    reported[::7, 1], mean[::11, 0] = np.inf, np.nan
    kept = fit_variance_scale(MultinomialProbit(np.zeros(C)), mean, reported, labels)
    assert np.isfinite(kept.variance_scale)
    assert kept.variance_scale == pytest.approx(clean.variance_scale, abs=0.05)
    none = fit_variance_scale(
        MultinomialProbit(np.zeros(C)), np.full((n, C), np.nan), reported, labels
    )
    assert none.variance_scale == 1.0
