"""Every estimator with one feature a few times narrower than the other, beside one unit.

    python -m benchmarks run narrow_feature --out benchmarks/results/narrow_feature.json

Two-feature problems, 300 points to fit and 2 000 to test, the first feature in units
``--ratios`` times larger (its spread that many times smaller) and, as ratio 1, in one
unit with the other: ``make_moons(noise=0.2, random_state=3)`` for the classifiers
(test accuracy), ``sin 2x₀ · cos x₁ + 0.1ε`` on ``[−2, 2]²`` for the regressors (test
R²). Each estimator with its defaults and ``random_state=0``, one BLAS thread. Where
the isotropic evidence's optimum leaves the narrow feature invisible, a classifier's
``ard="auto"`` needs its second start on standardised features and a regressor the
units rule (docs/algorithms.md §5.8, §0.5); both ask where the feature's spread is
under √0.1 of the features' RMS spread.
"""

from __future__ import annotations

import argparse
import platform
import warnings

import numpy as np
from sklearn.base import is_classifier
from sklearn.datasets import make_moons
from threadpoolctl import threadpool_limits

import sparsegp
from sparsegp.benchmarking import save_run
from sparsegp.kernels import spread_factors

N_TRAIN = 300


def moons():
    """The classifiers' problem: 2 300 points of ``make_moons``."""
    return make_moons(N_TRAIN + 2000, noise=0.2, random_state=3)


def sine():
    """The regressors' problem: ``sin 2x₀ · cos x₁`` plus noise of spread 0.1."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(N_TRAIN + 2000, 2))
    return X, np.sin(2 * X[:, 0]) * np.cos(X[:, 1]) + 0.1 * rng.standard_normal(len(X))


def score(name, X, y):
    """Test accuracy (classifier) or R² (regressor) of ``name`` fitted on the first
    :data:`N_TRAIN` points."""
    estimator = getattr(sparsegp, name)(random_state=0)
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore")  # bound and convergence warnings of small fits
        estimator.fit(X[:N_TRAIN], y[:N_TRAIN])
    return estimator.score(X[N_TRAIN:], y[N_TRAIN:])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratios", nargs="+", type=float, default=[1, 3, 5, 8, 10, 14])
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    rows = []
    print("| estimator | ratio | narrowest / RMS spread | test accuracy or R² |")
    print("|---|---:|---:|---:|")
    for name in sparsegp.__all__:
        X, y = moons() if is_classifier(getattr(sparsegp, name)()) else sine()
        for ratio in args.ratios:
            narrow = X * [1.0 / ratio, 1.0]
            factor = float(np.min(spread_factors(np.std(narrow, axis=0))))
            value = score(name, narrow, y)
            rows.append(
                {
                    "estimator": name,
                    "ratio": ratio,
                    "narrowest_over_rms": factor,
                    "score": value,
                }
            )
            print(f"| {name} | {ratio:g} | {factor:.2f} | {value:.3f} |", flush=True)
    if args.out:
        save_run(args.out, rows, python=platform.python_version())


if __name__ == "__main__":
    main()
