"""Small data shipped inside the package (the demo needs no download)."""

from __future__ import annotations

from importlib import resources

import numpy as np


def load_banana():
    """IDA banana, realization 1: 400 training and 4900 test points in 2-D.

    Shipped with the package (Rätsch's IDA benchmark distribution), so the demo and
    examples run without ``SPARSEGP_DATA``.

    Returns
    -------
    X_train, y_train, X_test, y_test : ndarrays, labels in {-1, +1}
    """
    with resources.as_file(
        resources.files(__package__) / "data" / "banana.npz"
    ) as path:
        with np.load(path, allow_pickle=False) as archive:
            X, y = archive["X"], archive["y"].astype(int)
            train, test = archive["train_idx"], archive["test_idx"]
    return X[train], y[train], X[test], y[test]
