"""The defaults' time beside libsvm: the canary's tasks, digits, ten MNIST classes.

    SPARSEGP_DATA=../shared/data python -m benchmarks run defaults_speed \
        --out benchmarks/results/defaults_speed.json

Issue 86's bounds, one BLAS thread, every peer in the same run:

- ``canary`` (``--repeats`` times; the median counts): ``FITCGPClassifier()`` and
  ``IVMClassifier()`` on MNIST 13×13 4 against the rest (7 291 training images, the
  10 000 test images) over ``SVC(C=10, gamma="scale", probability=True)``'s time
  (FITC ≤ 2.5× at ≤ 1.2 % / 0.035 nats, the IVM ≤ 3×), ``EPGPClassifier()`` on IDA
  image split 0 over scikit-learn's Laplace ``GaussianProcessClassifier``'s
  (≤ 0.5×), as ``../shared/canary/speed.py`` times them;
- ``digits``: every classifier with its defaults on scikit-learn's digits (70/30,
  ``random_state=0``) beside ``SVC(probability=True)``: the sparse ones ≤ 10 s, full
  EP ≤ 30 s, log-loss ≤ 0.06 (the RVM ≤ 0.10);
- ``multiclass``: one-vs-rest ``FITCGPClassifier()`` on ten MNIST 13×13 classes (7 291
  images) and on digits, its test NLP with the fitted ``odds_weight_`` and with the
  ``Φ``'s normalised (weight 0), the same fit read twice (≤ 40 s on MNIST, NLP no
  worse than normalised).
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import load_digits
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from benchmarks._lib.defaults import DEFAULT_CLASSIFIERS
from benchmarks._lib.tasks import mnist_classes, mnist_task
from sparsegp import EPGPClassifier, FITCGPClassifier, IVMClassifier
from sparsegp.benchmarking import save_run
from sparsegp.datasets import load_ida

N_MNIST = 7291


def _svc():
    return SVC(C=10, gamma="scale", probability=True, random_state=0)


def timed_scores(make, X, y, X_test, y_test):
    """``(fitted, seconds, error, NLP)`` of a fresh ``make()`` on the split."""
    start = time.perf_counter()
    fitted = make().fit(X, y)
    seconds = time.perf_counter() - start
    proba = fitted.predict_proba(X_test)
    error = float(np.mean(fitted.classes_[np.argmax(proba, axis=1)] != y_test))
    return (
        fitted,
        seconds,
        error,
        float(log_loss(y_test, proba, labels=fitted.classes_)),
    )


def canary_rows(repeat):
    """One run of the canary's three ratios."""
    X, y, X_test, y_test = mnist_task(N_MNIST)
    _, svc_seconds, *_ = timed_scores(_svc, X, y, X_test, y_test)
    fits = [
        ("mnist4", "fitc", lambda: FITCGPClassifier(random_state=0), 2.5),
        ("mnist4", "ivm", lambda: IVMClassifier(random_state=0), 3.0),
    ]
    rows = [
        ratio_row(
            task,
            name,
            make,
            bound,
            "libsvm + Platt",
            svc_seconds,
            (X, y, X_test, y_test),
            repeat,
        )
        for task, name, make, bound in fits
    ]
    data = load_ida("image", 0)[:4]
    kernel = ConstantKernel(1.0) * RBF(np.sqrt(data[0].shape[1])) + ConstantKernel(1.0)

    def gpc():
        return GaussianProcessClassifier(kernel, random_state=0)

    _, gpc_seconds, *_ = timed_scores(gpc, *data)
    make = lambda: EPGPClassifier(random_state=0)  # noqa: E731
    rows.append(
        ratio_row(
            "image", "ep", make, 0.5, "sklearn Laplace GPC", gpc_seconds, data, repeat
        )
    )
    return rows


def ratio_row(task, name, make, bound, peer, peer_seconds, data, repeat):
    """A canary row: ``make()``'s fit on ``data`` against the peer's seconds."""
    _, seconds, error, nlp = timed_scores(make, *data)
    return dict(
        task=task,
        estimator=name,
        peer=peer,
        bound=bound,
        ratio=seconds / peer_seconds,
        fit_seconds=seconds,
        peer_seconds=peer_seconds,
        error=error,
        nlp=nlp,
        repeat=repeat,
    )


def digits_split():
    X, y = load_digits(return_X_y=True)
    X, X_test, y, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    return X, y, X_test, y_test


def digits_rows():
    rows = []
    data = digits_split()
    for name, make in {**DEFAULT_CLASSIFIERS, "svc": _svc}.items():
        _, seconds, error, nlp = timed_scores(make, *data)
        rows.append(
            dict(
                task="digits", estimator=name, fit_seconds=seconds, error=error, nlp=nlp
            )
        )
    return rows


def multiclass_rows():
    rows = []
    for task, data in (("mnist10", mnist_classes(N_MNIST)), ("digits", digits_split())):
        X_test, y_test = data[2:]
        fitted, seconds, error, nlp = timed_scores(
            lambda: FITCGPClassifier(random_state=0), *data
        )
        weight = fitted.odds_weight_
        fitted.odds_weight_ = 0.0  # the same binary models, the Φ's normalised
        normalised = log_loss(
            y_test, fitted.predict_proba(X_test), labels=fitted.classes_
        )
        rows.append(
            dict(
                task=task,
                estimator="fitc",
                fit_seconds=seconds,
                error=error,
                nlp=nlp,
                odds_weight=weight,
                nlp_normalised=float(normalised),
            )
        )
    return rows


PARTS = {"canary": canary_rows, "digits": digits_rows, "multiclass": multiclass_rows}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", choices=list(PARTS), default=list(PARTS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    rows = []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the table reports what came out
        for part in args.parts:
            runs = range(args.repeats) if part == "canary" else [None]
            for repeat in runs:
                made = PARTS[part](repeat) if part == "canary" else PARTS[part]()
                for row in made:
                    rows.append({"part": part, **row})
                    print(rows[-1], flush=True)
                if args.out:
                    save_run(args.out, rows)


if __name__ == "__main__":
    main()
