"""BLAS threads: a fit runs with one.

A multi-threaded BLAS wakes, spins and joins its threads on every call, and splits
each call statically between them. For the small products of an EP sweep or a greedy
selection step that costs more than the arithmetic, and when another process holds a
core the call waits for the descheduled thread's share. Large calls are no
exception on a machine that may be shared: full EP's n × n factorisations and FITC's
products lose more to a busy core than a second thread gains, and the spinning
thread that outlives each call slows the element-wise work between them
(algorithms.md §0.6). So every estimator fits inside :func:`fit_threads`,
with one BLAS and one OpenMP thread whatever the caller's setting, and gives the
caller's setting back afterwards (when the last of the fits running at once in
this process ends); parallelism comes from one-vs-rest problems on joblib workers and
row blocks on threads (``n_jobs``), and from dask.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from typing import Any

import threadpoolctl
from threadpoolctl import ThreadpoolController

__all__ = ["fit_threads", "one_blas_thread"]


@functools.cache
def _controller() -> ThreadpoolController:
    """The BLAS and OpenMP libraries loaded by numpy, scipy and scikit-learn.

    Inspected once, after those imports.
    """
    return ThreadpoolController()


#: Fits inside :func:`fit_threads` now, and the limit that restores the caller's
#: thread counts when the last of them ends (the counts are process-wide: two fits
#: overlapping in two threads must not restore them under each other).
_fits_running = 0
_caller_limits: Any = None
_fits_lock = threading.Lock()


def _take_control_of_openblas() -> None:
    """threadpoolctl lets one Python thread at a time set OpenBLAS's process-wide
    count (the first that limited it, until it restores), and ignores the others:
    a fit started in a worker thread while another thread holds a limit, or ending
    after the thread that limited it, would change nothing. Hand control to this
    thread (threadpoolctl's ``force`` clearing, meant for this)."""
    controller = getattr(threadpoolctl, "OpenBLASController", None)
    if controller is not None and hasattr(controller, "clear_controlling_thread"):
        controller.clear_controlling_thread(force=True)


@contextlib.contextmanager
def fit_threads():
    """Run a fit with one BLAS and one OpenMP thread.

    OpenMP is limited too: scikit-learn's k-means (FITC's initial pseudo-inputs) runs
    its small Lloyd steps on OpenMP threads, which spin like the BLAS's on a busy
    machine. The first fit to start in this process sets the limit and the last to
    end restores the caller's counts, so that fits in several threads at once all run
    with one thread.
    """
    global _fits_running, _caller_limits
    with _fits_lock:
        if _fits_running == 0:
            _take_control_of_openblas()
            _caller_limits = _controller().limit(limits=1)
        _fits_running += 1
    try:
        yield
    finally:
        with _fits_lock:
            _fits_running -= 1
            if _fits_running == 0:
                _take_control_of_openblas()
                _caller_limits.restore_original_limits()
                _caller_limits = None


def one_blas_thread(method):
    """Decorate an estimator's fitting method to run inside :func:`fit_threads`."""

    @functools.wraps(method)
    def fit_with_one_blas_thread(*args, **kwargs):
        with fit_threads():
            return method(*args, **kwargs)

    return fit_with_one_blas_thread
