"""IVM selection over row blocks against the in-memory ADF state: the same choices."""

import numpy as np
import pytest

from sparsegp.approximations.blocks import LocalBlocks
from sparsegp.approximations.ivm import grow_active_set, select_active_set
from sparsegp.approximations.partitioned_ivm import PartitionedActiveSet, new_adf_block
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
    grow_active_set(state, d, np.random.RandomState(1), strategy=strategy)
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
    outside = np.setdiff1d(np.arange(len(y)), state.active)[::3]
    np.testing.assert_allclose(  # the rounds' criterion (in memory: columns completed)
        state.held_out_nlp(outside), in_memory.held_out_nlp(outside), rtol=1e-12
    )
    if strategy == "greedy":  # uniform selection leaves the in-memory columns stale
        for block in blocks.blocks:  # the blocks' marginals are the ADF state's
            rows = slice(block.first, block.first + len(block.y))
            np.testing.assert_allclose(block.a, in_memory.a[rows], atol=1e-12)
            np.testing.assert_allclose(block.h, in_memory.h[rows], atol=1e-12)


def blocks_of(X, y, kernel, d, bounds, dtype=np.float64):
    edges = [0, *bounds, len(y)]
    return LocalBlocks(
        [
            new_adf_block(X[a:b], y[a:b], a, kernel, d, dtype)
            for a, b in zip(edges[:-1], edges[1:], strict=True)
        ]
    )


def test_blocks_keep_v_in_the_in_memory_stores_precision():
    """float32 blocks hold their share of ``V`` in float32 and select what the
    in-memory float32 store selects."""
    X, y, kernel = small_problem(n=150, seed=9)
    likelihood, d = Probit(0.1), 30
    in_memory = select_active_set(
        KernelBlocks(kernel, X, np.float32),
        kernel.diag(X),
        y,
        likelihood,
        d,
        np.random.RandomState(3),
        strategy="greedy",
        dtype=np.float32,
    )
    blocks = blocks_of(X, y, kernel, d, [50, 110], np.float32)
    state = PartitionedActiveSet(blocks, len(y), kernel, likelihood, d)
    grow_active_set(state, d, np.random.RandomState(3), strategy="greedy")
    assert all(block.Vt.dtype == np.float32 for block in blocks.blocks)
    assert state.active == in_memory.active
    np.testing.assert_allclose(state.L, in_memory.L, atol=1e-5)


def test_randomized_with_every_point_in_the_index_is_full_greedy():
    X, y, kernel = small_problem(n=150, seed=8)
    likelihood, d = Probit(0.1), 30
    chosen = []
    for strategy in ("greedy", "randomized"):
        state = PartitionedActiveSet(
            blocks_of(X, y, kernel, d, [40, 100]), len(y), kernel, likelihood, d
        )
        grow_active_set(
            state,
            d,
            np.random.RandomState(2),
            strategy=strategy,
            n_full_greedy=8,
            selection_size=10_000,
        )
        chosen.append(state.active)
    assert chosen[0] == chosen[1]


def test_randomized_blocks_complete_their_stale_columns_to_the_dense_ones():
    X, y, kernel = small_problem(n=300, seed=9)
    likelihood, d = Probit(0.0), 40
    blocks = blocks_of(X, y, kernel, d, [100, 180])
    state = PartitionedActiveSet(blocks, len(y), kernel, likelihood, d)
    grow_active_set(
        state,
        d,
        np.random.RandomState(4),
        strategy="randomized",
        n_full_greedy=10,
        selection_size=30,
    )
    active = np.array(state.active)
    L = np.linalg.cholesky(
        np.eye(d)
        + np.sqrt(state.p[active])[:, None]
        * kernel(X[active])
        * np.sqrt(state.p[active])
    )
    np.testing.assert_allclose(state.L, L, atol=1e-10)
    state.held_out_nlp(np.arange(len(y)))  # completes every column
    for block in blocks.blocks:
        V = np.linalg.solve(
            L, np.sqrt(state.p[active])[:, None] * kernel(X[active], block.X)
        )
        np.testing.assert_allclose(block.Vt[:, :d], V.T, atol=1e-10)
        np.testing.assert_allclose(block.a, block.k_diag - np.sum(V * V, 0), atol=1e-10)
        assert block.index is not None and len(block.index) <= 30
