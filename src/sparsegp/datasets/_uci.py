"""The UCI regression sets of the scalable-GP literature, with their published splits."""

from __future__ import annotations

import numpy as np

from ._home import data_file

#: The sets of ``$SPARSEGP_DATA/uci_*.npz`` (treforevans/uci_datasets' ten 90/10 splits).
UCI_NAMES = ("pol", "elevators", "bike", "kin40k", "keggdirected", "pumadyn32nm")

#: Published train/test splits of each set.
UCI_SPLITS = 10


def load_uci(name, split=0, data_home=None):
    """Load one train/test split of a UCI regression set, targets as published.

    The collection Wang et al. (2019) and later papers on scalable GPs use: pol
    (15 000 × 26), elevators (16 599 × 18), bike (17 379 × 17), kin40k (40 000 × 8),
    keggdirected (48 827 × 20) and pumadyn32nm (8 192 × 32), each with ten 90/10
    splits. Standardise on the training part, as usual.

    Parameters
    ----------
    name : str
        One of :data:`UCI_NAMES`.
    split : int in [0, 10), default=0
    data_home : str or Path, optional
        Folder holding ``uci_<name>.npz``; defaults to ``$SPARSEGP_DATA``.

    Returns
    -------
    X_train, y_train, X_test, y_test : ndarrays
    """
    if name not in UCI_NAMES:
        raise ValueError(f"name must be one of {UCI_NAMES}; got {name!r}.")
    if not 0 <= split < UCI_SPLITS:
        raise ValueError(f"split must be in [0, {UCI_SPLITS}); got {split!r}.")
    with np.load(data_file(f"uci_{name}.npz", data_home), allow_pickle=False) as data:
        X, y, test = data["X"], data["y"], data["test_mask"][:, split]
    return X[~test], y[~test], X[test], y[test]
