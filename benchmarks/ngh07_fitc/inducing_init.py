"""FITC from k-means centres of each class against k-means centres of all the data.

    SPARSEGP_DATA=../shared/data python -m benchmarks run inducing_init \
        --realizations 10 --large --out benchmarks/results/inducing_init.json

``FITCGPClassifier(ard=False, random_state=0)`` (the isotropic kernel of the recorded
run) with its defaults otherwise (M = min(200, N/5), k-means
initial pseudo-inputs), its ``"kmeans"`` start as it is — the centres of each class,
M shared equally between the classes (algorithms.md §5.8) — and as it was before: one
k-means on all the training inputs, which gives a class about its fraction of the
centres (``WholeDataKMeans``, the method it overrides restored). On the IDA suite (the
first ``--realizations`` splits of each set; ``--sets`` chooses) and, with ``--large``
(all, or those named), MAGIC (split 1, raw units), MNIST 13×13 4 against the rest and
with its ten classes one against the rest (7 291 images), scikit-learn's digits (the
multi-class benchmark's 70/30 split) and issue 48's 50 000 points with 10 % and 3 %
positives. The run records test error, NLP, the log evidence (the mean over the
one-against-the-rest problems) and fit time. One BLAS thread.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks._lib.tasks import (
    add_ida_and_large_options,
    ida_and_large_runs,
    imbalanced_task,
    mnist_classes,
    mnist_task,
    scored_runs,
)
from benchmarks.vh17_multiclass.multiclass import digits
from sparsegp import FITCGPClassifier
from sparsegp.benchmarking import evaluate
from sparsegp.datasets import load_magic
from sparsegp.methods.pseudo_inputs import kmeans_centres


class WholeDataKMeans(FITCGPClassifier):
    """FITC whose k-means start is the one before the classes' shares: ``M`` centres
    of all the training inputs (the same draws and fallbacks)."""

    def _kmeans_inducing(self, X, y, M, rng):
        centres = kmeans_centres(X, np.arange(len(X)), M, rng)
        return centres if len(centres) == M else self._all_distinct_inputs(centres, M)


INITS = {"each class": FITCGPClassifier, "all data": WholeDataKMeans}


def _split(load):
    X, X_test, y, y_test = load()
    return X, y, X_test, y_test


LARGE = {
    "magic": lambda: load_magic(0)[:4],
    "mnist4": lambda: mnist_task(7291),
    "mnist10": lambda: mnist_classes(7291),
    "digits": lambda: _split(digits),
    "imbalanced_10": lambda: imbalanced_task(0.9),
    "imbalanced_3": lambda: imbalanced_task(0.97),
}


def score(init, X, y, X_test, y_test):
    """One fit: its test error and NLP, log evidence and fit seconds."""
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the table reports what came out
        result, fitted = evaluate(
            INITS[init](ard=False, random_state=0), X, y, X_test, y_test, name=init
        )
    return {
        "init": init,
        "n": len(y),
        "n_classes": len(fitted.classes_),
        "error": result.error,
        "nlp": result.nlp,
        "log_evidence": float(fitted.log_marginal_likelihood_value_),
        "fit_seconds": result.fit_seconds,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_ida_and_large_options(parser, LARGE)
    args = parser.parse_args(argv)
    runs = ida_and_large_runs(args.sets, args.realizations, args.large, LARGE)
    scored_runs(
        runs,
        INITS,
        score,
        lambda r: (
            f"{r['dataset']} r{r['realization']} {r['init']}: "
            f"{100 * r['error']:.2f} % / {r['nlp']:.4f}, log Z "
            f"{r['log_evidence']:.1f}, {r['fit_seconds']:.1f} s"
        ),
        args.out,
    )


if __name__ == "__main__":
    main()
