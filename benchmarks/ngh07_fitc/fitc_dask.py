"""FITC-EP on a dask.distributed cluster at n = 10⁵-10⁶: time per sweep, memory per worker.

    python -m benchmarks run fitc_dask --sizes 100000 1000000 \
        --out benchmarks/results/fitc_dask.json

Synthetic binary data, D = 10 standard-normal inputs generated on the workers (the
client never holds ``X``), labels ``sign(sin(2x₀) + x₁x₂ + 0.5ε)`` gathered (n
floats). For each n, on a LocalCluster of ``--workers`` single-threaded worker
processes with ``X`` in row chunks of ``--chunk-rows``:

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
import resource
import time

import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from threadpoolctl import threadpool_limits

from sparsegp import FITCGPClassifier
from sparsegp.benchmarking import dgemm_rate, save_run

D = 10


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def data(n, chunk_rows):
    import dask.array as da

    X = da.random.RandomState(0).standard_normal((n, D), chunks=(chunk_rows, D))
    noise = da.random.RandomState(1).standard_normal(n, chunks=chunk_rows)
    latent = da.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * noise
    return X, np.where(latent.compute() > 0, 1, -1)


def estimators(M, max_iter):
    kernel = ConstantKernel(2.0) * RBF(np.sqrt(D))
    common = dict(n_inducing=M, n_restarts_optimizer=0, random_state=0)
    return {
        "given": FITCGPClassifier(kernel, optimizer=None, bias=0.0, **common),
        "learnt": FITCGPClassifier(max_iter_optimizer=max_iter, **common),
    }


def timed_fit(estimator, X, y):
    start = time.perf_counter()
    estimator.fit(X, y)
    seconds = time.perf_counter() - start
    model = estimator.estimators_[0]
    return seconds, model.n_sweeps, model.n_evaluations


def run(n, args, rate):
    from distributed import Client, LocalCluster

    rows = []
    cluster = LocalCluster(
        n_workers=args.workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        memory_limit=0,
    )
    with Client(cluster) as client:
        X, y = data(n, args.chunk_rows)
        X = X.persist()
        for name, estimator in estimators(args.inducing, args.max_iter).items():
            seconds, sweeps, evaluations = timed_fit(estimator, X, y)
            rows.append(
                dict(
                    n=n,
                    fit=name,
                    where=f"cluster ({args.workers} workers)",
                    seconds=seconds,
                    sweeps=sweeps,
                    evaluations=evaluations,
                    seconds_per_sweep=seconds / sweeps,
                    floor_seconds_per_sweep=3.0 * n * args.inducing**2 / rate,
                    peak_rss_mb=max(client.run(peak_rss_mb).values()),
                )
            )
            print(rows[-1], flush=True)
        X_local = X.compute() if n <= args.in_memory_up_to else None
    cluster.close()
    if X_local is None:
        return rows
    with threadpool_limits(1):
        for name, estimator in estimators(args.inducing, args.max_iter).items():
            seconds, sweeps, evaluations = timed_fit(estimator, X_local, y)
            rows.append(
                dict(
                    n=n,
                    fit=name,
                    where="in memory (1 thread)",
                    seconds=seconds,
                    sweeps=sweeps,
                    evaluations=evaluations,
                    seconds_per_sweep=seconds / sweeps,
                    floor_seconds_per_sweep=3.0 * n * args.inducing**2 / rate,
                    peak_rss_mb=peak_rss_mb(),
                )
            )
            print(rows[-1], flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--inducing", type=int, default=50)
    parser.add_argument("--max-iter", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk-rows", type=int, default=125_000)
    parser.add_argument("--in-memory-up-to", type=int, default=1_000_000)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    with threadpool_limits(1):
        rate = dgemm_rate(args.inducing, args.chunk_rows, args.inducing)
    rows = [row for n in args.sizes for row in run(n, args, rate)]
    print(
        "\n| n | fit | where | s | sweeps | evaluations | s per sweep | floor s per "
        "sweep | peak RSS MB |"
    )
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['n']} | {r['fit']} | {r['where']} | {r['seconds']:.1f} | "
            f"{r['sweeps']} | {r['evaluations']} | {r['seconds_per_sweep']:.3f} | "
            f"{r['floor_seconds_per_sweep']:.4f} | {r['peak_rss_mb']:.0f} |"
        )
    if args.out is not None:
        save_run(args.out, rows, dgemm_gflops=rate / 1e9)


if __name__ == "__main__":
    main()
