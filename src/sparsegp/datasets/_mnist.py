"""MNIST digits, at full 28×28 resolution or down-sampled to 13×13 as in [LSH02]."""

from __future__ import annotations

import numpy as np

from ._home import data_file


def downsample_13(images):
    """Crop 28×28 images to the central 26×26 and average 2×2 blocks (→ 13×13)."""
    cropped = np.asarray(images, dtype=np.float64)[:, 1:27, 1:27]
    return cropped.reshape(len(cropped), 13, 2, 13, 2).mean(axis=(2, 4))


def load_mnist(data_home=None, resolution=28):
    """Load MNIST, scaled to [0, 1] and flattened.

    Parameters
    ----------
    data_home : str or Path, optional
        Folder holding ``mnist.npz``; defaults to ``$SPARSEGP_DATA``.
    resolution : {28, 13}, default=28
        13 gives the 13×13 images of Lawrence, Seeger & Herbrich (2002): crop to
        26×26 and average 2×2 blocks (169 features).

    Returns
    -------
    X_train : ndarray of shape (60000, resolution²)
    y_train : ndarray of shape (60000,), digits 0-9
    X_test : ndarray of shape (10000, resolution²)
    y_test : ndarray of shape (10000,)
    """
    if resolution not in (13, 28):
        raise ValueError(f"resolution must be 13 or 28; got {resolution!r}.")
    with np.load(data_file("mnist.npz", data_home), allow_pickle=False) as archive:
        images = [archive["X_train"], archive["X_test"]]
        labels = [archive["y_train"].astype(int), archive["y_test"].astype(int)]
    if resolution == 13:
        images = [downsample_13(x) for x in images]
    X_train, X_test = (
        np.asarray(x, np.float64).reshape(len(x), -1) / 255.0 for x in images
    )
    return X_train, labels[0], X_test, labels[1]
