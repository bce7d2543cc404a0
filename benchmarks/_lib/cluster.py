"""What the dask-cluster benchmarks share: their options, the cluster, the table, and
the rate of a product when every worker runs one at once."""

import multiprocessing
from concurrent.futures import ProcessPoolExecutor


def add_cluster_options(parser):
    """``--sizes``, ``--workers``, ``--chunk-rows``, ``--in-memory-up-to``, ``--out``."""
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk-rows", type=int, default=125_000)
    parser.add_argument("--in-memory-up-to", type=int, default=1_000_000)
    parser.add_argument("--out", default=None)


def local_cluster(workers):
    """A LocalCluster of ``workers`` single-threaded worker processes, no memory cap,
    started without dask's ``MALLOC_TRIM_THRESHOLD_`` (docs/dask.md: with it, every
    large temporary array of a block's work is fresh memory from the kernel, and a
    FITC sweep ran 2.5× slower on the workers)."""
    import dask
    from distributed import LocalCluster

    with dask.config.set(
        {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
    ):
        return LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            memory_limit=0,
        )


def print_table(rows, columns):
    """``rows`` (dicts) as a markdown table; ``columns``: ``(header, key, format)``."""
    print("\n| " + " | ".join(header for header, _, _ in columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(f"{row[key]:{fmt}}" for _, key, fmt in columns) + " |")


def _start_together(barrier):
    global _barrier
    _barrier = barrier


def _rate_after_barrier(shape):
    """``dgemm_rate`` of ``shape`` on one BLAS thread, once every process is ready."""
    from threadpoolctl import threadpool_limits

    from sparsegp.benchmarking import dgemm_rate

    m, k, n, dtype = shape
    with threadpool_limits(1):
        dgemm_rate(m, k, n, 1, dtype)  # the arrays' pages, touched before the barrier
        _barrier.wait()
        return dgemm_rate(m, k, n, 100, dtype)


def concurrent_rate(processes, m, k, n, dtype="float64"):
    """The slowest of ``processes`` processes' ``dgemm_rate(m, k, n)``, all running it
    at once on one BLAS thread each: what a worker's product runs at while every
    worker runs one. For a matrix-vector product of a matrix larger than the cache
    (``n = 1``), the memory's bandwidth shared by the processes, which bounds the
    speed-up of a step that streams its rows: ``processes · concurrent / alone``."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(processes)
    with ProcessPoolExecutor(
        processes, mp_context=context, initializer=_start_together, initargs=(barrier,)
    ) as pool:
        return min(pool.map(_rate_after_barrier, [(m, k, n, dtype)] * processes))
