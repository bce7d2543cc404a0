"""Memory estimated before a large buffer is allocated.

``numpy.zeros`` reserves pages lazily, so an allocation larger than the machine can hold
succeeds and the process is killed later, when the pages are touched. Methods that
allocate an O(n·d) store check its size against the available memory first.
"""

from __future__ import annotations

import os

__all__ = ["available_memory", "require_memory"]

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
