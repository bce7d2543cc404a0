"""The RVM classifier's final EM: one M-step per E-step, or M-steps at its sites.

    SPARSEGP_DATA=../shared/data python -m benchmarks run rvm_final_em \
        --out benchmarks/results/rvm_final_em.json

MacKay's update carries some α a fraction of a per cent per step, so a final EM of one
M-step per O(n·|R|²) E-step took hundreds of E-steps; ``RVMClassifier()`` now runs its
M-steps at each E-step's sites until α settles there, O(|R|³) each, with their
extrapolated steps (``rvm_ssem.m_steps_at_sites``, algorithms.md §4.4). Each fit is run
twice, with its defaults but [QW03]'s fixed basis (``ard=False``, ``random_state=0``):
as the library runs it (``at the sites``) and with one M-step per E-step (``one M-step``,
[QW03]'s plain EM), and scored on the test set beside whether the final EM converged,
its E-steps (``n_iter_``, the sweep's included) and its relevance vectors. IDA sets
(``--realizations`` each), ``mnist4`` (MNIST 13×13 4 against the rest, 7 291 seeded
images), ``imbalanced90`` and ``flipped`` (50 000 points: 10 % positives, and 5 %
flipped labels as in ``fitc_cores``) and ``nonlinear90`` (50 000 points of the defaults
table's clean nonlinear task); one BLAS thread.
"""

from __future__ import annotations

import argparse
import warnings
from contextlib import nullcontext
from unittest import mock

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from benchmarks._lib.cluster import print_table
from benchmarks._lib.tasks import (
    clean_nonlinear_task,
    flipped_classification_task,
    imbalanced_task,
    load_task,
    mnist_task,
)
from sparsegp import RVMClassifier
from sparsegp.approximations import rvm_ssem
from sparsegp.benchmarking import evaluate, save_run
from sparsegp.datasets import IDA_NAMES

LARGE = {
    "mnist4": lambda: mnist_task(7291),
    "imbalanced90": lambda: imbalanced_task(0.9),
    "flipped": lambda: flipped_classification_task(50_000),
    "nonlinear90": lambda: clean_nonlinear_task(0.9),
}
MODES = ("one M-step", "at the sites")


def fit_once(data, dataset, realization, mode):
    """One default fit, its final EM in ``mode`` (:data:`MODES`): a result dict."""
    patch = (
        mock.patch.object(rvm_ssem, "_FINAL_M_STEPS", 1)
        if mode == "one M-step"
        else nullcontext()
    )
    with patch, threadpool_limits(1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        result, fitted = evaluate(
            RVMClassifier(ard=False, random_state=0),
            *data,
            name=mode,
            dataset=dataset,
            realization=realization,
        )
    return dict(
        vars(result),
        converged=bool(fitted.converged_),
        warned=any(issubclass(w.category, ConvergenceWarning) for w in caught),
        n_iter=int(np.sum(fitted.n_iter_)),
        relevance_vectors=len(fitted.relevance_vectors_),
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=[*IDA_NAMES, *LARGE])
    parser.add_argument("--realizations", type=int, default=10)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    rows = []
    for dataset in args.sets:
        realizations = [0] if dataset in LARGE else range(args.realizations)
        for realization in realizations:
            data = (
                LARGE[dataset]()
                if dataset in LARGE
                else load_task(dataset, realization)
            )
            for mode in MODES:
                rows.append(fit_once(data, dataset, realization, mode))
                print(rows[-1], flush=True)
            if args.out:
                save_run(args.out, rows)
    summary = []
    for dataset in args.sets:
        for mode in MODES:
            mine = [
                r for r in rows if r["dataset"] == dataset and r["estimator"] == mode
            ]
            summary.append(
                dict(
                    dataset=dataset,
                    mode=mode,
                    fits=len(mine),
                    unconverged=sum(not r["converged"] for r in mine),
                    error=100 * np.mean([r["error"] for r in mine]),
                    nlp=np.mean([r["nlp"] for r in mine]),
                    n_iter=np.mean([r["n_iter"] for r in mine]),
                    relevance_vectors=np.mean([r["relevance_vectors"] for r in mine]),
                    fit_seconds=np.mean([r["fit_seconds"] for r in mine]),
                )
            )
    print_table(
        summary,
        [
            ("set", "dataset", "s"),
            ("final EM", "mode", "s"),
            ("fits", "fits", "d"),
            ("stopped at max_iter", "unconverged", "d"),
            ("error %", "error", ".2f"),
            ("NLP", "nlp", ".4f"),
            ("E-steps", "n_iter", ".0f"),
            ("relevance vectors", "relevance_vectors", ".1f"),
            ("fit s", "fit_seconds", ".2f"),
        ],
    )


if __name__ == "__main__":
    main()
