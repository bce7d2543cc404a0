"""SparseGPRegressor's default fit in a fresh process, with and without its kept blocks and heap.

    python -m benchmarks run sgpr_heap --out benchmarks/results/sgpr_heap.json

The fit keeps each row block's ``K_uf`` and ``V`` from an evaluation's first pass to
its second and runs inside ``_memory.heap_kept`` (algorithms.md §6.3). Each set's
default fit (split 0, inputs standardised, one BLAS thread) runs in a fresh
interpreter twice: as shipped, and with both turned off in that interpreter (no
kept blocks, no change to glibc's thresholds) — the peer is the same code without
them. A fresh interpreter is what a user's script starts from: a process that has
already freed large arrays has raised glibc's thresholds itself. Minor page faults of
the fit, its seconds and its objective (equal in both: the same arithmetic).
"""

import argparse
import json
import subprocess
import sys

from sparsegp.benchmarking import save_run

#: The child's fit: ``kept`` says whether the blocks and the heap are kept.
_CHILD = """
import contextlib, json, resource, sys, time, warnings
from threadpoolctl import threadpool_limits
import sparsegp.methods.sparse_regression as method
from sparsegp import SparseGPRegressor
from sparsegp.datasets import load_uci
name, kept = sys.argv[1], sys.argv[2] == "1"
if not kept:
    method.heap_kept = lambda n_bytes: contextlib.nullcontext()
    method.kept_bytes = lambda n, M, X=None: 0
X, y, X_test, y_test = load_uci(name, 0)
mean, spread = X.mean(axis=0), X.std(axis=0)
spread[spread == 0] = 1.0
X = (X - mean) / spread
warnings.simplefilter("ignore")
with threadpool_limits(1):
    model = SparseGPRegressor(random_state=0)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
print(json.dumps(dict(seconds=seconds, minor_faults=faults,
                      objective=model.log_marginal_likelihood_value_)))
"""


def fit_in_fresh_process(name, kept):
    """The child's record of one default fit of set ``name``."""
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, name, "1" if kept else "0"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["pumadyn32nm", "bike", "kin40k"])
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    rows = []
    for name in args.sets:
        without = fit_in_fresh_process(name, kept=False)
        shipped = fit_in_fresh_process(name, kept=True)
        rows.append(
            dict(
                set=name,
                seconds=shipped["seconds"],
                seconds_without=without["seconds"],
                ratio=shipped["seconds"] / without["seconds"],
                minor_faults=shipped["minor_faults"],
                minor_faults_without=without["minor_faults"],
                same_objective=shipped["objective"] == without["objective"],
            )
        )
        print(rows[-1], flush=True)
    if args.out:
        save_run(args.out, rows)


if __name__ == "__main__":
    main()
