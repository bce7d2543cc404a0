"""FITC-EP on every core against GPyTorch's SVGP on a GPU at n = 10⁶ (issue 47).

    python -m benchmarks run fitc_million --n-jobs 16 --inducing 100 200 \
        --svgp-inducing 50 200 --out benchmarks/results/fitc_million.json

Issue 47's task (:func:`~benchmarks._lib.tasks.sine_task`: ``--n`` training points,
D = 10, 10⁵ test points). ``FITCGPClassifier(n_inducing=M, n_jobs=--n-jobs)`` with its
defaults (k-means centres, 20 L-BFGS-B iterations on the EP evidence) but the kernel:
``--ard`` (``false``, the isotropic kernel of the recorded runs, or ``auto``, the
default since 2026-11-28: the labels depend on three of the ten features) for each M of
``--inducing``, then GPyTorch's SVGP (:class:`~benchmarks._lib.peers.GPyTorchMinibatchSVGP`:
three epochs of minibatch Adam, batches of 1 024, float32, on the GPU when there is
one) for each M of ``--svgp-inducing``: test error, NLP and fit seconds, and where
each ran. Needs the ``[bench]`` extra for the peer (``--svgp-inducing`` empty skips it).
"""

from __future__ import annotations

import argparse
import os

from benchmarks._lib.cluster import print_table
from benchmarks._lib.peers import GPyTorchMinibatchSVGP
from benchmarks._lib.tasks import sine_task
from sparsegp import FITCGPClassifier
from sparsegp.benchmarking import evaluate, save_run


def run(args):
    X, y, X_test, y_test = sine_task(args.n)
    ard = {"false": False, "auto": "auto"}[args.ard]
    suffix = "" if ard is False else "_ard_auto"
    fits = [
        (
            f"fitc_{M}{suffix}",
            FITCGPClassifier(n_inducing=M, n_jobs=args.n_jobs, ard=ard, random_state=0),
            f"{args.n_jobs} CPU threads",
        )
        for M in args.inducing
    ]
    fits += [
        (f"svgp_{M}", GPyTorchMinibatchSVGP(n_inducing=M), "GPU if present")
        for M in args.svgp_inducing
    ]
    rows = []
    for name, estimator, where in fits:
        result, fitted = evaluate(estimator, X, y, X_test, y_test, name=name)
        if hasattr(fitted, "device_"):
            where = str(fitted.device_)
        rows.append(
            dict(
                estimator=name,
                where=where,
                error=result.error,
                nlp=result.nlp,
                fit_seconds=result.fit_seconds,
            )
        )
        print(rows[-1], flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--n-jobs", type=int, default=os.cpu_count())
    parser.add_argument("--inducing", type=int, nargs="*", default=[100, 200])
    parser.add_argument("--svgp-inducing", type=int, nargs="*", default=[50, 200])
    parser.add_argument("--ard", choices=["false", "auto"], default="false")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    rows = run(args)
    print_table(
        rows,
        [
            ("estimator", "estimator", "s"),
            ("where", "where", "s"),
            ("error", "error", ".4f"),
            ("NLP", "nlp", ".3f"),
            ("fit s", "fit_seconds", ".1f"),
        ],
    )
    if args.out:
        save_run(args.out, rows, cpus=os.cpu_count())


if __name__ == "__main__":
    main()
