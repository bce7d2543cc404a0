"""Full EP at tol 10⁻⁴ and 10⁻³ on data outside the IDA suite: time, test error, NLP, log Z.

    SPARSEGP_DATA=../shared/data python -m benchmarks run ep_tol \
        --out benchmarks/results/ep_tol_other_data.json

``EPGPClassifier(tol=…, random_state=0)``, one BLAS thread, each fit of a pair on the
same split: MNIST 13×13 4 against the rest (2 000 seeded training images, all 10 000
test images), MAGIC gamma (2 000 events of the 19 020, standardised), a 10 %-flipped
``make_classification`` set (20 features, 2 000 training points), scikit-learn's
breast cancer (400 training points) and digits (3 against the rest, 1 200), three
seeds each. The IDA suite's side of the comparison is ``python -m benchmarks run ida
--estimators ep_tol4 ep sklearn_gpc``.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from benchmarks._lib.tasks import mnist_task
from sparsegp import EPGPClassifier
from sparsegp.benchmarking import evaluate, save_run
from sparsegp.datasets import load_magic

TOLERANCES = (1e-4, 1e-3)
SEEDS = (0, 1, 2)


def standardised_split(X, y, n_train, seed):
    X, X_test, y, y_test = train_test_split(
        X, y, train_size=n_train, random_state=seed, stratify=y
    )
    scaler = StandardScaler().fit(X)
    return scaler.transform(X), y, scaler.transform(X_test), y_test


def tasks():
    """``(name, (X, y, X_test, y_test))`` for every data set and seed."""
    X, y, X_test, y_test = mnist_task(60000)
    for seed in SEEDS:
        rows = np.random.default_rng(seed).choice(len(X), 2000, replace=False)
        yield f"mnist4_2000_s{seed}", (X[rows], y[rows], X_test, y_test)
    X, y, X_test, y_test = load_magic(0)
    X, y = np.vstack([X, X_test]), np.concatenate([y, y_test])
    for seed in SEEDS:
        yield f"magic_2000_s{seed}", standardised_split(X, y, 2000, seed)
    for seed in SEEDS:
        X, y = make_classification(
            4000, n_features=20, n_informative=8, flip_y=0.1, random_state=seed
        )
        yield f"flipped_2000_s{seed}", standardised_split(X, y, 2000, seed)
    X, y = load_breast_cancer(return_X_y=True)
    for seed in SEEDS:
        yield f"breast_cancer_s{seed}", standardised_split(X, y, 400, seed)
    X, y = load_digits(return_X_y=True)
    for seed in SEEDS:
        yield (
            f"digits3_s{seed}",
            standardised_split(X, (y == 3).astype(int), 1200, seed),
        )


def fit_row(name, tol, X, y, X_test, y_test):
    result, clf = evaluate(
        EPGPClassifier(tol=tol, ard=False, random_state=0),
        X,
        y,
        X_test,
        y_test,
        name=f"ep_tol{tol:g}",
        dataset=name,
    )
    return dict(
        dataset=name,
        tol=tol,
        fit_seconds=result.fit_seconds,
        error=result.error,
        nlp=result.nlp,
        log_evidence=float(clf.log_marginal_likelihood_value_),
        n_evaluations=int(clf.n_iter_),
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = []
    print("| data | tol | fit s | error % | NLP | log Z | evaluations |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes of the small sets
        for name, data in tasks():
            for tol in TOLERANCES:
                row = fit_row(name, tol, *data)
                rows.append(row)
                print(
                    f"| {name} | {tol:g} | {row['fit_seconds']:.2f} | "
                    f"{100 * row['error']:.2f} | {row['nlp']:.4f} | "
                    f"{row['log_evidence']:.2f} | {row['n_evaluations']} |",
                    flush=True,
                )
    if args.out is not None:
        save_run(args.out, rows)


if __name__ == "__main__":
    main()
