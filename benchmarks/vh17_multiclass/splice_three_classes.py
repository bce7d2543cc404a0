"""Every classifier with its defaults on a three-class DNA task, beside libsvm.

    SPARSEGP_DATA=../shared/data python -m benchmarks run splice_three_classes \
        --out benchmarks/results/splice_three_classes.json

Data of our own choosing for issue 46 beside its digit sets: sequences coded as one
binary indicator per base and position (240 features, most of them irrelevant), three
classes (``tasks.splice_three_classes``: IDA splice's pool, its "EI or IE" class split
by the junction's motif), 2 000 sequences to train on and 1 175 to test, three seeded
draws. Each sparsegp classifier with its defaults (``random_state=0``; one-vs-rest,
``FITCGPClassifier``'s default), FITC's multinomial model and one-vs-rest FITC with
M = 400 (N/5 uncapped) beside them, and ``SVC(C=10, gamma="scale",
probability=True)`` and ``LogisticRegression``; one BLAS thread. ECE of the top label.
"""

from __future__ import annotations

import argparse
import platform
import warnings

from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from benchmarks._lib.defaults import DEFAULT_CLASSIFIERS
from benchmarks._lib.tasks import splice_three_classes
from benchmarks.across_methods.defaults_table import calibration_error
from sparsegp import FITCGPClassifier
from sparsegp.benchmarking import PlattSVC, evaluate, save_run

ESTIMATORS = {
    **DEFAULT_CLASSIFIERS,
    "fitc_multinomial": lambda: FITCGPClassifier(
        multi_class="multinomial", random_state=0
    ),
    "fitc_400": lambda: FITCGPClassifier(n_inducing=400, random_state=0),
    "svc": lambda: PlattSVC(C=10.0, random_state=0),
    "logistic": lambda: LogisticRegression(max_iter=1000),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--estimators", nargs="+", default=list(ESTIMATORS))
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    rows = []
    print("| estimator | seed | error % | NLP | ECE | fit s |")
    print("|---|---:|---:|---:|---:|---:|")
    for seed in args.seeds:
        X, y, X_test, y_test = splice_three_classes(seed)
        for name in args.estimators:
            with threadpool_limits(1), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # bound warnings of near-linear fits
                result, fitted = evaluate(
                    ESTIMATORS[name](),
                    X,
                    y,
                    X_test,
                    y_test,
                    name=name,
                    dataset="splice_three_classes",
                    realization=seed,
                )
            row = dict(vars(result), ece=calibration_error(fitted, X_test, y_test))
            rows.append(row)
            print(
                f"| {name} | {seed} | {100 * row['error']:.2f} | {row['nlp']:.4f} | "
                f"{row['ece']:.3f} | {row['fit_seconds']:.1f} |",
                flush=True,
            )
    if args.out:
        save_run(args.out, rows, python=platform.python_version())


if __name__ == "__main__":
    main()
