"""FITC-EP over row blocks against FITC-EP in memory: the same fixed point."""

import warnings

import numpy as np
import pytest

from sparsegp.approximations.blocks import LocalBlocks, balanced_row_ranges, summed
from sparsegp.approximations.ep import (
    AndersonMixing,
    WarmStart,
    carried_sites,
    leave_one_out,
    run_ep,
)
from sparsegp.approximations.fitc_ep import (
    FITCPosterior,
    FITCPrior,
    InMemoryFITC,
    fitc_predictor,
)
from sparsegp.approximations.partitioned_fitc import PartitionedFITC, new_block
from sparsegp.likelihoods import Probit
from sparsegp.testing import assert_gradient_matches

from ..conftest import small_problem

OPTIONS = dict(damping=0.8, tol=1e-10, max_sweeps=1000)


def blocks_of(X, y, bounds):
    edges = [0, *bounds, len(y)]
    return LocalBlocks(
        [new_block(X[a:b], y[a:b]) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    )


@pytest.mark.parametrize("bounds", [[], [7], [20, 21, 55]])
def test_blocks_reach_the_in_memory_fixed_point(bounds):
    X, y, kernel = small_problem(n=80, seed=3)
    Z = X[::8].copy()
    likelihood = Probit(0.2)
    prior = FITCPrior.from_kernel(kernel(Z), kernel(Z, X), kernel.diag(X), 1e-6)
    in_memory = run_ep(
        FITCPosterior(prior, np.zeros(80), np.zeros(80)), y, likelihood, **OPTIONS
    )
    posterior = PartitionedFITC(blocks_of(X, y, bounds), 1e-6).posterior(
        kernel, Z, None
    )
    partitioned = run_ep(posterior, None, likelihood, **OPTIONS)
    assert partitioned.converged
    np.testing.assert_allclose(partitioned.mean, in_memory.mean, atol=1e-9)
    np.testing.assert_allclose(partitioned.var, in_memory.var, atol=1e-9)
    np.testing.assert_allclose(
        partitioned.log_evidence, in_memory.log_evidence, rtol=1e-10
    )
    X_test = np.random.default_rng(0).standard_normal((30, X.shape[1]))
    cross, diag = kernel(Z, X_test), kernel.diag(X_test)
    expected = fitc_predictor(in_memory).latent_mean_and_variance(cross, diag)
    got = posterior.predictor().latent_mean_and_variance(cross, diag)
    np.testing.assert_allclose(got, expected, atol=1e-9)
    np.testing.assert_allclose(
        leave_one_out(partitioned), leave_one_out(in_memory), rtol=1e-7, atol=1e-9
    )


@pytest.mark.parametrize("sweeps", [1, 2, 6, 10])
def test_blocks_mix_their_sweeps_as_in_memory(sweeps):
    """Anderson mixing over blocks (normal equations summed over blocks) takes the
    in-memory sweeps' steps, one by one."""
    X, y, kernel = small_problem(n=80, seed=4)
    Z = X[::10].copy()
    likelihood = Probit(0.3)
    prior = FITCPrior.from_kernel(kernel(Z), kernel(Z, X), kernel.diag(X), 1e-6)
    options = dict(damping=1.0, tol=0.0, max_sweeps=sweeps)
    in_memory = run_ep(
        FITCPosterior(prior, np.zeros(80), np.zeros(80)), y, likelihood, **options
    )
    posterior = PartitionedFITC(blocks_of(X, y, [13, 50]), 1e-6).posterior(
        kernel, Z, None
    )
    partitioned = run_ep(posterior, None, likelihood, **options)
    assert partitioned.n_sweeps == in_memory.n_sweeps == sweeps
    np.testing.assert_allclose(partitioned.mean, in_memory.mean, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(partitioned.var, in_memory.var, rtol=1e-7, atol=1e-9)


def test_a_rejected_mixed_step_is_rejected_in_every_block_silently(monkeypatch):
    """A mixed step with a negative precision somewhere falls back to ``g(s)`` in
    every block as in memory, and no block computes statistics at it (no warning)."""
    X, y, kernel = small_problem(n=80, seed=0)
    kernel = kernel.clone_with_theta(kernel.theta + np.log([1000.0, 1.0]))
    Z = X[::10].copy()
    likelihood = Probit(0.3)
    prior = FITCPrior.from_kernel(kernel(Z), kernel(Z, X), kernel.diag(X), 1e-6)
    proper_steps = []
    mixed = AndersonMixing.mixed

    def recorded(updates, gamma, n):
        step, proper = mixed(updates, gamma, n)
        proper_steps.append(proper)
        return step, proper

    monkeypatch.setattr(AndersonMixing, "mixed", staticmethod(recorded))
    options = dict(damping=1.0, tol=1e-10, max_sweeps=200)
    in_memory = run_ep(
        FITCPosterior(prior, np.zeros(80), np.zeros(80)), y, likelihood, **options
    )
    assert not all(proper_steps)
    posterior = PartitionedFITC(blocks_of(X, y, [13, 50]), 1e-6).posterior(
        kernel, Z, None
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        partitioned = run_ep(posterior, None, likelihood, **options)
    assert partitioned.n_sweeps == in_memory.n_sweeps
    np.testing.assert_allclose(partitioned.mean, in_memory.mean, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(partitioned.var, in_memory.var, rtol=1e-7, atol=1e-9)


def test_the_first_refresh_is_the_prior_marginals():
    X, y, kernel = small_problem(n=40, seed=1)
    Z = X[:6].copy()
    posterior = PartitionedFITC(blocks_of(X, y, [13]), 1e-6).posterior(kernel, Z, None)
    mean, var = posterior.marginals()
    np.testing.assert_array_equal(mean, np.zeros(40))
    np.testing.assert_allclose(
        var, kernel.diag(X), rtol=1e-9
    )  # Q_ff + d0 on the diagonal


def test_sequential_sweeps_are_refused():
    X, y, kernel = small_problem(n=20, seed=2)
    posterior = PartitionedFITC(blocks_of(X, y, [10]), 1e-6).posterior(
        kernel, X[:4], None
    )
    with pytest.raises(ValueError, match="parallel sweeps only"):
        run_ep(posterior, None, Probit(0.0), mode="sequential", max_sweeps=2)


def test_the_evidence_gradient_summed_over_blocks_equals_the_in_memory_one():
    X, y, kernel = small_problem(n=60, seed=5)
    Z = X[::6] + 0.1
    likelihood = Probit(-0.3)
    in_memory = InMemoryFITC(X, y, 1e-6, differentiable=True)
    partitioned = PartitionedFITC(blocks_of(X, y, [17, 40]), 1e-6)
    states = [
        run_ep(data.posterior(kernel, Z, None), data.labels, likelihood, **OPTIONS)
        for data in (in_memory, partitioned)
    ]
    want = in_memory.gradient(states[0], likelihood)
    got = partitioned.gradient(states[1], likelihood)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9)


def test_a_warm_posterior_restarts_from_the_saved_sites():
    X, y, kernel = small_problem(n=50, seed=6)
    Z = X[:5].copy()
    likelihood = Probit(0.0)
    data = PartitionedFITC(blocks_of(X, y, [25]), 1e-6)
    state = run_ep(data.posterior(kernel, Z, None), None, likelihood, **OPTIONS)
    start = WarmStart(
        state.posterior.checkpoint(), state.posterior.prior_variance, None, likelihood
    )
    warm = run_ep(data.posterior(kernel, Z, start), None, likelihood, **OPTIONS)
    assert warm.n_sweeps <= 2 < state.n_sweeps
    np.testing.assert_allclose(warm.log_evidence, state.log_evidence, rtol=1e-10)


def test_a_warm_start_carries_the_blocks_sites_as_in_memory():
    X, y, kernel = small_problem(n=50, seed=7)
    Z = X[:6].copy()
    likelihood = Probit(0.2)
    data = [
        PartitionedFITC(blocks_of(X, y, [20, 33]), 1e-6),
        InMemoryFITC(X, y, 1e-6, differentiable=False),
    ]
    states = [
        run_ep(d.posterior(kernel, Z, None), d.labels, likelihood, **OPTIONS)
        for d in data
    ]
    wider = kernel.clone_with_theta(kernel.theta + [np.log(3.0), 0.0])
    warm = [
        d.posterior(
            wider,
            Z,
            WarmStart(
                s.posterior.checkpoint(), s.posterior.prior_variance, y, Probit(-0.1)
            ),
        )
        for d, s in zip(data, states, strict=True)
    ]
    assert warm[0].prior_variance == pytest.approx(
        3.0 * states[0].posterior.prior_variance
    )
    in_memory = states[1]
    tau, _ = carried_sites(
        y, Probit(-0.1), in_memory.tau, in_memory.nu, in_memory.mean, in_memory.var, 3.0
    )
    np.testing.assert_allclose(warm[1].tau, tau, rtol=1e-9)
    assert np.max(np.abs(tau - in_memory.tau)) > 0.01  # the prior's scale moved them
    for got, want in zip(warm[0].marginals(), warm[1].marginals(), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_the_block_gradient_matches_finite_differences():
    X, y, kernel = small_problem(n=50, seed=10)
    Z0 = X[::7] + 0.05
    bias0 = 0.3
    p = len(kernel.theta)

    def evidence(theta, Z, bias):
        data = PartitionedFITC(blocks_of(X, y, [11, 30]), 1e-6)
        likelihood = Probit(bias)
        posterior = data.posterior(kernel.clone_with_theta(theta), Z, None)
        state = run_ep(
            posterior, None, likelihood, damping=0.8, tol=1e-13, max_sweeps=3000
        )
        return state.log_evidence, data.gradient(state, likelihood)

    _, (grad_theta, grad_bias, grad_Z) = evidence(kernel.theta, Z0, bias0)

    def log_z(x):  # x = (θ, b, Z raveled)
        return evidence(x[:p], x[p + 1 :].reshape(Z0.shape), x[p])[0]

    x = np.concatenate([kernel.theta, [bias0], Z0.ravel()])
    analytic = np.concatenate([grad_theta, [grad_bias], grad_Z.ravel()])
    assert_gradient_matches(log_z, analytic, x, rtol=1e-5, atol=1e-7)


def test_a_block_reports_the_arrays_it_holds_to_dask_once_each():
    """dask weighs moving a block by its ``sizeof``: the kept K_uc counts, X once."""
    from sklearn.gaussian_process.kernels import RBF

    from sparsegp._linalg import cholesky_jitter
    from sparsegp.approximations.partitioned_fitc import _with_prior

    rng = np.random.default_rng(0)
    X, Z = rng.standard_normal((300, 3)), rng.standard_normal((20, 3))
    kernel = RBF(1.0)
    chol_uu = cholesky_jitter(kernel(Z) + 1e-6 * np.eye(20))
    block, _ = _with_prior(new_block(X, np.ones(300)), kernel, Z, chol_uu, np.float32)
    assert block.cross is not None and block.cross.B is block.X
    arrays = [block.X, block.y, block.V, block.V_sweep, block.d0]
    arrays += [block.tau, block.cross.A, block.cross.value]
    expected = sum(a.nbytes for a in {id(a): a for a in arrays}.values())
    assert expected <= block.__sizeof__() - object.__sizeof__(block) < 1.2 * expected


def test_the_gradient_of_an_older_state_is_refused_not_taken_at_newer_priors():
    X, y, kernel = small_problem(n=40, seed=5)
    Z, likelihood = X[::5] + 0.1, Probit(0.0)
    data = PartitionedFITC(blocks_of(X, y, [17]), 1e-6)
    older = run_ep(data.posterior(kernel, Z, None), None, likelihood, **OPTIONS)
    newer = run_ep(data.posterior(kernel, Z + 0.2, None), None, likelihood, **OPTIONS)
    data.gradient(newer, likelihood)
    with pytest.raises(ValueError, match="newer posterior"):
        data.gradient(older, likelihood)


@pytest.mark.parametrize("store_dtype", [np.float32, np.float64])
def test_a_new_prior_written_over_the_old_equals_one_on_fresh_blocks(store_dtype):
    """``_with_prior`` writes a new prior into the old one's ``V`` and ``V_sweep``:
    the posterior at a second kernel equals, bit for bit, the one of blocks that
    never held the first, and the first prior's arrays are the ones reused."""
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel

    X, y, _ = small_problem(n=60, seed=2)
    Z, likelihood = X[::6] + 0.05, Probit(0.2)
    first, second = ConstantKernel(1.0) * RBF(1.0), ConstantKernel(2.0) * RBF(0.7)
    reused = PartitionedFITC(blocks_of(X, y, [25]), 1e-6)
    reused.posterior(first, Z, None, store_dtype)
    old_V = [block.V for block in reused.blocks.blocks]
    fresh = PartitionedFITC(blocks_of(X, y, [25]), 1e-6)
    states = [
        run_ep(data.posterior(second, Z, None, store_dtype), None, likelihood)
        for data in (reused, fresh)
    ]
    assert all(
        block.V is V for block, V in zip(reused.blocks.blocks, old_V, strict=True)
    )
    np.testing.assert_array_equal(states[0].mean, states[1].mean)
    np.testing.assert_array_equal(states[0].var, states[1].var)
    assert states[0].log_evidence == states[1].log_evidence


class CountingBlocks(LocalBlocks):
    """:class:`LocalBlocks` that counts its rounds (one call of map, update or
    update_and_map: one message to every worker on a cluster)."""

    rounds = 0

    def map(self, function, *arguments):
        self.rounds += 1
        return super().map(function, *arguments)

    def update(self, function, *arguments):
        self.blocks = super().map(function, *arguments)  # one round, not two

    def update_and_map(self, function, *arguments):
        pairs = self.map(function, *arguments)
        self.blocks = [block for block, _ in pairs]
        return [result for _, result in pairs]


def test_a_sweep_takes_three_rounds_and_its_evidence_is_the_evidence_at_its_sites():
    """The sweep's refresh gathers its evidence in the same round (site update,
    mixed step, refresh: three); the evidence so gathered is the one a round of
    its own computes."""
    X, y, kernel = small_problem(n=60, seed=5)
    Z = X[::6].copy()
    likelihood = Probit(0.1)
    blocks = CountingBlocks([new_block(X[:25], y[:25]), new_block(X[25:], y[25:], 25)])
    posterior = PartitionedFITC(blocks, 1e-6).posterior(kernel, Z, None)
    run_ep(posterior, None, likelihood, damping=1.0, tol=0.0, max_sweeps=3)
    before = blocks.rounds
    run_ep(posterior, None, likelihood, damping=1.0, tol=0.0, max_sweeps=4)
    # the first evidence is the last refresh's; four sweeps; the marginals gathered
    assert blocks.rounds - before == 4 * 3 + 1
    gathered = posterior.evidence(None, likelihood)
    posterior._evidence = None  # forget it: a round of its own
    assert posterior.evidence(None, likelihood) == pytest.approx(gathered, rel=1e-14)
    assert blocks.rounds - before == 4 * 3 + 2


@pytest.mark.parametrize(
    ("n", "largest", "count"),
    [
        (5, 10, 1),
        (10, 10, 1),
        (11, 10, 2),
        (21, 10, 4),
        (50_000, 8192, 8),
        (1_000_000, 8192, 128),
    ],
)
def test_balanced_row_ranges_are_a_power_of_two_of_bounded_blocks(n, largest, count):
    ranges = balanced_row_ranges(n, largest)
    sizes = [stop - start for start, stop in ranges]
    assert len(ranges) == count
    assert ranges[0][0] == 0 and ranges[-1][1] == n
    assert all(a[1] == b[0] for a, b in zip(ranges[:-1], ranges[1:], strict=True))
    assert max(sizes) <= largest and max(sizes) - min(sizes) <= 1


class WorkerSums(LocalBlocks):
    """Blocks held by two "workers", each adding its own blocks' sums before the
    client adds the two: a cluster's order of the sums, in one process."""

    @staticmethod
    def _by_two_workers(results):
        half = len(results) // 2
        return summed([summed(results[:half]), summed(results[half:])])

    def map_sum(self, function, *arguments):
        return self._by_two_workers(self.map(function, *arguments))

    def update_and_sum(self, function, *arguments):
        return self._by_two_workers(self.update_and_map(function, *arguments))


def test_workers_summing_their_own_blocks_reach_the_same_fixed_point_and_gradient():
    """The sums a cluster takes (each worker its blocks', then the client the
    workers') change the EP fixed point and the evidence gradient by rounding only."""
    X, y, kernel = small_problem(n=90, seed=6)
    Z = X[::9].copy()
    likelihood = Probit(0.2)
    fits = []
    for blocks in (LocalBlocks, WorkerSums):
        data = PartitionedFITC(
            blocks(
                [new_block(X[a : a + 15], y[a : a + 15], a) for a in range(0, 90, 15)]
            ),
            1e-6,
        )
        state = run_ep(data.posterior(kernel, Z, None), None, likelihood, **OPTIONS)
        fits.append((state, data.gradient(state, likelihood)))
    (local, local_gradient), (workers, workers_gradient) = fits
    np.testing.assert_allclose(workers.mean, local.mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(workers.var, local.var, rtol=1e-10)
    assert workers.log_evidence == pytest.approx(local.log_evidence, rel=1e-12)
    for got, want in zip(workers_gradient, local_gradient, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11)
