"""FITC-EP and the IVM on MNIST "4 against the rest", [NGH07]'s USPS experiment.

    SPARSEGP_DATA=../shared/data python -m benchmarks run mnist_fitc --sizes 200 400 \
        --out benchmarks/results/mnist_fitc.json

[NGH07] used USPS (16×16 digits, 7 291 training and 2 007 test images). USPS is not in the
data folder; this runs the same task on MNIST at 13×13 (169 inputs): a seeded random
7 291 of MNIST's training images, all 10 000 test images. ``FITCGPClassifier`` learns
kernel, bias and all M×169 pseudo-input coordinates (one initialisation at k-means
centres, 20 L-BFGS-B iterations); ``IVMClassifier`` uses the same d with its
hyperparameter learning; the cross-validated SVC is the reference. One process, one
estimator after another.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np

from sparsegp import FITCGPClassifier, IVMClassifier
from sparsegp.benchmarking import CrossValidatedSVC, evaluate, format_table, save_run
from sparsegp.datasets import load_mnist

N_TRAIN = 7291  # the size of USPS's training set
DIGIT = 4


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[200, 400])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    X, labels, X_test, labels_test = load_mnist(resolution=13)
    subset = np.random.default_rng(0).choice(len(X), N_TRAIN, replace=False)
    X, y = X[subset], np.where(labels[subset] == DIGIT, 1, -1)
    y_test = np.where(labels_test == DIGIT, 1, -1)
    start = time.time()
    results = []
    for M in args.sizes:
        for name, estimator in [
            (
                "fitc",
                FITCGPClassifier(
                    n_inducing=M, n_restarts_optimizer=0, ard=False, random_state=0
                ),
            ),
            (
                "ivm",
                IVMClassifier(
                    ard=False,
                    active_set_size=M,
                    selection="randomized",
                    posterior="active_set",
                    random_state=0,
                ),
            ),
        ]:
            result, _ = evaluate(
                estimator, X, y, X_test, y_test, name=f"{name}_{M}", dataset="mnist13_4"
            )
            print(result, flush=True)
            results.append(result)
    result, _ = evaluate(
        CrossValidatedSVC(), X, y, X_test, y_test, name="svc", dataset="mnist13_4"
    )
    results.append(result)
    print(format_table(results))
    print(f"\nwall time {time.time() - start:.0f} s on {platform.machine()}")
    if args.out is not None:
        save_run(args.out, results)


if __name__ == "__main__":
    main()
