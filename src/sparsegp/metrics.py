"""Metrics the papers report beyond error rates."""

from __future__ import annotations

import numpy as np


def rejection_curve(y_true, proba, classes, *, fractions=None):
    """Error rate on the points kept after rejecting the least confident ones.

    Points are ranked by ``|P(y = classes[1]) − ½|`` (Lawrence et al. 2002, Fig. 1)
    and the least confident fraction is rejected.

    Parameters
    ----------
    y_true : ndarray of shape (n,)
    proba : ndarray of shape (n, 2)
        ``predict_proba`` of a binary classifier.
    classes : ndarray of shape (2,)
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
    if proba.ndim != 2 or proba.shape[1] != 2 or len(proba) != len(y_true):
        raise ValueError("proba must have shape (n_samples, 2) matching y_true.")
    fractions = np.linspace(0, 0.2, 21) if fractions is None else np.asarray(fractions)
    order = np.argsort(-np.abs(proba[:, 1] - 0.5), kind="stable")
    wrong = (np.asarray(classes)[(proba[:, 1] > 0.5).astype(int)] != y_true)[order]
    kept = np.maximum(1, np.round((1 - fractions) * len(y_true)).astype(int))
    return fractions, np.array([wrong[:k].mean() for k in kept])
