"""One fit on every core: ``n_jobs`` threads against one thread (FITC, the IVM, the
NLP classifier or the RVM).

    SPARSEGP_DATA=../shared/data python -m benchmarks run fitc_cores --workers 1 2 \
        --out benchmarks/results/fitc_cores.json
    SPARSEGP_DATA=../shared/data python -m benchmarks run fitc_cores --workers 1 2 \
        --busy --out benchmarks/results/fitc_cores_busy.json
    SPARSEGP_DATA=../shared/data python -m benchmarks run fitc_cores --workers 2 \
        --n-inducing 500 --svc --out benchmarks/results/fitc_cores_500.json

``FITCGPClassifier(n_inducing=M, n_jobs=w, ard=False)`` (the isotropic kernel of the
recorded runs; ``--ard auto`` the default, for every estimator) with its defaults
otherwise on MNIST 13×13, 4 against the rest (``--n-train`` images, 60 000 by default;
10 000 test images), for each ``w`` of ``--workers``: fit time, evaluations and sweeps,
test error and NLP, the speed-up over ``w = 1`` and the parallel efficiency (speed-up /
w), the largest difference of a test probability from the ``w = 1`` model (the blocks do
not depend on ``n_jobs``: 0), and the floor of the fit's sweeps and evaluations (its
n·M² products at the measured single-thread float32/float64 GEMM rates, spread over
``w`` cores). ``--busy`` runs a process that keeps one core busy (a numpy loop) through
the timed fits: on a 2-core machine ``n_jobs=2`` then has one core and a half, and must
not be much slower than ``n_jobs=1`` on the idle machine. ``--svc`` fits libsvm with
Platt probabilities (``SVC(C=10, gamma="scale", probability=True)``) on the same split
after them. ``--task noisy``: the ``make_classification`` task with 10 % flipped labels
instead. Runs unchanged on a many-core machine (``--workers 1 2 4 8 16``).

``--estimator ivm``: ``IVMClassifier(active_set_size=M, n_jobs=w, ard=False)`` instead,
by default on ``make_classification(n_samples=50_000, flip_y=0.05)``
(``--task flipped``; the floor is then FITC's, of the IVM's FITC pass over every point
when it runs)::

    python -m benchmarks run fitc_cores --estimator ivm --n-inducing 1000 \
        --workers 1 2 --out benchmarks/results/ivm_cores.json

``--estimator nlp``: ``NLPSparseGPClassifier(max_basis_vectors=M, n_jobs=w, ard=False)``
on the same task (the floor again that of its FITC pass)::

    python -m benchmarks run fitc_cores --estimator nlp --workers 1 2 \
        --out benchmarks/results/nlp_cores.json

``--estimator rvm``: ``RVMClassifier(n_jobs=w, ard=False)`` on the same task
(``--n-inducing`` unused; no floor, as its E-steps' sizes change through the fit)::

    python -m benchmarks run fitc_cores --estimator rvm --workers 1 2 \
        --out benchmarks/results/rvm_cores.json
"""

from __future__ import annotations

import argparse
import multiprocessing

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks._lib.tasks import (
    flipped_classification_task,
    mnist_task,
    noisy_classification_task,
)
from sparsegp import (
    FITCGPClassifier,
    IVMClassifier,
    NLPSparseGPClassifier,
    RVMClassifier,
)
from sparsegp.benchmarking import PlattSVC, dgemm_rate, evaluate, save_run


def _burn(stop):
    """Keep one core busy until ``stop`` is set: numpy work on a small array."""
    a = np.random.default_rng(0).standard_normal((300, 300))
    with threadpool_limits(1):
        while not stop.is_set():
            a = np.tanh(a @ a.T / 300.0)


def floor_seconds(model, n, M, rates, workers):
    """The fit's n·M² products at the single-thread GEMM rates, over ``workers``:
    per evaluation K_uc and its gradients (≈ 4·n·M² float64), per sweep a ``syrk``
    and a ``trmm`` (2·n·M² in the sweeps' float32). For the IVM, those of its FITC
    pass only (its selection left out: a lower bound)."""
    evaluations = model.details.get("fitc_evaluations", model.n_iterations + 1)
    sweeps = model.details.get("n_sweeps", 0)
    seconds = evaluations * 4.0 * n * M * M / rates["float64"]
    seconds += sweeps * 2.0 * n * M * M / rates["float32"]
    return seconds / workers


_TASKS = {
    "mnist": mnist_task,
    "noisy": noisy_classification_task,
    "flipped": flipped_classification_task,
}


def _estimator(args, workers):
    ard = "auto" if args.ard == "auto" else False
    if args.estimator == "ivm":
        return IVMClassifier(
            ard=ard, active_set_size=args.n_inducing, n_jobs=workers, random_state=0
        )
    if args.estimator == "nlp":
        return NLPSparseGPClassifier(
            ard=ard, max_basis_vectors=args.n_inducing, n_jobs=workers, random_state=0
        )
    if args.estimator == "rvm":
        return RVMClassifier(ard=ard, n_jobs=workers, random_state=0)
    return FITCGPClassifier(
        n_inducing=args.n_inducing, n_jobs=workers, ard=ard, random_state=0
    )


def run(args):
    task = args.task or ("mnist" if args.estimator == "fitc" else "flipped")
    X, y, X_test, y_test = _TASKS[task](args.n_train)
    with threadpool_limits(1):
        rates = {
            name: dgemm_rate(args.n_inducing, 8192, args.n_inducing, 3, dtype)
            for name, dtype in (("float64", np.float64), ("float32", np.float32))
        }
    stop = multiprocessing.Event()
    burner = multiprocessing.Process(target=_burn, args=(stop,)) if args.busy else None
    if burner is not None:
        burner.start()
    rows, reference, base = [], None, None
    rvm = args.estimator == "rvm"  # no count of sweeps, no floor
    try:
        for workers in args.workers:
            result, fitted = evaluate(
                _estimator(args, workers),
                X,
                y,
                X_test,
                y_test,
                name=f"{args.estimator}_{args.n_inducing}_jobs_{workers}",
                dataset=f"{task}_{len(y)}",
            )
            proba = fitted.predict_proba(X_test)
            reference = proba if reference is None else reference
            if base is None and workers == 1:
                base = result.fit_seconds
            model = fitted.estimators_[0]
            rows.append(
                dict(
                    result.__dict__,
                    workers=workers,
                    busy=args.busy,
                    ard=args.ard,
                    evaluations=model.n_iterations,
                    sweeps=None if rvm else model.details.get("n_sweeps", 0),
                    speedup=None if base is None else base / result.fit_seconds,
                    efficiency=None
                    if base is None
                    else base / result.fit_seconds / workers,
                    largest_probability_difference=float(
                        np.max(np.abs(proba - reference))
                    ),
                    floor_seconds=None
                    if rvm
                    else floor_seconds(model, len(y), args.n_inducing, rates, workers),
                )
            )
            floor = rows[-1]["floor_seconds"]
            floor = "no floor" if floor is None else f"floor {floor:.1f} s"
            scaling = (
                ""
                if base is None
                else f" ({rows[-1]['speedup']:.2f}×, efficiency {rows[-1]['efficiency']:.2f})"
            )
            print(
                f"n_jobs={workers}: {result.fit_seconds:.1f} s{scaling}, {result.error:.2%} / "
                f"{result.nlp:.4f}, {model.n_iterations} evaluations, "
                f"{rows[-1]['sweeps']} sweeps, {floor}, "
                f"largest Δp {rows[-1]['largest_probability_difference']:.1e}",
                flush=True,
            )
        if args.svc:  # the peer, in the same run: libsvm with Platt probabilities
            svc = PlattSVC(C=10.0, random_state=0)
            result, _ = evaluate(svc, X, y, X_test, y_test, name="svc_platt")
            rows.append(dict(result.__dict__, workers=1, busy=args.busy))
            print(
                f"libsvm + Platt: {result.fit_seconds:.1f} s, {result.error:.2%} / "
                f"{result.nlp:.4f}",
                flush=True,
            )
    finally:
        stop.set()
        if burner is not None:
            burner.join()
    return rows, rates


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--estimator", choices=["fitc", "ivm", "nlp", "rvm"], default="fitc"
    )
    parser.add_argument(
        "--task", choices=sorted(_TASKS), help="mnist (FITC), flipped (the others)"
    )
    parser.add_argument("--n-train", type=int, default=None, help="60 000 / 50 000")
    parser.add_argument(
        "--n-inducing", type=int, default=200, help="M, the IVM's d, the NLP basis"
    )
    parser.add_argument(
        "--ard",
        choices=["false", "auto"],
        default="false",
        help="the estimators' ard: false (the isotropic kernel of the recorded runs) "
        "or auto (their default)",
    )
    parser.add_argument("--busy", action="store_true")
    parser.add_argument("--svc", action="store_true", help="time libsvm + Platt too")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.n_train is None:
        args.n_train = 60_000 if args.estimator == "fitc" else 50_000
    rows, rates = run(args)
    if args.out:
        save_run(args.out, rows, gemm_gflops={k: v / 1e9 for k, v in rates.items()})


if __name__ == "__main__":
    main()
