"""Ripley's (1996) synth and crabs data, as used in [NGH07]'s Table 1."""

from __future__ import annotations

import numpy as np

from ._home import data_file

#: Training examples per species×sex group of a crabs split (80 train / 120 test).
_CRABS_TRAIN_PER_GROUP = 20


def load_synth(data_home=None):
    """Ripley's synthetic two-class problem with its fixed split (250 / 1000).

    Returns
    -------
    X_train, y_train, X_test, y_test : ndarrays
        Two inputs as published, labels in {-1, +1}.
    """
    with np.load(data_file("synth.npz", data_home)) as archive:
        return tuple(
            archive[key].astype(float if key.startswith("X") else int)
            for key in ("X_train", "y_train", "X_test", "y_test")
        )


def load_crabs(realization=0, data_home=None):
    """Leptograpsus crabs, sex from five measurements, in a seeded 80 / 120 split.

    No split is published; [NGH07] reports 80 training and 120 test crabs. This
    draws 20 training crabs from each species×sex group with seed ``realization``
    and standardises the inputs with the training mean and deviation.

    Returns
    -------
    X_train, y_train, X_test, y_test : ndarrays
        Labels +1 for male, -1 for female.
    """
    with np.load(data_file("crabs.npz", data_home)) as archive:
        X, sex, species = (
            archive["X"].astype(float),
            archive["y_sex"],
            archive["y_species"],
        )
    rng = np.random.default_rng(realization)
    train = np.zeros(len(X), dtype=bool)
    for group_sex in (-1, 1):
        for group_species in (-1, 1):
            members = np.flatnonzero((sex == group_sex) & (species == group_species))
            train[rng.choice(members, _CRABS_TRAIN_PER_GROUP, replace=False)] = True
    mean, scale = X[train].mean(axis=0), X[train].std(axis=0)
    X = (X - mean) / scale
    y = sex.astype(int)
    return X[train], y[train], X[~train], y[~train]
