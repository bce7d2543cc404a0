"""Command line: ``sparsegp demo``."""

from __future__ import annotations

import argparse
from pathlib import Path

from tqdm import tqdm

from . import (
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    NLPSparseGPClassifier,
    RVMClassifier,
    SparseOnlineGPClassifier,
)
from .benchmarking import CrossValidatedSVC, evaluate, format_table, sklearn_gpc
from .datasets import load_banana


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
    results, fitted = [], {}
    for name, estimator in tqdm(estimators.items(), desc="fitting on banana"):
        result, fitted[name] = evaluate(
            estimator, X_train, y_train, X_test, y_test, name=name, dataset="banana"
        )
        results.append(result)
    print(
        f"\nIDA banana, realization 1: {len(y_train)} training, {len(y_test)} test points"
    )
    print(format_table(results))
    if out is not None:
        _save_figure(fitted, X_train, y_train, out)


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

    fig, axes = plt.subplots(
        1, len(fitted), figsize=(4.5 * len(fitted), 4.5), squeeze=False
    )
    axes = axes[0]
    for ax, (name, estimator) in zip(axes, fitted.items(), strict=True):
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


def main(argv=None):
    """Entry point of the ``sparsegp`` console script."""
    parser = argparse.ArgumentParser(prog="sparsegp", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
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
    args = parser.parse_args(argv)
    if args.command == "demo":
        run_demo(None if args.no_plot else args.out, n_train=args.n_train)
