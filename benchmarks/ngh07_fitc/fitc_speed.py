"""FITC-EP (and NLP classifier) fit time beside libsvm's; FITC fits against N and M.

    SPARSEGP_DATA=../shared/data python -m benchmarks run fitc_speed task \
        --out benchmarks/results/fitc_speed_task.json
    SPARSEGP_DATA=../shared/data python -m benchmarks run fitc_speed task --n-train 60000
    SPARSEGP_DATA=../shared/data python -m benchmarks run fitc_speed cost \
        --out benchmarks/results/fitc_speed_cost.json
    SPARSEGP_DATA=../shared/data python -m benchmarks run fitc_speed nlp \
        --out benchmarks/results/nlp_speed_task.json
    python -m benchmarks run fitc_speed tol --out benchmarks/results/fitc_speed_tol.json
    SPARSEGP_DATA=../shared/data python -m benchmarks run fitc_speed task \
        --max-iter-optimizer 15   # what a smaller optimizer budget would cost

``task``: MNIST 13×13, digit 4 against the rest, a seeded random ``--n-train`` of the
training images (7 291, USPS's size, by default), all 10 000 test images;
``FITCGPClassifier(n_inducing=200, ard=False)`` with its defaults otherwise (the
isotropic kernel, whose flops the floor counts; ``--max-iter-optimizer``
overrides [NGH07]'s 20 L-BFGS-B iterations, to measure that trade-off) beside
``SVC(C=10, gamma="scale", probability=True)``, timed in the same run.
``cost``: whole default fits on the same task for N ∈ {5 000 … 60 000} at M = 200 and
M ∈ {100 … 800} at N = 10 000. ``nlp``:
``NLPSparseGPClassifier(max_basis_vectors=200, posterior="active_set")`` (the paper's
predictor) with its defaults on the ``task`` data, beside the same SVC. ``tol``: default fits
with ``sweep_dtype`` float32 and float64 at ``tol`` 10⁻³ … 10⁻⁶, and with
``optimizer=None`` at the learnt kernel, on xor clusters (2 000 points, M = 50) and
``make_classification`` (5 000 points, 10 features, 10 % flipped, M = 200): sweeps,
seconds beside the floor below (the sweeps at the rate of the precision they ran in),
log evidence.

One BLAS thread for every estimator. The floor of a fit is the flops of the
evaluations it made, at the GEMM rates measured in the same run: per evidence
evaluation, in float64, the prior (``V = L_u⁻¹ K_uf``, a ``trmm``: N·M²) and the
kernel block and its gradients (4·N·M·D); in the sweeps' precision the
sensitivities (``V diag(c) Vᵀ``, a ``syrk``: N·M², and the ``trmm`` ``L_u⁻ᵀ(…)`` and
``L_B⁻ᵀ E``, N·M² each); per EP sweep the refresh (2·N·M²: a ``syrk`` and a
``trmm``) in the sweeps' precision (float32 by default; the final run's float64
sweeps are counted at that rate too), and one more per EP run, at its starting sites
(counted since 2026-11-24 19:45 UTC); cold restarts, k-means and the Python around
them are not counted. (Until 2026-11-24 16:50 UTC the sensitivities took 5·N·M², all float64, and
the floor counted them so; the runs of 16:50–17:20 UTC counted ``V diag(c) Vᵀ`` as a
GEMM, 2·N·M²; until 2026-11-25 05:00 UTC ``V diag(c) Vᵀ`` and ``L_u⁻ᵀ(…)`` ran, and
were counted, in float64.)
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification
from threadpoolctl import threadpool_limits

from benchmarks._lib.tasks import DIGIT, mnist_task
from sparsegp import FITCGPClassifier, NLPSparseGPClassifier
from sparsegp.benchmarking import PlattSVC, dgemm_rate, evaluate, save_run
from sparsegp.datasets import make_xor_clusters


def floor_seconds(model, N, D, rate, sweep_rate):
    """Seconds the fit's evaluations and sweeps need at ``rate`` (float64) and
    ``sweep_rate`` (the sweeps' precision; module docstring)."""
    M = len(model.points)
    per_evaluation = N * M * M / rate + 4.0 * N * M * D / rate
    per_evaluation += 3.0 * N * M * M / sweep_rate
    per_sweep = 2.0 * N * M * M / sweep_rate
    per_evaluation += per_sweep  # the refresh at the EP run's starting sites
    return (model.n_iterations + 1) * per_evaluation + model.details[
        "n_sweeps"
    ] * per_sweep


def fitc_row(X, y, X_test, y_test, M, name, max_iter_optimizer=None):
    options = (
        {} if max_iter_optimizer is None else {"max_iter_optimizer": max_iter_optimizer}
    )
    result, clf = evaluate(
        FITCGPClassifier(n_inducing=M, ard=False, random_state=0, **options),
        X,
        y,
        X_test,
        y_test,
        name=name,
        dataset=f"mnist13_{DIGIT}_n{len(X)}",
    )
    model = clf.estimators_[0]
    rate = dgemm_rate(M, len(X), M, repeats=5)
    sweep_rate = dgemm_rate(M, len(X), M, repeats=5, dtype=clf.sweep_dtype)
    floor = floor_seconds(model, len(X), X.shape[1], rate, sweep_rate)
    row = dict(
        result.__dict__,
        n_train=len(X),
        n_inducing=M,
        max_iter_optimizer=clf.max_iter_optimizer,
        n_evaluations=model.n_iterations,
        n_sweeps=model.details["n_sweeps"],
        dgemm_gflops=rate / 1e9,
        sweep_gemm_gflops=sweep_rate / 1e9,
        floor_seconds=floor,
        time_over_floor=result.fit_seconds / floor,
    )
    print(
        f"{name}: N={len(X)} M={M} {result.error:.2%} / {result.nlp:.4f} nats, "
        f"fit {result.fit_seconds:.1f} s, {model.n_iterations} evaluations, "
        f"{model.details['n_sweeps']} sweeps, floor {floor:.1f} s at {rate / 1e9:.0f} "
        f"({sweep_rate / 1e9:.0f} for sweeps) GFlop/s "
        f"(× {row['time_over_floor']:.2f})",
        flush=True,
    )
    return row


def run_task(args):
    X, y, X_test, y_test = mnist_task(args.n_train)
    if args.mode == "nlp":
        result, _ = evaluate(
            NLPSparseGPClassifier(
                max_basis_vectors=200, posterior="active_set", random_state=0
            ),
            X,
            y,
            X_test,
            y_test,
            name="nlp_200",
            dataset=f"mnist13_{DIGIT}_n{len(X)}",
        )
        print(
            f"nlp_200: {result.error:.2%} / {result.nlp:.4f} nats, "
            f"fit {result.fit_seconds:.1f} s",
            flush=True,
        )
        rows = [dict(result.__dict__, n_train=len(X))]
    else:
        rows = [
            fitc_row(X, y, X_test, y_test, 200, "fitc_200", args.max_iter_optimizer)
        ]
    svc = PlattSVC(C=10.0, random_state=0)
    result, _ = evaluate(svc, X, y, X_test, y_test, name="svc_platt", dataset="mnist")
    print(
        f"svc_platt: {result.error:.2%} / {result.nlp:.4f} nats, "
        f"fit {result.fit_seconds:.1f} s; {rows[0]['estimator']} / SVC = "
        f"{rows[0]['fit_seconds'] / result.fit_seconds:.2f}",
        flush=True,
    )
    rows.append(dict(result.__dict__, n_train=len(X)))
    return rows


def run_cost(args):
    runs = [(n, 200) for n in (5000, 10000, 20000, 40000, 60000)]
    runs += [(10000, m) for m in (100, 400, 800)]
    rows = []
    for n, m in runs:
        X, y, X_test, y_test = mnist_task(n)
        rows.append(
            fitc_row(X, y, X_test, y_test, m, f"fitc_{m}", args.max_iter_optimizer)
        )
    print("\n| N | M | fit s | evaluations | sweeps | floor s | fit / floor |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['n_train']} | {r['n_inducing']} | {r['fit_seconds']:.1f} | "
            f"{r['n_evaluations']} | {r['n_sweeps']} | {r['floor_seconds']:.1f} | "
            f"{r['time_over_floor']:.2f} |"
        )
    return rows


def timed_fit(estimator, X, y, rates):
    """Seconds, evaluations, sweeps, log Z and floor of one fit; ``rates`` the GEMM
    rates ``{dtype: flops/s}`` at the task's shapes. The sweeps run in float64 when
    ``tol / 10`` is below float32's epsilon (``FITCGPClassifier``'s ``sweep_dtype``)."""
    start = time.perf_counter()
    estimator.fit(X, y)
    seconds = time.perf_counter() - start
    model = estimator.estimators_[0]
    float32 = estimator.tol / 10 >= np.finfo(np.float32).eps
    sweeps = estimator.sweep_dtype if float32 else "float64"
    floor = floor_seconds(model, *X.shape, rates["float64"], rates[sweeps])
    return dict(
        fit_seconds=seconds,
        n_evaluations=model.n_iterations,
        n_sweeps=model.details["n_sweeps"],
        log_evidence=estimator.log_marginal_likelihood_value_,
        floor_seconds=floor,
    )


def run_tol(args):
    tasks = {
        "xor_2000": (make_xor_clusters(2000, random_state=0), 50),
        "make_classification_5000": (
            make_classification(5000, n_features=10, flip_y=0.1, random_state=0),
            200,
        ),
    }
    rows = []
    print(
        "| data | M | tol | optimizer | sweep dtype | evaluations / sweeps | s | "
        "floor s | log Z |"
    )
    print("|---|---:|---:|---|---|---|---:|---:|---:|")
    for name, ((X, y), M) in tasks.items():
        rates = {
            dtype: dgemm_rate(M, len(X), M, repeats=5, dtype=dtype)
            for dtype in ("float32", "float64")
        }
        for tol in (1e-3, 1e-4, 1e-5, 1e-6):
            for dtype in ("float32", "float64"):
                options = dict(
                    n_inducing=M, tol=tol, sweep_dtype=dtype, ard=False, random_state=0
                )
                learnt = FITCGPClassifier(**options)
                fits = {"L-BFGS-B": timed_fit(learnt, X, y, rates)}
                given = FITCGPClassifier(
                    learnt.kernel_,
                    inducing_init=learnt.inducing_points_,
                    bias=learnt.bias_,
                    optimizer=None,
                    **options,
                )
                fits["None"] = timed_fit(given, X, y, rates)
                for optimizer, fit in fits.items():
                    rows.append(
                        dict(
                            fit,
                            data=name,
                            n_inducing=M,
                            tol=tol,
                            sweep_dtype=dtype,
                            optimizer=optimizer,
                        )
                    )
                    print(
                        f"| {name} | {M} | {tol:g} | {optimizer} | {dtype} | "
                        f"{fit['n_evaluations']} / {fit['n_sweeps']} | "
                        f"{fit['fit_seconds']:.2f} | {fit['floor_seconds']:.2f} | "
                        f"{fit['log_evidence']:.4f} |",
                        flush=True,
                    )
    return rows


MODES = {"task": run_task, "cost": run_cost, "nlp": run_task, "tol": run_tol}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=list(MODES))
    parser.add_argument("--n-train", type=int, default=7291)
    parser.add_argument(
        "--max-iter-optimizer",
        type=int,
        default=None,
        help="FITC's L-BFGS-B iterations (default: the estimator's, [NGH07]'s 20)",
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    start = time.time()
    with threadpool_limits(1):
        rows = MODES[args.mode](args)
    print(f"\nwall time {time.time() - start:.0f} s on {platform.machine()}")
    if args.out is not None:
        save_run(args.out, rows)


if __name__ == "__main__":
    main()
