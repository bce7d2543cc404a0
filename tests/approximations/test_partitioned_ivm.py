"""IVM selection over row blocks against the in-memory ADF state: the same choices."""

import numpy as np
import pytest

from sparsegp.approximations.ivm import select_active_set
from sparsegp.approximations.partitioned_fitc import LocalBlocks
from sparsegp.approximations.partitioned_ivm import (
    PartitionedActiveSet,
    new_adf_block,
    select_over_blocks,
)
from sparsegp.kernels import KernelBlocks
from sparsegp.likelihoods import Probit

from ..conftest import small_problem


@pytest.mark.parametrize("strategy", ["greedy", "random"])
@pytest.mark.parametrize("bounds", [[], [13], [30, 31, 90]])
def test_blocks_select_what_the_in_memory_state_selects(strategy, bounds):
    X, y, kernel = small_problem(n=120, seed=7)
    likelihood, d = Probit(-0.2), 25
    in_memory = select_active_set(
        KernelBlocks(kernel, X),
        kernel.diag(X),
        y,
        likelihood,
        d,
        np.random.RandomState(1),
        strategy=strategy,
    )
    edges = [0, *bounds, len(y)]
    blocks = LocalBlocks(
        [
            new_adf_block(X[a:b], y[a:b], a, kernel, d)
            for a, b in zip(edges[:-1], edges[1:], strict=True)
        ]
    )
    state = PartitionedActiveSet(blocks, len(y), kernel, likelihood, d)
    select_over_blocks(state, d, np.random.RandomState(1), strategy=strategy)
    assert state.active == in_memory.active
    np.testing.assert_allclose(state.p[state.active], in_memory.p[in_memory.active])
    np.testing.assert_allclose(state.L, in_memory.L, atol=1e-12)
    X_test = np.random.default_rng(2).standard_normal((20, X.shape[1]))
    cross, diag = kernel(X[state.active], X_test), kernel.diag(X_test)
    np.testing.assert_allclose(
        state.predictor().latent_mean_and_variance(cross, diag),
        in_memory.predictor().latent_mean_and_variance(cross, diag),
        atol=1e-12,
    )
    if strategy == "greedy":  # uniform selection leaves the in-memory columns stale
        for block in blocks.blocks:  # the blocks' marginals are the ADF state's
            rows = slice(block.first, block.first + len(block.y))
            np.testing.assert_allclose(block.a, in_memory.a[rows], atol=1e-12)
            np.testing.assert_allclose(block.h, in_memory.h[rows], atol=1e-12)
