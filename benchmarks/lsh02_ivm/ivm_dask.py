"""IVM selection on a dask.distributed cluster at n = 10⁵-10⁶: time per inclusion, memory.

    python -m benchmarks run ivm_dask --sizes 100000 1000000 \
        --out benchmarks/results/ivm_dask.json
    python -m benchmarks run ivm_dask --sizes 1000000 --store-dtype float32 \
        --out benchmarks/results/ivm_dask_float32.json
    python -m benchmarks run ivm_dask --sizes 1000000 --d 1000 --store-dtype float32 \
        --out benchmarks/results/ivm_dask_1000.json

The data of ``fitc_dask`` (D = 10 standard-normal inputs generated on the workers,
labels ``sign(sin 2x₀ + x₁x₂ + 0.5ε)``). ``IVMClassifier(optimizer=None,
selection="greedy", store_dtype="float64")`` (``--store-dtype``; float32 is what
``"auto"`` picks at n = 10⁶, d = 200) at a fixed kernel with ``--d`` active
points, on a LocalCluster of ``--workers`` single-threaded worker processes with ``X``
in row chunks of ``--chunk-rows``, and for n up to ``--in-memory-up-to`` the same fit in
this process on the computed ``X`` (one BLAS thread). Per inclusion every point's
column gains one entry: about ``2·n·(k + D)`` flops at the k-th inclusion, ``n·d²``
over the selection, a matrix-vector product over each block's columns of ``V``, which
streams them from memory. The floor beside the time is those flops at the rate of a
``(chunk rows × d)·(d × 1)`` product in ``V``'s precision: in one process alone, and on
the cluster at the rate each of ``--workers`` processes gets while all run it at once
(:func:`~benchmarks._lib.cluster.concurrent_rate`: the processes share the memory's
bandwidth, and its ratio to one process's rate bounds the cluster's speed-up).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from threadpoolctl import threadpool_limits

from benchmarks._lib.cluster import (
    add_cluster_options,
    concurrent_rate,
    local_cluster,
    print_table,
)
from benchmarks._lib.tasks import D, cluster_data, peak_rss_mb
from sparsegp import IVMClassifier
from sparsegp.benchmarking import save_run


def ivm(d, store_dtype):
    return IVMClassifier(
        ConstantKernel(2.0) * RBF(np.sqrt(D)),
        active_set_size=d,
        selection="greedy",
        optimizer=None,
        store_dtype=store_dtype,
        posterior="active_set",
        random_state=0,
    )


def row(n, d, where, seconds, rss, rate, model):
    """One table row; ``rate``: the matrix-vector product's flops per second on each of
    the fit's processes (all running one at once on the cluster)."""
    return dict(
        n=n,
        d=d,
        store_dtype=model.store_dtype,
        where=where,
        seconds=seconds,
        selection_seconds=model.selection_time_,
        seconds_per_inclusion=model.selection_time_ / d,
        floor_seconds=n * (d * d + 2 * d * D) / rate,
        peak_rss_mb=rss,
    )


def run(n, args, rate, cluster_rate):
    from distributed import Client

    cluster = local_cluster(args.workers)
    rows = []
    with Client(cluster) as client:
        X, y = cluster_data(n, args.chunk_rows)
        X = X.persist()
        start = time.perf_counter()
        model = ivm(args.d, args.store_dtype).fit(X, y)
        seconds = time.perf_counter() - start
        rss = max(client.run(peak_rss_mb).values())
        where = f"cluster ({args.workers} workers)"
        rows.append(row(n, args.d, where, seconds, rss, cluster_rate, model))
        print(rows[-1], flush=True)
        X_local = X.compute() if n <= args.in_memory_up_to else None
    cluster.close()
    if X_local is not None:
        with threadpool_limits(1):
            start = time.perf_counter()
            model = ivm(args.d, args.store_dtype).fit(X_local, y)
            seconds = time.perf_counter() - start
        where = "in memory (1 thread)"
        rows.append(row(n, args.d, where, seconds, peak_rss_mb(), rate, model))
        print(rows[-1], flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d", type=int, default=200)
    parser.add_argument(
        "--store-dtype", choices=["float64", "float32"], default="float64"
    )
    add_cluster_options(parser)
    args = parser.parse_args(argv)
    shape = (args.chunk_rows, args.d, 1, args.store_dtype)
    rate = concurrent_rate(1, *shape)  # timed as the workers' rate is
    cluster_rate = args.workers * concurrent_rate(args.workers, *shape)
    rows = [r for n in args.sizes for r in run(n, args, rate, cluster_rate)]
    print_table(
        rows,
        [
            ("n", "n", "d"),
            ("d", "d", "d"),
            ("V", "store_dtype", "s"),
            ("where", "where", "s"),
            ("fit s", "seconds", ".1f"),
            ("selection s", "selection_seconds", ".1f"),
            ("s per inclusion", "seconds_per_inclusion", ".3f"),
            ("floor s", "floor_seconds", ".2f"),
            ("peak RSS MB", "peak_rss_mb", ".0f"),
        ],
    )
    if args.out is not None:
        save_run(
            args.out,
            rows,
            dgemm_gflops=rate / 1e9,
            workers_gflops=cluster_rate / 1e9,
            bandwidth_bound=cluster_rate / rate,
        )
    print(f"{args.workers} processes streaming at once: {cluster_rate / rate:.2f}× one")


if __name__ == "__main__":
    main()
