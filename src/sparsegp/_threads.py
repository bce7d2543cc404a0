"""BLAS threads: one for loops of small calls, the caller's count for large products.

A multi-threaded BLAS wakes, spins and joins its threads on every call. For the small
products of an EP sweep or a greedy selection step that costs more than the arithmetic,
and when another process holds a core the spinning thread waits for a whole time slice:
a fit on a loaded two-core machine ran 25-57× slower with two threads than with one.
So an estimator fits inside :func:`fit_threads`, which limits the BLAS to one thread,
and the engines lift that limit back to the caller's thread count for the products
large enough to gain from it (:func:`large_product`): the dense EP's n × n
factorisations (n = 2 000: 14.2 s with two threads against 19.0 s with one, idle).
The FITC sweeps' and evidence gradients' products on tall, thin N × M matrices, and
the kernel cross blocks, stay on one thread even when large: they gain little from a
second thread (syrk 11.8 → 9.4 ms at M = 200, N = 20 000), and the spinning BLAS
thread that outlives each call slows the element-wise work between them — a whole
FITC fit at N = 20 000 took 14.5 s with two threads against 8.4 s with one on the idle
machine, 30.2 s against 8.4 s with one core busy.
"""

from __future__ import annotations

import contextlib
import functools
from contextvars import ContextVar

from threadpoolctl import ThreadpoolController

__all__ = ["fit_threads", "large_product", "one_blas_thread"]

#: Flops of the smallest product worth more than one thread: ~20 ms on one core, long
#: beside the wake-up and join of a second thread even on a loaded machine.
LARGE_PRODUCT_FLOPS = 1e9

#: BLAS threads the caller of the current fit allowed (None: not inside a fit).
_caller_threads: ContextVar[int | None] = ContextVar("caller_threads", default=None)


@functools.cache
def _controller() -> ThreadpoolController:
    """The BLAS and OpenMP libraries loaded by numpy, scipy and scikit-learn.

    Inspected once (~0.1 ms), after those imports.
    """
    return ThreadpoolController()


def _blas():
    return _controller().select(user_api="blas")


def _current_threads() -> int:
    return max((lib["num_threads"] for lib in _blas().info()), default=1)


@contextlib.contextmanager
def fit_threads():
    """Run a fit with one BLAS and one OpenMP thread.

    :func:`large_product` may give the BLAS the caller's threads back. OpenMP is
    limited too: scikit-learn's k-means (FITC's initial pseudo-inputs) runs its small
    Lloyd steps on OpenMP threads, which spin like the BLAS's on a busy machine. A
    fit inside a fit (e.g. the online classifier's hyperparameters by
    ``EPGPClassifier``) keeps the outer fit's setting.
    """
    if _caller_threads.get() is not None:
        yield
        return
    token = _caller_threads.set(_current_threads())
    try:
        with _controller().limit(limits=1):
            yield
    finally:
        _caller_threads.reset(token)


def one_blas_thread(method):
    """Decorate an estimator's fitting method to run inside :func:`fit_threads`."""

    @functools.wraps(method)
    def fit_with_one_blas_thread(*args, **kwargs):
        with fit_threads():
            return method(*args, **kwargs)

    return fit_with_one_blas_thread


def large_product(flops: float):
    """Context for a product or factorisation of ``flops`` floating-point operations.

    Inside :func:`fit_threads` and for at least :data:`LARGE_PRODUCT_FLOPS`, the BLAS
    gets the caller's thread count back; otherwise nothing changes.
    """
    caller = _caller_threads.get()
    if caller is None or caller == 1 or flops < LARGE_PRODUCT_FLOPS:
        return contextlib.nullcontext()
    return _blas().limit(limits=caller)
