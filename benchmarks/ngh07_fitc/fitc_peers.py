"""FITCGPClassifier against GPy's EP-DTC and GPyTorch's variational classifier.

Same data, same M, same kernel family and initial inducing inputs, fitted one after
another in the same process (needs the ``[bench]`` extra)::

    SPARSEGP_DATA=../shared/data python -m benchmarks run fitc_peers \
        --datasets banana twonorm ringnorm --realizations 5 \
        --out benchmarks/results/fitc_peers.json

Each estimator runs with its library's usual budget: FITC-EP with [NGH07]'s (best of
three initialisations, 20 L-BFGS-B iterations each), GPy with 100 L-BFGS-B
iterations, GPyTorch with 300 full-batch Adam steps; ``fitc_100it`` gives FITC-EP
GPy's budget (one initialisation, 100 iterations).
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

from threadpoolctl import threadpool_limits
from tqdm import tqdm

from benchmarks._lib.paper_tables import FITC_PAPER_SPGPC
from benchmarks._lib.peers import GPySparseEP, GPyTorchSVGP
from benchmarks._lib.tasks import load_task
from sparsegp import FITCGPClassifier
from sparsegp.benchmarking import evaluate, format_table, save_run

ESTIMATORS = {
    "fitc": lambda M: FITCGPClassifier(
        n_inducing=M, n_restarts_optimizer=2, ard=False, random_state=0
    ),
    "fitc_100it": lambda M: FITCGPClassifier(
        n_inducing=M,
        n_restarts_optimizer=0,
        max_iter_optimizer=100,
        ard=False,
        random_state=0,
    ),
    "gpy_ep_dtc": lambda M: GPySparseEP(n_inducing=M),
    "gpytorch_svgp": lambda M: GPyTorchSVGP(n_inducing=M),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--datasets", nargs="+", default=["banana", "twonorm", "ringnorm"]
    )
    parser.add_argument(
        "--estimators", nargs="+", default=list(ESTIMATORS), choices=list(ESTIMATORS)
    )
    parser.add_argument("--realizations", type=int, default=5)
    parser.add_argument(
        "--threads", type=int, default=None, help="BLAS / torch threads"
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    if args.threads is not None:
        import torch

        torch.set_num_threads(args.threads)
    start = time.time()
    results = []
    tasks = [(d, r) for d in args.datasets for r in range(args.realizations)]
    with threadpool_limits(args.threads):
        for dataset, realization in tqdm(tasks, desc="tasks"):
            data = load_task(dataset, realization)
            M = FITC_PAPER_SPGPC[dataset][2]
            for name in args.estimators:
                result, _ = evaluate(
                    ESTIMATORS[name](M),
                    *data,
                    name=name,
                    dataset=dataset,
                    realization=realization,
                )
                results.append(result)
    print(format_table(results))
    print(
        f"\nwall time {time.time() - start:.0f} s on {platform.machine()}, "
        f"Python {platform.python_version()}, threads {args.threads}"
    )
    if args.out is not None:
        save_run(args.out, results)


if __name__ == "__main__":
    main()
