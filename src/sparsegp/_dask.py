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
    a dask array (into aligned memory: :func:`aligned`)."""
    picked = X[np.asarray(rows, dtype=int)]
    return aligned(picked.compute()) if is_dask_array(picked) else picked


def aligned(array):
    """``array``, copied into memory aligned to its items where it is not.

    An array unpickled from a message, or computed from a dask array, can start at
    any byte, and numpy's and the BLAS's loops take other paths over unaligned memory,
    which round otherwise: the same rows gave another gradient in the last bits, and a
    learnt fit on the cluster another path than in memory (docs/dask.md).
    """
    return np.require(array, requirements="A")


def column_variances(X):
    """``np.var(X, axis=0)`` of a dask array, equal bit for bit to the same array's in
    memory: numpy adds a C-ordered array's rows one after another, and so do these
    sums, chunk after chunk in row order, each chunk's task adding its rows to the sum
    of the rows before it (a chain of tasks, one per chunk, each a D-vector's
    message), where dask's own reduction adds the chunks' sums in a tree and differs
    in the last bits: a start that depends on them (the default length-scale, the
    pseudo-inputs' unit) would set the learnt fit on another path."""
    X = X.rechunk({1: -1})
    mean = _sum_in_row_order(X.to_delayed().ravel(), None) / X.shape[0]
    squares = _sum_in_row_order(X.to_delayed().ravel(), mean)
    return squares / X.shape[0]


def _sum_in_row_order(chunks, mean):
    """``Σ_rows chunk`` (``Σ_rows (chunk − mean)²`` with ``mean``) over the delayed
    ``chunks``, added row after row as numpy adds them."""
    import dask

    total = dask.delayed(_rows_added)(None, chunks[0], mean)
    for chunk in chunks[1:]:
        total = dask.delayed(_rows_added)(total, chunk, mean)
    return np.asarray(total.compute(), dtype=float)


def _rows_added(total, chunk, mean):
    rows = np.ascontiguousarray(chunk, dtype=float)
    if mean is not None:
        rows = np.square(rows - mean)
    if total is None:
        return np.sum(rows, axis=0)
    return np.sum(np.vstack([total[None, :], rows]), axis=0)


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
    in the blocks' row order whichever worker holds them. Each worker holds a run of
    consecutive blocks, and :meth:`map_sum` and :meth:`update_and_sum` add their
    results in row order as one process does: every worker keeps its blocks' results,
    and the first worker's sum goes to the next, which adds its own to it (one reply a
    worker, its size independent of the blocks it holds). The sums, and with them the
    fit, are one process's bit for bit. A worker lost during a fit loses its blocks:
    the fit fails.
    The fit that made them frees them (:meth:`close`).
    """

    def __init__(self, actors, indices, client=None, futures=()):
        self.actors = list(actors)
        #: The row order of the blocks each actor holds: a run of consecutive ones.
        self.indices = [list(i) for i in indices]
        if any(i != list(range(i[0], i[0] + len(i))) for i in self.indices):
            raise ValueError("Each actor holds a run of consecutive blocks.")
        self._client, self._futures = client, list(futures)

    @classmethod
    def from_rows(cls, client, X, y, make_block, *arguments):
        """One block per row chunk of the dask array ``X``.

        Block ``b`` is ``make_block(rows, labels, first, *arguments)``, ``first`` the
        index of its first row, made by a task on a worker holding the chunk from its
        rows and labels in aligned memory (:func:`aligned`); the blocks then go to one
        actor per worker, a run of consecutive blocks to each, as many to each
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
                dask.delayed(_block_of_aligned)(
                    make_block, rows, y[start:stop], int(start), *arguments
                )
                for rows, start, stop in zip(
                    X.to_delayed().ravel(), edges[:-1], edges[1:], strict=True
                )
            ]
        )
        wait(blocks)
        who_has = client.who_has(blocks)
        holders = [who_has[block.key][0] for block in blocks]
        by_worker = balanced_placement(
            holders, list(client.scheduler_info()["workers"])
        )
        futures = [
            client.submit(
                LocalBlocks,
                [
                    blocks[i]
                    if holders[i] == worker
                    else client.submit(_in_aligned_memory, blocks[i], workers=[worker])
                    for i in indices
                ],
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
        work = _InAlignedMemory(function, arguments)
        calls = [getattr(actor, method)(work) for actor in self.actors]
        return [_realigned(call.result()) for call in calls]

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
        """Every actor's ``method`` (``map_and_keep`` or ``update_and_keep``) at once,
        then their kept results added in row order: the sum of the blocks before an
        actor's goes to it, and it adds its own (``kept_sum``)."""
        work = _InAlignedMemory(function, arguments)
        calls = [getattr(actor, method)(work) for actor in self.actors]
        before: tuple = ()
        for i in np.argsort([indices[0] for indices in self.indices], kind="stable"):
            calls[i].result()  # calls may reach an actor out of order: kept first
            before = (self.actors[i].kept_sum(*before).result(),)
        return _realigned(before[0])

    def map(self, function, *arguments):
        return self._call("map", function, arguments)

    def map_sum(self, function, *arguments):
        return self._sum("map_and_keep", function, arguments)

    def update_and_sum(self, function, *arguments):
        return self._sum("update_and_keep", function, arguments)

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
    """Which blocks each worker keeps: ``{worker: [block indices]}``, a run of
    consecutive blocks for each worker of ``workers``, ``len(holders) // len(workers)``
    of them or one more, the runs given to the workers that hold the most of their
    blocks (``holders[b]`` holds block ``b``).

    A round takes as long as its busiest worker: left where the chunks of ``X``
    happened to be computed, the blocks of a large fit can leave one worker most of
    the work (docs/dask.md). Runs of consecutive blocks let the workers add their sums
    in row order, as one process does (:class:`DaskBlocks`); the blocks of a run that
    another worker computed move once, when the fit starts.
    """
    names = list(dict.fromkeys([*workers, *holders]))
    share, extra = divmod(len(holders), len(names))
    edges = np.cumsum([0, *(share + (rank < extra) for rank in range(len(names)))])
    runs = [range(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]
    held = {
        (r, name): sum(holders[i] == name for i in run)
        for r, run in enumerate(runs)
        for name in names
    }
    placed: dict[str, range] = {}
    for r, name in sorted(held, key=lambda pair: -held[pair]):  # ties: block order
        if name not in placed and runs[r] not in placed.values():
            placed[name] = runs[r]
    return {
        name: list(run)
        for name, run in sorted(placed.items(), key=lambda item: item[1].start)
    }


class _InAlignedMemory:
    """A round's ``function(block, *arguments)``, its arguments unpickled on the
    worker into aligned memory (:func:`aligned`): pickled in-band (protocol 4), where
    distributed's messages can leave an array at any byte of the frame that brought
    it. Each worker unpickles them once a round, at its first block."""

    def __init__(self, function, arguments):
        import cloudpickle

        self._payload = cloudpickle.dumps((function, arguments), protocol=4)
        self._loaded = None

    def __getstate__(self):
        return self._payload

    def __setstate__(self, payload):
        self._payload, self._loaded = payload, None

    def __call__(self, block):
        if self._loaded is None:
            import cloudpickle

            self._loaded = cloudpickle.loads(self._payload)
        function, arguments = self._loaded
        return function(block, *arguments)


def _realigned(value):
    """``value``, an array or a tuple or list of them (or of numbers), each array
    that a message left unaligned copied into aligned memory (:func:`aligned`)."""
    if isinstance(value, np.ndarray):
        return aligned(value)
    if type(value) in (tuple, list):
        return type(value)(_realigned(part) for part in value)
    return value


def _in_aligned_memory(value):
    """A copy of ``value`` (a block that a message brought to this worker) with every
    array in fresh, aligned memory: pickled in-band and unpickled here."""
    import cloudpickle

    return cloudpickle.loads(cloudpickle.dumps(value, protocol=4))


def _block_of_aligned(make_block, rows, labels, first, *arguments):
    """``make_block`` of the rows and labels in aligned memory (:func:`aligned`)."""
    return make_block(aligned(rows), aligned(labels), first, *arguments)


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
