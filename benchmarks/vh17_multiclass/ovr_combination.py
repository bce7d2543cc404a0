"""One-vs-rest probabilities: four readings of the same binary models.

    SPARSEGP_DATA=../shared/data python -m benchmarks run ovr_combination \
        --out benchmarks/results/ovr_combination.json

A one-vs-rest classifier gives each class a latent predictive ``N(μ_c, σ_c²)``, a bias
``b_c`` and ``Φ_c = Φ((μ_c + b_c)/√(1 + σ_c²))``. Read four ways (algorithms.md §7.5):
the ``Φ_c`` normalised (weight 0), their odds ``Φ_c/(1 − Φ_c)`` normalised (weight 1),
``Φ_c (1 − Φ_c)^(−w)`` at the weight ``w`` fitted by the binary models' leave-one-out
cavities (the library's ``predict_proba``, ``odds_weight_``), and the multinomial probit
of the latents (§7.4's integral). The first three keep the predicted class. The fits:
``FITCGPClassifier(ard=False)`` (the isotropic kernel of the recorded run),
``IVMClassifier()``, ``NLPSparseGPClassifier()`` and ``SparseOnlineGPClassifier()``
with their defaults (``n_jobs=2``; the IVM and the NLP
classifier not on MNIST, where they take minutes), beside ``SVC(C=10, gamma="scale",
probability=True)`` in the same run. Sets: MNIST 13×13 ten classes (7 291 training
images, the first 5 000 test images), scikit-learn's digits (60/40, pixels / 16) and
wine (60/40, standardised), and ``make_classification(8 000, n_features=20,
n_informative=10, n_classes=C, flip_y=0.05)`` standardised (5 000 to train) with C = 3
and 5. Test error, NLP and ECE (15 bins, of the most probable class's probability).
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.datasets import load_digits, load_wine, make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from benchmarks._lib.cluster import print_table
from benchmarks._lib.tasks import mnist_classes
from sparsegp import (
    FITCGPClassifier,
    IVMClassifier,
    NLPSparseGPClassifier,
    SparseOnlineGPClassifier,
)
from sparsegp.approximations.one_vs_rest import class_log_probabilities
from sparsegp.benchmarking import PlattSVC, save_run
from sparsegp.likelihoods import MultinomialProbit
from sparsegp.metrics import expected_calibration_error


def tasks():
    X, y, X_test, y_test = mnist_classes(7291)
    yield "MNIST 10 classes", X, y, X_test[:5000], y_test[:5000]
    for name, (X, y) in (
        ("digits", load_digits(return_X_y=True)),
        ("wine", load_wine(return_X_y=True)),
    ):
        X = X / 16.0 if name == "digits" else StandardScaler().fit_transform(X)
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.4, random_state=0
        )
        yield name, X_train, y_train, X_test, y_test
    for n_classes in (5, 3):
        X, y = make_classification(
            8000,
            n_features=20,
            n_informative=10,
            n_classes=n_classes,
            flip_y=0.05,
            random_state=0,
        )
        X = StandardScaler().fit_transform(X)
        yield f"synthetic, {n_classes} classes", X[:5000], y[:5000], X[5000:], y[5000:]


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
    """The four readings of a fitted one-vs-rest ``estimator``'s latents."""
    codes = np.searchsorted(estimator.classes_, y_test)
    parts = [m.latent_mean_and_variance(X_test) for m in estimator.estimators_]
    mean = np.column_stack([mu for mu, _ in parts])
    var = np.column_stack([v for _, v in parts])
    bias = np.array([m.likelihood.bias for m in estimator.estimators_])
    z = estimator.decision_function(X_test)
    return {
        "normalised Φ": scores(np.exp(class_log_probabilities(z, 0.0)), codes),
        "odds": scores(np.exp(class_log_probabilities(z, 1.0)), codes),
        "fitted weight": scores(estimator.predict_proba(X_test), codes),
        "multinomial probit": scores(
            MultinomialProbit(bias).predict_proba(mean, var), codes
        ),
    }


def estimators(task):
    yield "FITC", FITCGPClassifier(n_jobs=2, ard=False, random_state=0)
    if not task.startswith("MNIST"):
        yield "IVM", IVMClassifier(ard=False, n_jobs=2, random_state=0)
        yield "NLP", NLPSparseGPClassifier(n_jobs=2, random_state=0)
    yield "online GP", SparseOnlineGPClassifier(ard=False, n_jobs=2, random_state=0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    rows = []
    for task, X, y, X_test, y_test in tasks():
        svc = PlattSVC(C=10.0, random_state=0).fit(X, y)
        codes = np.searchsorted(svc.classes_, y_test)
        rows.append(
            dict(
                task=task,
                estimator="libsvm + Platt",
                reading="Platt, pairwise coupling",
                odds_weight=float("nan"),
                **scores(svc.predict_proba(X_test), codes),
            )
        )
        for name, estimator in estimators(task):
            estimator.fit(X, y)
            for reading, result in compared(estimator, X_test, y_test).items():
                rows.append(
                    dict(
                        task=task,
                        estimator=name,
                        reading=reading,
                        odds_weight=estimator.odds_weight_,
                        **result,
                    )
                )
                print(rows[-1], flush=True)
    print_table(
        rows,
        [
            ("task", "task", "s"),
            ("estimator", "estimator", "s"),
            ("probabilities", "reading", "s"),
            ("w", "odds_weight", ".2f"),
            ("error", "error", ".4f"),
            ("NLP", "nlp", ".4f"),
            ("ECE", "ece", ".4f"),
        ],
    )
    if args.out:
        save_run(args.out, rows)


if __name__ == "__main__":
    main()
