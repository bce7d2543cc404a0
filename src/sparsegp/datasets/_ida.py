"""The 13 IDA (Rätsch) benchmark sets, ten train/test realizations each.

All but ringnorm, twonorm and waveform (0.7-1.3 MB each) ship with the package.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._home import data_file

IDA_NAMES = (
    "banana",
    "breast_cancer",
    "diabetis",
    "flare_solar",
    "german",
    "heart",
    "image",
    "ringnorm",
    "splice",
    "thyroid",
    "titanic",
    "twonorm",
    "waveform",
)


@dataclass(frozen=True)
class IDAInfo:
    """What is known about the provenance of one IDA set.

    Attributes
    ----------
    name : str
    realizations : ndarray of int
        IDA's 1-based realization numbers, in file order.
    reconstructed : ndarray of bool
        True where a realization is not an original IDA split (report those apart).
    label_definition : str or None
        For reconstructed sets, how labels were derived from the raw data.
    """

    name: str
    realizations: np.ndarray
    reconstructed: np.ndarray
    label_definition: str | None


def _open(name, data_home):
    if name not in IDA_NAMES:
        raise ValueError(f"Unknown IDA data set {name!r}; choose one of {IDA_NAMES}.")
    return np.load(data_file(f"ida_{name}.npz", data_home), allow_pickle=False)


def ida_info(name, data_home=None) -> IDAInfo:
    """Provenance of IDA set ``name``: realization numbers and reconstruction flags."""
    with _open(name, data_home) as archive:
        n = len(archive["train_idx"])
        flags = (
            archive["reconstructed"]
            if "reconstructed" in archive
            else np.zeros(n, bool)
        )
        label = (
            str(archive["label_definition"]) if "label_definition" in archive else None
        )
        return IDAInfo(name, archive["realizations"].copy(), flags.astype(bool), label)


def load_ida(name, realization=0, data_home=None):
    """Load one train/test realization of an IDA benchmark set.

    Parameters
    ----------
    name : str
        One of :data:`IDA_NAMES`.
    realization : int, default=0
        0-based index of the realization (0..9); :func:`ida_info` maps it to IDA's
        numbering and says whether it is a reconstruction.
    data_home : str or Path, optional
        Folder holding ``ida_<name>.npz``; defaults to ``$SPARSEGP_DATA``. All sets
        but ringnorm, twonorm and waveform are shipped with the package and load
        without it.

    Returns
    -------
    X_train, y_train, X_test, y_test : ndarrays
        Features as distributed by IDA (already standardised), labels in {-1, +1}.
    """
    with _open(name, data_home) as archive:
        n_realizations = len(archive["train_idx"])
        if not 0 <= realization < n_realizations:
            raise ValueError(
                f"realization must be in [0, {n_realizations - 1}]; got {realization}."
            )
        X, y = archive["X"], archive["y"].astype(int)
        train, test = (
            archive["train_idx"][realization],
            archive["test_idx"][realization],
        )
        return X[train], y[train], X[test], y[test]
