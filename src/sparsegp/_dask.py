"""Predictions on dask arrays: each row block is predicted where it lives.

A fitted model is small (its active set, pseudo-inputs or basis vectors and their
factors), so prediction is embarrassingly parallel over rows: the model is shipped to
the workers with the task graph and every row block of ``X`` is predicted by one task;
``X`` is never gathered into the client. Requires the ``dask`` extra.
"""

from __future__ import annotations

import sys

import numpy as np


def is_dask_array(X) -> bool:
    """Whether ``X`` is a ``dask.array.Array`` (without importing dask otherwise)."""
    dask_array = sys.modules.get("dask.array")
    return dask_array is not None and isinstance(X, dask_array.Array)


def map_row_blocks(function, X, width, dtype, n_features):
    """``function`` over the row blocks of the dask array ``X``, lazily.

    Parameters
    ----------
    function : callable
        ``ndarray (rows, n_features) -> ndarray (rows,)`` (``width=None``) or
        ``(rows, width)``.
    X : dask.array.Array of shape (n_samples, n_features)
    width : int or None
    dtype : numpy dtype of the result
    n_features : int
        The fitted model's; checked before any task is built.

    Returns
    -------
    dask.array.Array of shape (n_samples,) or (n_samples, width), chunked as ``X``'s
    rows.
    """
    if X.ndim != 2 or X.shape[1] != n_features:
        raise ValueError(
            f"X has shape {X.shape}; the model was fitted on {n_features} features."
        )
    X = X.rechunk({1: -1})
    if width is None:
        return X.map_blocks(
            function, dtype=dtype, drop_axis=1, meta=np.empty((0,), dtype=dtype)
        )
    return X.map_blocks(
        function,
        dtype=dtype,
        chunks=(X.chunks[0], (width,)),
        meta=np.empty((0, 0), dtype=dtype),
    )


def map_row_pairs(function, X, width, n_features):
    """Two same-shaped float results of ``function`` per row block, as two dask arrays.

    ``function(block) -> (a, b)`` with ``a``, ``b`` of shape (rows,) (``width=None``)
    or (rows, width); both come from one task per block.
    """
    columns = 1 if width is None else width

    def stacked(block):
        first, second = function(block)
        return np.column_stack([first, second])

    both = map_row_blocks(stacked, X, 2 * columns, np.float64, n_features)
    if width is None:
        return both[:, 0], both[:, 1]
    return both[:, :columns], both[:, columns:]
