"""Metrics the papers report beyond error rates."""

from __future__ import annotations

import numpy as np


def rejection_curve(y_true, proba, classes, *, fractions=None):
    """Error rate on the points kept after rejecting the least confident ones.

    Points are ranked by their largest class probability — for two classes,
    ``|P(y = classes[1]) − ½|`` as in Lawrence et al. (2002), Fig. 1 — and the least
    confident fraction is rejected.

    Parameters
    ----------
    y_true : ndarray of shape (n,)
    proba : ndarray of shape (n, n_classes)
        ``predict_proba`` of a classifier.
    classes : ndarray of shape (n_classes,)
        The classifier's ``classes_``.
    fractions : ndarray, optional
        Rejected fractions in [0, 1); default 0, 0.01, …, 0.2.

    Returns
    -------
    fractions : ndarray
    errors : ndarray
        Error rate on the kept points for each fraction.
    """
    y_true = np.asarray(y_true)
    proba = np.asarray(proba, dtype=float)
    classes = np.asarray(classes)
    if proba.ndim != 2 or proba.shape[1] != len(classes) or len(proba) != len(y_true):
        raise ValueError(
            "proba must have shape (n_samples, n_classes) matching y_true and classes."
        )
    fractions = np.linspace(0, 0.2, 21) if fractions is None else np.asarray(fractions)
    order = np.argsort(-proba.max(axis=1), kind="stable")
    wrong = (classes[np.argmax(proba, axis=1)] != y_true)[order]
    kept = np.maximum(1, np.round((1 - fractions) * len(y_true)).astype(int))
    return fractions, np.array([wrong[:k].mean() for k in kept])


def expected_calibration_error(y_true, proba, *, n_bins=15):
    """Expected calibration error of binary probabilities, equal-width bins.

    ``Σ_b (n_b / n) · |ȳ_b − p̄_b|`` over the bins ``[k/n_bins, (k+1)/n_bins)`` of
    the predicted probability ``p`` (Naeini et al. 2015): the gap between the
    reliability diagram (scikit-learn's ``calibration_curve``, same bins) and the
    diagonal, weighted by how many points each bin holds.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary outcomes: booleans, or 0/1.
    proba : array-like of shape (n,)
        Predicted probabilities of the positive outcome.
    n_bins : int, default=15

    Returns
    -------
    float
    """
    y_true = np.asarray(y_true, dtype=float)
    proba = np.asarray(proba, dtype=float)
    if y_true.shape != proba.shape or y_true.ndim != 1 or len(y_true) == 0:
        raise ValueError(
            "y_true and proba must be non-empty 1-D arrays of one length; got shapes "
            f"{y_true.shape} and {proba.shape}."
        )
    if np.any((proba < 0) | (proba > 1)) or not np.all(np.isin(y_true, (0.0, 1.0))):
        raise ValueError("proba must lie in [0, 1] and y_true be 0/1.")
    bins = np.minimum((proba * n_bins).astype(int), n_bins - 1)
    gaps = np.bincount(bins, weights=y_true - proba, minlength=n_bins)
    return float(np.sum(np.abs(gaps)) / len(y_true))
