"""Every evidence-learnt classifier with and without the prior on its log amplitude.

    SPARSEGP_DATA=../shared/data python -m benchmarks run amplitude_prior \
        --out benchmarks/results/amplitude_prior.json

On (nearly) separable labels the EP evidence grows with the kernel's amplitude to the
end (algorithms.md §5.8), and the latent means and standard deviations grow with it.
Each estimator with its defaults (FITC and full EP with ``ard=False``, the isotropic
kernel of the recorded run) and ``random_state=0`` is fitted with
``amplitude_prior=3.0`` (the default) and ``None`` (the papers' maximum evidence) on
one split of each set: scikit-learn's breast cancer, wine and iris (70/30, seed 0,
standardised) and IDA banana, diabetis, twonorm, image and splice (the first
realization); ``--large`` adds MNIST 13×13 4 against the rest (7 291 images) and
MAGIC (split 1, standardised) for FITC. Reported: test error and NLP, the largest test latent
``|mean|`` and standard deviation, and the learnt amplitude ``σ²`` (of the first
one-vs-rest problem beyond two classes). One BLAS thread.
"""

from __future__ import annotations

import argparse
import functools
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from benchmarks._lib.tasks import mnist_task
from sparsegp import (
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    SparseOnlineGPClassifier,
)
from sparsegp.benchmarking import save_run
from sparsegp.datasets import load_ida, load_magic

ESTIMATORS = {  # FITC and full EP with the isotropic kernel of their runs
    "ep": functools.partial(EPGPClassifier, ard=False),
    "fitc": functools.partial(FITCGPClassifier, ard=False),
    "ivm": IVMClassifier,
    "online": SparseOnlineGPClassifier,
}
PRIORS = (3.0, None)


def _standardised(X, y, X_test, y_test):
    scaler = StandardScaler().fit(X)
    return scaler.transform(X), y, scaler.transform(X_test), y_test


def _small(loader):
    X, y = loader(return_X_y=True)
    X, X_test, y, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    return _standardised(X, y, X_test, y_test)


SETS = {
    "breast_cancer": lambda: _small(load_breast_cancer),
    "wine": lambda: _small(load_wine),
    "iris": lambda: _small(load_iris),
    **{
        name: (lambda name=name: load_ida(name, 0)[:4])
        for name in ("banana", "diabetis", "twonorm", "image", "splice")
    },
}
LARGE = {
    "mnist4": lambda: mnist_task(7291),
    "magic": lambda: _standardised(*load_magic(0)),
}


def score(name, prior, data):
    """One fit: a result row."""
    X, y, X_test, y_test = data
    estimator = ESTIMATORS[name](amplitude_prior=prior, random_state=0)
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the table reports what came out
        start = time.perf_counter()
        estimator.fit(X, y)
        seconds = time.perf_counter() - start
        proba = estimator.predict_proba(X_test)
        mean, var = estimator.latent_mean_and_variance(X_test)
    predicted = estimator.classes_[np.argmax(proba, axis=1)]
    return {
        "estimator": name,
        "amplitude_prior": prior,
        "error": float(np.mean(predicted != y_test)),
        "nlp": float(log_loss(y_test, proba, labels=estimator.classes_)),
        "largest_latent_mean": float(np.max(np.abs(mean))),
        "largest_latent_sd": float(np.sqrt(np.max(var))),
        "amplitude": float(np.exp(estimator.estimators_[0].kernel.theta[0])),
        "fit_seconds": seconds,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--estimators", nargs="+", choices=list(ESTIMATORS))
    parser.add_argument("--large", action="store_true")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    runs = [(name, list(args.estimators or ESTIMATORS)) for name in SETS]
    if args.large:
        runs += [(name, ["fitc"]) for name in LARGE]
    rows = []
    for dataset, names in runs:
        data = {**SETS, **LARGE}[dataset]()
        for name in names:
            for prior in PRIORS:
                row = {"dataset": dataset, **score(name, prior, data)}
                rows.append(row)
                print(
                    f"{dataset} {name} prior={prior}: {100 * row['error']:.2f} % / "
                    f"{row['nlp']:.4f}, latent |mean| ≤ {row['largest_latent_mean']:.1f}"
                    f", sd ≤ {row['largest_latent_sd']:.1f}, σ² {row['amplitude']:.3g}",
                    flush=True,
                )
                if args.out:
                    save_run(args.out, rows)


if __name__ == "__main__":
    main()
