"""Command line: ``sparsegp demo``, and ``fit``/``predict``/``evaluate`` on a user's file.

    sparsegp fit train.csv --model ivm --target label --param active_set_size=400 \
        --output model.skops
    sparsegp predict model.skops test.csv --output predictions.csv
    sparsegp evaluate model.skops test.csv --target label
    sparsegp benchmark NGH07-table-1        # from a clone of the repository
"""

from __future__ import annotations

import argparse
import ast
import csv
import os
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, is_classifier
from sklearn.datasets import make_friedman1
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
from sklearn.metrics import (
    brier_score_loss,
    log_loss,
    mean_squared_error,
    r2_score,
    roc_auc_score,
)
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.multiclass import type_of_target
from tqdm import tqdm

from . import (
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    IVMRegressor,
    NLPSparseGPClassifier,
    RVMClassifier,
    RVMRegressor,
    SparseGPRegressor,
    SparseOnlineGPClassifier,
    SparseOnlineGPRegressor,
    __version__,
)
from .benchmarking import CrossValidatedSVC, evaluate, format_table, sklearn_gpc
from .datasets import load_banana, load_file
from .persistence import load_model, save_model

#: ``--model`` name → estimator class per task.
MODELS: dict[str, dict[str, type[BaseEstimator]]] = {
    "ep": {"classification": EPGPClassifier},
    "fitc": {"classification": FITCGPClassifier},
    "nlp": {"classification": NLPSparseGPClassifier},
    "ivm": {"classification": IVMClassifier, "regression": IVMRegressor},
    "online": {
        "classification": SparseOnlineGPClassifier,
        "regression": SparseOnlineGPRegressor,
    },
    "rvm": {"classification": RVMClassifier, "regression": RVMRegressor},
    "sgpr": {"regression": SparseGPRegressor},
}


def demo_estimators(n_features):
    """Every estimator of the package, then the peers a user would pick instead."""
    return {
        "EPGPClassifier": EPGPClassifier(random_state=0),
        "IVMClassifier (d=100)": IVMClassifier(active_set_size=100, random_state=0),
        "NLPSparseGPClassifier (d=80)": NLPSparseGPClassifier(
            max_basis_vectors=80, random_state=0
        ),
        "FITCGPClassifier (M=20)": FITCGPClassifier(n_inducing=20, random_state=0),
        "SparseOnlineGPClassifier (d=80)": SparseOnlineGPClassifier(
            max_basis_vectors=80, random_state=0
        ),
        "RVMClassifier (SSEM)": RVMClassifier(random_state=0),
        "sklearn SVC (CV)": CrossValidatedSVC(),
        "sklearn GaussianProcessClassifier": sklearn_gpc(n_features),
    }


def demo_regressors(n_features):
    """Every regressor of the package with its defaults, then scikit-learn's exact GP
    with a length-scale per feature."""
    exact = ConstantKernel() * RBF(np.ones(n_features)) + WhiteKernel(0.1)
    return {
        "SparseGPRegressor": SparseGPRegressor(random_state=0),
        "IVMRegressor": IVMRegressor(random_state=0),
        "SparseOnlineGPRegressor": SparseOnlineGPRegressor(random_state=0),
        "RVMRegressor": RVMRegressor(),
        "sklearn GaussianProcessRegressor (ARD)": GaussianProcessRegressor(
            exact, normalize_y=True
        ),
    }


def run_regression_demo(n_train: int | None = None):
    """Fit every regressor on Friedman #1 (unit noise: RMSE 1 is the floor), print
    RMSE, NLP, the 95 % interval's coverage and the fit's seconds."""
    n_train = n_train or 400
    X, y = make_friedman1(n_samples=n_train + 1000, noise=1.0, random_state=0)
    X_train, y_train, X_test, y_test = (
        X[:n_train],
        y[:n_train],
        X[n_train:],
        y[n_train:],
    )
    lines = ["| estimator | RMSE | test NLP (nats) | 95 % coverage | fit s |"]
    lines.append("|---|---:|---:|---:|---:|")
    for name, estimator in demo_regressors(X.shape[1]).items():
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the demo's table is the point here
            estimator.fit(X_train, y_train)
        seconds = time.perf_counter() - start
        found = dict(scores(estimator, X_test, y_test))
        lines.append(
            f"| {name} | {found['RMSE']:.3f} | {found['NLP (nats)']:.3f} | "
            f"{found['95 % interval coverage']:.2f} | {seconds:.2f} |"
        )
    print(
        f"\nFriedman #1 regression, 10 inputs (5 relevant), unit noise: {n_train} "
        f"training, {len(y_test)} test points\n" + "\n".join(lines)
    )


def kept_points(estimator, X_train):
    """Training points a fitted sparse model keeps, or None for a full model."""
    if hasattr(estimator, "inducing_points_"):
        return estimator.inducing_points_
    if hasattr(estimator, "basis_vectors_"):
        return estimator.basis_vectors_
    if hasattr(estimator, "relevance_vectors_"):
        return estimator.relevance_vectors_
    if hasattr(estimator, "active_set_"):
        return X_train[estimator.active_set_]
    return None


def run_demo(out: Path | None, n_train: int | None = None):
    """Fit every estimator on the shipped banana data, print the table, save a PNG."""
    X_train, y_train, X_test, y_test = load_banana()
    if n_train is not None:
        X_train, y_train = X_train[:n_train], y_train[:n_train]
    estimators = demo_estimators(X_train.shape[1])
    results, fitted, notes = [], {}, {}
    for name, estimator in tqdm(estimators.items(), desc="fitting on banana"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result, fitted[name] = evaluate(
                estimator, X_train, y_train, X_test, y_test, name=name, dataset="banana"
            )
        results.append(result)
        notes.update(
            dict.fromkeys(f"  {name}: {line}" for line in warning_lines(caught))
        )
    print(
        f"\nIDA banana, realization 1: {len(y_train)} training, {len(y_test)} test points"
    )
    print(format_table(results))
    if notes:
        print("\nWarnings:\n" + "\n".join(notes))
    if out is not None:
        _save_figure(fitted, X_train, y_train, out)
    run_regression_demo(n_train)
    print(
        "\nNext: fit your own data, e.g. `sparsegp fit train.csv --model fitc "
        "--output model.skops`, then `sparsegp evaluate model.skops test.csv` "
        "(docs/cli.md; which model for which job: docs/guide.md)."
    )


def warning_lines(caught):
    """One line per kind of warning a command gave: warnings whose texts differ only
    in their numbers (the same warning of each one-vs-rest problem) are one line,
    counted, rather than Python's two-line form (file, line, then the source)."""
    groups: dict = {}
    for warning in caught:
        text = " ".join(str(warning.message).split())
        key = (warning.category.__name__, re.sub(r"\d+(\.\d+)?", "#", text))
        groups.setdefault(key, []).append(text)
    lines = []
    for (category, _), texts in groups.items():
        more = f" ({len(texts)} fits warned so)" if len(texts) > 1 else ""
        lines.append(f"{category}: {texts[0]}{more}")
    return lines


def _save_figure(fitted, X_train, y_train, out):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(
            "matplotlib is not installed: pip install 'sparsegp[plot]' for the figure."
        )
        return
    from .plotting import plot_decision_boundary

    n_columns = min(4, len(fitted))
    n_rows = -(-len(fitted) // n_columns)
    fig, axes = plt.subplots(
        n_rows, n_columns, figsize=(4.2 * n_columns, 4.2 * n_rows), squeeze=False
    )
    for ax in axes.ravel()[len(fitted) :]:
        ax.set_visible(False)
    for ax, (name, estimator) in zip(axes.ravel(), fitted.items(), strict=False):
        plot_decision_boundary(
            estimator,
            X_train,
            y_train,
            ax=ax,
            title=name,
            kept=kept_points(estimator, X_train),
            resolution=120,
        )
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    print(f"decision boundaries written to {out}")


def parse_params(pairs):
    """``["name=value", ...]`` → dict; values are Python literals, else strings."""
    params = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--param takes NAME=VALUE; got {pair!r}.")
        try:
            params[name.strip()] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            params[name.strip()] = value
    return params


def build_model(name, task, y, params, standardize, sparse=False):
    """The estimator ``--model name`` for ``task`` (``"auto"``: from the targets).

    ``standardize`` puts a ``StandardScaler`` first (scaling only for ``sparse``
    input, which centring would make dense).
    """
    inferred = task == "auto"
    if inferred:
        kind = type_of_target(y)
        task = "regression" if kind.startswith("continuous") else "classification"
    choices = MODELS[name]
    if task not in choices:
        hint = (
            " The targets look continuous; pass --task classification if they are "
            "class labels."
            if inferred
            else ""
        )
        raise ValueError(
            f"--model {name} does {' and '.join(choices)} only, not {task}.{hint}"
        )
    estimator = choices[task]().set_params(**params)
    if not standardize:
        return estimator
    return make_pipeline(StandardScaler(with_mean=not sparse), estimator)


def run_fit(args):
    data = load_file(args.data, args.target)
    if data.y is None:
        raise ValueError(f"{args.data} has no targets (an array 'y') to fit to.")
    if args.target is None and Path(args.data).suffix.lower() == ".csv":
        _refuse_a_guessed_continuous_target(data)
    model = build_model(
        args.model,
        args.task,
        data.y,
        parse_params(args.param),
        args.standardize,
        sparse=issparse(data.X),
    )
    start = time.perf_counter()
    model.fit(data.X, data.y)
    seconds = time.perf_counter() - start
    # what predict and evaluate check a file's columns against
    model.data_columns_ = {"features": data.feature_names, "target": data.target_name}
    save_model(model, args.output)
    final = model[-1] if isinstance(model, Pipeline) else model
    print(
        f"{type(final).__name__} fitted on {data.X.shape[0]} samples × "
        f"{data.X.shape[1]} features (target {data.target_name!r}) in {seconds:.1f} s; "
        f"saved to {args.output}"
    )


def _latent(model, X):
    """``latent_mean_and_variance`` of the final step, after any preprocessing."""
    if isinstance(model, Pipeline):
        X = model[:-1].transform(X)
        model = model[-1]
    return model.latent_mean_and_variance(X)


def prediction_table(model, X):
    """Column name → values: predictions, probabilities and latent error bars."""
    if not is_classifier(model):
        mean, std = model.predict(X, return_std=True)
        return {"prediction": mean, "std": std}
    columns = {"prediction": model.predict(X)}
    proba = model.predict_proba(X)
    for k, label in enumerate(model.classes_):
        columns[f"proba_{label}"] = proba[:, k]
    mean, var = _latent(model, X)
    if mean.ndim == 1:
        columns["latent_mean"], columns["latent_std"] = mean, np.sqrt(var)
    else:
        for k, label in enumerate(model.classes_):
            columns[f"latent_mean_{label}"] = mean[:, k]
            columns[f"latent_std_{label}"] = np.sqrt(var[:, k])
    return columns


def _refuse_a_guessed_continuous_target(data):
    """A ``ValueError`` when the default target (the last column) looks like a
    feature — continuous, or whole numbers with more distinct values than half the
    rows — while the first column looks like class labels: the label column was
    likely written first."""
    if not data.feature_names or _looks_like_labels(data.y):
        return
    first = data.X[:, 0]
    if _looks_like_labels(first) or not type_of_target(first).startswith("continuous"):
        raise ValueError(
            f"--target not given: the last column, {data.target_name!r}, would be the "
            f"target and looks like a feature ({len(np.unique(data.y))} distinct values"
            f" in {len(data.y)} rows), while the first, {data.feature_names[0]!r}, "
            f"looks like class labels. Pass --target {data.feature_names[0]} to "
            f"classify, or --target {data.target_name} to use the last column."
        )


def _looks_like_labels(values):
    """Class labels: not continuous, and at most one distinct value per two rows."""
    kind = type_of_target(values)
    return not kind.startswith("continuous") and 2 * len(np.unique(values)) <= len(
        values
    )


def load_for_model(model, path, target):
    """``path`` read for a fitted ``model``: with the feature columns saved at fit (a
    model from ``sparsegp fit`` on a CSV), its label column found by name and its
    feature columns checked by name and order."""
    saved = getattr(model, "data_columns_", None)
    csv_file = Path(path).suffix.lower() == ".csv"
    if saved is None or not csv_file:
        return load_file(path, target, n_features=model.n_features_in_)
    if target is None and saved["target"] in _csv_header(path):
        target = saved["target"]
    data = load_file(path, target, n_features=model.n_features_in_)
    if data.feature_names != saved["features"]:
        missing = [c for c in saved["features"] if c not in data.feature_names]
        extra = [c for c in data.feature_names if c not in saved["features"]]
        problem = (
            "; ".join(
                part
                for part in (
                    missing and f"lacks {missing}",
                    extra and f"has {extra} besides (drop them)",
                )
                if part
            )
            or "has them in another order"
        )
        raise ValueError(
            f"{Path(path).name} {problem}: the model was fitted on the columns "
            f"{saved['features']} (in that order) with the label {saved['target']!r}."
        )
    return data


def _csv_header(path):
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return [name.strip() for name in next(csv.reader(handle), [])]


def run_predict(args):
    model = load_model(args.model)
    data = load_for_model(model, args.data, args.target)
    columns = prediction_table(model, data.X)
    handle = open(args.output, "w", newline="") if args.output else sys.stdout
    try:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(columns)
        for row in zip(*columns.values(), strict=True):
            writer.writerow([_format(value) for value in row])
    finally:
        if args.output:
            handle.close()
            print(f"{data.X.shape[0]} predictions written to {args.output}")


def _format(value):
    return f"{value:.10g}" if isinstance(value, float | np.floating) else value


#: Half-widths, in predictive standard deviations, of the central 50 % and 95 %
#: intervals of a normal distribution.
_Z_50, _Z_95 = 0.6744897501960817, 1.959963984540054


def scores(model, X, y):
    """``[(name, value)]``: error, NLP, Brier and (binary) AUC, or RMSE, R², NLP and
    the coverage of the central 50 % and 95 % predictive intervals (the share of
    targets inside them: 0.50 and 0.95 where the error bars are calibrated)."""
    if not is_classifier(model):
        mean, std = model.predict(X, return_std=True)
        z = np.abs(y - mean) / std
        nlp = np.mean(0.5 * np.log(2 * np.pi * std**2) + 0.5 * z**2)
        return [
            ("RMSE", float(np.sqrt(mean_squared_error(y, mean)))),
            ("R²", float(r2_score(y, mean))),
            ("NLP (nats)", float(nlp)),
            ("50 % interval coverage", float(np.mean(z <= _Z_50))),
            ("95 % interval coverage", float(np.mean(z <= _Z_95))),
        ]
    unknown = set(np.unique(y)) - set(model.classes_)
    if unknown:
        raise ValueError(
            f"Labels the model never saw: {sorted(map(str, unknown))}; it knows "
            f"{list(map(str, model.classes_))}."
        )
    proba = model.predict_proba(X)
    table = [
        ("error", float(np.mean(model.predict(X) != y))),
        ("NLP (nats)", float(log_loss(y, proba, labels=model.classes_))),
    ]
    if len(model.classes_) == 2:
        positive = y == model.classes_[1]
        table.append(("Brier score", float(brier_score_loss(positive, proba[:, 1]))))
        if 0 < positive.sum() < len(y):
            table.append(("AUC", float(roc_auc_score(positive, proba[:, 1]))))
    else:
        onehot = y[:, None] == model.classes_[None, :]
        table.append(("Brier score", float(np.mean(np.sum((proba - onehot) ** 2, 1)))))
    return table


def run_evaluate(args):
    model = load_model(args.model)
    data = load_for_model(model, args.data, args.target)
    if data.y is None:
        raise ValueError(
            f"{args.data} has the model's {model.n_features_in_} feature columns and "
            "no label column to evaluate against; add it (or name it with --target)."
        )
    if data.X.shape[1] != model.n_features_in_:
        raise ValueError(
            f"{args.data} has {data.X.shape[1]} feature columns besides the label "
            f"{data.target_name!r}; the model was fitted on {model.n_features_in_}."
        )
    final = model[-1] if isinstance(model, Pipeline) else model
    rows = list(scores(model, data.X, data.y))  # an unseen label fails before output
    print(f"{type(final).__name__} on {data.X.shape[0]} samples of {args.data}")
    print("| metric | value |\n|---|---:|")
    for name, value in rows:
        print(f"| {name} | {value:.4f} |")


_EXAMPLES = """examples:
  sparsegp demo
  sparsegp fit train.csv --model ivm --target label --output model.skops
  sparsegp predict model.skops test.csv --output predictions.csv
  sparsegp evaluate model.skops test.csv --target label
  sparsegp benchmark NGH07-table-1        # from a clone of the repository"""

_MODEL_FILE_HELP = "a model saved by `sparsegp fit` (.skops or .joblib)"

_DATA_HELP = (
    "a .csv file with a header row, a LIBSVM file (.svm, .libsvm, .svmlight, "
    ".txt) or a .npz file with arrays X and y"
)
_TARGET_HELP = "CSV only: the label column (default: the last column)"
_SAVED_TARGET_HELP = (
    "CSV only: the label column (default: the one named as at fit, else the last)"
)


def _add_fit_parser(commands):
    fit = commands.add_parser("fit", help="fit a model on a data file and save it")
    fit.add_argument("data", type=Path, help=_DATA_HELP)
    fit.add_argument(
        "--model",
        required=True,
        choices=sorted(MODELS),
        help="ep: full EP; fitc: FITC-EP; ivm: Informative Vector Machine; nlp: the "
        "NLP-loss classifier; online: sparse online GP; rvm: RVM by Subspace EM",
    )
    fit.add_argument(
        "--task",
        default="auto",
        choices=["auto", "classification", "regression"],
        help="auto: regression for continuous targets, else classification",
    )
    fit.add_argument("--target", help=_TARGET_HELP)
    fit.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an estimator parameter, e.g. active_set_size=400 (repeatable)",
    )
    fit.add_argument(
        "--standardize",
        action="store_true",
        help="standardise the features first (a saved Pipeline)",
    )
    fit.add_argument(
        "--output",
        type=Path,
        required=True,
        help="model file: .skops (safe to load) or .joblib",
    )


def _add_predict_and_evaluate_parsers(commands):
    predict = commands.add_parser(
        "predict", help="predictions, probabilities and error bars as CSV"
    )
    predict.add_argument("model", type=Path, help=_MODEL_FILE_HELP)
    predict.add_argument("data", type=Path, help=_DATA_HELP + " (targets optional)")
    predict.add_argument("--target", help=_SAVED_TARGET_HELP)
    predict.add_argument("--output", type=Path, help="CSV file (default: stdout)")
    evaluate = commands.add_parser(
        "evaluate", help="error, NLP, Brier score and AUC on a labelled file"
    )
    evaluate.add_argument("model", type=Path, help=_MODEL_FILE_HELP)
    evaluate.add_argument("data", type=Path, help=_DATA_HELP)
    evaluate.add_argument("--target", help=_SAVED_TARGET_HELP)


def _add_demo_parser(commands):
    demo = commands.add_parser(
        "demo", help="fit every estimator on the shipped banana data"
    )
    demo.add_argument(
        "--out",
        type=Path,
        default=Path("sparsegp_demo.png"),
        help="PNG file for the decision boundaries",
    )
    demo.add_argument("--no-plot", action="store_true", help="skip the figure")
    demo.add_argument(
        "--n-train",
        type=int,
        default=None,
        help="use only the first N training points (a quicker run)",
    )


def _add_benchmark_parser(commands):
    benchmark = commands.add_parser(
        "benchmark",
        help="re-run one paper table of BENCHMARKS.md (from a clone of the repository)",
    )
    benchmark.add_argument(
        "table", help="a table key such as NGH07-table-1, or 'list' for all of them"
    )
    benchmark.add_argument(
        "--repository",
        type=Path,
        default=Path.cwd(),
        help="root of the sparsegp repository (default: the current directory)",
    )
    benchmark.add_argument(
        "--dry-run", action="store_true", help="print the commands without running them"
    )


def run_benchmark(args):
    """Run ``python -m benchmarks table KEY`` in the repository; return its exit code.

    The benchmark scripts and their results live in the repository's ``benchmarks/``
    package, not in the installed library.
    """
    root = args.repository.resolve()
    if not (root / "benchmarks" / "__main__.py").is_file():
        raise FileNotFoundError(
            f"no benchmarks/ package in {root}: the paper tables are re-run from a "
            "clone of the sparsegp repository (run there, or pass --repository)."
        )
    command = ["list"] if args.table == "list" else ["table", args.table]
    if args.dry_run and args.table != "list":
        command.append("--dry-run")
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *command], cwd=root, check=False
    ).returncode


def build_parser():
    """The ``sparsegp`` argument parser with its five commands."""
    parser = argparse.ArgumentParser(
        prog="sparsegp",
        description="Sparse Gaussian-process classifiers and regressors: a demo,\n"
        "and fit / predict / evaluate on your own data file.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EXAMPLES,
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    _add_fit_parser(commands)
    _add_predict_and_evaluate_parsers(commands)
    _add_demo_parser(commands)
    _add_benchmark_parser(commands)
    return parser


def main(argv=None):
    """Entry point of the ``sparsegp`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "demo":
        run_demo(None if args.no_plot else args.out, n_train=args.n_train)
        return
    command = {
        "fit": run_fit,
        "predict": run_predict,
        "evaluate": run_evaluate,
        "benchmark": run_benchmark,
    }
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                status = command[args.command](args)
            finally:
                for line in warning_lines(caught):
                    print(f"sparsegp: warning: {line}", file=sys.stderr)
    except (ValueError, FileNotFoundError, ImportError) as error:
        parser.exit(2, f"sparsegp {args.command}: error: {error}\n")
    except (
        BrokenPipeError
    ):  # the reader stopped early (``| head``): quiet, as Unix tools
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    if status:
        parser.exit(status)
