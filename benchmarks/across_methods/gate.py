"""The defaults gate: a candidate default against the current one, paired, over every public set.

``python -m benchmarks gate ESTIMATOR [--candidate KEY=VALUE ...] [--current KEY=VALUE
...] [--against REV]`` fits the estimator twice on each split of each set, once with
the current settings (its defaults, with ``--current`` on top) and once with the
candidate's on top of those, one BLAS thread, the two fits back to back. With
``--against REV`` the current side is the library at git revision ``REV`` (a
temporary worktree, fitted in a child process before the candidate's fits), the
candidate the working tree's: a change of code rather than of a parameter.

Each set's pair of mean test error, NLP, ECE and fit time is one paired observation;
the summary counts the sets where the candidate's NLP is lower (a win) or higher (a
loss) by more than :data:`TIE` of the current's, a one-sided sign test of wins against
losses, the worst loss and the ratio of the fit times. CONTRIBUTING.md's rule: a
default changes only where the candidate wins on clearly more sets than it loses
(:data:`SIGN_LEVEL`), loses none by more than :data:`WORST_LOSS` in NLP, and the
geometric mean of its time ratios stays inside the budget stated for it
(``--budget``); or, as a speed fix, its mean time ratio is at most
:data:`SPEED_FIX_RATIO`, the current default does not win on clearly more sets (the
same sign test the other way) and the candidate loses none by more than
:data:`SPEED_FIX_WORST_LOSS`.
"""

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import binomtest
from sklearn.base import clone
from sklearn.datasets import (
    load_breast_cancer,
    load_digits,
    load_iris,
    load_wine,
    make_classification,
)
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from benchmarks._lib.defaults import DEFAULT_CLASSIFIERS
from benchmarks._lib.reports import calibration_error
from benchmarks._lib.tasks import mnist_classes, mnist_task, splice_three_classes
from sparsegp.benchmarking import evaluate, save_run
from sparsegp.datasets import load_ida, load_magic
from sparsegp.datasets._ida import IDA_NAMES

#: Relative NLP difference under which a set is a tie.
TIE = 0.01

#: One-sided sign-test level for "wins on clearly more sets than it loses".
SIGN_LEVEL = 0.1

#: The largest relative NLP loss on any set a new default may have.
WORST_LOSS = 0.10

#: A speed fix's largest mean time ratio (not slower beyond timing noise: the budget it
#: brings in is shown by its own benchmark), and its largest relative NLP loss on any set.
SPEED_FIX_RATIO = 1.05
SPEED_FIX_WORST_LOSS = 0.05

#: Images of the MNIST 13×13 tasks (USPS's size, [NGH07]).
N_MNIST = 7291


def _split(X, y, realization):
    """70/30 split of a small scikit-learn set, drawn by ``realization``."""
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=realization, stratify=y
    )
    return X_train, y_train, X_test, y_test


def _noisy(realization):
    """``make_classification`` with a tenth of the labels drawn at random."""
    X, y = make_classification(
        n_samples=10_000, n_features=20, flip_y=0.1, random_state=realization
    )
    return X[:8000], y[:8000], X[8000:], y[8000:]


def _imbalanced(realization):
    """``make_classification`` with 5 % positives and 2 % of labels flipped."""
    X, y = make_classification(
        n_samples=10_000,
        n_features=20,
        weights=[0.95],
        flip_y=0.02,
        random_state=realization,
    )
    return X[:8000], y[:8000], X[8000:], y[8000:]


def _noisy_classes(realization):
    """``make_classification`` with five classes and a tenth of the labels drawn at
    random, 1 500 points to train on."""
    X, y = make_classification(
        n_samples=3000,
        n_features=20,
        n_informative=8,
        n_classes=5,
        flip_y=0.1,
        random_state=realization,
    )
    return X[:1500], y[:1500], X[1500:], y[1500:]


#: Images of the small ten-class MNIST task: one-vs-rest problems under 2 000 rows.
N_MNIST_SMALL = 1500

#: ``{name: (load(realization), splits)}``: the sets beyond IDA, how many splits each.
LARGE_SETS = {
    "magic": (load_magic, 1),
    "mnist4": (lambda r: mnist_task(N_MNIST), 1),
    "mnist10": (lambda r: mnist_classes(N_MNIST), 1),
    "digits": (lambda r: _split(*load_digits(return_X_y=True), r), 1),
    "wine": (lambda r: _split(*load_wine(return_X_y=True), r), 3),
    "cancer": (lambda r: _split(*load_breast_cancer(return_X_y=True), r), 3),
    "noisy": (_noisy, 1),
    "imbalanced": (_imbalanced, 1),
    "iris": (lambda r: _split(*load_iris(return_X_y=True), r), 3),
    "splice3": (splice_three_classes, 1),
    "noisy5": (_noisy_classes, 2),
    "mnist10_small": (lambda r: mnist_classes(N_MNIST_SMALL), 1),
}


def parse_settings(pairs):
    """``{key: value}`` of ``KEY=VALUE`` words, each value a Python literal or a
    bare string."""
    settings = {}
    for pair in pairs:
        key, _, text = pair.partition("=")
        try:
            settings[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            settings[key] = text
    return settings


def scored_fit(estimator, data, side, dataset, realization):
    """One fit's row: test error, NLP, ECE and fit seconds."""
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the table reports what came out
        result, fitted = evaluate(
            estimator, *data, name=side, dataset=dataset, realization=realization
        )
        ece = calibration_error(fitted, *data[2:])
    return {**vars(result), "side": side, "ece": ece}


def splits(sets, realizations):
    """``(dataset, realization, load)`` of every split the gate fits."""
    for name in sets:
        if name in LARGE_SETS:
            load, count = LARGE_SETS[name]
            for r in range(count):
                yield name, r, lambda load=load, r=r: load(r)[:4]
        else:
            for r in range(realizations):
                yield name, r, lambda name=name, r=r: load_ida(name, r)[:4]


def summarize(rows, budget):
    """The gate's verdict from the paired rows: per set the two sides' means, then
    wins, losses, the sign test, the worst NLP loss and the time ratio."""
    sets = {}
    for row in rows:
        sets.setdefault(row["dataset"], {}).setdefault(row["side"], []).append(row)
    per_set, wins, losses, ratios = [], 0, 0, []
    for dataset, sides in sets.items():
        if len(sides) < 2 or len(sides["current"]) != len(sides["candidate"]):
            continue
        means = {
            side: {
                key: float(np.mean([r[key] for r in sides[side]]))
                for key in ("error", "nlp", "ece", "fit_seconds")
            }
            for side in ("current", "candidate")
        }
        change = means["candidate"]["nlp"] / means["current"]["nlp"] - 1
        ratio = means["candidate"]["fit_seconds"] / means["current"]["fit_seconds"]
        wins += change < -TIE
        losses += change > TIE
        ratios.append(ratio)
        per_set.append(
            {"dataset": dataset, "nlp_change": change, "time_ratio": ratio, **means}
        )
    decided = wins + losses
    p_value = binomtest(wins, decided, alternative="greater").pvalue if decided else 1.0
    worst = max(per_set, key=lambda s: s["nlp_change"]) if per_set else None
    time_ratio = float(np.exp(np.mean(np.log(ratios)))) if ratios else float("nan")
    passes = (
        wins > losses
        and p_value <= SIGN_LEVEL
        and worst is not None
        and worst["nlp_change"] <= WORST_LOSS
        and time_ratio <= budget
    )
    # the other way round: the current default winning clearly
    p_current = (
        binomtest(losses, decided, alternative="greater").pvalue if decided else 1.0
    )
    speed_fix = (
        time_ratio <= SPEED_FIX_RATIO
        and p_current > SIGN_LEVEL
        and worst is not None
        and worst["nlp_change"] <= SPEED_FIX_WORST_LOSS
    )
    return {
        "sets": per_set,
        "wins": int(wins),
        "losses": int(losses),
        "ties": len(per_set) - decided,
        "sign_p": float(p_value),
        "worst_set": worst and worst["dataset"],
        "worst_nlp_change": worst and worst["nlp_change"],
        "time_ratio": time_ratio,
        "budget": budget,
        "passes": bool(passes),
        "sign_p_current": float(p_current),
        "passes_as_speed_fix": bool(speed_fix),
    }


def print_summary(summary):
    for s in summary["sets"]:
        cur, cand = s["current"], s["candidate"]
        print(
            f"{s['dataset']:14s} error {100 * cur['error']:6.2f} -> "
            f"{100 * cand['error']:6.2f} %  NLP {cur['nlp']:.4f} -> {cand['nlp']:.4f} "
            f"({100 * s['nlp_change']:+.1f} %)  ECE {cur['ece']:.3f} -> "
            f"{cand['ece']:.3f}  time {cur['fit_seconds']:.2f} -> "
            f"{cand['fit_seconds']:.2f} s ({s['time_ratio']:.2f}x)"
        )
    print(
        f"wins {summary['wins']}, losses {summary['losses']}, ties {summary['ties']}; "
        f"sign test p = {summary['sign_p']:.3f}; worst NLP change "
        f"{100 * (summary['worst_nlp_change'] or 0):+.1f} % ({summary['worst_set']}); "
        f"time ratio {summary['time_ratio']:.2f} (budget {summary['budget']}): "
        + ("PASSES" if summary["passes"] else "does not pass")
        + "; as a speed fix: "
        + ("PASSES" if summary["passes_as_speed_fix"] else "does not pass")
    )


def warm_up(estimator):
    """One small fit, so that compiled kernels are built before anything is timed."""
    data = make_classification(n_samples=300, random_state=0)
    scored_fit(estimator, (*data, *data), "warm-up", "", 0)


def fit_side(estimator, side, sets, realizations):
    """The rows of one side's fits over every split (:func:`splits`)."""
    warm_up(estimator)
    rows = []
    for dataset, realization, load in splits(sets, realizations):
        rows.append(scored_fit(estimator, load(), side, dataset, realization))
        report(rows[-1])
    return rows


def report(row):
    print(
        f"{row['dataset']} {row['realization']} {row['side']}: "
        f"{100 * row['error']:.2f} % / {row['nlp']:.4f} / ECE {row['ece']:.3f} / "
        f"{row['fit_seconds']:.2f} s",
        flush=True,
    )


def commit_of(revision):
    """The short commit hash git resolves ``revision`` to."""
    root = Path(__file__).resolve().parents[2]
    found = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short", revision],
        check=True,
        capture_output=True,
        text=True,
    )
    return found.stdout.strip()


def fit_at_revision(revision, args):
    """The current side's rows fitted by the library at git ``revision``: a child
    interpreter with that revision's ``src`` first on its path."""
    root = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory() as folder:
        tree, rows_file = Path(folder) / "tree", Path(folder) / "rows.json"
        subprocess.run(
            [
                "git",
                "-C",
                str(root),
                "worktree",
                "add",
                "--detach",
                str(tree),
                revision,
            ],
            check=True,
            capture_output=True,
        )
        try:
            command = [sys.executable, "-m", "benchmarks", "gate", args.estimator]
            command += ["--current", *args.current, "--sets", *args.sets]
            command += ["--realizations", str(args.realizations)]
            command += ["--fit-only", str(rows_file)]
            environment = os.environ | {"PYTHONPATH": str(tree / "src")}
            subprocess.run(command, check=True, cwd=root, env=environment)
            return json.loads(rows_file.read_text())
        finally:
            subprocess.run(
                ["git", "-C", str(root), "worktree", "remove", "--force", str(tree)],
                check=True,
            )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("estimator", choices=list(DEFAULT_CLASSIFIERS))
    parser.add_argument("--candidate", nargs="*", default=[], metavar="KEY=VALUE")
    parser.add_argument("--current", nargs="*", default=[], metavar="KEY=VALUE")
    parser.add_argument("--against", default=None, metavar="REV")
    parser.add_argument(
        "--sets", nargs="+", default=[*IDA_NAMES, *LARGE_SETS], metavar="SET"
    )
    parser.add_argument("--realizations", type=int, default=3)
    parser.add_argument(
        "--budget", type=float, default=1.3, help="largest mean time ratio"
    )
    parser.add_argument("--out", default=None)
    parser.add_argument("--fit-only", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    current = clone(DEFAULT_CLASSIFIERS[args.estimator]()).set_params(
        **parse_settings(args.current)
    )
    if args.fit_only:  # the current side of --against, in the revision's library
        rows = fit_side(current, "current", args.sets, args.realizations)
        Path(args.fit_only).write_text(json.dumps(rows))
        return
    candidate = clone(current).set_params(**parse_settings(args.candidate))
    if args.against:
        args.against = commit_of(args.against)  # HEAD moves; the record should not
        rows = fit_at_revision(args.against, args)
        rows += fit_side(candidate, "candidate", args.sets, args.realizations)
    else:
        rows = paired_fits(current, candidate, args.sets, args.realizations)
    summary = summarize(rows, args.budget)
    if args.out:
        save_run(
            args.out,
            rows,
            estimator=args.estimator,
            current=args.current,
            candidate=args.candidate,
            against=args.against,
            summary=summary,
        )
    print_summary(summary)


def paired_fits(current, candidate, sets, realizations):
    """Both sides' rows, each split's two fits back to back (in turn first)."""
    warm_up(current)
    warm_up(candidate)
    rows = []
    for dataset, realization, load in splits(sets, realizations):
        data = load()
        pair = [("current", current), ("candidate", candidate)]
        for side, estimator in pair if realization % 2 == 0 else pair[::-1]:
            rows.append(scored_fit(estimator, data, side, dataset, realization))
            report(rows[-1])
    return rows


if __name__ == "__main__":
    main()
