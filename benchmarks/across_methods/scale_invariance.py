"""Every estimator with its defaults on inputs (and targets) in other units.

    SPARSEGP_DATA=../shared/data python -m benchmarks run scale_invariance \
        --out benchmarks/results/scale_invariance.json

A user's features come in their own units. Each estimator, with its defaults (FITC and
full EP with ``ard=False``, the isotropic kernel of the recorded run) and
``random_state=0``, is fitted on the same splits with the inputs (and, for regressors,
the targets) multiplied by 10⁻³, 1 and 10³, unscaled and unstandardised:

- IDA banana, realizations 1-5 (400 training, 4 900 test points, 2-D);
- scikit-learn's breast-cancer data in raw units (30 features whose scales differ by
  10⁵), 5 stratified splits of 398 / 171;
- Friedman #1 (10 inputs, noise σ = 1), 5 seeds of 1 000 training and 1 000 test points.

Classifiers report test error and NLP; regressors the standardised mean squared error
(MSE / test variance) and the NLP of the standardised targets (``NLPD + log scale``),
both unit-free. A scale is "the same within noise" when its mean lies within two
standard errors of the difference from the unit scale's, split by split.
"""

from __future__ import annotations

import argparse
import functools
import time

import numpy as np
from scipy.stats import norm
from sklearn.datasets import load_breast_cancer, make_friedman1
from sklearn.model_selection import StratifiedShuffleSplit
from threadpoolctl import threadpool_limits

from sparsegp import (
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    IVMRegressor,
    NLPSparseGPClassifier,
    RVMClassifier,
    RVMRegressor,
    SparseOnlineGPClassifier,
    SparseOnlineGPRegressor,
)
from sparsegp.benchmarking import evaluate, save_run
from sparsegp.datasets import load_ida

SCALES = (1e-3, 1.0, 1e3)
CLASSIFIERS = {  # FITC and full EP with the isotropic kernel of their runs
    "ep": functools.partial(EPGPClassifier, ard=False),
    "fitc": functools.partial(FITCGPClassifier, ard=False),
    "ivm": IVMClassifier,
    "nlp": NLPSparseGPClassifier,
    "online": SparseOnlineGPClassifier,
    "rvm": RVMClassifier,
}
REGRESSORS = {
    "ivm": IVMRegressor,
    "online": SparseOnlineGPRegressor,
    "rvm": RVMRegressor,
}


def banana_splits(n_splits):
    return [load_ida("banana", realization) for realization in range(n_splits)]


def breast_cancer_splits(n_splits):
    X, y = load_breast_cancer(return_X_y=True)
    splitter = StratifiedShuffleSplit(n_splits, test_size=0.3, random_state=0)
    return [(X[tr], y[tr], X[te], y[te]) for tr, te in splitter.split(X, y)]


def friedman_splits(n_splits):
    splits = []
    for seed in range(n_splits):
        X, y = make_friedman1(2000, noise=1.0, random_state=seed)
        splits.append((X[:1000], y[:1000], X[1000:], y[1000:]))
    return splits


def classifier_row(name, dataset, split_index, scale, split):
    X, y, X_test, y_test = split
    result, _ = evaluate(
        CLASSIFIERS[name](random_state=0),
        scale * X,
        y,
        scale * X_test,
        y_test,
        name=name,
        dataset=dataset,
        realization=split_index,
    )
    return {
        "task": "classification",
        "estimator": name,
        "dataset": dataset,
        "split": split_index,
        "scale": scale,
        "error": result.error,
        "nlp": result.nlp,
        "fit_seconds": result.fit_seconds,
    }


def regressor_row(name, dataset, split_index, scale, split):
    X, y, X_test, y_test = split
    estimator = REGRESSORS[name](random_state=0)
    start = time.perf_counter()
    estimator.fit(scale * X, scale * y)
    seconds = time.perf_counter() - start
    mean, std = estimator.predict(scale * X_test, return_std=True)
    mean, std = mean / scale, std / scale
    return {
        "task": "regression",
        "estimator": name,
        "dataset": dataset,
        "split": split_index,
        "scale": scale,
        "error": float(np.mean((mean - y_test) ** 2) / np.var(y_test)),
        "nlp": float(-np.mean(norm.logpdf(y_test, mean, std))),
        "fit_seconds": seconds,
    }


def same_within_noise(rows, metric):
    """Per scale ≠ 1: mean paired difference from scale 1 and whether it is noise.

    Noise: within two standard errors of the paired differences, or within rounding
    (10⁻⁶ relative) when the fits agree split by split.
    """
    by_scale = {
        scale: np.array(
            [
                r[metric]
                for r in sorted(rows, key=lambda r: r["split"])
                if r["scale"] == scale
            ]
        )
        for scale in SCALES
    }
    verdicts = {}
    for scale in SCALES:
        if scale == 1.0:
            continue
        difference = by_scale[scale] - by_scale[1.0]
        standard_error = difference.std(ddof=1) / np.sqrt(len(difference))
        rounding = 1e-6 * np.abs(by_scale[1.0]).mean()
        verdicts[scale] = (
            float(difference.mean()),
            bool(abs(difference.mean()) <= max(2 * standard_error, rounding)),
        )
    return by_scale, verdicts


def format_table(records):
    lines = [
        "| data set | estimator | metric | ×10⁻³ | ×1 | ×10³ | same within noise |",
        "|---|---|---|---:|---:|---:|:---:|",
    ]
    keys = dict.fromkeys((r["dataset"], r["estimator"], r["task"]) for r in records)
    for dataset, estimator, task in keys:
        rows = [
            r
            for r in records
            if r["dataset"] == dataset and r["estimator"] == estimator
        ]
        metrics = (
            [("error", "error %", 100), ("nlp", "NLP", 1)]
            if task == "classification"
            else [("error", "SMSE", 1), ("nlp", "NLP (std. y)", 1)]
        )
        for metric, label, factor in metrics:
            by_scale, verdicts = same_within_noise(rows, metric)
            cells = [
                f"{factor * v.mean():.3f} ± {factor * v.std(ddof=1):.3f}"
                for v in by_scale.values()
            ]
            same = "yes" if all(ok for _, ok in verdicts.values()) else "**no**"
            lines.append(
                f"| {dataset} | {estimator} | {label} | {' | '.join(cells)} | {same} |"
            )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--estimators", nargs="*", default=None)
    parser.add_argument("--out", default="benchmarks/results/scale_invariance.json")
    args = parser.parse_args(argv)
    wanted = set(args.estimators or list(CLASSIFIERS) + list(REGRESSORS))
    problems = [
        ("banana", banana_splits(args.splits), CLASSIFIERS, classifier_row),
        (
            "breast_cancer",
            breast_cancer_splits(args.splits),
            CLASSIFIERS,
            classifier_row,
        ),
        ("friedman1", friedman_splits(args.splits), REGRESSORS, regressor_row),
    ]
    records = []
    with threadpool_limits(1):
        for dataset, splits, estimators, row in problems:
            for name in estimators:
                if name not in wanted:
                    continue
                for split_index, split in enumerate(splits):
                    for scale in SCALES:
                        record = row(name, dataset, split_index, scale, split)
                        print(
                            f"{dataset} {name} split {split_index} ×{scale:g}: "
                            f"{record['error']:.4f} {record['nlp']:.3f} "
                            f"{record['fit_seconds']:.1f} s",
                            flush=True,
                        )
                        records.append(record)
    print(format_table(records))
    save_run(args.out, records)


if __name__ == "__main__":
    main()
