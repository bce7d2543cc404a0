"""Memory estimated before a large buffer is allocated, and the memory an object holds.

``numpy.zeros`` reserves pages lazily, so an allocation larger than the machine can hold
succeeds and the process is killed later, when the pages are touched. Methods that
allocate an O(n·d) store check its size against the available memory first.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

__all__ = ["available_memory", "held_bytes", "require_memory"]

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
