"""One-vs-one FITC with pairwise coupling beside one-vs-rest FITC and libsvm.

    SPARSEGP_DATA=../shared/data python -m benchmarks run one_vs_one \
        --out benchmarks/results/multiclass_one_vs_one.json

libsvm, which leads one-vs-rest FITC in error on scikit-learn's digits and on MNIST
(algorithms.md §8 item 11), is one-against-one: a binary SVM per pair of classes, its
Platt probabilities coupled into one distribution. This sets the same construction
with binary FITC beside them: ``FITCGPClassifier()`` with its defaults on each of the
``C(C − 1)/2`` pairs' rows, each pair's ``P(i | i or j)`` coupled by Wu, Lin & Weng's
(2004) second method, libsvm's — the ``p`` minimising
``Σ_{i<j} (r_ji p_i − r_ij p_j)²`` with ``Σ p = 1``, one ``(C + 1)``-square linear system
per test point — and the pairs' majority vote for the error without coupling. Sets:
the ``multiclass`` benchmark's digits split, MNIST 13×13 ten classes (7 291 seeded
training images, 10 000 test) and the ``multiclass`` benchmark's ``make_classification``
set on a seeded 8 000-point subset of its training set. One BLAS thread; test error,
NLP and fit seconds, every estimator in the same run (one-vs-one's seconds include its
pairs' predictions on the test set).
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks._lib.cluster import print_table
from benchmarks.vh17_multiclass.at_one_vs_rest_priors import scores, tasks
from sparsegp import FITCGPClassifier
from sparsegp.benchmarking import PlattSVC, save_run


def coupled_probabilities(pairwise):
    """Wu, Lin & Weng's (2004) method 2: ``pairwise[t, i, j] = P(i | i or j)`` at test
    point ``t`` to class probabilities, shape ``(n, C)``."""
    n, C, _ = pairwise.shape
    r = np.clip(pairwise, 1e-12, 1.0 - 1e-12)
    r_ji = np.where(np.eye(C, dtype=bool), 0.0, np.swapaxes(r, 1, 2))
    # Q_ii = Σ_{j≠i} r_ji², Q_ij = −r_ji r_ij
    Q = -r_ji * r
    Q[:, np.arange(C), np.arange(C)] = np.sum(r_ji**2, axis=2)
    system = np.zeros((n, C + 1, C + 1))
    system[:, :C, :C] = Q
    system[:, :C, C] = system[:, C, :C] = 1.0
    right = np.zeros((n, C + 1, 1))
    right[:, C] = 1.0
    p = np.clip(np.linalg.solve(system, right)[:, :C, 0], 1e-300, None)
    return p / p.sum(axis=1, keepdims=True)


def fit_one_vs_one(X, y, X_test):
    """Binary FITC on each pair of classes: ``P(i | i or j)`` at ``X_test``."""
    classes = np.unique(y)
    pairwise = np.full((len(X_test), len(classes), len(classes)), 0.5)
    for i, j in itertools.combinations(range(len(classes)), 2):
        rows = np.isin(y, classes[[i, j]])
        binary = FITCGPClassifier(random_state=0).fit(X[rows], y[rows] == classes[i])
        p = binary.predict_proba(X_test)[:, list(binary.classes_).index(True)]
        pairwise[:, i, j], pairwise[:, j, i] = p, 1.0 - p
    return pairwise


def rows_for(X, X_test, y, y_test):
    """One-vs-one, one-vs-rest FITC and libsvm fitted on one task, scored."""
    codes = np.searchsorted(np.unique(y), y_test)
    start = time.perf_counter()
    pairwise = fit_one_vs_one(X, y, X_test)
    seconds = time.perf_counter() - start
    votes = np.sum(pairwise > 0.5, axis=2)
    yield dict(
        estimator="FITC one-vs-one, coupled",
        fit_seconds=seconds,
        vote_error=float(np.mean(np.argmax(votes, axis=1) != codes)),
        **scores(coupled_probabilities(pairwise), codes),
    )
    for name, estimator in (
        ("FITC one-vs-rest", FITCGPClassifier(random_state=0)),
        ("libsvm + Platt", PlattSVC(C=10.0, random_state=0)),
    ):
        start = time.perf_counter()
        estimator.fit(X, y)
        seconds = time.perf_counter() - start
        proba = estimator.predict_proba(X_test)
        yield dict(
            estimator=name,
            fit_seconds=seconds,
            vote_error=float("nan"),
            **scores(proba, codes),
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    rows = []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the table reports what came out
        for task, X, X_test, y, y_test in tasks():
            for row in rows_for(X, X_test, y, y_test):
                rows.append(dict(task=task, **row))
                print(rows[-1], flush=True)
    print_table(
        rows,
        [
            ("task", "task", "s"),
            ("estimator", "estimator", "s"),
            ("error", "error", ".4f"),
            ("vote error", "vote_error", ".4f"),
            ("NLP", "nlp", ".4f"),
            ("fit s", "fit_seconds", ".1f"),
        ],
    )
    if args.out:
        save_run(args.out, rows)


if __name__ == "__main__":
    main()
