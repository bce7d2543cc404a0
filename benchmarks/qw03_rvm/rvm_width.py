"""Would the RVM classifier gain from choosing its basis width? Measured, not built.

    SPARSEGP_DATA=../shared/data python -m benchmarks run rvm_width \
        --out benchmarks/results/rvm_width.json

[QW03] fixes the width of its basis functions, and so does ``RVMClassifier()``: an RBF
of length-scale ``ℓ₀`` (the root of the summed feature variances,
``methods.kernel_defaults.default_rbf``). Here the classifier is fitted, its defaults
otherwise, at ``ℓ = f·ℓ₀`` for each ``f`` of ``--factors``, and each fit is scored on
the test set and by three criteria the fit could choose ``f`` by:

- its **evidence**: EP's ``log Z`` of the final E-step's weight-space model at the
  fitted ``α`` (algorithms.md §4.4, §5.5), per training point;
- its **leave-one-out** NLP from that E-step's cavities (EP's approximation of it,
  [RW06] §3.6) — the relevance vectors' own basis functions stay in the model;
- a **held-out** NLP: stratified 5-fold cross-validation on up to 2 000 points, or
  one stratified fifth held out of a 4 000-point subsample beyond, every factor
  fitted on the rest: the ``f`` of the lowest loss, or (``1 se``) the widest within
  one standard error of it (the rule the NLP classifier uses, algorithms.md §8
  item 3). Its time is the search's.

IDA sets (``--realizations`` each) and MNIST 13×13 4 against the rest (7 291 seeded
images, ``mnist4``); one BLAS thread.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import log_ndtr
from sklearn.gaussian_process.kernels import RBF
from sklearn.model_selection import StratifiedKFold, train_test_split
from threadpoolctl import threadpool_limits

from benchmarks._lib.cluster import print_table
from benchmarks._lib.tasks import load_task, mnist_task
from benchmarks.qw03_rvm.rvm_augmentation import design
from sparsegp import RVMClassifier
from sparsegp.approximations.ep import site_evidence_terms
from sparsegp.approximations.rvm_ssem import ep_e_step
from sparsegp.benchmarking import save_run
from sparsegp.datasets import IDA_NAMES
from sparsegp.likelihoods import Probit
from sparsegp.methods.kernel_defaults import default_rbf

SETS = (*IDA_NAMES, "mnist4")
#: How the width could be chosen (the module's docstring).
CRITERIA = ("evidence", "leave-one-out", "held-out", "held-out, 1 se")
#: Cross-validation folds up to this many points; one held-out fifth beyond.
CV_POINTS = 2000
#: The held-out search's subsample beyond ``CV_POINTS``.
SEARCH_POINTS = 4000


def task(name, realization):
    """``X, y, X_test, y_test`` of an IDA split or of ``mnist4``."""
    return mnist_task(7291) if name == "mnist4" else load_task(name, realization)


def fitted(X, y, length_scale):
    """``RVMClassifier()`` with its basis an RBF of ``length_scale``, fitted."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RVMClassifier(RBF(length_scale), random_state=0).fit(X, y)


def evidence_and_leave_one_out(clf, X, y):
    """Per training point: EP's ``log Z`` of the fitted weights' model and the
    cavities' leave-one-out NLP, from an E-step run to convergence at the fitted α."""
    if getattr(clf, "input_scale_", 1.0) != 1.0:
        raise RuntimeError("the fit rescaled its inputs: its basis is not X's")
    model = clf.estimators_[0]
    t = np.where(y == clf.classes_[1], 1.0, -1.0)
    Psi = design(model, X)
    alpha = model.details["alpha"]
    posterior, sites = ep_e_step(Psi, alpha, t, clf.sigma_in, max_iter=1000, tol=1e-10)
    half = solve_triangular(posterior.chol, Psi.T, lower=True)  # L Lᵀ = A + ΨᵀΩΨ
    mean, var = Psi @ posterior.mean, np.einsum("ij,ij->j", half, half)
    tau, nu = sites.omega, sites.nu
    # log|I + K T̃| = log|A + ΨᵀΩΨ| − log|A| (K = Ψ A⁻¹ Ψᵀ, algorithms.md §5.5)
    log_det = 2 * np.sum(np.log(np.diag(posterior.chol))) - np.sum(np.log(alpha))
    likelihood = Probit(0.0, 1.0 / clf.sigma_in)
    log_z = site_evidence_terms(tau, nu, mean, var, t, likelihood) - 0.5 * log_det
    tau_c = 1.0 / var - tau  # an improper cavity keeps its marginal, as EP's
    proper = tau_c > 0
    cavity_var = np.where(proper, 1.0 / np.where(proper, tau_c, 1.0), var)
    cavity_mean = np.where(proper, cavity_var * (mean / var - nu), mean)
    z = t * cavity_mean / np.sqrt(clf.sigma_in**2 + cavity_var)
    return log_z / len(t), float(-np.mean(log_ndtr(z)))


def scored_on_test(clf, X_test, y_test):
    """Test error and NLP."""
    p = clf.predict_proba(X_test)
    codes = np.searchsorted(clf.classes_, y_test)
    truth = np.clip(p[np.arange(len(codes)), codes], 1e-300, None)
    return float(np.mean(np.argmax(p, axis=1) != codes)), float(-np.mean(np.log(truth)))


def held_out_choice(X, y, length_scales, seed=0):
    """The held-out search's factor indices, lowest loss and by the one-standard-error
    rule, and its seconds (see the module's docstring)."""
    started = time.perf_counter()
    if len(y) > SEARCH_POINTS:
        keep, _ = train_test_split(
            np.arange(len(y)), train_size=SEARCH_POINTS, stratify=y, random_state=seed
        )
        X, y = X[keep], y[keep]
    if len(y) <= CV_POINTS:
        folds = StratifiedKFold(5, shuffle=True, random_state=seed).split(X, y)
    else:
        folds = [
            train_test_split(
                np.arange(len(y)), test_size=0.2, stratify=y, random_state=seed
            )
        ]
    folds = list(folds)
    losses = []
    for length_scale in length_scales:
        point_losses = []
        for train, test in folds:
            clf = fitted(X[train], y[train], length_scale)
            p = clf.predict_proba(X[test])[np.arange(len(test)), 1]
            right = np.where(y[test] == clf.classes_[1], p, 1.0 - p)
            point_losses.append(-np.log(np.clip(right, 1e-300, None)))
        losses.append(np.concatenate(point_losses))
    means = np.array([loss.mean() for loss in losses])
    best = int(np.argmin(means))
    bound = means[best] + losses[best].std() / np.sqrt(len(losses[best]))
    widest = max(k for k in range(len(means)) if means[k] <= bound)
    return best, widest, time.perf_counter() - started


def run_split(name, realization, factors):
    """One record per factor: its fit's test scores and criteria, and whether the
    held-out search (run once for the split) chose it."""
    X, y, X_test, y_test = task(name, realization)
    base = default_rbf(X).length_scale
    rows = []
    for factor in factors:
        started = time.perf_counter()
        clf = fitted(X, y, factor * base)
        seconds = time.perf_counter() - started
        error, nlp = scored_on_test(clf, X_test, y_test)
        evidence, loo = evidence_and_leave_one_out(clf, X, y)
        rows.append(
            dict(
                dataset=name,
                realization=realization,
                factor=factor,
                error=error,
                nlp=nlp,
                fit_seconds=seconds,
                evidence=evidence,
                loo_nlp=loo,
                n_relevant=len(clf.relevance_vectors_),
            )
        )
    lowest, chosen, seconds = held_out_choice(X, y, [f * base for f in factors])
    for k, row in enumerate(rows):
        row.update(
            held_out_lowest=k == lowest,
            held_out_choice=k == chosen,
            search_seconds=seconds,
        )
    return rows


def summary(rows, factors):
    """Per set: mean test NLP at each factor, and at each criterion's choice."""
    table = []
    for name in dict.fromkeys(row["dataset"] for row in rows):
        splits = {}
        for row in (r for r in rows if r["dataset"] == name):
            splits.setdefault(row["realization"], []).append(row)
        picks = {c: [] for c in CRITERIA}
        for fits in splits.values():
            picks["evidence"].append(max(fits, key=lambda r: r["evidence"]))
            picks["leave-one-out"].append(min(fits, key=lambda r: r["loo_nlp"]))
            picks["held-out"].append(next(r for r in fits if r["held_out_lowest"]))
            picks["held-out, 1 se"].append(
                next(r for r in fits if r["held_out_choice"])
            )
        entry = dict(dataset=name, runs=len(splits))
        for factor in factors:
            at = [
                r["nlp"]
                for fits in splits.values()
                for r in fits
                if r["factor"] == factor
            ]
            entry[f"f = {factor:g}"] = float(np.mean(at))
        for criterion, chosen in picks.items():
            entry[criterion] = float(np.mean([r["nlp"] for r in chosen]))
            entry[f"{criterion} f"] = float(np.median([r["factor"] for r in chosen]))
        entry["search s"] = float(
            np.mean([f[0]["search_seconds"] for f in splits.values()])
        )
        table.append(entry)
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS))
    parser.add_argument("--realizations", type=int, default=5)
    parser.add_argument(
        "--factors", type=float, nargs="+", default=[0.5, 0.71, 1.0, 1.41, 2.0]
    )
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    rows = []
    for name in args.sets:
        for realization in range(1 if name == "mnist4" else args.realizations):
            with threadpool_limits(1):
                rows += run_split(name, realization, args.factors)
            print(rows[-1]["dataset"], realization, flush=True)
            if args.out:
                save_run(args.out, rows)
    table = summary(rows, args.factors)
    columns = [("set", "dataset", "s"), ("runs", "runs", "d")]
    columns += [(f"NLP at f = {f:g}", f"f = {f:g}", ".4f") for f in args.factors]
    for criterion in CRITERIA:
        columns += [
            (f"{criterion}: NLP", criterion, ".4f"),
            (f"{criterion}: median f", f"{criterion} f", ".2f"),
        ]
    print_table(table, columns + [("search s", "search s", ".1f")])


if __name__ == "__main__":
    main()
