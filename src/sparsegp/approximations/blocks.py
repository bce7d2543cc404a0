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

import functools
import itertools
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    FIRST_EXCEPTION,
    Executor,
    Future,
    ThreadPoolExecutor,
    wait,
)
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np

__all__ = [
    "Blocks",
    "CheckedProgress",
    "GatedPool",
    "HeadStart",
    "LocalBlocks",
    "RowPool",
    "StopSignal",
    "Stopped",
    "ThreadBlocks",
    "balanced_row_ranges",
    "mapped_on",
    "row_ranges",
    "run_together",
    "run_together_with_head_start",
    "summed",
    "thread_pool",
]

_R = TypeVar("_R")


class Blocks(Protocol):
    """Row blocks held where they live, and the per-block work done there."""

    def map(self, function: Callable[..., Any], *arguments: object) -> list:
        """``[function(block, *arguments) for block]``, gathered (small results)."""

    def update(self, function: Callable[..., Any], *arguments: object) -> None:
        """Replace every block by ``function(block, *arguments)`` where it lives."""

    def update_and_map(self, function: Callable[..., Any], *arguments: object) -> list:
        """``function(block, *arguments) -> (new block, result)``: both in one round."""

    def map_sum(self, function: Callable[..., Any], *arguments: object) -> Any:
        """:func:`summed` of :meth:`map`'s results, each worker summing its own blocks'
        (one reply a worker, whatever the number of blocks)."""

    def update_and_sum(self, function: Callable[..., Any], *arguments: object) -> Any:
        """:meth:`update_and_map`, its results :func:`summed` as :meth:`map_sum`."""

    def close(self) -> None:
        """Free the blocks where they live, now: the fit that made them is done."""


def summed(results: Sequence[Any]) -> Any:
    """The blocks' results added in order, numbers or arrays or tuples of them (added
    part by part); None if any result is None (a block's way of refusing a step).

    The blocks' results are added in block order, in one process as on a cluster
    (:class:`~sparsegp._dask.DaskBlocks`).
    """
    if any(result is None for result in results):
        return None
    if isinstance(results[0], tuple):
        return tuple(summed(parts) for parts in zip(*results, strict=True))
    total = results[0]
    for result in results[1:]:
        total = total + result
    return total


class LocalBlocks:
    """:class:`Blocks` in this process: a list of blocks, worked on one by one."""

    def __init__(self, blocks: list) -> None:
        self.blocks = blocks
        self._kept: list = []

    def map(self, function: Callable[..., Any], *arguments: object) -> list:
        return [function(block, *arguments) for block in self.blocks]

    def update(self, function: Callable[..., Any], *arguments: object) -> None:
        self.blocks = self.map(function, *arguments)

    def update_and_map(self, function: Callable[..., Any], *arguments: object) -> list:
        pairs = self.map(function, *arguments)
        self.blocks = [block for block, _ in pairs]
        return [result for _, result in pairs]

    def map_sum(self, function: Callable[..., Any], *arguments: object) -> Any:
        return summed(self.map(function, *arguments))

    def update_and_sum(self, function: Callable[..., Any], *arguments: object) -> Any:
        return summed(self.update_and_map(function, *arguments))

    def map_and_keep(self, function: Callable[..., Any], *arguments: object) -> None:
        """:meth:`map`, its results kept for :meth:`kept_sum` (a worker's share of a
        sum over a cluster's blocks, :class:`~sparsegp._dask.DaskBlocks`)."""
        self._kept = self.map(function, *arguments)

    def update_and_keep(self, function: Callable[..., Any], *arguments: object) -> None:
        """:meth:`update_and_map`, its results kept for :meth:`kept_sum`."""
        self._kept = self.update_and_map(function, *arguments)

    def kept_sum(self, *before: Any) -> Any:
        """The kept results added in order to ``before`` (the sum of the blocks before
        these, or nothing), as :func:`summed` adds them; they are dropped."""
        kept, self._kept = self._kept, []
        return summed([*before, *kept])

    def close(self) -> None:
        self.blocks = []


class ThreadBlocks(LocalBlocks):
    """:class:`Blocks` in this process, the blocks worked on at once by ``pool`` (a
    :class:`RowPool` runs them in the caller's thread where its threads do not pay).

    The results are those of :class:`LocalBlocks`, in block order: each block's work
    is the same arithmetic whichever thread runs it. Limit the BLAS to one thread
    around the fit (:func:`~sparsegp._threads.one_blas_thread`), or the pool's
    threads and the BLAS's compete for the same cores.
    """

    def __init__(self, blocks: list, pool: Executor) -> None:
        super().__init__(blocks)
        self.pool = pool

    def map(self, function: Callable[..., Any], *arguments: object) -> list:
        repeated = [itertools.repeat(argument) for argument in arguments]
        return list(self.pool.map(function, self.blocks, *repeated))


def mapped_on(
    executor: Executor | None, function: Callable[[Any], _R], items: Iterable[Any]
) -> list[_R]:
    """``function`` over ``items`` on ``executor`` (None: in this thread), in order."""
    if executor is None:
        return list(map(function, items))
    return list(executor.map(function, items))


class RowPool(ThreadPoolExecutor):
    """A thread pool whose :meth:`map` runs its items in the caller's thread where
    the threads do not pay.

    Where another process holds a core, the short rounds of an E-step or a sweep
    wait for the share of a thread the system has set aside, and two threads can be
    slower than one (algorithms.md §0.6). So the pool times its maps of each
    function (:func:`_work_of`) both ways and runs a function's maps on the threads
    only where its recent maps took :data:`_Timings.LEAST_GAIN` less wall time there
    (:class:`_Timings`). Threads first; the other way is tried again once the chosen
    way has run for
    :data:`_Timings.TRIES_EVERY` times the other's last time, so a function mapped a
    few times stays on the threads and trying costs about a hundredth of the time
    where the threads are the faster. Each item's arithmetic is the same wherever it
    runs, so results do not depend on the choice; :meth:`submit` (whole fits at
    once) is unchanged. Measured in algorithms.md §5.9 ("Threads that do not pay").
    """

    def __init__(self, n_threads: int) -> None:
        super().__init__(n_threads)
        self._lock = threading.Lock()
        self._timings: dict[Any, _Timings] = {}

    def map(
        self,
        fn: Callable[..., _R],
        *iterables: Iterable[Any],
        timeout: float | None = None,
        chunksize: int = 1,
    ) -> Iterator[_R]:
        """``fn`` over the items, in order, on the threads or in this thread."""
        items = list(zip(*iterables, strict=False))
        if len(items) < 2:
            return iter([fn(*item) for item in items])
        with self._lock:
            timings = self._timings.setdefault(
                _work_of(fn), _Timings(self._max_workers)
            )
            on_threads = timings.next_on_threads()
        start = time.perf_counter()
        if on_threads:
            results = list(super().map(fn, *zip(*items, strict=True), timeout=timeout))
        else:
            results = [fn(*item) for item in items]
        with self._lock:
            timings.add(on_threads, time.perf_counter() - start)
        return iter(results)


class _Timings:
    """One function's maps on a :class:`RowPool`: the wall time of its recent maps
    each way (on the threads, in the caller's thread), an average that follows the
    function's cost as a fit changes it, and which way its next map takes."""

    #: The other way is tried once the chosen one has run this many times its time.
    TRIES_EVERY = 100.0
    #: The share of the caller's time the threads must save to be chosen: where they
    #: save less, the other cores are left to whatever else runs.
    LEAST_GAIN = 0.1
    #: Weight of the newest map in a way's average time.
    NEWEST = 0.3

    def __init__(self, n_threads: int) -> None:
        self.n_threads = n_threads
        self.seconds: dict[bool, float] = {}
        self.since_other = 0.0

    def chosen(self) -> bool:
        """Threads until the caller's thread has been timed, then threads only where
        they have been faster by :data:`LEAST_GAIN`."""
        if len(self.seconds) < 2:
            return True
        return self.seconds[True] <= (1.0 - self.LEAST_GAIN) * self.seconds[False]

    def next_on_threads(self) -> bool:
        """The chosen way, or the other where it is due to be tried again (the
        caller's thread, before it is timed, taken to be as slow as the threads would
        be alone: ``n_threads`` times their time)."""
        chosen = self.chosen()
        other = self.seconds.get(not chosen)
        if other is None:
            other = self.n_threads * self.seconds.get(True, np.inf)
        due = self.since_other >= self.TRIES_EVERY * other
        return (not chosen) if due else chosen

    def add(self, on_threads: bool, seconds: float) -> None:
        """Count a map's wall time."""
        if on_threads == self.chosen():
            self.since_other += seconds
        else:
            self.since_other = 0.0
        last = self.seconds.get(on_threads, seconds)
        self.seconds[on_threads] = last + self.NEWEST * (seconds - last)


def _work_of(fn: Callable[..., Any]) -> Any:
    """What identifies a mapped function's work across maps: its code (a lambda, a
    bound method or a ``functools.partial`` made anew for each map has the same)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    fn = getattr(fn, "__func__", fn)
    return getattr(fn, "__code__", fn)


@contextmanager
def thread_pool(n_threads: int) -> Iterator[Executor | None]:
    """A :class:`RowPool` of ``n_threads`` threads for :class:`ThreadBlocks`, shut down
    on exit; None for one thread (the blocks are then worked on in the caller's
    thread)."""
    if n_threads <= 1:
        yield None
        return
    with RowPool(n_threads) as pool:
        yield pool


class Stopped(Exception):
    """Raised by :meth:`StopSignal.check` once the signal is set."""


class StopSignal:
    """A flag that calls run by :func:`run_together` check at each of their steps: set
    when one of them fails or the caller is interrupted (Ctrl-C), so that the others
    end at their next step instead of running to their end."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    def check(self) -> None:
        """Raise :class:`Stopped` if the signal is set."""
        if self._event.is_set():
            raise Stopped("another call failed or the caller was interrupted")


class CheckedProgress:
    """A progress bar (tqdm's) whose every step first checks ``stop``: a long loop that
    reports its progress per step (the IVM's inclusions) ends there when stopped."""

    def __init__(self, progress: Any, stop: StopSignal) -> None:
        self.progress, self.stop = progress, stop

    def update(self, n: int = 1) -> object:
        self.stop.check()
        return self.progress.update(n)


def run_together(
    pool: Executor | None, calls: Sequence[Callable[[], _R]], stop: StopSignal
) -> list[_R]:
    """The results of ``calls``, run at once on ``pool`` (one after another without).

    The first exception, in a call or in the caller while it waits (a
    ``KeyboardInterrupt``), sets ``stop`` and is raised: the calls that check it end
    at their next step, and leaving the pool's ``with`` block waits for no more.
    """
    if pool is None:
        return [call() for call in calls]
    futures = [pool.submit(call) for call in calls]
    try:
        return _results(futures)
    except BaseException:
        stop.set()
        raise


def _results(futures: list[Future]) -> list:
    """The futures' results, or the first exception among them once it is raised."""
    wait(futures, return_when=FIRST_EXCEPTION)
    for future in futures:
        error = future.exception() if future.done() else None
        if error is not None:
            raise error
    return [future.result() for future in futures]


class GatedPool(Executor):
    """A pool of ``n_threads`` threads of which only ``permits`` run tasks until
    :meth:`open`; each task first checks ``stop`` (a :class:`StopSignal`), so that
    work started on a guess ends at its next block when the guess was wrong.

    Work on it uses the cores left idle by other work, and all of them once
    :meth:`open`'d; its results are those of any other pool (:class:`ThreadBlocks`
    gathers them in block order)."""

    def __init__(self, n_threads: int, permits: int, stop: StopSignal) -> None:
        self._pool = ThreadPoolExecutor(n_threads)
        self._gate = threading.Semaphore(permits)
        self._closed = n_threads - permits
        self.stop = stop

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
        def gated():  # type: ignore[no-untyped-def]
            with self._gate:
                self.stop.check()
                return fn(*args, **kwargs)

        return self._pool.submit(gated)

    def open(self) -> None:
        """Let every thread run tasks."""
        if self._closed > 0:
            self._gate.release(self._closed)
            self._closed = 0

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)


@dataclass
class HeadStart:
    """Work started on the result of the call of :func:`run_together_with_head_start`
    that ended first, while the others ran: ``index`` of that call, the ``future``."""

    index: int
    future: Future


def run_together_with_head_start(
    pool: Executor,
    calls: Sequence[Callable[[], _R]],
    stop: StopSignal,
    head_start: Callable[[_R], Any],
) -> tuple[list[_R], HeadStart | None]:
    """:func:`run_together`'s results, and ``head_start`` called on the result of the
    call that ended first, on the thread it left, while the others still ran (None
    if none still ran). The caller uses or abandons its future."""
    futures = [pool.submit(call) for call in calls]
    started = None
    try:
        done, running = wait(futures, return_when=FIRST_COMPLETED)
        first = futures.index(next(iter(done)))
        if running and futures[first].exception() is None:
            result = futures[first].result()
            started = HeadStart(first, pool.submit(head_start, result))
        return _results(futures), started
    except BaseException:
        stop.set()
        raise


def row_ranges(n: int, n_blocks: int) -> list[tuple[int, int]]:
    """``n_blocks`` contiguous ``(start, stop)`` ranges of ``n`` rows, sizes within one."""
    edges = np.linspace(0, n, min(n_blocks, max(n, 1)) + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def balanced_row_ranges(n: int, largest: int) -> list[tuple[int, int]]:
    """:func:`row_ranges` of at most ``largest`` rows each, as many as the next power
    of two: 2, 4, 8 or 16 threads then get equal shares of any data whose blocks
    outnumber them (⌈n/largest⌉ blocks would not: 7 blocks on 2 threads keep one
    idle for a seventh of the time), and the blocks still depend on ``n`` alone."""
    fewest = max(1, -(-n // largest))
    return row_ranges(n, 1 << (fewest - 1).bit_length())
