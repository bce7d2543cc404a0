"""FITC-EP on a dask.distributed cluster at n = 10⁵-10⁶: time per sweep, memory per worker.

    python -m benchmarks run fitc_dask --sizes 100000 1000000 \
        --out benchmarks/results/fitc_dask.json

Synthetic binary data, D = 10 standard-normal inputs generated on the workers (the
client never holds ``X``), labels ``sign(sin(2x₀) + x₁x₂ + 0.5ε)`` gathered (n
floats). For each n, on a LocalCluster of ``--workers`` single-threaded worker
processes with ``X`` in row chunks of ``--chunk-rows`` (the fit rechunks them to its
blocks of ``BLOCK_ROWS`` rows):

- ``given``: ``FITCGPClassifier(optimizer=None)`` at a fixed kernel, bias and M
  pseudo-inputs (k-means of a sample): EP's sweeps alone, seconds per sweep;
- ``learnt``: ``max_iter_optimizer`` L-BFGS-B iterations on the evidence, kernel,
  bias and pseudo-inputs learnt on the cluster: seconds per evaluation;

and, for n up to ``--in-memory-up-to``, the same two fits in this process on the
computed ``X`` (one BLAS thread), beside them. Peak resident memory of each worker
process after the fits; the floor of a sweep is its flops (about 3·n·M² for the
M × M products and solves of every block) at the dgemm rate of those shapes.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from threadpoolctl import threadpool_limits

from benchmarks._lib.cluster import add_cluster_options, local_cluster, print_table
from benchmarks._lib.tasks import D, cluster_data, peak_rss_mb
from sparsegp import FITCGPClassifier
from sparsegp.benchmarking import dgemm_rate, save_run


def estimators(M, max_iter):
    kernel = ConstantKernel(2.0) * RBF(np.sqrt(D))
    common = dict(n_inducing=M, n_restarts_optimizer=0, ard=False, random_state=0)
    return {
        "given": FITCGPClassifier(kernel, optimizer=None, bias=0.0, **common),
        "learnt": FITCGPClassifier(max_iter_optimizer=max_iter, **common),
    }


def timed_fit(estimator, X, y):
    start = time.perf_counter()
    estimator.fit(X, y)
    seconds = time.perf_counter() - start
    model = estimator.estimators_[0]
    return seconds, model.details["n_sweeps"], model.n_iterations


def result(n, name, where, timing, M, rate, rss):
    """One table row: the fit's time, sweeps and evaluations beside the sweep floor."""
    seconds, sweeps, evaluations = timing
    return dict(
        n=n,
        inducing=M,
        fit=name,
        where=where,
        seconds=seconds,
        sweeps=sweeps,
        evaluations=evaluations,
        seconds_per_sweep=seconds / sweeps,
        floor_seconds_per_sweep=3.0 * n * M**2 / rate,
        peak_rss_mb=rss,
    )


def run(n, args, rate):
    from distributed import Client

    rows = []
    cluster = local_cluster(args.workers)
    with Client(cluster) as client:
        X, y = cluster_data(n, args.chunk_rows)
        X = X.persist()
        for name, estimator in estimators(args.inducing, args.max_iter).items():
            timing = timed_fit(estimator, X, y)
            rss = max(client.run(peak_rss_mb).values())
            where = f"cluster ({args.workers} workers)"
            rows.append(result(n, name, where, timing, args.inducing, rate, rss))
            print(rows[-1], flush=True)
        X_local = X.compute() if n <= args.in_memory_up_to else None
    cluster.close()
    if X_local is None:
        return rows
    with threadpool_limits(1):
        for name, estimator in estimators(args.inducing, args.max_iter).items():
            timing = timed_fit(estimator, X_local, y)
            where = "in memory (1 thread)"
            rows.append(
                result(n, name, where, timing, args.inducing, rate, peak_rss_mb())
            )
            print(rows[-1], flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inducing", type=int, default=50)
    parser.add_argument("--max-iter", type=int, default=5)
    add_cluster_options(parser)
    args = parser.parse_args(argv)
    with threadpool_limits(1):
        rate = dgemm_rate(args.inducing, args.chunk_rows, args.inducing)
    rows = [row for n in args.sizes for row in run(n, args, rate)]
    print_table(
        rows,
        [
            ("n", "n", "d"),
            ("fit", "fit", "s"),
            ("where", "where", "s"),
            ("s", "seconds", ".1f"),
            ("sweeps", "sweeps", "d"),
            ("evaluations", "evaluations", "d"),
            ("s per sweep", "seconds_per_sweep", ".3f"),
            ("floor s per sweep", "floor_seconds_per_sweep", ".4f"),
            ("peak RSS MB", "peak_rss_mb", ".0f"),
        ],
    )
    if args.out is not None:
        save_run(args.out, rows, dgemm_gflops=rate / 1e9)


if __name__ == "__main__":
    main()
