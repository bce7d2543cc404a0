"""FITC's error and fit time against M on data of 400 to 48 000 points (its default M).

    SPARSEGP_DATA=../shared/data python -m benchmarks run fitc_inducing_size \
        --out benchmarks/results/fitc_inducing_size.json

``FITCGPClassifier(n_inducing=M, random_state=0)``, other settings default, for
M ∈ {10, 25, 50, 100, 200, 400} (``--sizes``) on: IDA banana and image (realization
0), MNIST 13×13 4 against the rest (7 291 seeded images), MAGIC (split 0, inputs
standardised on the training split) and ``make_classification(n_samples=60_000,
n_features=22, n_informative=10, flip_y=0.1, random_state=0)`` (48 000 training
points, the ``default_sizes`` task). One BLAS thread. The measurement behind
``n_inducing=None`` (N/5 up to ``DEFAULT_MAX_INDUCING``); [NGH07]'s IDA tables set M
per data set and are not affected.
"""

from __future__ import annotations

import argparse
import platform

from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from benchmarks._lib.tasks import mnist_task, noisy_classification_task
from sparsegp import FITCGPClassifier
from sparsegp.benchmarking import evaluate, save_run
from sparsegp.datasets import load_ida, load_magic


def standardised_magic():
    X, y, X_test, y_test = load_magic(0)
    scaler = StandardScaler().fit(X)
    return scaler.transform(X), y, scaler.transform(X_test), y_test


TASKS = {
    "banana": lambda: load_ida("banana", 0),
    "image": lambda: load_ida("image", 0),
    "mnist13_4": lambda: mnist_task(7291),
    "magic": standardised_magic,
    "make_classification": lambda: noisy_classification_task(48_000),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(TASKS))
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[10, 25, 50, 100, 200, 400]
    )
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    rows = []
    print("| data | N | M | error % | NLP | fit s |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in args.only or TASKS:
        X, y, X_test, y_test = TASKS[name]()
        for M in (m for m in args.sizes if m <= len(X)):
            with threadpool_limits(1):
                result, _ = evaluate(
                    FITCGPClassifier(n_inducing=M, ard=False, random_state=0),
                    X,
                    y,
                    X_test,
                    y_test,
                    name=f"fitc_{M}",
                    dataset=name,
                )
            rows.append(dict(result.__dict__, n_train=len(X), n_inducing=M))
            print(
                f"| {name} | {len(X)} | {M} | {100 * result.error:.2f} | "
                f"{result.nlp:.3f} | {result.fit_seconds:.1f} |",
                flush=True,
            )
    if args.out:
        save_run(args.out, rows, python=platform.python_version())


if __name__ == "__main__":
    main()
