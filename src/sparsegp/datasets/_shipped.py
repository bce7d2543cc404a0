"""Small data shipped inside the package (the demo needs no download)."""

from __future__ import annotations

from ._ida import load_ida


def load_banana():
    """IDA banana, realization 1: 400 training and 4900 test points in 2-D.

    Shipped with the package (Rätsch's IDA benchmark distribution, like the other small
    IDA sets: :func:`~sparsegp.datasets.load_ida`), so the demo and examples run
    without ``SPARSEGP_DATA``.

    Returns
    -------
    X_train, y_train, X_test, y_test : ndarrays, labels in {-1, +1}
    """
    return load_ida("banana", 0)
