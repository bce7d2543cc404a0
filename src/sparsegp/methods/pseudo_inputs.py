"""Where pseudo-inputs start: k-means centres of the training inputs, each class its
share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.cluster import KMeans

from .._dask import is_dask_array, rows_of

__all__ = ["class_shares", "equal_shares", "kmeans_centres"]

#: Training points k-means sees per pseudo-input: the initial centres only need to
#: cover the data, and the optimizer moves them; k-means on all N costs O(N·M·D) per
#: Lloyd iteration.
KMEANS_POINTS_PER_CENTRE = 20


def kmeans_centres(
    X: Any, rows: np.ndarray, M: int, rng: np.random.RandomState
) -> np.ndarray:
    """``M`` k-means centres of ``X[rows]``, fitted on at most
    ``KMEANS_POINTS_PER_CENTRE·M`` of them; their distinct inputs instead where
    there are at most ``M`` (repeated inputs: k-means would find fewer centres)."""
    sample_rows = rows
    if len(rows) > KMEANS_POINTS_PER_CENTRE * M:
        sample_rows = rows[
            rng.choice(len(rows), KMEANS_POINTS_PER_CENTRE * M, replace=False)
        ]
    sample, weights = rows_of(X, sample_rows), None
    distinct, counts = np.unique(sample, axis=0, return_counts=True)
    if len(distinct) < M:
        if not is_dask_array(X):
            distinct, counts = np.unique(X[rows], axis=0, return_counts=True)
        if len(distinct) <= M:
            return distinct
        sample, weights = distinct, counts  # k-means on the rows, each input once
    kmeans = KMeans(n_clusters=M, n_init=1, random_state=rng)
    return kmeans.fit(sample, sample_weight=weights).cluster_centers_


def equal_shares(sizes: Sequence[int], total: int) -> np.ndarray:
    """How many of ``total`` to draw from groups of ``sizes`` (``total`` at most their
    sum): equal shares, a group smaller than its share taken whole and its shortfall
    shared by the larger ones."""
    shares = np.zeros(len(sizes), dtype=int)
    for position, group in enumerate(np.argsort(sizes, kind="stable")):
        groups_left = len(sizes) - position  # the smallest are served first
        shares[group] = min(sizes[group], -(-(total - shares.sum()) // groups_left))
    return shares


def class_shares(labels: np.ndarray, total: int) -> list[tuple[np.ndarray, int]]:
    """Each class's rows of ``labels`` with its :func:`equal_shares` share of
    ``total``, as ``(rows, share)`` pairs in the order of ``np.unique(labels)``."""
    members = [np.flatnonzero(labels == label) for label in np.unique(labels)]
    shares = equal_shares([len(rows) for rows in members], total)
    return list(zip(members, shares, strict=True))
