"""Row blocks and the thread pools that run work on them."""

import functools
import threading
import time

import numpy as np
import pytest

from sparsegp.approximations.blocks import (
    GatedPool,
    RowPool,
    Stopped,
    StopSignal,
    _Timings,
    _work_of,
    run_together_with_head_start,
    summed,
    thread_pool,
)


class _Concurrency:
    """Counts the tasks running at once, each holding for a moment."""

    def __init__(self):
        self.lock, self.now, self.most = threading.Lock(), 0, 0

    def task(self, _):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(0.02)
        with self.lock:
            self.now -= 1


def test_a_gated_pool_runs_its_permits_at_once_until_opened():
    closed, opened = _Concurrency(), _Concurrency()
    with GatedPool(3, 1, StopSignal()) as pool:
        list(pool.map(closed.task, range(6)))
        pool.open()
        list(pool.map(opened.task, range(6)))
    assert closed.most == 1
    assert opened.most == 3


def test_a_gated_pool_stops_its_tasks_once_its_signal_is_set():
    stop = StopSignal()
    with GatedPool(2, 2, stop) as pool:
        assert pool.submit(lambda: 1).result() == 1
        stop.set()
        with pytest.raises(Stopped):
            pool.submit(lambda: 1).result()


def test_the_head_start_runs_on_the_first_result_while_the_other_call_runs():
    slow_may_end, seen = threading.Event(), []

    def slow():
        assert slow_may_end.wait(5)
        return "slow"

    def head_start(result):
        seen.append(result)
        slow_may_end.set()  # the head start ran before the slow call ended
        return result + " continued"

    with thread_pool(2) as pool:
        results, started = run_together_with_head_start(
            pool, [slow, lambda: "fast"], StopSignal(), head_start
        )
    assert results == ["slow", "fast"]
    assert started.index == 1 and started.future.result() == "fast continued"
    assert seen == ["fast"]


def test_no_head_start_after_a_failed_call_and_the_others_are_stopped():
    stop = StopSignal()

    def fails():
        raise ValueError("no")

    def checks():
        while True:
            stop.check()
            time.sleep(0.001)

    with thread_pool(2) as pool, pytest.raises(ValueError, match="no"):
        run_together_with_head_start(pool, [checks, fails], stop, pytest.fail)
    with pytest.raises(Stopped):
        stop.check()


def _faster_in_caller(value, seen, caller):
    """An item that waits 40 ms on a thread and 5 ms in the caller's thread: a map of
    four takes 80 ms on two threads against 20 ms in the caller's."""
    seen.append(threading.get_ident())
    time.sleep(0.005 if threading.get_ident() == caller else 0.04)
    return 2 * value


def _faster_on_threads(value, seen, caller):
    """An item that waits 40 ms wherever it runs: a map of four takes 80 ms on two
    threads against 160 ms in the caller's."""
    seen.append(threading.get_ident())
    time.sleep(0.04)
    return 2 * value


def _ways(pool, n_maps, item=_faster_in_caller):
    """Where each of ``n_maps`` maps of four ``item``'s ran: "threads" or "caller"."""
    caller, ways = threading.get_ident(), []
    for _ in range(n_maps):
        seen = []
        results = pool.map(item, range(4), [seen] * 4, [caller] * 4)
        assert list(results) == [0, 2, 4, 6]
        ways.append("caller" if set(seen) == {caller} else "threads")
    return ways


def test_a_row_pool_runs_a_function_where_its_maps_were_faster(monkeypatch):
    monkeypatch.setattr(_Timings, "TRIES_EVERY", 1.0)  # try the other way soon
    with RowPool(2) as pool:
        ways = _ways(pool, 12)
    # the caller's thread is tried once the threads have run for as long as it was
    # taken to need (twice their time on two threads), then kept
    first = ways.index("caller")
    assert ways[:2] == ["threads", "threads"] and first <= 3
    assert ways[first + 1] == "caller"
    assert "threads" in ways[first + 2 :]  # tried again, and left again
    assert ways.count("caller") > ways.count("threads")


def test_a_row_pool_times_each_function_apart(monkeypatch):
    monkeypatch.setattr(_Timings, "TRIES_EVERY", 1.0)
    slow_on_threads, fast_on_threads = [], []
    with RowPool(2) as pool:
        for _ in range(10):  # the two functions' maps in turns
            slow_on_threads += _ways(pool, 1)
            fast_on_threads += _ways(pool, 1, _faster_on_threads)
    assert slow_on_threads.count("caller") > slow_on_threads.count("threads")
    assert fast_on_threads.count("threads") > fast_on_threads.count("caller")


def test_a_row_pool_times_a_function_by_its_code():
    def double(value, offset=0):
        return 2 * value + offset

    class Doubler:
        def double(self, value):
            return 2 * value

    assert _work_of(double) is _work_of(functools.partial(double, offset=1))
    assert _work_of(Doubler().double) is _work_of(Doubler().double)
    assert _work_of(lambda v: v) is not _work_of(double)


def test_a_row_pool_keeps_its_threads_for_a_function_mapped_a_few_times():
    assert _Timings.TRIES_EVERY >= 20
    with RowPool(2) as pool:
        assert _ways(pool, 3) == ["threads"] * 3
        assert list(pool.map(lambda a, b: a + b, [1, 2], [3, 4])) == [4, 6]


def test_a_row_pool_passes_on_an_item_error_on_threads_and_in_the_caller(monkeypatch):
    monkeypatch.setattr(_Timings, "TRIES_EVERY", 0.0)  # each timed map tries the other
    caller, failed_in = threading.get_ident(), []

    def fails(value):
        if value == 1:
            failed_in.append(threading.get_ident())
            raise ValueError("no")
        return value

    with RowPool(2) as pool:
        with pytest.raises(ValueError, match="no"):
            list(pool.map(fails, range(4)))  # on the threads, untimed
        assert list(pool.map(fails, [0, 2])) == [0, 2]  # on the threads, timed
        with pytest.raises(ValueError, match="no"):
            list(pool.map(fails, range(4)))  # in the caller's thread
    assert failed_in[0] != caller and failed_in[1] == caller


def test_summed_adds_numbers_arrays_and_tuples_in_order_and_passes_on_a_refusal():
    first = (np.array([1.0, 2.0]), 3.0, 1)
    second = (np.array([0.5, 0.25]), 1.0, 2)
    total = summed([first, second])
    np.testing.assert_array_equal(total[0], [1.5, 2.25])
    assert total[1:] == (4.0, 3)
    assert summed([first, None, second]) is None
    assert summed([1e16, 1.0, -1e16]) == (1e16 + 1.0) - 1e16  # left to right
