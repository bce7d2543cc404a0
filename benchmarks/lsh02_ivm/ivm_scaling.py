"""IVM selection cost against n and d, with the floor beside it.

    SPARSEGP_DATA=../shared/data python -m benchmarks run ivm_scaling \
        --out benchmarks/results/ivm_scaling.json

MNIST 13×13, digit 3 against the rest, fixed kernel ``10·RBF(√10) + 0.1`` (no
hyperparameter learning), the paper's randomized greedy schedule (2 random, 198 greedy,
|J| = 500, τ = ½), one BLAS thread. Rows: n ∈ {7 500, 15 000, 30 000, 59 000} at
d = 2 400 (d = 2 000 below n = 15 000), and d ∈ {500, 1 000, 2 000, 3 000} at n = 59 000;
each with ``store_dtype`` float64 and the default (float32 at these sizes).
``--runs 59000:2400`` runs the given ``n:d`` rows only.

The floor is the arithmetic the selection cannot avoid, at the dgemm rate measured in
the same run: the kernel rows, 2·n·d·D flops (every training point needs its kernel
against every active point once), and the rows of V, n·d² flops (each column of V is
a forward substitution with the d×d factor L, done at most once in total by the
delayed updates).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from threadpoolctl import threadpool_limits

from sparsegp import IVMClassifier
from sparsegp.benchmarking import dgemm_rate, save_run
from sparsegp.datasets import load_mnist


def fit(X, y, X_test, y_test, d, store_dtype):
    kernel = ConstantKernel(10.0, "fixed") * RBF(np.sqrt(10.0), "fixed")
    model = IVMClassifier(
        kernel,
        active_set_size=d,
        optimizer=None,
        bias_variance=0.1,
        selection="randomized",
        store_dtype=store_dtype,
        posterior="active_set",
        random_state=0,
    )
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    return model, seconds, float(np.mean(model.predict(X_test) != y_test))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="benchmarks/results/ivm_scaling.json")
    parser.add_argument("--runs", nargs="+", default=None, metavar="N:D")
    args = parser.parse_args(argv)
    X, labels, X_test, labels_test = load_mnist(resolution=13)
    y, y_test = np.where(labels == 3, 1, -1), np.where(labels_test == 3, 1, -1)
    order = np.random.default_rng(0).permutation(len(y))
    runs = [(n, 2400 if n > 10000 else 2000) for n in (7500, 15000, 30000, 59000)]
    runs += [(59000, d) for d in (500, 1000, 2000, 3000)]
    if args.runs:
        runs = [tuple(int(v) for v in run.split(":")) for run in args.runs]
    results = []
    print(
        "| n | d | V | fit s | selection s | floor s | selection / floor | "
        "test error % | V MB |"
    )
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    with threadpool_limits(1):
        rate = dgemm_rate(2000, 2000, 2000)
        for n, d in runs:
            idx = order[:n]
            floor = (2.0 * n * d * X.shape[1] + n * d * d) / rate
            active_sets = {}
            for store_dtype in ("float64", "auto"):
                model, seconds, error = fit(
                    X[idx], y[idx], X_test, y_test, d, store_dtype
                )
                dtype = model._store_dtype(n, d)
                active_sets[store_dtype] = set(model.active_set_)
                row = {
                    "n": n,
                    "d": d,
                    "store_dtype": np.dtype(dtype).name,
                    "fit_seconds": seconds,
                    "selection_seconds": model.selection_time_,
                    "floor_seconds": floor,
                    "error": error,
                    "store_mb": np.dtype(dtype).itemsize * n * d / 2**20,
                }
                results.append(row)
                print(
                    f"| {n} | {d} | {row['store_dtype']} | {seconds:.2f} | "
                    f"{model.selection_time_:.2f} | {floor:.2f} | "
                    f"{model.selection_time_ / floor:.2f} | {100 * error:.2f} | "
                    f"{row['store_mb']:.0f} |",
                    flush=True,
                )
            row["shared_with_float64"] = (
                len(active_sets["float64"] & active_sets["auto"]) / d
            )
    save_run(args.out, results, dgemm_gflops=rate / 1e9)
    print(f"dgemm {rate / 1e9:.1f} GFlop/s")


if __name__ == "__main__":
    main()
