"""NLP-loss selection and hyperparameter gradient against dense references (§2)."""

import copy

import numpy as np
import pytest
from scipy.special import log_ndtr
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern

from sparsegp.approximations.adf_active_set import ADFActiveSet
from sparsegp.approximations.nlp_selection import (
    candidate_losses,
    nlp_loss,
    select_by_nlp,
    validation_loss,
)
from sparsegp.likelihoods import Probit
from sparsegp.testing import assert_gradient_matches

from ..conftest import block_of, small_problem


def grown_state(n=40, d=8, likelihood=None, seed=0, kappa=5, validation_size=None):
    likelihood = likelihood or Probit(0.3, 1.4)
    X, y, kernel = small_problem(n, seed=seed)
    K = kernel(X)
    state = ADFActiveSet(block_of(K), np.diag(K), y, likelihood, d + 1)
    outside = select_by_nlp(
        state,
        d,
        np.random.RandomState(seed),
        working_set_size=kappa,
        validation_size=validation_size,
    )
    return X, y, kernel, K, state, outside


def dense_nlp(K, y, likelihood, p, m, outside):
    """Per-point NLP over ``outside`` from ``A = (K⁻¹ + Π)⁻¹`` and ``h = A Π m``, densely."""
    s = np.sqrt(p)
    B = np.eye(len(y)) + s[:, None] * K * s
    A = K - (K * s) @ np.linalg.solve(B, s[:, None] * K)
    h = A @ (p * m)
    z = likelihood.predictive_z(h, np.diag(A)) * y
    return -log_ndtr(z[outside])


@pytest.mark.parametrize("validation_size", [None, 6, 1])
def test_state_loss_equals_dense_loss(validation_size):
    # The selection keeps only the validation points' columns current: the store's
    # stale columns, completed, give the dense posterior's marginals.
    _, y, _, K, state, outside = grown_state(validation_size=validation_size)
    expected = dense_nlp(K, y, state.likelihood, state.p, state.m, outside)
    loss = nlp_loss(state, outside)
    assert loss.value == pytest.approx(expected.mean(), rel=1e-9)
    standard_error = expected.std(ddof=1) / np.sqrt(len(expected))
    assert loss.standard_error == pytest.approx(standard_error, rel=1e-9)


def test_candidate_loss_equals_loss_after_actual_inclusion():
    """Eq. 2.14 for every candidate = NLP recomputed densely after including it."""
    _, y, _, K, state, outside = grown_state()
    candidates = state.gather(np.flatnonzero(outside))
    predicted = candidate_losses(state, candidates, candidates)
    for j, value in zip(candidates.points, predicted, strict=True):
        trial = copy.deepcopy(state)
        trial.include(j, trial.every_column())
        rest = outside.copy()
        rest[j] = False
        expected = dense_nlp(K, y, trial.likelihood, trial.p, trial.m, rest).mean()
        assert value == pytest.approx(expected, rel=1e-8)
        assert value == pytest.approx(nlp_loss(trial, rest).value, rel=1e-8)


@pytest.mark.parametrize("n_included", [0, 4])
def test_candidate_loss_on_a_validation_sample_averages_over_that_sample(n_included):
    """With ``s`` sampled validation points the loss after including ``j`` averages
    over the sample's points still outside without ``j`` (whether or not ``j`` was
    drawn into it)."""
    _, y, _, K, state, outside = grown_state()
    pool = np.flatnonzero(outside)
    sample = np.random.default_rng(1).choice(pool, size=12, replace=False)
    validation = state.gather(sample)
    live = np.arange(12) >= n_included  # the first ones included since the draw
    others = np.setdiff1d(pool, sample)[:3]
    candidates = state.gather(np.concatenate([validation.points[-3:], others]))
    predicted = candidate_losses(state, candidates, validation, live)
    for j, value in zip(candidates.points, predicted, strict=True):
        trial = copy.deepcopy(state)
        trial.include(j, trial.every_column())
        rest = np.zeros(len(y), dtype=bool)
        rest[validation.points[live]] = True
        rest[j] = False
        expected = dense_nlp(K, y, trial.likelihood, trial.p, trial.m, rest).mean()
        assert value == pytest.approx(expected, rel=1e-8)


def test_selection_is_the_greedy_choice_at_every_step():
    """A pass with every outside point a candidate includes, step after step, the
    point whose inclusion gives the least dense NLP."""
    X, y, kernel = small_problem(30, seed=3)
    K = kernel(X)
    likelihood = Probit(0.3, 1.4)
    state = ADFActiveSet(block_of(K), np.diag(K), y, likelihood, 7)
    select_by_nlp(state, 6, np.random.RandomState(0), working_set_size=None)
    for step in range(1, 6):
        prefix = ADFActiveSet(block_of(K), np.diag(K), y, likelihood, 7)
        for i in state.active[:step]:
            prefix.include(i, prefix.every_column())
        losses = {}
        for j in np.setdiff1d(np.arange(30), state.active[:step]):
            trial = copy.deepcopy(prefix)
            trial.include(j, trial.every_column())
            rest = np.ones(30, dtype=bool)
            rest[state.active[:step] + [j]] = False
            losses[j] = dense_nlp(K, y, likelihood, trial.p, trial.m, rest).mean()
        assert state.active[step] == min(losses, key=losses.get)


def test_full_working_set_picks_the_brute_force_best():
    _, y, _, K, state, outside = grown_state()
    brute = {}
    for j in np.flatnonzero(outside):
        trial = copy.deepcopy(state)
        trial.include(j, trial.every_column())
        rest = outside.copy()
        rest[j] = False
        brute[j] = nlp_loss(trial, rest).value
    select_by_nlp(
        state, state.size + 1, np.random.RandomState(0), working_set_size=None
    )
    assert state.active[-1] == min(brute, key=brute.get)


@pytest.mark.parametrize("validation_size", [None, 12])
def test_kept_validation_kernel_selects_as_the_per_inclusion_blocks(
    monkeypatch, validation_size
):
    """A pass reads its candidates' rows of ``K(X, validation)`` from one product over
    all n points when it will ask for more than n rows; the selection is the one that
    computes each working set's block."""
    from sparsegp.approximations import nlp_selection

    kept = grown_state(n=40, d=10, kappa=6, validation_size=validation_size)[4]
    monkeypatch.setattr(nlp_selection, "_KEPT_KERNEL_ENTRIES", 0)
    blocks = grown_state(n=40, d=10, kappa=6, validation_size=validation_size)[4]
    assert kept.active == blocks.active
    np.testing.assert_allclose(kept.p, blocks.p, rtol=1e-12, atol=0)
    np.testing.assert_allclose(kept.m, blocks.m, rtol=1e-12, atol=1e-14)


def test_validation_kernel_is_kept_only_where_it_saves_rows():
    from sparsegp.approximations.nlp_selection import _validation_kernel

    _, _, _, K, state, outside = grown_state()
    validation = state.gather(np.flatnonzero(outside))
    kernel = _validation_kernel(state, validation, state.size + 8, 5)  # 40 rows
    np.testing.assert_allclose(kernel, K[:, validation.points], rtol=1e-14)
    assert _validation_kernel(state, validation, state.size + 7, 5) is None  # 35 < 40


def test_working_set_of_one_is_random_selection():
    _, _, _, _, state, _ = grown_state(kappa=1, seed=2)
    assert len(set(state.active)) == 8


def test_selection_needs_a_point_outside():
    X, y, kernel = small_problem(10)
    K = kernel(X)
    state = ADFActiveSet(block_of(K), np.diag(K), y, Probit(), 10)
    with pytest.raises(ValueError, match="d < n"):
        select_by_nlp(state, 10, np.random.RandomState(0))


def validation_problem(kernel=None):
    X, y, base_kernel, _, state, outside = grown_state()
    active = np.asarray(state.active)
    sites = (state.p[active], state.m[active])
    return X, y, kernel or base_kernel, state, outside, active, sites


def test_fixed_site_marginals_reproduce_the_selection_state():
    X, y, kernel, state, outside, active, sites = validation_problem()
    loss = validation_loss(
        kernel, state.likelihood, X[active], *sites, X[outside], y[outside]
    )
    assert loss.value == pytest.approx(nlp_loss(state, outside).value, rel=1e-9)


@pytest.mark.parametrize(
    "kernel",
    [
        ConstantKernel(2.0) * RBF(0.9),
        ConstantKernel(1.5) * RBF([0.7, 1.3]) + ConstantKernel(0.4),
        ConstantKernel(1.5) * Matern([0.7, 1.3], nu=2.5),
    ],
)
def test_validation_loss_gradient_matches_finite_differences(kernel):
    X, y, _, state, outside, active, sites = validation_problem(kernel)
    lik = state.likelihood

    def loss(theta, bias, slope):
        return validation_loss(
            kernel.clone_with_theta(theta),
            Probit(bias, slope),
            X[active],
            *sites,
            X[outside],
            y[outside],
        )

    at = loss(kernel.theta, lik.bias, lik.slope)
    p = len(kernel.theta)
    analytic = np.concatenate(
        [at.kernel_gradient, [at.bias_gradient, at.slope_gradient]]
    )
    assert_gradient_matches(
        lambda x: loss(x[:p], x[p], x[p + 1]).value,
        analytic,
        np.concatenate([kernel.theta, [lik.bias, lik.slope]]),
        step=1e-6,
        rtol=1e-5,
        atol=1e-9,
    )


def test_loss_is_invariant_under_the_slope_amplitude_rescaling():
    """Only λ²v and λb matter (§2.5): (λ, v, b) → (cλ, v/c², b/c) changes nothing."""
    X, y, kernel, state, outside, active, sites = validation_problem()
    c = 1.7
    p, m = sites
    scaled_kernel = ConstantKernel(2.0 / c**2) * RBF(0.9)
    # the sites scale with the latent: precision by c², mean by 1/c
    base = validation_loss(
        kernel, state.likelihood, X[active], p, m, X[outside], y[outside]
    )
    scaled = validation_loss(
        scaled_kernel,
        Probit(state.likelihood.bias / c, state.likelihood.slope * c),
        X[active],
        p * c**2,
        m / c,
        X[outside],
        y[outside],
    )
    assert scaled.value == pytest.approx(base.value, rel=1e-10)


def test_with_the_sites_held_the_slope_is_a_direction_of_its_own():
    """The hyperparameter step holds the sites (§2.5), which breaks the invariance
    above: there λ sharpens the predictions and the amplitude cannot stand in for it."""
    X, y, kernel, state, outside, active, sites = validation_problem()
    c = 1.7
    base = validation_loss(
        kernel, state.likelihood, X[active], *sites, X[outside], y[outside]
    )
    rescaled_with_sites_held = validation_loss(
        ConstantKernel(2.0 / c**2) * RBF(0.9),
        Probit(state.likelihood.bias / c, state.likelihood.slope * c),
        X[active],
        *sites,
        X[outside],
        y[outside],
    )
    assert abs(rescaled_with_sites_held.value - base.value) > 1e-3
