"""Dask glue: predictions on dask arrays, and row blocks kept on a cluster for fitting.

A fitted model is small (its active set, pseudo-inputs or basis vectors and their
factors), so prediction is embarrassingly parallel over rows: the model is shipped to
the workers with the task graph and every row block of ``X`` is predicted by one task;
``X`` is never gathered into the client. Fitting on a cluster keeps each row block on
its worker (:class:`DaskBlocks`) and moves only small per-block statistics. Requires
the ``dask`` extra.
"""

from __future__ import annotations

import operator
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


def rows_of(X, rows):
    """``X[rows]`` (integer ``rows``) in memory, gathered from the cluster if ``X`` is
    a dask array."""
    picked = X[np.asarray(rows, dtype=int)]
    return picked.compute() if is_dask_array(picked) else picked


class DaskBlocks:
    """Row blocks on a dask.distributed cluster, each a future on its worker.

    :class:`~sparsegp.approximations.blocks.Blocks` for the client
    ``client``: :meth:`update` submits one task per block, which runs where the
    block lives and leaves its result there; :meth:`map` does the same and gathers
    the (small) results; :meth:`update_and_map` does both in one round. Array
    arguments are scattered once per call, not shipped with each task.
    """

    def __init__(self, client, futures):
        self.client = client
        self.futures = list(futures)

    @classmethod
    def from_rows(cls, client, X, y, make_block, *arguments):
        """One block per row chunk of the dask array ``X``.

        Block ``b`` is ``make_block(rows, labels, first, *arguments)``, ``first`` the
        index of its first row. ``X`` is read by the workers chunk by chunk; only the
        task graph, and ``y``'s slices, leave the client.
        """
        import dask

        X = X.rechunk({1: -1})
        edges = np.cumsum((0, *X.chunks[0]))
        blocks = [
            dask.delayed(make_block)(rows, y[start:stop], int(start), *arguments)
            for rows, start, stop in zip(
                X.to_delayed().ravel(), edges[:-1], edges[1:], strict=True
            )
        ]
        return cls(client, client.compute(blocks))

    def _submit(self, function, arguments):
        # Scattered to one worker under a fresh key; the others fetch it as a task
        # dependency. ``broadcast=True`` goes through ``replicate``, which lost a key
        # of a content-hashed array released by the previous call (a failed CI run;
        # dask/distributed#6578 lists replicate's fragility).
        shared = [
            self.client.scatter(a, hash=False) if isinstance(a, np.ndarray) else a
            for a in arguments
        ]
        return [
            self.client.submit(function, block, *shared, pure=False)
            for block in self.futures
        ]

    def map(self, function, *arguments):
        return self.client.gather(self._submit(function, arguments))

    def update(self, function, *arguments):
        self.futures = self._submit(function, arguments)

    def update_and_map(self, function, *arguments):
        pairs = self._submit(function, arguments)
        self.futures = [
            self.client.submit(operator.itemgetter(0), pair, pure=False)
            for pair in pairs
        ]
        return self.client.gather(
            [
                self.client.submit(operator.itemgetter(1), pair, pure=False)
                for pair in pairs
            ]
        )


def current_client(estimator_name):
    """The active dask.distributed client, or a ``ValueError`` saying how to start one."""
    try:
        from distributed import get_client
    except ImportError:
        raise ImportError(
            f"{estimator_name} fits on dask arrays with dask.distributed: "
            "pip install 'sparsegp[dask]'."
        ) from None
    try:
        return get_client()
    except ValueError:
        raise ValueError(
            f"{estimator_name} fits a dask array on a dask.distributed cluster: start a "
            "Client first (Client() for a local one, Client('tcp://scheduler:8786') "
            "for a cluster)."
        ) from None
