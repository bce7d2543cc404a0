"""Memory estimated before a large buffer is allocated, and the memory an object holds.

``numpy.zeros`` reserves pages lazily, so an allocation larger than the machine can hold
succeeds and the process is killed later, when the pages are touched. Methods that
allocate an O(n·d) store check its size against the available memory first.

A method that allocates and frees the same megabytes of temporaries at every evaluation
keeps them in the C heap meanwhile (:func:`heap_kept`).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import dataclasses
import functools
import os
from collections.abc import Iterator

import numpy as np

__all__ = ["available_memory", "heap_kept", "held_bytes", "require_memory"]

#: glibc's largest dynamic mmap threshold on 64-bit systems, and the trim threshold it
#: sets beside it (twice that): the state its own policy reaches once a block of that
#: size has been freed, which :func:`heap_kept` leaves behind.
_MMAP_THRESHOLD = 32 * 2**20
_TRIM_THRESHOLD = 2 * _MMAP_THRESHOLD
#: ``mallopt``'s parameter numbers (glibc's malloc.h).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3

#: Fraction of the available memory one buffer may take.
_USABLE_FRACTION = 0.8


def available_memory() -> int | None:
    """Bytes of memory available to new allocations, or ``None`` if unknown.

    Linux's ``MemAvailable`` (``/proc/meminfo``) where present, else free physical
    pages (``os.sysconf``).
    """
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def require_memory(n_bytes: float, what: str, advice: str):
    """Raise ``MemoryError`` if ``n_bytes`` will not fit in the available memory.

    Parameters
    ----------
    n_bytes : float
        Size of the buffer about to be allocated.
    what : str
        The buffer, e.g. ``"the IVM's V (d × n float64)"``.
    advice : str
        What the user can change, e.g. ``"lower active_set_size"``.
    """
    available = available_memory()
    if available is not None and n_bytes > _USABLE_FRACTION * available:
        raise MemoryError(
            f"{what} needs {n_bytes / 2**30:.2f} GiB and {available / 2**30:.2f} GiB "
            f"is available: {advice}."
        )


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    """The C library where it is glibc (it has ``mallopt`` and ``malloc_trim``)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
    except (OSError, TypeError, AttributeError):
        return None
    return libc


@contextlib.contextmanager
def heap_kept(n_bytes: float = 0) -> Iterator[None]:
    """Within the block, arrays of up to 32 MB come from glibc's heap and up to
    ``n_bytes`` + 64 MB of freed memory stay there, then the free memory is returned.

    glibc returns freed memory at the top of its heap to the kernel beyond a threshold
    that follows the largest block freed (a few MB for row blocks' M × b arrays), so
    a method whose evaluations allocate and free the same temporaries has every page
    of them zeroed and mapped again, one fault a 4 kB page, at every evaluation. On
    exit the heap's free memory is returned (``malloc_trim``) and the thresholds are
    those glibc's own policy reaches after a 32 MB block is freed. Elsewhere than on
    glibc, nothing is changed.
    """
    libc = _glibc()
    if libc is None:
        yield
        return
    libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
    libc.mallopt(_M_TRIM_THRESHOLD, min(int(n_bytes) + _TRIM_THRESHOLD, 2**31 - 1))
    try:
        yield
    finally:
        libc.mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)
        libc.malloc_trim(0)


def held_bytes(value: object, seen: set[int] | None = None) -> int:
    """Bytes of the numpy arrays ``value`` is or holds in its tuples, lists, dicts,
    dataclass fields and attributes, each array counted once.

    The row blocks kept on a dask cluster report this as their ``__sizeof__``: dask's
    scheduler weighs moving a task's inputs by their ``sizeof``, which for an object is
    ``sys.getsizeof`` — a few dozen bytes for a block of hundreds of megabytes — so it
    moved blocks between workers to run a task beside a small scattered argument.
    """
    seen = set() if seen is None else seen
    if id(value) in seen or isinstance(value, type):
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, tuple | list):
        return sum(held_bytes(item, seen) for item in value)
    if isinstance(value, dict):
        return sum(held_bytes(item, seen) for item in value.values())
    if dataclasses.is_dataclass(value):
        fields = dataclasses.fields(value)
        return sum(held_bytes(getattr(value, f.name), seen) for f in fields)
    if hasattr(value, "__dict__"):  # e.g. a block's kept CrossCovariance
        return sum(held_bytes(item, seen) for item in vars(value).values())
    return 0
