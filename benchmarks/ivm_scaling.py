"""IVM fit time against n and d (the O(n·d²) law) and the selection strategies' cost.

    SPARSEGP_DATA=../shared/data python benchmarks/ivm_scaling.py

MNIST 13×13, digit 3 against the rest, fixed kernel (no hyperparameter learning), one
BLAS thread. Rows: full greedy for n ∈ {7 500, 15 000, 30 000, 59 000} at d = 400 and
for d ∈ {200, 400, 800, 1 600} at n = 15 000; the randomized greedy (2 random, 198
greedy, |J| = 500, τ = ½) and random selection beside full greedy at equal d, with their
test errors. Peak memory of the selection state is the preallocated V (d × n floats).
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from threadpoolctl import threadpool_limits

from sparsegp import IVMClassifier
from sparsegp.datasets import load_mnist


def fit_time(X, y, X_test, y_test, d, selection):
    kernel = ConstantKernel(10.0, "fixed") * RBF(np.sqrt(10.0), "fixed")
    model = IVMClassifier(
        kernel,
        active_set_size=d,
        optimizer=None,
        bias_variance=0.1,
        selection=selection,
        random_state=0,
    )
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    return seconds, float(np.mean(model.predict(X_test) != y_test))


def main():
    X, labels, X_test, labels_test = load_mnist(resolution=13)
    y, y_test = np.where(labels == 3, 1, -1), np.where(labels_test == 3, 1, -1)
    order = np.random.default_rng(0).permutation(len(y))
    print("| selection | n | d | fit s | test error % | V memory MB |")
    print("|---|---:|---:|---:|---:|---:|")
    runs = [("greedy", n, 400) for n in (7500, 15000, 30000, 59000)]
    runs += [("greedy", 15000, d) for d in (200, 800, 1600)]
    runs += [(s, 59000, 800) for s in ("greedy", "randomized", "random")]
    with threadpool_limits(1):
        for selection, n, d in runs:
            idx = order[:n]
            seconds, error = fit_time(X[idx], y[idx], X_test, y_test, d, selection)
            print(
                f"| {selection} | {n} | {d} | {seconds:.2f} | {100 * error:.2f} | "
                f"{8 * n * d / 2**20:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
