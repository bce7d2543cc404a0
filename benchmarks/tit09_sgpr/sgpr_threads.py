"""SparseGPRegressor's objective and gradient on one and two threads at n = 40 000, M = 500.

    python -m benchmarks run sgpr_threads --out benchmarks/results/sgpr_threads.json

Issue 89: ``n_jobs=2`` at least 1.7× faster than ``n_jobs=1``. One evaluation of the
VFE bound and its gradient over the row blocks (two passes, 4·n·M² flops where the
blocks keep their K_uf between them, as the fit's do, 5·n·M² where not), the median
of ``--repeats``, each BLAS call on one thread, the blocks on a pool of ``n_jobs``
threads; beside it the floor: the flops at the measured one-thread GEMM rate.
"""

import argparse
import time

import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from threadpoolctl import threadpool_limits

from sparsegp._memory import heap_kept
from sparsegp.approximations.blocks import thread_pool
from sparsegp.approximations.sparse_regression import bound_and_gradient
from sparsegp.benchmarking import dgemm_rate, save_run
from sparsegp.methods.sparse_regression import kept_bytes, row_blocks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40_000)
    parser.add_argument("--inducing", type=int, default=500)
    parser.add_argument("--features", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.n, args.features))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=args.n)
    Z = X[rng.choice(args.n, args.inducing, replace=False)]
    kernel = ConstantKernel(1.0) * RBF(np.full(args.features, 2.0))
    rows = []
    with threadpool_limits(1):
        rate = dgemm_rate(args.inducing, 2048, args.inducing)
        kept = kept_bytes(args.n, args.inducing)
        passes = (
            4 if kept else 5
        )  # n·M² products an evaluation makes, algorithms.md §6.3
        floor = passes * args.n * args.inducing**2 / rate
        for n_jobs in (1, 2):
            with heap_kept(kept), thread_pool(n_jobs) as pool:  # as the fit
                blocks = row_blocks(X, y, pool)
                bound_and_gradient(blocks, kernel, Z, 0.1, "vfe", kept > 0)  # warm-up
                times = []
                for _ in range(args.repeats):
                    start = time.perf_counter()
                    bound_and_gradient(blocks, kernel, Z, 0.1, "vfe", kept > 0)
                    times.append(time.perf_counter() - start)
            seconds = float(np.median(times))
            rows.append(
                dict(
                    n=args.n,
                    M=args.inducing,
                    n_jobs=n_jobs,
                    seconds=seconds,
                    floor=floor,
                    gflops=rate / 1e9,
                )
            )
            print(
                f"n_jobs={n_jobs}: {seconds:.3f} s per evaluation "
                f"(floor {floor:.3f} s at {rate / 1e9:.0f} GFlop/s)",
                flush=True,
            )
    print(f"speed-up {rows[0]['seconds'] / rows[1]['seconds']:.2f}x")
    if args.out:
        save_run(args.out, rows)


if __name__ == "__main__":
    main()
