"""Cost of NLP basis selection ([SSK09]): the O(κ·n·d²) law, its profile, and the IVM.

    SPARSEGP_DATA=../shared/data python -m benchmarks run nlp_cost

One BLAS thread. Part 1, the inner loop (one basis grown at a fixed kernel, no
hyperparameter learning) on MNIST 13×13 digit 3 against the rest: κ doubled at
n = 4 000, d = 100; n doubled at κ = 59, d = 100; d doubled at κ = 59, n = 4 000 — with
the share of time spent scoring candidates (eq. 2.14) and including the winner.
Part 2, whole fits with default settings (hyperparameters learnt) of
``NLPSparseGPClassifier`` and ``IVMClassifier`` at the same d = N/5 on banana and image
(realizations 0-2), and the ratio beside [SSK09]'s (Matlab) 29.24 s / 3.96 s and
1 209.2 s / 37.1 s.
"""

from __future__ import annotations

import cProfile
import pstats
import time

import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from threadpoolctl import threadpool_limits

from sparsegp import IVMClassifier, NLPSparseGPClassifier
from sparsegp.datasets import load_ida, load_mnist

PAPER_SECONDS = {"banana": (3.96, 29.24), "image": (37.1, 1209.2)}


def profiled_inner_loop(X, y, d, kappa):
    """Seconds of one basis selection and the shares of candidate scoring (eq. 2.14),
    of the log Φ it evaluates (κ·n per inclusion) and of inclusion (eqs. 2-3)."""
    model = NLPSparseGPClassifier(
        ConstantKernel(10.0) * RBF(np.sqrt(10.0)),
        max_basis_vectors=d,
        working_set_size=kappa,
        optimizer=None,
        posterior="active_set",
        random_state=0,
    )
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.runcall(model.fit, X, y)
    seconds = time.perf_counter() - start
    stats = pstats.Stats(profile).stats
    cumulative = {func[2]: entry[3] for func, entry in stats.items()}
    total = cumulative["fit"]
    return seconds, tuple(
        cumulative[name] / total
        for name in ("candidate_losses", "log_predictive", "include")
    )


def inner_loop_law():
    X, labels, _, _ = load_mnist(resolution=13)
    order = np.random.default_rng(0).permutation(len(labels))
    y = np.where(labels == 3, 1, -1)
    runs = [(4000, 100, k) for k in (15, 30, 59, 118)]
    runs += [(n, 100, 59) for n in (2000, 8000, 16000)]
    runs += [(4000, d, 59) for d in (50, 200, 400)]
    print(
        "| n | d | κ | selection s | ms per inclusion | scoring share "
        "| of which log Φ | inclusion share |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, d, kappa in runs:
        idx = order[:n]
        seconds, shares = profiled_inner_loop(X[idx], y[idx], d, kappa)
        scoring, log_phi, including = (f"{100 * s:.0f} %" for s in shares)
        print(
            f"| {n} | {d} | {kappa} | {seconds:.2f} | {1000 * seconds / d:.1f} "
            f"| {scoring} | {log_phi} | {including} |",
            flush=True,
        )


def fit_seconds(model, X, y, X_test, y_test):
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    return seconds, float(np.mean(model.predict(X_test) != y_test))


def against_the_ivm():
    print(
        "\n| data set | realization | d | IVM s | NLP s | ratio | IVM error % "
        "| NLP error % | NLP outer iterations | [SSK09]'s ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for dataset in ("banana", "image"):
        ivm_paper, nlp_paper = PAPER_SECONDS[dataset]
        for realization in range(3):
            X, y, X_test, y_test = load_ida(dataset, realization)
            ivm = IVMClassifier(
                ard=False,
                active_set_size=0.2,
                selection="randomized",
                posterior="active_set",
                random_state=0,
            )
            nlp = NLPSparseGPClassifier(posterior="active_set", random_state=0)
            ivm_s, ivm_err = fit_seconds(ivm, X, y, X_test, y_test)
            nlp_s, nlp_err = fit_seconds(nlp, X, y, X_test, y_test)
            print(
                f"| {dataset} | {realization} | {len(nlp.active_set_)} | {ivm_s:.2f} "
                f"| {nlp_s:.2f} | {nlp_s / ivm_s:.1f} | {100 * ivm_err:.2f} "
                f"| {100 * nlp_err:.2f} | {nlp.n_outer_iterations_} "
                f"| {nlp_paper / ivm_paper:.1f} |",
                flush=True,
            )


def main():
    with threadpool_limits(1):
        inner_loop_law()
        against_the_ivm()


if __name__ == "__main__":
    main()
