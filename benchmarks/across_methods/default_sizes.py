"""Every sparse classifier with its defaults on 48 000 noisy points, beside libsvm.

    python -m benchmarks run default_sizes --out benchmarks/results/default_sizes.json

A user with data of real size who calls a classifier with its defaults should get a
fit in about a minute, not the papers' N/5 basis (their data sets have N ≤ 1 300). The
task: ``make_classification(n_samples=60_000, n_features=22, n_informative=10,
flip_y=0.1, random_state=0)``, 48 000 training and 12 000 test points (ten per cent of
the labels drawn at random, so the best error is about 5 %). Each estimator with its
defaults and ``random_state=0``, one BLAS thread; ``SVC(probability=True)`` (libsvm
with Platt scaling) is the peer. ``EPGPClassifier`` refuses this size with a
``MemoryError`` (n × n matrices), and ``RVMClassifier``'s default dictionary (every
training point) is not a sparse method's cost at this size, so neither is run.
``--only`` picks estimators; ``--n-train`` changes the training size.
"""

from __future__ import annotations

import argparse
import platform

from threadpoolctl import threadpool_limits

from benchmarks._lib.defaults import DEFAULT_CLASSIFIERS
from benchmarks._lib.tasks import noisy_classification_task
from sparsegp.benchmarking import PlattSVC, evaluate, save_run

ESTIMATORS = {
    name: DEFAULT_CLASSIFIERS[name] for name in ("ivm", "nlp", "fitc", "online")
}
ESTIMATORS["svc"] = lambda: PlattSVC(random_state=0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(ESTIMATORS))
    parser.add_argument("--n-train", type=int, default=48_000)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    X, y, X_test, y_test = noisy_classification_task(args.n_train)
    rows = []
    print("| estimator | error % | NLP | fit s | size |")
    print("|---|---:|---:|---:|---:|")
    for name in args.only or ESTIMATORS:
        with threadpool_limits(1):
            result, _ = evaluate(
                ESTIMATORS[name](),
                X,
                y,
                X_test,
                y_test,
                name=name,
                dataset=f"make_classification_{args.n_train}",
            )
        rows.append(result)
        print(
            f"| {name} | {100 * result.error:.2f} | {result.nlp:.3f} | "
            f"{result.fit_seconds:.1f} | {result.model_size} |",
            flush=True,
        )
    if args.out:
        save_run(args.out, rows, python=platform.python_version())


if __name__ == "__main__":
    main()
