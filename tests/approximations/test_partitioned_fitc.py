"""FITC-EP over row blocks against FITC-EP in memory: the same fixed point."""

import numpy as np
import pytest

from sparsegp.approximations.ep import run_ep
from sparsegp.approximations.fitc_ep import FITCPosterior, FITCPredictor, FITCPrior
from sparsegp.approximations.partitioned_fitc import (
    LocalBlocks,
    PartitionedFITCPosterior,
    new_block,
)
from sparsegp.likelihoods import Probit

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
    posterior = PartitionedFITCPosterior(blocks_of(X, y, bounds), kernel, Z, 1e-6)
    partitioned = run_ep(posterior, None, likelihood, **OPTIONS)
    assert partitioned.converged
    np.testing.assert_allclose(partitioned.mean, in_memory.mean, atol=1e-9)
    np.testing.assert_allclose(partitioned.var, in_memory.var, atol=1e-9)
    np.testing.assert_allclose(
        partitioned.log_evidence, in_memory.log_evidence, rtol=1e-10
    )
    X_test = np.random.default_rng(0).standard_normal((30, X.shape[1]))
    cross, diag = kernel(Z, X_test), kernel.diag(X_test)
    expected = FITCPredictor.from_state(in_memory).latent_mean_and_variance(cross, diag)
    got = posterior.predictor().latent_mean_and_variance(cross, diag)
    np.testing.assert_allclose(got, expected, atol=1e-9)


def test_the_first_refresh_is_the_prior_marginals():
    X, y, kernel = small_problem(n=40, seed=1)
    Z = X[:6].copy()
    posterior = PartitionedFITCPosterior(blocks_of(X, y, [13]), kernel, Z, 1e-6)
    mean, var = posterior.marginals()
    np.testing.assert_array_equal(mean, np.zeros(40))
    np.testing.assert_allclose(
        var, kernel.diag(X), rtol=1e-9
    )  # Q_ff + d0 on the diagonal


def test_sequential_sweeps_are_refused():
    X, y, kernel = small_problem(n=20, seed=2)
    posterior = PartitionedFITCPosterior(blocks_of(X, y, [10]), kernel, X[:4], 1e-6)
    with pytest.raises(ValueError, match="parallel sweeps only"):
        run_ep(posterior, None, Probit(0.0), mode="sequential", max_sweeps=2)
