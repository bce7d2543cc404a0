"""EP sweeps per evidence evaluation under several warm starts, on the same optimizer paths.

    SPARSEGP_DATA=../shared/data python -m benchmarks run warm_starts \
        --out benchmarks/results/warm_starts.json
    SPARSEGP_DATA=../shared/data python -m benchmarks run warm_starts --axis run \
        --out benchmarks/results/warm_starts_nearest.json

An optimizer's evidence evaluations start EP from an earlier converged run
(:class:`~sparsegp.approximations.ep.WarmStartedEP`). Which start is best is measured
here without the optimizer's path moving with it: a fit records the hyperparameter
vectors its L-BFGS-B evaluates, then that sequence is replayed (each point evaluated in
order, gradient included) under each start, counting the EP sweeps. ``--axis carry``
(the default) compares how the sites are carried to the new prior:

- ``carried``: the library's :func:`~sparsegp.approximations.ep.carried_sites` — the
  old cavities rescaled with the prior's mean variance ``s`` and the sites
  moment-matched there under the new likelihood;
- ``scaled``: the old sites scaled as the step-likelihood limit says, ``(τ̃/s, ν̃/√s)``;
- ``unchanged``: the old sites as they are (the library until 2026-11-24).

``--axis run`` compares which earlier run they are carried from (both carried):

- ``nearest``: the library's — the kept run evaluated nearest the new point;
- ``last``: the last converged run (the library until 2026-11-25).

Each task's path is recorded under each of the axis's first two starts. Tasks:
``FITCGPClassifier(n_inducing=200)`` on MNIST 13×13 4-vs-rest (7 291 images), on MAGIC
(standardised, split 0) and on 20 000 points of the noisy ``make_classification`` task;
``EPGPClassifier()`` on IDA splice and image (realization 0) and on 2 000 of the MNIST
task's images. One BLAS thread.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import sparsegp.approximations.ep as ep_module
import sparsegp.approximations.evidence as evidence_module
import sparsegp.estimators.ep_classifier as ep_classifier
from benchmarks._lib.tasks import load_task, mnist_task, noisy_classification_task
from benchmarks.ngh07_fitc.fitc_inducing_size import standardised_magic
from sparsegp import EPGPClassifier, FITCGPClassifier
from sparsegp._optimize import OptimizationResult
from sparsegp.benchmarking import save_run

LIBRARY_START = ep_module.carried_sites


def scaled_sites(y, likelihood, tau, nu, mean, var, scale):
    return tau / scale, nu / np.sqrt(scale)


def unchanged_sites(y, likelihood, tau, nu, mean, var, scale):
    return tau, nu


STARTS = {
    "carried": LIBRARY_START,
    "scaled": scaled_sites,
    "unchanged": unchanged_sites,
}

LIBRARY_CHOICE = ep_module.WarmStartedEP._nearest


def last_run(ep, at):
    return ep._kept[-1] if ep._kept else None


RUNS = {"nearest": LIBRARY_CHOICE, "last": last_run}
AXES = {"carry": STARTS, "run": RUNS}


def mnist_2000():
    """The MNIST task's random 2 000 training images (as ``calibration.py`` fits full
    EP on), all 10 000 test images."""
    X, y, X_test, y_test = mnist_task(7291)
    rows = np.random.default_rng(0).choice(len(y), 2000, replace=False)
    return X[rows], y[rows], X_test, y_test


TASKS = {
    "fitc_mnist": (
        lambda: mnist_task(7291),
        lambda: FITCGPClassifier(n_inducing=200, ard=False),
    ),
    "fitc_magic": (
        standardised_magic,
        lambda: FITCGPClassifier(n_inducing=200, ard=False),
    ),
    "fitc_noisy_20000": (
        lambda: noisy_classification_task(20_000),
        lambda: FITCGPClassifier(n_inducing=200, ard=False),
    ),
    "ep_splice": (lambda: load_task("splice", 0), EPGPClassifier),
    "ep_image": (lambda: load_task("image", 0), EPGPClassifier),
    "ep_mnist_2000": (mnist_2000, EPGPClassifier),
}


LIBRARY_MAXIMIZE = evidence_module.maximize


class OptimizerPath:
    """Stands in for ``maximize`` in the estimator modules: records the points it
    evaluates, or evaluates a recorded sequence instead of optimizing."""

    def __init__(self):
        self.points = None

    def recording(self):
        self.points = []

        def maximize(objective, x0, *args, **kwargs):
            def recorded(x):
                self.points.append(np.array(x))
                return objective(x)

            return LIBRARY_MAXIMIZE(recorded, x0, *args, **kwargs)

        return maximize

    def replaying(self):
        def maximize(objective, x0, *args, **kwargs):
            values = [objective(x)[0] for x in self.points]
            best = int(np.argmax(values))
            return OptimizationResult(
                x=self.points[best],
                value=values[best],
                n_evaluations=len(self.points),
                n_starts=1,
            )

        return maximize


def fit_counting(make_data, make_estimator, start, maximize):
    """Fit with EP warm start ``start`` (a name of :data:`STARTS` or :data:`RUNS`) and
    optimizer ``maximize``; sweeps and seconds."""
    ep_module.carried_sites = STARTS.get(start, LIBRARY_START)
    ep_module.WarmStartedEP._nearest = RUNS.get(start, LIBRARY_CHOICE)
    evidence_module.maximize = ep_classifier.maximize = maximize
    sweeps = []
    run_ep = ep_module.run_ep

    def counting(*args, **kwargs):
        state = run_ep(*args, **kwargs)
        sweeps.append(state.n_sweeps)
        return state

    ep_module.run_ep = counting
    try:
        X, y, X_test, y_test = make_data()
        estimator = make_estimator().set_params(random_state=0)
        with threadpool_limits(1):
            begin = time.perf_counter()
            estimator.fit(X, y)
            seconds = time.perf_counter() - begin
    finally:
        ep_module.run_ep = run_ep
        ep_module.carried_sites = LIBRARY_START
        ep_module.WarmStartedEP._nearest = LIBRARY_CHOICE
        evidence_module.maximize = ep_classifier.maximize = LIBRARY_MAXIMIZE
    error = float(np.mean(estimator.predict(X_test) != y_test))
    return dict(
        sweeps=int(sum(sweeps)),
        runs=len(sweeps),
        fit_seconds=seconds,
        error=error,
        log_evidence=float(estimator.log_marginal_likelihood_value_),
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", choices=list(TASKS), default=list(TASKS))
    parser.add_argument("--axis", choices=list(AXES), default="carry")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    rows, begin = [], time.perf_counter()
    for task in args.tasks:
        make_data, make_estimator = TASKS[task]
        starts = list(AXES[args.axis])
        for recorded_under in starts[:2]:
            path = OptimizerPath()
            record = fit_counting(
                make_data, make_estimator, recorded_under, path.recording()
            )
            print(
                f"{task}: path of {len(path.points)} evaluations recorded under "
                f"{recorded_under} (error {record['error']:.4f}, log Z "
                f"{record['log_evidence']:.3f}, {record['sweeps']} sweeps)",
                flush=True,
            )
            for start in starts:
                replay = fit_counting(
                    make_data, make_estimator, start, path.replaying()
                )
                rows.append(
                    dict(
                        task=task,
                        path=recorded_under,
                        evaluations=len(path.points),
                        start=start,
                        **replay,
                    )
                )
                print(
                    f"  replayed under {start:9s}: {replay['sweeps']:4d} sweeps in "
                    f"{replay['runs']} EP runs, {replay['fit_seconds']:.2f} s",
                    flush=True,
                )
    print(f"\nwall time {time.perf_counter() - begin:.0f} s on {platform.machine()}")
    if args.out:
        save_run(args.out, rows)


if __name__ == "__main__":
    main()
