"""Dask glue: predictions on dask arrays, and row blocks kept on a cluster for fitting.

A fitted model is small (its active set, pseudo-inputs or basis vectors and their
factors), so prediction is embarrassingly parallel over rows: the model is shipped to
the workers with the task graph and every row block of ``X`` is predicted by one task;
``X`` is never gathered into the client. Fitting on a cluster keeps each row block on
its worker (:class:`DaskBlocks`) and moves only small per-block statistics. Requires
the ``dask`` extra.
"""

from __future__ import annotations

import sys

import numpy as np


def is_dask_array(X) -> bool:
    """Whether ``X`` is a ``dask.array.Array`` (without importing dask otherwise).

    ``dask.array`` may be in ``sys.modules`` half imported, without ``Array`` yet: on
    a worker another thread imports it while a task runs (a prediction task failed so
    when it was a fresh worker's first), and then ``X`` is none of its arrays.
    """
    array_type = getattr(sys.modules.get("dask.array"), "Array", None)
    return array_type is not None and isinstance(X, array_type)


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
    """Row blocks on a dask.distributed cluster, held where they were made.

    :class:`~sparsegp.approximations.blocks.Blocks` for the client ``client``. Each
    worker holding blocks keeps them in one dask actor, a
    :class:`~sparsegp.approximations.blocks.LocalBlocks` living on that worker: a round
    (:meth:`map`, :meth:`update`, :meth:`update_and_map`) is one method call to every
    actor at once, its arguments sent with it and its small results back, the blocks
    never leaving their worker. A round is then one message each way per worker, where
    a task per block costs the scheduler's bookkeeping, a scatter of every array
    argument and a second task to split a block from its result (several times a
    sweep's arithmetic, algorithms.md §5.9). Results come back
    in the blocks' row order whichever worker holds them; :meth:`map_sum` and
    :meth:`update_and_sum` add each worker's blocks' results there (one reply a
    worker, its size independent of the blocks it holds), then the workers' sums in
    the order of their first blocks: one process's sums to rounding. A worker lost
    during a fit loses its blocks: the fit fails.
    The fit that made them frees them (:meth:`close`).
    """

    def __init__(self, actors, indices, client=None, futures=()):
        self.actors = list(actors)
        #: The row order of the blocks each actor holds.
        self.indices = [list(i) for i in indices]
        self._client, self._futures = client, list(futures)

    @classmethod
    def from_rows(cls, client, X, y, make_block, *arguments):
        """One block per row chunk of the dask array ``X``.

        Block ``b`` is ``make_block(rows, labels, first, *arguments)``, ``first`` the
        index of its first row, made by a task on a worker holding the chunk; the
        blocks then go to one actor per worker, as many blocks to each
        (:func:`balanced_placement`): a round waits for its slowest worker. Only the
        task graph, and ``y``'s slices, leave the client.
        """
        import dask
        from distributed import wait

        from .approximations.blocks import LocalBlocks

        X = X.rechunk({1: -1})
        edges = np.cumsum((0, *X.chunks[0]))
        blocks = client.compute(
            [
                dask.delayed(make_block)(rows, y[start:stop], int(start), *arguments)
                for rows, start, stop in zip(
                    X.to_delayed().ravel(), edges[:-1], edges[1:], strict=True
                )
            ]
        )
        wait(blocks)
        holders = client.who_has(blocks)
        by_worker = balanced_placement(
            [holders[block.key][0] for block in blocks],
            list(client.scheduler_info()["workers"]),
        )
        futures = [
            client.submit(
                LocalBlocks,
                [blocks[i] for i in indices],
                actor=True,
                workers=[worker],
                allow_other_workers=False,
            )
            for worker, indices in by_worker.items()
        ]
        return cls(client.gather(futures), by_worker.values(), client, futures)

    def _round(self, method, function, arguments):
        """Every actor's ``method(function, *arguments)``, sent to all before any
        reply is awaited: the replies, actor by actor."""
        calls = [getattr(actor, method)(function, *arguments) for actor in self.actors]
        return [call.result() for call in calls]

    def _call(self, method, function, arguments):
        """:meth:`_round`, its results in row order."""
        results = self._round(method, function, arguments)
        if method == "update":
            return None
        in_order = [None] * sum(len(i) for i in self.indices)
        for indices, values in zip(self.indices, results, strict=True):
            for index, value in zip(indices, values, strict=True):
                in_order[index] = value
        return in_order

    def _sum(self, method, function, arguments):
        """Every actor's ``method`` (its blocks' results summed there), added in the
        order of the actors' first blocks."""
        from .approximations.blocks import summed

        partials = self._round(method, function, arguments)
        order = np.argsort([min(indices) for indices in self.indices], kind="stable")
        return summed([partials[i] for i in order])

    def map(self, function, *arguments):
        return self._call("map", function, arguments)

    def map_sum(self, function, *arguments):
        return self._sum("map_sum", function, arguments)

    def update_and_sum(self, function, *arguments):
        return self._sum("update_and_sum", function, arguments)

    def update(self, function, *arguments):
        self._call("update", function, arguments)

    def update_and_map(self, function, *arguments):
        return self._call("update_and_map", function, arguments)

    def close(self):
        """Remove the actors, and the blocks they hold, from their workers. Dropping
        them is not enough: distributed's actor handles sit in reference cycles, so
        they lived until Python's cycle collector ran, and each further fit on the
        cluster took fresh memory (n = 10⁶, M = 50: 700 MB a worker more each fit,
        its prior 6× slower on memory not touched before)."""
        if self._futures:
            self._client.cancel(self._futures)
        self.actors, self._futures = [], []


def balanced_placement(holders, workers):
    """Which blocks each worker keeps: ``{worker: [block indices]}``, every worker of
    ``workers`` given ``len(holders) // len(workers)`` blocks or one more, each block
    kept by its holder ``holders[b]`` where that leaves the counts even.

    A round takes as long as its busiest worker: left where the chunks of ``X``
    happened to be computed, the blocks of a large fit can leave one worker most of
    the work (docs/dask.md). Blocks
    move only from workers above their share, lowest indices kept, in block order; the
    extra blocks of an uneven count stay with the workers that hold the most.
    """
    held: dict[str, list[int]] = {worker: [] for worker in workers}
    for index, holder in enumerate(holders):
        held.setdefault(holder, []).append(index)
    share, extra = divmod(len(holders), len(held))
    by_holding = sorted(held, key=lambda worker: -len(held[worker]))
    quota = {worker: share + (rank < extra) for rank, worker in enumerate(by_holding)}
    kept = {worker: held[worker][: quota[worker]] for worker in held}
    moving = sorted(i for worker in held for i in held[worker][quota[worker] :])
    for worker in held:
        room = quota[worker] - len(kept[worker])
        kept[worker] = sorted(kept[worker] + moving[:room])
        moving = moving[room:]
    return {worker: indices for worker, indices in kept.items() if indices}


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
