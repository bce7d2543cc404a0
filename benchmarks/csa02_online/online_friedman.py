"""Csató's sparse online GP on Friedman #1 beside exact GP regression.

    python -m benchmarks run online_friedman --out benchmarks/results/online_friedman.json

Friedman #1 (``make_friedman1``, 10 inputs, noise 1), 5 000 test points. The
hyperparameters are learnt once by ``GaussianProcessRegressor`` (``normalize_y``) on
1 000 training points and given, fixed, to both models, so what is compared is the
inference: exact GP regression (O(N³)) against one online pass with ``d`` basis vectors
(O(N·d²)). For every N: fit seconds and test MSE of both; for the online GP also
examples per second. One process, one BLAS thread for both.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import make_friedman1
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
from threadpoolctl import threadpool_limits

from sparsegp import SparseOnlineGPRegressor
from sparsegp.benchmarking import save_run


def learn_kernel():
    X, y = make_friedman1(n_samples=1000, noise=1.0, random_state=100)
    kernel = ConstantKernel(1.0) * RBF(1.0) + WhiteKernel(0.1)
    gpr = GaussianProcessRegressor(
        kernel, normalize_y=True, n_restarts_optimizer=2, random_state=0
    )
    return gpr.fit(X, y).kernel_


def timed_fit(model, X, y):
    start = time.perf_counter()
    model.fit(X, y)
    return model, time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", nargs="+", type=int, default=[2000, 5000, 10000, 20000]
    )
    parser.add_argument("--basis", nargs="+", type=int, default=[100, 200, 500])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    X_test, y_test = make_friedman1(n_samples=5000, noise=1.0, random_state=1)
    rows = []
    print("| N | model | fit s | examples/s | test MSE |")
    print("|---:|---|---:|---:|---:|")
    with threadpool_limits(1):
        kernel = learn_kernel()
        for n in args.sizes:
            X, y = make_friedman1(n_samples=n, noise=1.0, random_state=0)
            models = [
                (
                    "exact GPR",
                    GaussianProcessRegressor(kernel, optimizer=None, normalize_y=True),
                )
            ]
            models += [
                (
                    f"online d={d}",
                    SparseOnlineGPRegressor(
                        kernel, max_basis_vectors=d, optimizer=None, random_state=0
                    ),
                )
                for d in args.basis
            ]
            for name, model in models:
                model, seconds = timed_fit(model, X, y)
                mse = float(np.mean((model.predict(X_test) - y_test) ** 2))
                row = dict(n=n, model=name, fit_seconds=seconds, mse=mse)
                rows.append(row)
                print(
                    f"| {n} | {name} | {seconds:.2f} | {n / seconds:.0f} | {mse:.3f} |",
                    flush=True,
                )
    print(f"\nkernel {kernel} on {platform.machine()}")
    if args.out is not None:
        save_run(args.out, rows, kernel=str(kernel))


if __name__ == "__main__":
    main()
