"""Every classifier with its defaults on five sets, beside libsvm and logistic regression.

    SPARSEGP_DATA=../shared/data python -m benchmarks run defaults_table \
        --out benchmarks/results/defaults_table.json

Issue 48's table: what a user gets who picks an estimator by its name and fits it
with its defaults (``random_state=0``), one BLAS thread. The sets:

- ``magic``: MAGIC gamma split 1 in raw units (12 680 training, 6 340 test events);
- ``mnist4`` and ``mnist10``: MNIST 13×13, the 7 291 seeded training images of the
  other MNIST benchmarks, 4 against the rest and all ten classes, the 10 000 test
  images;
- ``imbalanced90`` and ``imbalanced97``: ``make_classification(n_samples=60_000,
  n_features=20, weights=[w], flip_y=0.02, random_state=0)``, the first 50 000 points
  to train on, the last 10 000 to test;
- ``nonlinear90``: the same size and 10 % positives, no flipped labels, each class
  six clusters in 12 informative of 22 features (``clean_nonlinear_task``): a
  boundary that needs many basis functions.

Beside them ``SVC(probability=True)`` and ``LogisticRegression(max_iter=1000)``.
ECE is the expected calibration error of the positive class's probability (two
classes) or of the predicted class's (top-label, ten classes), 15 bins
(:func:`sparsegp.metrics.expected_calibration_error`). Each fit runs in a child
process stopped after ``--time-limit`` seconds (recorded as stopped, with no
scores); a fit that refuses the data (``MemoryError`` before any work) is recorded
with its reason.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
import traceback
import warnings

from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from benchmarks._lib.defaults import DEFAULT_CLASSIFIERS
from benchmarks._lib.reports import calibration_error
from benchmarks._lib.tasks import (
    clean_nonlinear_task,
    imbalanced_task,
    mnist_classes,
    mnist_task,
)
from sparsegp.benchmarking import PlattSVC, evaluate, save_run
from sparsegp.datasets import load_magic

N_MNIST = 7291
PEERS = {
    "svc": lambda: PlattSVC(random_state=0),
    "logistic": lambda: LogisticRegression(max_iter=1000),
}


SETS = {
    "magic": lambda: load_magic(0),
    "mnist4": lambda: mnist_task(N_MNIST),
    "mnist10": lambda: mnist_classes(N_MNIST),
    "imbalanced90": lambda: imbalanced_task(0.9),
    "imbalanced97": lambda: imbalanced_task(0.97),
    "nonlinear90": lambda: clean_nonlinear_task(0.9),
}


def _fit_in_child(name, dataset, data, results):
    """Fit and score one estimator (in a child process); put a dict in ``results``."""
    estimator = {**DEFAULT_CLASSIFIERS, **PEERS}[name]()
    X, y, X_test, y_test = data
    try:
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the table reports what came out
            result, fitted = evaluate(
                estimator, X, y, X_test, y_test, name=name, dataset=dataset
            )
            ece = calibration_error(fitted, X_test, y_test)
        results.put({**vars(result), "ece": ece, "status": "fitted"})
    except MemoryError as error:
        results.put(
            {"estimator": name, "dataset": dataset, "status": f"refused: {error}"}
        )
    except Exception:  # noqa: BLE001 - recorded, the run goes on
        results.put(
            {"estimator": name, "dataset": dataset, "status": traceback.format_exc(-1)}
        )


def timed_fit(name, dataset, data, limit):
    """:func:`_fit_in_child` in a forked process, stopped after ``limit`` seconds."""
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_fit_in_child, args=(name, dataset, data, results))
    start = time.perf_counter()
    child.start()
    child.join(limit)
    if child.is_alive():
        child.kill()
        child.join()
        return {
            "estimator": name,
            "dataset": dataset,
            "status": f"stopped at {limit} s",
        }
    row = results.get(timeout=10)
    row["wall_seconds"] = time.perf_counter() - start
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", choices=list(SETS), default=list(SETS))
    parser.add_argument(
        "--estimators",
        nargs="+",
        choices=[*DEFAULT_CLASSIFIERS, *PEERS],
        default=[*DEFAULT_CLASSIFIERS, *PEERS],
    )
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    rows = []
    for dataset in args.sets:
        data = SETS[dataset]()
        for name in args.estimators:
            row = timed_fit(name, dataset, data, args.time_limit)
            rows.append(row)
            scores = (
                f"{100 * row['error']:.2f} % / {row['nlp']:.3f} / ECE {row['ece']:.3f} "
                f"/ {row['fit_seconds']:.1f} s"
                if row["status"] == "fitted"
                else row["status"].strip().splitlines()[-1]
            )
            print(f"{dataset} {name}: {scores}", flush=True)
            if args.out:
                save_run(args.out, rows, time_limit=args.time_limit)


if __name__ == "__main__":
    main()
