"""One-vs-rest probabilities: normalised Φ's against the multinomial probit of the latents.

    SPARSEGP_DATA=../shared/data python -m benchmarks run ovr_combination \
        --out benchmarks/results/ovr_combination.json

A one-vs-rest classifier gives each class a latent predictive ``N(μ_c, σ_c²)`` and a
bias ``b_c``. The library's probabilities normalise ``Φ((μ_c + b_c)/√(1 + σ_c²))`` over
the classes; the alternative read here takes the latents as the multinomial probit's
(algorithms.md §7.4): the probability that class ``c``'s noisy latent is the largest,
``∫ N(t | μ_c + b_c, 1 + σ_c²) Π_{j≠c} Φ((t − μ_j − b_j)/√(1 + σ_j²)) dt``. Both from the
same fits (``FITCGPClassifier()`` and ``SparseOnlineGPClassifier()`` with their
defaults, ``n_jobs=2``) on three sets: MNIST 13×13 ten classes (7 291 training images,
the first 5 000 test images), scikit-learn's digits (60/40 split, pixels / 16) and
``make_classification(8 000, n_features=20, n_informative=10, n_classes=5,
flip_y=0.05)`` standardised (5 000 to train). Test error, NLP and ECE (15 bins, of
the most probable class's probability).
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.datasets import load_digits, make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from benchmarks._lib.cluster import print_table
from benchmarks._lib.tasks import mnist_classes
from sparsegp import FITCGPClassifier, SparseOnlineGPClassifier
from sparsegp.benchmarking import save_run
from sparsegp.likelihoods import MultinomialProbit
from sparsegp.metrics import expected_calibration_error


def tasks():
    X, y, X_test, y_test = mnist_classes(7291)
    yield "MNIST 10 classes", X, y, X_test[:5000], y_test[:5000]
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X / 16.0, y, test_size=0.4, random_state=0
    )
    yield "digits", X_train, y_train, X_test, y_test
    X, y = make_classification(
        8000,
        n_features=20,
        n_informative=10,
        n_classes=5,
        flip_y=0.05,
        random_state=0,
    )
    X = StandardScaler().fit_transform(X)
    yield "synthetic, 5 classes", X[:5000], y[:5000], X[5000:], y[5000:]


def scores(proba, codes):
    p_true = np.clip(proba[np.arange(len(codes)), codes], 1e-300, 1.0)
    return dict(
        error=float(np.mean(np.argmax(proba, axis=1) != codes)),
        nlp=float(-np.mean(np.log(p_true))),
        ece=float(  # of the top class's probability, as defaults_table measures it
            expected_calibration_error(
                np.argmax(proba, axis=1) == codes, np.max(proba, axis=1)
            )
        ),
    )


def compared(estimator, X_test, y_test):
    """Both readings of a fitted one-vs-rest ``estimator``'s latents."""
    codes = np.searchsorted(estimator.classes_, y_test)
    parts = [m.latent_mean_and_variance(X_test) for m in estimator.estimators_]
    mean = np.column_stack([mu for mu, _ in parts])
    var = np.column_stack([v for _, v in parts])
    bias = np.array([m.likelihood.bias for m in estimator.estimators_])
    return {
        "normalised Φ": scores(estimator.predict_proba(X_test), codes),
        "multinomial probit": scores(
            MultinomialProbit(bias).predict_proba(mean, var), codes
        ),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    rows = []
    for task, X, y, X_test, y_test in tasks():
        for name, estimator in (
            ("FITC", FITCGPClassifier(n_jobs=2, random_state=0)),
            ("online GP", SparseOnlineGPClassifier(n_jobs=2, random_state=0)),
        ):
            estimator.fit(X, y)
            for reading, result in compared(estimator, X_test, y_test).items():
                rows.append(dict(task=task, estimator=name, reading=reading, **result))
                print(rows[-1], flush=True)
    print_table(
        rows,
        [
            ("task", "task", "s"),
            ("estimator", "estimator", "s"),
            ("probabilities", "reading", "s"),
            ("error", "error", ".4f"),
            ("NLP", "nlp", ".4f"),
            ("ECE", "ece", ".4f"),
        ],
    )
    if args.out:
        save_run(args.out, rows)


if __name__ == "__main__":
    main()
