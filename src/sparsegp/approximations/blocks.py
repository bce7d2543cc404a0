"""Row blocks of the training data, and who runs the work on them.

The partitioned engines (:mod:`~sparsegp.approximations.partitioned_fitc`,
:mod:`~sparsegp.approximations.partitioned_ivm`) keep their rows in blocks and ask a
:class:`Blocks` to run a function on every block; only small per-block results come
back. One engine, three executors: :class:`LocalBlocks` (this thread),
:class:`ThreadBlocks` (a thread pool in this process: numpy and BLAS release the GIL,
so the blocks run on as many cores as the pool has threads, each block's BLAS on one
thread) and :class:`sparsegp._dask.DaskBlocks` (a dask.distributed cluster, each block
staying on its worker).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Protocol

import numpy as np

__all__ = ["Blocks", "LocalBlocks", "ThreadBlocks", "row_ranges", "thread_pool"]


class Blocks(Protocol):
    """Row blocks held where they live, and the per-block work done there."""

    def map(self, function: Callable[..., Any], *arguments: object) -> list:
        """``[function(block, *arguments) for block]``, gathered (small results)."""

    def update(self, function: Callable[..., Any], *arguments: object) -> None:
        """Replace every block by ``function(block, *arguments)`` where it lives."""

    def update_and_map(self, function: Callable[..., Any], *arguments: object) -> list:
        """``function(block, *arguments) -> (new block, result)``: both in one round."""


class LocalBlocks:
    """:class:`Blocks` in this process: a list of blocks, worked on one by one."""

    def __init__(self, blocks: list) -> None:
        self.blocks = blocks

    def map(self, function: Callable[..., Any], *arguments: object) -> list:
        return [function(block, *arguments) for block in self.blocks]

    def update(self, function: Callable[..., Any], *arguments: object) -> None:
        self.blocks = self.map(function, *arguments)

    def update_and_map(self, function: Callable[..., Any], *arguments: object) -> list:
        pairs = self.map(function, *arguments)
        self.blocks = [block for block, _ in pairs]
        return [result for _, result in pairs]


class ThreadBlocks(LocalBlocks):
    """:class:`Blocks` in this process, the blocks worked on at once by ``pool``.

    The results are those of :class:`LocalBlocks`, in block order: each block's work
    is the same arithmetic whichever thread runs it. Limit the BLAS to one thread
    around the fit (:func:`~sparsegp._threads.one_blas_thread`), or the pool's
    threads and the BLAS's compete for the same cores.
    """

    def __init__(self, blocks: list, pool: Executor) -> None:
        super().__init__(blocks)
        self.pool = pool

    def map(self, function: Callable[..., Any], *arguments: object) -> list:
        return list(
            self.pool.map(lambda block: function(block, *arguments), self.blocks)
        )


@contextmanager
def thread_pool(n_threads: int) -> Iterator[Executor | None]:
    """A pool of ``n_threads`` threads for :class:`ThreadBlocks`, shut down on exit;
    None for one thread (the blocks are then worked on in the caller's thread)."""
    if n_threads <= 1:
        yield None
        return
    with ThreadPoolExecutor(n_threads) as pool:
        yield pool


def row_ranges(n: int, n_blocks: int) -> list[tuple[int, int]]:
    """``n_blocks`` contiguous ``(start, stop)`` ranges of ``n`` rows, sizes within one."""
    edges = np.linspace(0, n, min(n_blocks, max(n, 1)) + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]
