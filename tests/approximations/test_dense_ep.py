"""Full EP as an evidence approximation: its gradient, its fit through the protocol."""

from dataclasses import replace

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, DotProduct, Matern

from sparsegp.approximations.dense_ep import DenseEP
from sparsegp.approximations.ep import DensePosterior, run_ep
from sparsegp.approximations.evidence import (
    EvidenceSettings,
    amplitude_log_prior,
    maximize_evidence,
)
from sparsegp.testing import assert_gradient_matches

TIGHT = dict(tol=1e-12, max_sweeps=2000)


def problem(n=25):
    rng = np.random.default_rng(4)
    X = rng.standard_normal((n, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize(
    "kernel",
    [
        ConstantKernel(2.0) * RBF([0.9, 1.4]),
        ConstantKernel(2.0) * Matern([0.9, 1.4], nu=1.5),
        ConstantKernel(1.5) * Matern(1.2, nu=2.5) + ConstantKernel(0.3),
        ConstantKernel(1.0) * RBF(1.0) + DotProduct(0.5),  # scikit-learn's gradient
    ],
    ids=["rbf", "matern32", "matern52", "other"],
)
def test_gradient_matches_finite_differences(kernel):
    X, y = problem()
    engine = DenseEP(X, y, differentiable=True)
    bias = 0.2

    def evidence(x):
        likelihood = engine.likelihood(x[-1])
        posterior = engine.posterior(kernel.clone_with_theta(x[:-1]), X, None)
        return run_ep(posterior, y, likelihood, **TIGHT), likelihood

    x = np.append(kernel.theta, bias)
    state, likelihood = evidence(x)
    grad_kernel, grad_bias, grad_inputs = engine.gradient(state, likelihood)
    assert not np.any(grad_inputs)
    assert_gradient_matches(
        lambda x: evidence(x)[0].log_evidence, np.append(grad_kernel, grad_bias), x
    )


def test_without_gradients_the_posterior_is_on_the_kernels_own_matrix():
    X, y = problem()
    kernel = ConstantKernel(2.0) * RBF(0.8)
    posterior = DenseEP(X, y, differentiable=False).posterior(kernel, X, None)
    reference = DensePosterior.starting_from(kernel(X), None)
    np.testing.assert_array_equal(posterior.K, reference.K)


def separable_problem(n):
    """``problem``'s inputs labelled by the sign of their first feature."""
    X, _ = problem(n)
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


def evidence_settings(tol, max_iter):
    """Full EP's evidence maximised in float64, the inputs held."""
    return EvidenceSettings(
        ep_options=dict(tol=tol, max_sweeps=500),
        max_iter=max_iter,
        learn_inducing=False,
        sweep_dtype=np.float64,
    )


def test_maximize_evidence_raises_the_evidence_and_keeps_the_inputs():
    X, y = problem()
    kernel = ConstantKernel(1.0) * Matern(1.0, nu=2.5)
    settings = evidence_settings(1e-8, max_iter=20)
    fixed = maximize_evidence(
        DenseEP(X, y, False),
        kernel,
        X,
        0.0,
        replace(settings, max_iter=None),
    )
    learnt = maximize_evidence(DenseEP(X, y, True), kernel, X, 0.0, settings)
    assert learnt.log_evidence > fixed.log_evidence + 0.1
    np.testing.assert_array_equal(learnt.points, X)
    assert learnt.optimizer_converged and learnt.ep_converged


class _RecordingDenseEP(DenseEP):
    """Records each kernel the optimizer asks a posterior at."""

    def __init__(self, *args):
        super().__init__(*args)
        self.thetas = []

    def posterior(self, kernel, Z, start, store_dtype=np.float64):
        self.thetas.append(kernel.theta.copy())
        return super().posterior(kernel, Z, start, store_dtype)


def test_the_optimizers_first_step_has_unit_length():
    """With the bias unbounded L-BFGS-B's first trial step has length one (log
    amplitude, log length-scale, bias); with every variable bounded it was the whole
    gradient, which took separable labels' kernel to its bounds."""
    X, y = separable_problem(40)
    engine = _RecordingDenseEP(X, y, True)
    kernel = ConstantKernel(1.0) * RBF(1.0)
    maximize_evidence(engine, kernel, X, 0.0, evidence_settings(1e-6, max_iter=3))
    start, first_trial = engine.thetas[0], engine.thetas[1]
    assert 0.0 < np.linalg.norm(first_trial - start) <= 1.0 + 1e-9


def test_the_amplitude_prior_is_a_normal_log_density_in_the_masked_entries():
    mask = np.array([True, False, True])
    theta = np.array([2.0, -1.0, 0.5])
    value, gradient = amplitude_log_prior(theta, mask, 3.0)
    assert value == pytest.approx(-(2.0**2 + 0.5**2) / (2 * 9.0))
    assert gradient[1] == 0.0
    assert_gradient_matches(
        lambda t: amplitude_log_prior(t, mask, 3.0)[0], gradient, theta
    )


def test_on_separable_labels_the_prior_ends_the_amplitudes_climb_at_a_stationary_point():
    X, y = separable_problem(30)  # the evidence grows with σ²
    kernel = ConstantKernel(1.0) * RBF(1.0)
    settings = evidence_settings(1e-8, max_iter=100)
    engine = DenseEP(X, y, True)
    alone = maximize_evidence(engine, kernel, X, 0.0, settings)
    with_prior = maximize_evidence(
        engine, kernel, X, 0.0, replace(settings, amplitude_prior=3.0)
    )
    amplitude = with_prior.kernel.theta[0]
    assert np.exp(alone.kernel.theta[0]) > 10 * np.exp(amplitude)
    state = run_ep(
        engine.posterior(with_prior.kernel, X, None), y, with_prior.likelihood, **TIGHT
    )
    grad_kernel = engine.gradient(state, with_prior.likelihood)[0]
    assert grad_kernel[0] > 0.1  # the evidence alone still climbs here ...
    assert grad_kernel[0] - amplitude / 9.0 == pytest.approx(0.0, abs=1e-3)  # ... not


def test_each_state_is_differentiated_at_its_own_kernel():
    X, y = problem()
    kernel, likelihood = ConstantKernel(2.0) * RBF(0.8), DenseEP.likelihood(0.1)
    engine = DenseEP(X, y, differentiable=True)
    older = run_ep(engine.posterior(kernel, X, None), y, likelihood, **TIGHT)
    run_ep(
        engine.posterior(kernel.clone_with_theta(kernel.theta + 0.5), X, None),
        y,
        likelihood,
    )
    fresh = DenseEP(X, y, differentiable=True)
    alone = run_ep(fresh.posterior(kernel, X, None), y, likelihood, **TIGHT)
    for got, want in zip(
        engine.gradient(older, likelihood),
        fresh.gradient(alone, likelihood),
        strict=True,
    ):
        np.testing.assert_array_equal(got, want)
    without = DenseEP(X, y, differentiable=False)
    state = run_ep(without.posterior(kernel, X, None), y, likelihood)
    with pytest.raises(ValueError, match="differentiable=True"):
        without.gradient(state, likelihood)
