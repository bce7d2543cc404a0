"""Every classifier with its defaults on data as it comes: one-hot, imbalanced,
duplicated rows, a feature in other units, thirty points.

    python -m benchmarks run data_quirks --out benchmarks/results/data_quirks.json

Synthetic sets, each split 75 / 25 (stratified, seed 0):

- ``onehot``: 30 000 rows of 14 categorical features one-hot encoded (129 binary
  columns, as tabular census data), labels from a noisy linear rule;
- ``imbalanced``: ``make_classification(20 000, 10 features, weights=[0.98])``;
- ``duplicated``: 4 000 ``make_classification`` points, every row three times;
- ``units``: 10 000 ``make_classification`` points (8 features, two informative), a
  constant column and the first feature again in units 10⁶ times smaller plus an
  offset of 3·10⁷ — an isotropic kernel sees that copy alone;
- ``tiny``: 30 points, 4 features.

Each estimator with its defaults and ``random_state`` 0, one BLAS thread; full EP and
the RVM on at most 2 000 training points (O(n³)). Reports test error beside the
majority class's, NLP beside the class frequencies' (the base rate), fit seconds and
the warnings the fit raised (category and first words).
"""

from __future__ import annotations

import argparse
import platform
import warnings

import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from benchmarks._lib.defaults import DEFAULT_CLASSIFIERS
from sparsegp.benchmarking import evaluate, save_run

#: Training points for the O(n³) estimators.
CUBIC = {"ep", "rvm"}
CUBIC_N = 2000
CATEGORIES = (8, 16, 7, 14, 6, 5, 2, 41, 9, 10, 3, 4, 2, 2)


def onehot(rng):
    codes = [np.eye(k)[rng.integers(0, k, 30_000)] for k in CATEGORIES]
    X = np.hstack(codes)
    latent = X @ rng.standard_normal(X.shape[1]) + 0.8 * rng.standard_normal(len(X))
    return X, (latent > 0.5).astype(int)


def imbalanced(rng):
    return make_classification(
        20_000, n_features=10, weights=[0.98], flip_y=0.01, random_state=0
    )


def duplicated(rng):
    X, y = make_classification(4_000, n_features=8, flip_y=0.05, random_state=1)
    return np.repeat(X, 3, axis=0), np.repeat(y, 3)


def units(rng):
    X, y = make_classification(10_000, n_features=8, flip_y=0.05, random_state=2)
    return np.column_stack([X, np.ones(len(X)), 1e6 * X[:, 0] + 3e7]), y


def tiny(rng):
    return make_classification(30, n_features=4, random_state=3)


DATASETS = {
    "onehot": onehot,
    "imbalanced": imbalanced,
    "duplicated": duplicated,
    "units": units,
    "tiny": tiny,
}


def base_rate_nlp(y_train, y_test):
    """Test NLP of predicting the training class frequencies."""
    p = np.clip(np.mean(y_train == 1), 1e-12, 1 - 1e-12)
    return float(-np.mean(np.where(y_test == 1, np.log(p), np.log1p(-p))))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS))
    parser.add_argument("--only", nargs="+", choices=list(DEFAULT_CLASSIFIERS))
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    rows = []
    print(
        "| data | estimator | n | error % (majority) | NLP (base rate) | fit s | warns |"
    )
    print("|---|---|---:|---:|---:|---:|---|")
    for data in args.datasets or DATASETS:
        X, y = DATASETS[data](np.random.default_rng(0))
        X, X_test, y, y_test = train_test_split(
            X, y, test_size=0.25, random_state=0, stratify=y
        )
        majority = float(min(np.mean(y_test), 1 - np.mean(y_test)))
        base_rate = base_rate_nlp(y, y_test)
        for name in args.only or DEFAULT_CLASSIFIERS:
            n = min(len(y), CUBIC_N) if name in CUBIC else len(y)
            with threadpool_limits(1), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result, _ = evaluate(
                    DEFAULT_CLASSIFIERS[name](),
                    X[:n],
                    y[:n],
                    X_test,
                    y_test,
                    name=name,
                    dataset=data,
                )
            warned = sorted(
                {f"{w.category.__name__}: {str(w.message)[:60]}" for w in caught}
            )
            rows.append(
                dict(
                    vars(result),
                    n_train=n,
                    majority_error=majority,
                    base_rate_nlp=base_rate,
                    warnings=warned,
                )
            )
            print(
                f"| {data} | {name} | {n} | {100 * result.error:.2f} "
                f"({100 * majority:.2f}) | {result.nlp:.3f} ({base_rate:.3f}) | "
                f"{result.fit_seconds:.1f} | "
                f"{'; '.join(w.split(':')[0] for w in warned)} |",
                flush=True,
            )
    if args.out:
        save_run(args.out, rows, python=platform.python_version())


if __name__ == "__main__":
    main()
