"""MAGIC gamma telescope: a noisy 10-feature tabular benchmark (UCI, Bock et al. 2004)."""

from __future__ import annotations

import numpy as np

from ._home import data_file

#: Seeded stratified train/test splits in ``magic.npz`` (no published splits exist).
MAGIC_REALIZATIONS = 10


def load_magic(realization=0, data_home=None):
    """Load one train/test split of MAGIC gamma (19 020 simulated telescope events).

    Ten raw-unit Hillas parameters of each shower image; the label is gamma (signal,
    ``+1``, 64.8 %) or hadron (``-1``). The data README gives the test error strong
    classifiers reach.

    Parameters
    ----------
    realization : int in [0, 10), default=0
        Which of the ten seeded stratified splits (12 680 training, 6 340 test points).
    data_home : str or Path, optional
        Folder holding ``magic.npz``; defaults to ``$SPARSEGP_DATA``.

    Returns
    -------
    X_train, y_train, X_test, y_test : ndarrays
    """
    if not 0 <= realization < MAGIC_REALIZATIONS:
        raise ValueError(
            f"realization must be in [0, {MAGIC_REALIZATIONS}); got {realization!r}."
        )
    with np.load(data_file("magic.npz", data_home), allow_pickle=False) as archive:
        X, y = archive["X"], archive["y"].astype(int)
        train = archive["train_idx"][realization]
        test = archive["test_idx"][realization]
    return X[train], y[train], X[test], y[test]
