"""Draw the figures of ``docs/plots.md`` (a few seconds, shipped data only).

python docs/figures.py
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import load_digits, make_blobs  # noqa: E402

from sparsegp import (  # noqa: E402
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    IVMRegressor,
    SparseOnlineGPClassifier,
)
from sparsegp.datasets import load_banana  # noqa: E402
from sparsegp.metrics import rejection_curve  # noqa: E402
from sparsegp.plotting import (  # noqa: E402
    plot_decision_boundary,
    plot_rejection_curves,
    plot_reliability_diagram,
    plot_uncertainty,
)

OUT = Path(__file__).parent / "img"


def main():
    OUT.mkdir(exist_ok=True)
    X, y, X_test, y_test = load_banana()
    ivm = IVMClassifier(active_set_size=40, random_state=0).fit(X, y)
    ivm_fitc = IVMClassifier(active_set_size=40, posterior="fitc", random_state=0)
    ivm_fitc.fit(X, y)
    fitc = FITCGPClassifier(n_inducing=12, random_state=0).fit(X, y)
    blobs, labels = make_blobs(300, centers=4, cluster_std=1.6, random_state=3)
    multi = FITCGPClassifier(n_inducing=8, random_state=0).fit(blobs, labels)

    fig, axes = plt.subplots(1, 3, figsize=(14, 4.6))
    plot_decision_boundary(
        ivm, X, y, ax=axes[0], kept=X[ivm.active_set_], title="IVM, d = 40 (banana)"
    )
    plot_decision_boundary(
        fitc,
        X,
        y,
        ax=axes[1],
        kept=fitc.inducing_points_,
        title="FITC, M = 12 pseudo-inputs",
    )
    plot_decision_boundary(
        multi,
        blobs,
        labels,
        ax=axes[2],
        kept=np.vstack(multi.inducing_points_),
        title="FITC, four classes (one-vs-rest)",
    )
    fig.tight_layout()
    fig.savefig(OUT / "decision_boundaries.png", dpi=80)

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
    plot_uncertainty(ivm, X, y, ax=axes[0], kept=X[ivm.active_set_])
    axes[0].set_title("IVM (eq. 5): latent std")
    plot_uncertainty(ivm_fitc, X, y, ax=axes[1], kept=X[ivm_fitc.active_set_])
    axes[1].set_title('IVM, posterior="fitc": latent std')
    t = np.linspace(0, 1, 200)
    ring = np.column_stack([np.cos(6 * t), np.sin(6 * t)]) * (1 + t[:, None])
    reg = IVMRegressor(active_set_size=30, random_state=0).fit(ring, np.sin(4 * t))
    plot_uncertainty(reg, ring, ax=axes[2])
    axes[2].set_title("IVM regressor: predictive std")
    fig.tight_layout()
    fig.savefig(OUT / "uncertainty.png", dpi=80)

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
    positive = y_test == ivm.classes_[1]
    plot_reliability_diagram(
        positive,
        {
            "IVM d = 40": ivm.predict_proba(X_test)[:, 1],
            'IVM d = 40, posterior="fitc"': ivm_fitc.predict_proba(X_test)[:, 1],
            "FITC M = 12": fitc.predict_proba(X_test)[:, 1],
        },
        ax=axes[0],
    )
    axes[0].set_title("Reliability on banana's 4 900 test points")
    digits, digit_labels = load_digits(return_X_y=True)
    digits = digits / 16.0
    train, test = slice(0, 900), slice(900, None)
    curves = {}
    for name, model in {
        "EP (one-vs-rest)": EPGPClassifier(max_iter_optimizer=10, random_state=0),
        "IVM d = 150": IVMClassifier(active_set_size=150, random_state=0),
        "online d = 100": SparseOnlineGPClassifier(
            max_basis_vectors=100, random_state=0
        ),
    }.items():
        model.fit(digits[train], digit_labels[train])
        curves[name] = rejection_curve(
            digit_labels[test], model.predict_proba(digits[test]), model.classes_
        )
    plot_rejection_curves(curves, ax=axes[1])
    axes[1].set_title("Ten digits: error after rejecting the least sure")
    fig.tight_layout()
    fig.savefig(OUT / "reliability_and_rejection.png", dpi=80)


if __name__ == "__main__":
    main()
