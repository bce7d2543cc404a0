"""MNIST digits, at full 28×28 resolution or down-sampled to 13×13 as in [LSH02]."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from sklearn.datasets import fetch_openml, get_data_home

from ._home import DATA_ENV_VAR, data_file

#: Training images of MNIST; OpenML's ``mnist_784`` lists them before the 10 000 test ones.
_N_TRAIN = 60_000


def downsample_13(images):
    """Crop 28×28 images to the central 26×26 and average 2×2 blocks (→ 13×13)."""
    cropped = np.asarray(images, dtype=np.float64)[:, 1:27, 1:27]
    return cropped.reshape(len(cropped), 13, 2, 13, 2).mean(axis=(2, 4))


def load_mnist(data_home=None, resolution=28, *, download=False):
    """Load MNIST, scaled to [0, 1] and flattened.

    Parameters
    ----------
    data_home : str or Path, optional
        Folder holding ``mnist.npz``; defaults to ``$SPARSEGP_DATA``.
    resolution : {28, 13}, default=28
        13 gives the 13×13 images of Lawrence, Seeger & Herbrich (2002): crop to
        26×26 and average 2×2 blocks (169 features).
    download : bool, default=False
        If ``mnist.npz`` is not found, fetch MNIST from OpenML (``mnist_784``, about
        15 MB, with scikit-learn's :func:`~sklearn.datasets.fetch_openml`) and save it
        as ``mnist.npz`` in ``data_home`` (or ``$SPARSEGP_DATA``, or scikit-learn's
        data home), where later calls (with ``download=True`` for scikit-learn's
        data home) find it.

    Returns
    -------
    X_train : ndarray of shape (60000, resolution²)
    y_train : ndarray of shape (60000,), digits 0-9
    X_test : ndarray of shape (10000, resolution²)
    y_test : ndarray of shape (10000,)
    """
    if resolution not in (13, 28):
        raise ValueError(f"resolution must be 13 or 28; got {resolution!r}.")
    with np.load(_archive(data_home, download), allow_pickle=False) as archive:
        images = [archive["X_train"], archive["X_test"]]
        labels = [archive["y_train"].astype(int), archive["y_test"].astype(int)]
    if resolution == 13:
        images = [downsample_13(x) for x in images]
    X_train, X_test = (
        np.asarray(x, np.float64).reshape(len(x), -1) / 255.0 for x in images
    )
    return X_train, labels[0], X_test, labels[1]


def _archive(data_home, download):
    """``mnist.npz``: found in the data folder, or (``download``) fetched from OpenML once."""
    try:
        return data_file("mnist.npz", data_home)
    except FileNotFoundError as missing:
        if not download:
            raise FileNotFoundError(
                f"{missing} Or pass download=True to fetch MNIST from OpenML."
            ) from None
    home = data_home or os.environ.get(DATA_ENV_VAR) or get_data_home()
    cached = Path(home).expanduser() / "mnist.npz"
    if not cached.is_file():
        save_openml_mnist(cached)
    return cached


def save_openml_mnist(path):
    """Fetch OpenML's ``mnist_784`` and save it in :func:`load_mnist`'s layout.

    ``X_train`` (60000, 28, 28) and ``X_test`` (10000, 28, 28) as ``uint8``, ``y_train``
    and ``y_test`` as ``int8`` digits, compressed.
    """
    bunch = fetch_openml("mnist_784", version=1, as_frame=False, parser="liac-arff")
    images = np.asarray(bunch.data, dtype=np.uint8).reshape(-1, 28, 28)
    digits = np.asarray(bunch.target).astype(np.int8)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        path,
        X_train=images[:_N_TRAIN],
        y_train=digits[:_N_TRAIN],
        X_test=images[_N_TRAIN:],
        y_test=digits[_N_TRAIN:],
    )
