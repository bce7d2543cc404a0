"""The NLP classifier's validation sample on ten classes: 2 000 points against 2 000/√C.

    SPARSEGP_DATA=../shared/data python -m benchmarks run nlp_validation_size \
        --out benchmarks/results/nlp_validation_size.json

Issue 48's one default fit over two minutes is the NLP classifier's on ten MNIST
classes. The IVM and the online GP share their default sizes' budgets among C
one-vs-rest problems (guide, "Default sizes"); this asks whether the NLP classifier's
``validation_size`` could be shared too. Its selection costs O(κ·s·d²) per basis
(algorithms.md §2.2), so ``s = 2 000/√C`` takes most of the time off. The sets, each
with ``NLPSparseGPClassifier(random_state=0)`` at both sizes, one BLAS thread:

- ``digits``: scikit-learn's ``load_digits``, issue 46's seeded 70/30 split;
- ``classification``: the first ``--n-classification`` training points of issue 46's
  ``make_classification`` (ten classes, 5 % flipped labels), its 10 000 test points;
- ``mnist``: MNIST 13×13, the 7 291 seeded images of the defaults table, ten classes.
"""

from __future__ import annotations

import argparse
import platform

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks._lib.tasks import mnist_classes
from benchmarks.vh17_multiclass.multiclass import classification, digits
from sparsegp import NLPSparseGPClassifier
from sparsegp.benchmarking import evaluate, save_run

#: The estimator's default ``validation_size``.
FULL_SAMPLE = 2000


def sets(n_classification):
    """``{name: (X, y, X_test, y_test)}`` of the three ten-class sets."""
    X, X_test, y, y_test = digits()
    found = {"digits": (X, y, X_test, y_test)}
    X, X_test, y, y_test = classification()
    found["classification"] = (
        X[:n_classification],
        y[:n_classification],
        X_test,
        y_test,
    )
    found["mnist"] = mnist_classes(7291)
    return found


def shared_sample(n_classes):
    """``2 000/√C``, rounded: the sample that C problems would share."""
    return int(round(FULL_SAMPLE / np.sqrt(n_classes)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sets", nargs="+", default=["digits", "classification", "mnist"]
    )
    parser.add_argument("--n-classification", type=int, default=10_000)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    rows = []
    print("| set | validation_size | error % | NLP | fit s |")
    print("|---|---:|---:|---:|---:|")
    for name, (X, y, X_test, y_test) in sets(args.n_classification).items():
        if name not in args.sets:
            continue
        for size in (FULL_SAMPLE, shared_sample(len(np.unique(y)))):
            with threadpool_limits(1):
                result, _ = evaluate(
                    NLPSparseGPClassifier(validation_size=size, random_state=0),
                    X,
                    y,
                    X_test,
                    y_test,
                    name=f"nlp_validation_{size}",
                    dataset=name,
                )
            rows.append(result)
            print(
                f"| {name} | {size} | {100 * result.error:.2f} | {result.nlp:.3f} | "
                f"{result.fit_seconds:.1f} |",
                flush=True,
            )
    if args.out:
        save_run(args.out, rows, python=platform.python_version())


if __name__ == "__main__":
    main()
