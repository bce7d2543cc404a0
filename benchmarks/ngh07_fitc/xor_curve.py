"""[NGH07]'s Figure 1: the sparsity needed for < 15 % error on xor as N grows.

    python -m benchmarks run xor_curve --seeds 5 --out benchmarks/results/xor_curve.json

Four unit-variance Gaussian clusters at (±1.5, ±1.5) with xor labels (Bayes error
about 13 %), N from 40 to 400, 5 000 test points. For every N and seed: the smallest M
(pseudo-inputs, learnt) with which ``FITCGPClassifier`` reaches a test error below
15 %, the smallest active set d with which ``IVMClassifier`` does, and the smallest M
for FITC with pseudo-inputs fixed at an IVM active set (kernel learnt) — the paper's
middle curve. The medians over seeds are printed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from sparsegp import FITCGPClassifier, IVMClassifier
from sparsegp.datasets import make_xor_clusters

SIZES = (40, 80, 120, 200, 300, 400)
TARGET_ERROR = 0.15
#: Candidate sizes, tried in increasing order until the target error is met.
SPARSITY_GRID = (
    1,
    2,
    3,
    4,
    5,
    6,
    8,
    10,
    12,
    16,
    20,
    25,
    30,
    40,
    50,
    60,
    80,
    100,
    120,
    150,
    200,
    250,
    300,
    350,
    400,
)

MODELS = {
    "fitc": lambda m, seed: FITCGPClassifier(
        n_inducing=m, n_restarts_optimizer=2, ard=False, random_state=seed
    ),
    "fitc_on_ivm_set": lambda m, seed: FITCGPClassifier(
        n_inducing=m,
        inducing_init="ivm",
        optimize_inducing=False,
        ard=False,
        random_state=seed,
    ),
    "ivm": lambda m, seed: IVMClassifier(
        ard=False,
        active_set_size=m,
        selection="randomized",
        posterior="active_set",
        random_state=seed,
    ),
}


def smallest_sufficient(model, n, seed, X_test, y_test):
    """Smallest grid size whose test error is below the target (None if none is)."""
    X, y = make_xor_clusters(n, random_state=seed)
    for m in (m for m in SPARSITY_GRID if m <= n):
        error = float(
            np.mean(MODELS[model](m, seed).fit(X, y).predict(X_test) != y_test)
        )
        if error < TARGET_ERROR:
            return m
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    X_test, y_test = make_xor_clusters(5000, random_state=10_000)
    tasks = [
        (model, n, seed)
        for model in MODELS
        for n in SIZES
        for seed in range(args.seeds)
    ]
    found = Parallel(n_jobs=args.n_jobs)(
        delayed(smallest_sufficient)(model, n, seed, X_test, y_test)
        for model, n, seed in tasks
    )
    table = {}
    for (model, n, _), m in zip(tasks, found, strict=True):
        table.setdefault(model, {}).setdefault(n, []).append(m)
    print(
        "| N | " + " | ".join(f"{model}: median (all seeds)" for model in MODELS) + " |"
    )
    print("|---:|" + "---|" * len(MODELS))
    for n in SIZES:
        cells = []
        for model in MODELS:
            values = table[model][n]
            reached = [v for v in values if v is not None]
            median = (
                f"{np.median(reached):g}"
                if len(reached) == len(values)
                else "not reached"
            )
            cells.append(f"{median} ({', '.join(str(v) for v in values)})")
        print(f"| {n} | " + " | ".join(cells) + " |")
    if args.out is not None:
        args.out.write_text(
            json.dumps({"target_error": TARGET_ERROR, "table": table}, indent=1)
        )


if __name__ == "__main__":
    main()
