"""FITC-EP on ``w`` workers, local threads and a dask cluster: speed-up, efficiency, floor.

    python -m benchmarks run fitc_workers --workers 1 2 \
        --out benchmarks/results/fitc_workers.json
    # unchanged on a many-core machine:
    python -m benchmarks run fitc_workers --workers 1 2 4 8 16 --out …

Issue 47's task (n points, D = 10 standard-normal inputs, labels
``sign(sin 2x₀ + x₁x₂ + 0.5ε)``, :func:`~benchmarks._lib.tasks.sine_task`), a fixed
kernel and bias, M pseudo-inputs at the first M training points. For each executor of
``--executors`` and each ``w`` of ``--workers`` (``--dask-workers`` for dask, if
given), the engine the estimators run (:class:`PartitionedFITC`):

- ``threads``: ``X`` in memory in row blocks of ``block_rows(n)`` rows (or each of
  ``--block-rows``) on a pool of ``w`` threads, one BLAS thread each
  (``FITCGPClassifier(n_jobs=w)``'s fit);
- ``dask``: ``X`` in row chunks of ``--chunk-rows`` rows or one fewer, which the fit
  rechunks to the threads' blocks (so the same blocks, each worker summing its
  own), on a LocalCluster of ``w`` single-threaded worker processes (a fit on a dask array).

Timed on the second of two runs (the first touches fresh memory): the prior
(``K_uc``, ``V = L_u⁻¹ K_uc``), ``--sweeps`` parallel EP sweeps with Anderson mixing
in float32 (as the optimizer's evaluations run them; the tolerance set so that none
stops earlier), and one evidence gradient (kernel, bias and all M·D pseudo-input
coordinates). Speed-ups are over one thread in memory; efficiency is the sweeps'
speed-up over ``w``. The floors are each step's n·M² products at this machine's
single-thread GEMM rate (float32 for the sweeps, 2·n·M² each: ``V G Vᵀ`` and
``L_B⁻¹ V``; float64 for the prior, 2·n·M², and the gradient, 4·n·M²) spread over
``w`` cores. The largest difference of the sweeps' latent means from the one-thread
run checks that the model does not depend on the executor beyond rounding (dask's
workers add their own blocks' float32 statistics, then the client adds theirs:
4e-6 after three sweeps at n = 10⁶, M = 200).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from benchmarks._lib.cluster import local_cluster, print_table
from benchmarks._lib.tasks import D, sine_task
from sparsegp._threads import fit_threads
from sparsegp.approximations.blocks import row_ranges, thread_pool
from sparsegp.approximations.ep import run_ep
from sparsegp.benchmarking import dgemm_rate, save_run
from sparsegp.likelihoods import Probit
from sparsegp.methods.fitc_ep import BLOCK_ROWS, block_rows, fitc_approximation

KERNEL = ConstantKernel(2.0) * RBF(np.sqrt(D))
LIKELIHOOD = Probit(0.0)
JITTER = 1e-6


def timed_steps(data, Z, sweeps):
    """Seconds of the prior, per sweep and of the gradient on ``data``, and the
    posterior after the sweeps: the second of two runs of the three, as a fit's later
    evaluations run them (the first touches fresh memory, which cost up to 4× the
    prior's arithmetic on the virtual machines measured)."""
    options = dict(damping=0.8, tol=1e-300)
    for _ in range(2):
        start = time.perf_counter()
        posterior = data.posterior(KERNEL, Z, None, store_dtype=np.float32)
        prior = time.perf_counter() - start
        run_ep(posterior, None, LIKELIHOOD, max_sweeps=1, **options)
        start = time.perf_counter()
        state = run_ep(posterior, None, LIKELIHOOD, max_sweeps=sweeps, **options)
        sweep = (time.perf_counter() - start) / sweeps
        start = time.perf_counter()
        data.gradient(state, LIKELIHOOD)
        gradient = time.perf_counter() - start
    return dict(prior_s=prior, sweep_s=sweep, gradient_s=gradient), posterior


def on_threads(X, y, Z, workers, sweeps, largest=None):
    with fit_threads(), thread_pool(workers) as pool:
        data = fitc_approximation(X, y, JITTER, pool=pool, largest=largest)
        times, posterior = timed_steps(data, Z, sweeps)
        return times, posterior.marginals()[0]


def on_dask(X, y, Z, workers, sweeps, chunk_rows, largest=None):
    import dask.array as da
    from distributed import Client

    with local_cluster(workers) as cluster, Client(cluster):
        sizes = [b - a for a, b in row_ranges(len(X), -(-len(X) // chunk_rows))]
        X_chunks = da.from_array(X, chunks=(tuple(sizes), D)).persist()
        data = fitc_approximation(X_chunks, y, JITTER, largest=largest)
        times, posterior = timed_steps(data, Z, sweeps)
        return times, posterior.marginals()[0]


def row(executor, workers, largest, times, reference, mean, base_mean, floors):
    speed_up = reference["sweep_s"] / times["sweep_s"]
    return dict(
        executor=executor,
        workers=workers,
        block_rows=largest,
        **times,
        prior_speed_up=reference["prior_s"] / times["prior_s"],
        sweep_speed_up=speed_up,
        sweep_efficiency=speed_up / workers,
        gradient_speed_up=reference["gradient_s"] / times["gradient_s"],
        sweep_floor_s=floors["sweep"] / workers,
        prior_floor_s=floors["prior"] / workers,
        gradient_floor_s=floors["gradient"] / workers,
        largest_mean_difference=float(np.max(np.abs(mean - base_mean))),
    )


def run(args):
    X, y = sine_task(args.n, n_test=0)[:2]
    Z = X[: args.inducing]
    n, M = args.n, args.inducing
    with fit_threads():
        sgemm = dgemm_rate(M, 8192, M, dtype=np.float32)
        dgemm = dgemm_rate(M, 8192, M)
    floors = dict(
        sweep=2 * n * M**2 / sgemm,
        prior=2 * n * M**2 / dgemm,
        gradient=4 * n * M**2 / dgemm,
    )
    args.block_rows = args.block_rows or [block_rows(n)]
    reference, base_mean = on_threads(X, y, Z, 1, args.sweeps, args.block_rows[0])
    runs = [
        (executor, w, largest)
        for executor in args.executors
        for largest in args.block_rows
        for w in (
            args.dask_workers or args.workers if executor == "dask" else args.workers
        )
    ]
    rows = []
    for executor, workers, largest in runs:
        if executor == "threads" and (workers, largest) == (1, args.block_rows[0]):
            times, mean = reference, base_mean
        elif executor == "threads":
            times, mean = on_threads(X, y, Z, workers, args.sweeps, largest)
        else:
            times, mean = on_dask(
                X, y, Z, workers, args.sweeps, args.chunk_rows, largest
            )
        rows.append(
            row(executor, workers, largest, times, reference, mean, base_mean, floors)
        )
        print(rows[-1], flush=True)
    return rows, dict(sgemm_flops=sgemm, dgemm_flops=dgemm)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--inducing", type=int, default=200)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--executors",
        nargs="+",
        choices=["threads", "dask"],
        default=["threads", "dask"],
    )
    parser.add_argument(
        "--dask-workers", type=int, nargs="*", help="the dask runs' (--workers')"
    )
    parser.add_argument(
        "--block-rows",
        type=int,
        nargs="+",
        help="each executor's largest blocks (speed-ups over one thread at the first; "
        "default: the estimators' block_rows(n))",
    )
    parser.add_argument("--sweeps", type=int, default=3)
    parser.add_argument("--chunk-rows", type=int, default=BLOCK_ROWS)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    rows, rates = run(args)
    print_table(
        rows,
        [
            ("executor", "executor", "s"),
            ("w", "workers", "d"),
            ("block rows", "block_rows", "d"),
            ("prior s", "prior_s", ".2f"),
            ("floor", "prior_floor_s", ".2f"),
            ("speed-up", "prior_speed_up", ".2f"),
            ("s / sweep", "sweep_s", ".3f"),
            ("floor", "sweep_floor_s", ".3f"),
            ("speed-up", "sweep_speed_up", ".2f"),
            ("efficiency", "sweep_efficiency", ".2f"),
            ("gradient s", "gradient_s", ".2f"),
            ("floor", "gradient_floor_s", ".2f"),
            ("speed-up", "gradient_speed_up", ".2f"),
            ("largest Δ mean", "largest_mean_difference", ".0e"),
        ],
    )
    if args.out:
        save_run(args.out, rows, cpus=os.cpu_count(), **rates)


if __name__ == "__main__":
    main()
