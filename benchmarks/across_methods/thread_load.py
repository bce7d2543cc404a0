"""Fit times with the default BLAS threads against one thread, on a loaded machine.

    python -m benchmarks run thread_load --out benchmarks/results/thread_load.json

A second process spins on one core (``while True: pass``) for the whole run, as a
busy server or another joblib worker would. Each estimator is fitted on IDA banana
(400 points, shipped) twice per setting: with the BLAS's default thread count (all
cores) and inside ``threadpool_limits(1)``; the faster of the two repeats is kept.
The ratio default / one thread is what a user on a shared machine pays for threads.
``ivm_1000_large`` and ``fitc_200_large`` fit a 20 000-point standardised
``make_classification`` set instead, so that the IVM's randomized greedy phase and
float32 store run, FITC's products are large and the online GP (fixed default kernel,
d = 500) deletes in its compiled loop at every example that joins; ``ep_2000_large`` 2 000 points of
it, so that full EP's factorisations (2.7 GFlop) take the BLAS threads;
``sgpr_large`` fits ``SparseGPRegressor()`` (VFE, M = 200) on 20 000 Friedman #1
points, whose bound's products are n·M² per pass.
``--no-load`` runs the same without the spinning process; ``--only`` picks estimators.
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import subprocess
import sys
import time
from pathlib import Path

from sklearn.datasets import make_classification, make_friedman1
from threadpoolctl import threadpool_info, threadpool_limits

from sparsegp import (
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    NLPSparseGPClassifier,
    SparseGPRegressor,
    SparseOnlineGPClassifier,
)
from sparsegp.benchmarking import save_run
from sparsegp.datasets import load_banana

ESTIMATORS = {
    "ep": lambda: EPGPClassifier(ard=False, random_state=0),
    "fitc_20": lambda: FITCGPClassifier(n_inducing=20, ard=False, random_state=0),
    "nlp_80": lambda: NLPSparseGPClassifier(
        max_basis_vectors=80, posterior="active_set", random_state=0
    ),
    "ivm_100": lambda: IVMClassifier(
        ard=False, active_set_size=100, posterior="active_set", random_state=0
    ),
    "ivm_1000_large": lambda: IVMClassifier(
        active_set_size=1000, optimizer=None, posterior="active_set", random_state=0
    ),
    "online_80": lambda: SparseOnlineGPClassifier(
        ard=False, max_basis_vectors=80, posterior="online", random_state=0
    ),
    "online_500_large": lambda: SparseOnlineGPClassifier(
        max_basis_vectors=500, optimizer=None, posterior="online", random_state=0
    ),
    "fitc_200_large": lambda: FITCGPClassifier(
        n_inducing=200, ard=False, random_state=0
    ),
    "ep_2000_large": lambda: EPGPClassifier(ard=False, random_state=0),
    "sgpr_large": lambda: SparseGPRegressor(random_state=0),
}


def data_for(name):
    if name == "sgpr_large":
        return make_friedman1(n_samples=20_000, noise=1.0, random_state=0)
    if name.endswith("_large"):
        n = 2_000 if name.startswith("ep_") else 20_000
        X, y = make_classification(n_samples=n, random_state=0)
        return (X - X.mean(axis=0)) / X.std(axis=0), y
    return load_banana()[:2]


REPEATS = 2


def best_fit_seconds(make, X, y, threads):
    limit = threadpool_limits(1) if threads == 1 else contextlib.nullcontext()
    times = []
    with limit:
        for _ in range(REPEATS):
            start = time.perf_counter()
            make().fit(X, y)
            times.append(time.perf_counter() - start)
    return min(times)


@contextlib.contextmanager
def busy_core(enabled):
    if not enabled:
        yield
        return
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)
        yield
    finally:
        spinner.kill()
        spinner.wait()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-load", action="store_true")
    parser.add_argument("--only", nargs="+", choices=list(ESTIMATORS), default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    default_threads = max(
        lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"
    )
    rows = []
    with busy_core(not args.no_load):
        for name in args.only or ESTIMATORS:
            make, (X, y) = ESTIMATORS[name], data_for(name)
            one = best_fit_seconds(make, X, y, 1)
            default = best_fit_seconds(make, X, y, default_threads)
            rows.append(
                dict(
                    estimator=name,
                    loaded=not args.no_load,
                    default_threads=default_threads,
                    one_thread_seconds=one,
                    default_threads_seconds=default,
                    ratio=default / one,
                )
            )
            print(
                f"{name}: one thread {one:.2f} s, {default_threads} threads "
                f"{default:.2f} s, ratio {default / one:.2f}",
                flush=True,
            )
    print(f"machine {platform.machine()}, loaded: {not args.no_load}")
    if args.out is not None:
        save_run(args.out, rows)


if __name__ == "__main__":
    main()
