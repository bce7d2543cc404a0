"""Prediction time of every kernel classifier, beside libsvm's, with the floor.

    python -m benchmarks run predict_speed --out benchmarks/results/predict_speed.json
    SPARSEGP_DATA=../shared/data python -m benchmarks run predict_speed --task mnist \
        --out benchmarks/results/predict_speed_mnist.json

A fitted model predicts from ``k(points, x)`` against its m kept points (all n for full
EP, the inducing points, the active or basis set). Each classifier is fitted once with
a fixed kernel (``10·RBF(ℓ₀) + 0.1``, ``ℓ₀`` the default length scale) on 10 000
training points, then ``predict_proba`` on the test set is timed twice: as the library
evaluates the block now (:meth:`sparsegp.kernels.KernelBlocks.cross`, one matrix
product and one ``exp``), and with scikit-learn's own kernel evaluation (``cdist``),
the path before; each three times, alternated, the shortest kept. The two
predictions are compared. The floor is the block's
``2·m·N·D`` flops plus the predictive variance's ``m²·N`` (a triangular solve per
point) at the dgemm rate measured in the same run. ``SVC(probability=True)`` (libsvm,
its support vectors against each test point) is the peer, fitted on the same points.
One BLAS thread. ``--task noisy``: ``make_classification`` with 22 features (12 000
test points); ``--task mnist``: MNIST 13×13 4 against the rest (169 pixels, 10 000
test images).
"""

from __future__ import annotations

import argparse
import time
from unittest import mock

import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from threadpoolctl import threadpool_limits

from benchmarks._lib.tasks import mnist_task, noisy_classification_task
from sparsegp import (
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    NLPSparseGPClassifier,
    SparseOnlineGPClassifier,
)
from sparsegp.benchmarking import PlattSVC, dgemm_rate, model_size, save_run
from sparsegp.kernels import KernelBlocks
from sparsegp.methods.kernel_defaults import default_length_scale

N_TRAIN = 10_000
#: Timings per path; the shortest is reported.
REPEATS = 3


def classifiers(kernel):
    """Each classifier with the fixed kernel, and how many training points it fits."""
    return {
        "EP (n = 3 000)": (EPGPClassifier(kernel, optimizer=None), 3000),
        "FITC (M = 200)": (
            FITCGPClassifier(kernel, n_inducing=200, optimizer=None, random_state=0),
            N_TRAIN,
        ),
        "IVM (d = 1 000)": (
            IVMClassifier(
                kernel,
                active_set_size=1000,
                optimizer=None,
                posterior="active_set",
                random_state=0,
            ),
            N_TRAIN,
        ),
        "NLP (d = 200)": (
            NLPSparseGPClassifier(
                kernel,
                max_basis_vectors=200,
                optimizer=None,
                posterior="active_set",
                random_state=0,
            ),
            N_TRAIN,
        ),
        "online (d = 500)": (
            SparseOnlineGPClassifier(
                kernel,
                max_basis_vectors=500,
                optimizer=None,
                posterior="online",
                random_state=0,
            ),
            N_TRAIN,
        ),
    }


def timed_proba(model, X):
    start = time.perf_counter()
    proba = model.predict_proba(X)
    return proba, time.perf_counter() - start


def sklearn_block(self, X_new):
    """The block as scikit-learn evaluates it: the prediction path before ``cross``."""
    return self.kernel(self.X, X_new)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", choices=["noisy", "mnist"], default="noisy")
    parser.add_argument("--out", default="benchmarks/results/predict_speed.json")
    args = parser.parse_args(argv)
    if args.task == "mnist":
        X, y, X_test, _ = mnist_task(N_TRAIN)
    else:
        X, y, X_test, _ = noisy_classification_task(N_TRAIN)
    kernel = ConstantKernel(10.0, "fixed") * RBF(
        default_length_scale(X), "fixed"
    ) + ConstantKernel(0.1, "fixed")
    n_test, n_features = X_test.shape
    results = []
    print("| model | points kept | predict s | before s | floor s | ratio to libsvm |")
    print("|---|---:|---:|---:|---:|---:|")
    with threadpool_limits(1):
        rate = dgemm_rate(2000, 2000, 2000)
        svc = PlattSVC(random_state=0).fit(X, y)
        svc_seconds = min(timed_proba(svc, X_test)[1] for _ in range(REPEATS))
        rows = [("libsvm SVC", len(svc.support_), svc_seconds, np.nan, np.nan)]
        for name, (model, n_fit) in classifiers(kernel).items():
            model.fit(X[:n_fit], y[:n_fit])
            kept = model_size(model, n_fit)
            times, before_times = [], []
            for _ in range(REPEATS):  # alternated: neither path runs on warmer caches
                proba, seconds = timed_proba(model, X_test)
                with mock.patch.object(KernelBlocks, "cross", sklearn_block):
                    before, before_seconds = timed_proba(model, X_test)
                times.append(seconds)
                before_times.append(before_seconds)
            seconds, before_seconds = min(times), min(before_times)
            floor = (2.0 * kept * n_test * n_features + kept**2 * n_test) / rate
            rows.append((name, kept, seconds, before_seconds, floor))
            results.append(
                {
                    "model": name,
                    "kept": kept,
                    "predict_seconds": seconds,
                    "before_seconds": before_seconds,
                    "floor_seconds": floor,
                    "largest_probability_difference": float(
                        np.max(np.abs(proba - before))
                    ),
                }
            )
        for name, kept, seconds, before_seconds, floor in rows:
            print(
                f"| {name} | {kept} | {seconds:.3f} | {before_seconds:.3f} | "
                f"{floor:.3f} | {seconds / svc_seconds:.2f} |"
            )
    results.append(
        {
            "model": "libsvm SVC",
            "kept": len(svc.support_),
            "predict_seconds": svc_seconds,
        }
    )
    save_run(
        args.out,
        results,
        task=args.task,
        n_test=n_test,
        dgemm_gflops=rate / 1e9,
    )
    print(
        f"dgemm {rate / 1e9:.1f} GFlop/s; largest probability difference "
        f"{max(r.get('largest_probability_difference', 0) for r in results):.1e}"
    )


if __name__ == "__main__":
    main()
