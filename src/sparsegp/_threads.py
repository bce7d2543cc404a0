"""BLAS threads: a fit runs with one.

A multi-threaded BLAS wakes, spins and joins its threads on every call, and splits
each call statically between them. For the small products of an EP sweep or a greedy
selection step that costs more than the arithmetic, and when another process holds a
core the call waits for the descheduled thread's share: a fit on a loaded two-core
machine ran 25-57× slower with two threads than with one. Large calls are no
exception on a machine that may be shared — full EP at n = 2 000 took 36.7 s with its
n × n factorisations on two threads against 20.7 s on one while another process kept a
core busy (14.2 against 19.0 s when idle), FITC at N = 20 000 30.2 against 8.4 s
(14.5 against 8.4 s idle: the spinning thread that outlives each call slows the
element-wise work between them). So every estimator fits inside :func:`fit_threads`,
with one BLAS and one OpenMP thread whatever the caller's setting, and gives the
caller's setting back afterwards; parallelism comes from one-vs-rest problems on
joblib workers (``n_jobs``) and from dask.
"""

from __future__ import annotations

import contextlib
import functools

from threadpoolctl import ThreadpoolController

__all__ = ["fit_threads", "one_blas_thread"]


@functools.cache
def _controller() -> ThreadpoolController:
    """The BLAS and OpenMP libraries loaded by numpy, scipy and scikit-learn.

    Inspected once (~0.1 ms), after those imports.
    """
    return ThreadpoolController()


@contextlib.contextmanager
def fit_threads():
    """Run a fit with one BLAS and one OpenMP thread.

    OpenMP is limited too: scikit-learn's k-means (FITC's initial pseudo-inputs) runs
    its small Lloyd steps on OpenMP threads, which spin like the BLAS's on a busy
    machine. The caller's thread counts are restored on exit.
    """
    with _controller().limit(limits=1):
        yield


def one_blas_thread(method):
    """Decorate an estimator's fitting method to run inside :func:`fit_threads`."""

    @functools.wraps(method)
    def fit_with_one_blas_thread(*args, **kwargs):
        with fit_threads():
            return method(*args, **kwargs)

    return fit_with_one_blas_thread
