"""SparseGPRegressor on a dask.distributed cluster at n = 10⁶, beside the same fit in memory.

    python -m benchmarks run sgpr_dask --sizes 1000000 \
        --out benchmarks/results/sgpr_dask.json

Issue 89: a ``LocalCluster`` fit equal to the in-memory one. Synthetic
regression, D = 10 standard-normal inputs generated on the workers (the client never
holds ``X``), targets ``sin 2x₀ + x₁x₂ + 0.5ε`` gathered (n floats). For each n, on a
LocalCluster of ``--workers`` single-threaded worker processes with ``X`` in row
chunks of ``--chunk-rows``, ``SparseGPRegressor(max_iter=--max-iter)`` (VFE, ARD,
M = ``--inducing``, the pseudo-inputs, kernel and noise learnt); then, for n up to
``--in-memory-up-to``, the same fit in this process on the computed ``X`` (one BLAS
thread). Reported: seconds, objective evaluations, seconds per evaluation beside its
floor (5·n·M² flops, blocks too large to keep their K_uf, at the one-thread dgemm
rate, shared by the workers on the cluster; algorithms.md §6.3), the learnt
objective, and the largest difference between the two fits' predictive means and
standard deviations on 1 000 test points (relative to the targets' spread); and at one
point, the in-memory fit's end, the objective and its gradient over the cluster's
blocks and over the same blocks in memory (largest relative differences). The
workers add their sums in one process's order and every array is in aligned memory
(docs/dask.md), so all of these differences are zero: L-BFGS-B over the
pseudo-inputs would carry any difference in the last bit into another path.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from benchmarks._lib.cluster import add_cluster_options, local_cluster, print_table
from benchmarks._lib.tasks import D, peak_rss_mb
from sparsegp import SparseGPRegressor
from sparsegp.approximations.sparse_regression import bound_and_gradient
from sparsegp.benchmarking import dgemm_rate, save_run
from sparsegp.kernels import split_white_noise
from sparsegp.methods.sparse_regression import row_blocks


def regression_data(n, chunk_rows):
    """``X`` (a dask array generated on the workers) and targets in memory."""
    import dask.array as da

    X = da.random.RandomState(0).standard_normal((n, D), chunks=(chunk_rows, D))
    noise = da.random.RandomState(1).standard_normal(n, chunks=chunk_rows)
    return X, (da.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * noise).compute()


def timed_fit(args, X, y, X_test):
    """``(seconds, evaluations, objective, mean, std, estimator)`` of one fit (the
    iteration cap is the point: its warning is expected)."""
    estimator = SparseGPRegressor(
        n_inducing=args.inducing, max_iter=args.max_iter, random_state=0
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator.fit(X, y)
    seconds = time.perf_counter() - start
    mean, std = estimator.predict(X_test, return_std=True)
    objective = estimator.log_marginal_likelihood_value_
    return seconds, estimator.n_iter_, objective, mean, std, estimator


def row(n, where, timing, args, rate, rss, workers=1):
    seconds, evaluations, objective = timing[:3]
    return dict(
        n=n,
        inducing=args.inducing,
        where=where,
        seconds=seconds,
        evaluations=evaluations,
        seconds_per_evaluation=seconds / evaluations,
        floor_seconds_per_evaluation=5.0 * n * args.inducing**2 / rate / workers,
        objective=objective,
        peak_rss_mb=rss,
    )


def run(n, args, rate):
    from distributed import Client

    X_test = np.random.default_rng(2).standard_normal((1000, D))
    cluster = local_cluster(args.workers)
    with Client(cluster) as client:
        X, y = regression_data(n, args.chunk_rows)
        X = X.persist()
        on_cluster = timed_fit(args, X, y, X_test)
        rss = max(client.run(peak_rss_mb).values())
        rows = [
            row(
                n,
                f"cluster ({args.workers} workers)",
                on_cluster,
                args,
                rate,
                rss,
                args.workers,
            )
        ]
        print(rows[-1], flush=True)
        if n > args.in_memory_up_to:
            cluster.close()
            return rows
        X_local = X.compute()
        with threadpool_limits(1):
            in_memory = timed_fit(args, X_local, y, X_test)
            rss = peak_rss_mb()
            agreement = same_point(in_memory[5], X, X_local, y)
    cluster.close()
    rows.append(row(n, "in memory (1 thread)", in_memory, args, rate, rss))
    spread = float(np.std(y))
    for r in rows:
        r["mean_difference"] = float(np.max(np.abs(on_cluster[3] - in_memory[3])))
        r["mean_difference"] /= spread
        r["std_difference"] = float(np.max(np.abs(on_cluster[4] - in_memory[4])))
        r["std_difference"] /= spread
        r.update(agreement)
    print(rows[-1], flush=True)
    return rows


def same_point(estimator, X, X_local, y):
    """The objective and its gradient at the in-memory fit's end, over the cluster's
    row blocks and over the same blocks in memory: their largest relative
    differences (the arithmetic's agreement, which the learnt paths amplify)."""
    kernel, noise = split_white_noise(estimator.kernel_)
    targets = (y - estimator.y_mean_) / estimator.y_std_
    answers = []
    for rows in (X, X_local):
        blocks = row_blocks(rows, targets)
        try:
            answers.append(
                bound_and_gradient(
                    blocks, kernel, estimator.inducing_points_, noise, "vfe"
                )
            )
        finally:
            blocks.close()  # the cluster's blocks leave their workers now
    (remote, *remote_gradient), (local, *local_gradient) = answers
    gradient_difference = max(
        float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))
        for a, b in zip(remote_gradient, local_gradient, strict=True)
    )
    return dict(
        objective_difference_at_one_point=abs(remote.value - local.value)
        / abs(local.value),
        gradient_difference_at_one_point=gradient_difference,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inducing", type=int, default=200)
    parser.add_argument("--max-iter", type=int, default=10)
    add_cluster_options(parser)
    parser.set_defaults(sizes=[1_000_000])
    args = parser.parse_args(argv)
    with threadpool_limits(1):
        rate = dgemm_rate(args.inducing, args.chunk_rows, args.inducing)
    rows = [r for n in args.sizes for r in run(n, args, rate)]
    print_table(
        rows,
        [
            ("n", "n", "d"),
            ("where", "where", "s"),
            ("s", "seconds", ".1f"),
            ("evaluations", "evaluations", "d"),
            ("s per evaluation", "seconds_per_evaluation", ".2f"),
            ("floor s per evaluation", "floor_seconds_per_evaluation", ".2f"),
            ("objective", "objective", ".2f"),
            ("peak RSS MB", "peak_rss_mb", ".0f"),
        ],
    )
    if args.out is not None:
        save_run(args.out, rows, dgemm_gflops=rate / 1e9)


if __name__ == "__main__":
    main()
