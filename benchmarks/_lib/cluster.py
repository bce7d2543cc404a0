"""What the dask-cluster benchmarks share: their options, the cluster, the table."""


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
