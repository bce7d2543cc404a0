"""Reliability diagrams and expected calibration error of every classifier.

    SPARSEGP_DATA=../shared/data python -m benchmarks run calibration \
        --out benchmarks/results/calibration.json --figure docs/calibration.png

Two binary tasks:

- MAGIC gamma, split 1 (12 680 training, 6 340 test events; noisy: 12-14 % error is
  the best known), its raw-unit features standardised on the training part;
- MNIST 13×13, 4 against the rest, the 7 291 seeded training images of
  ``fitc_speed.py`` and the 10 000 test images, pixels in [0, 1] as they come
  (standardising pixels magnifies the rarely-inked border ones: the IVM's error
  triples).

Every classifier of the library with its defaults except the size (the sizes of the
other benchmarks), beside Platt-scaled ``SVC``: full EP on a random 2 000-point subset
(O(n³)); FITC with M = 200; the IVM with d = 1 000 (MAGIC) / 400 (MNIST), with its
default posterior (EP over every site on the FITC prior of its active set, kernel
relearnt) and with the paper's eq. 5 (``posterior="active_set"``); the NLP
classifier and the online GP with 200 basis vectors; the RVM with 1 000 random basis
centres. One BLAS thread.

ECE: 15 equal-width bins of the predicted probability of the positive class
(:func:`sparsegp.metrics.expected_calibration_error`); the figure plots the same bins
(scikit-learn's ``CalibrationDisplay``).
"""

from __future__ import annotations

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.calibration import CalibrationDisplay  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from benchmarks._lib.tasks import mnist_task  # noqa: E402
from sparsegp import (  # noqa: E402
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    NLPSparseGPClassifier,
    RVMClassifier,
    SparseOnlineGPClassifier,
)
from sparsegp.benchmarking import PlattSVC, evaluate, save_run  # noqa: E402
from sparsegp.datasets import load_magic  # noqa: E402
from sparsegp.metrics import expected_calibration_error  # noqa: E402

N_BINS = 15
EP_SUBSET = 2000


def estimators(d_ivm):
    return {
        f"ep_{EP_SUBSET}_subset": EPGPClassifier(random_state=0),
        "fitc_200": FITCGPClassifier(n_inducing=200, random_state=0),
        f"ivm_{d_ivm}": IVMClassifier(active_set_size=d_ivm, random_state=0),
        f"ivm_{d_ivm}_eq5": IVMClassifier(
            active_set_size=d_ivm, posterior="active_set", random_state=0
        ),
        "nlp_200": NLPSparseGPClassifier(max_basis_vectors=200, random_state=0),
        "online_200": SparseOnlineGPClassifier(max_basis_vectors=200, random_state=0),
        "rvm_1000": RVMClassifier(n_basis=1000, random_state=0),
        "svc_platt": PlattSVC(C=10.0, random_state=0),
    }


TITLES = {
    "magic": "MAGIC gamma, standardised",
    "mnist13_4_n7291": "MNIST 13×13, 4 against the rest",
}


def label(name):
    """A curve's name in the figure's legend: the method and its size, not a key (the
    IVM's size differs between the panels: their titles give it)."""
    method, _, rest = name.partition("_")
    size = rest.split("_")[0]
    return {
        "ep": f"full EP ({size}-point subset)",
        "fitc": f"FITC-EP, M = {size}",
        "ivm": "IVM, "
        + ("the paper's eq. 5" if name.endswith("_eq5") else "default posterior"),
        "nlp": f"NLP classifier, d = {size}",
        "online": f"online GP, d = {size}",
        "rvm": f"RVM, {size} candidates",
        "svc": "libsvm + Platt",
    }[method]


def tasks():
    """``(name, data, IVM size, standardise?)``."""
    yield "magic", load_magic(0), 1000, True
    yield "mnist13_4_n7291", mnist_task(7291), 400, False


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip", nargs="*", default=[])
    parser.add_argument("--out", default="benchmarks/results/calibration.json")
    parser.add_argument(
        "--figure",
        default=None,
        help="where to write the reliability diagrams (docs/calibration.png for the "
        "docs' figure); none by default, so a partial run (--skip) leaves it alone",
    )
    args = parser.parse_args(argv)
    rows = []
    all_tasks = list(tasks())
    figure, axes = plt.subplots(1, len(all_tasks), figsize=(13, 7.5))
    with threadpool_limits(1):
        for ax, (dataset, (X, y, X_test, y_test), d_ivm, standardise) in zip(
            axes, all_tasks, strict=True
        ):
            for name, estimator in estimators(d_ivm).items():
                if name in args.skip:
                    continue
                X_fit, y_fit = X, y
                if name.startswith("ep_"):
                    rows_fit = np.random.default_rng(0).choice(len(y), EP_SUBSET, False)
                    X_fit, y_fit = X[rows_fit], y[rows_fit]
                if standardise:
                    estimator = make_pipeline(StandardScaler(), estimator)
                result, fitted = evaluate(
                    estimator,
                    X_fit,
                    y_fit,
                    X_test,
                    y_test,
                    name=name,
                    dataset=dataset,
                )
                positive = fitted.predict_proba(X_test)[:, 1]
                ece = expected_calibration_error(y_test > 0, positive, n_bins=N_BINS)
                rows.append(dict(result.__dict__, ece=ece))
                CalibrationDisplay.from_predictions(
                    y_test > 0, positive, n_bins=N_BINS, name=label(name), ax=ax
                )
                print(
                    f"{dataset} {name}: {100 * result.error:.2f} % / "
                    f"{result.nlp:.4f} nats, ECE {ece:.4f}, "
                    f"fit {result.fit_seconds:.1f} s",
                    flush=True,
                )
            ax.set_title(f"{TITLES[dataset]} (IVM: d = {d_ivm})")
            if ax.get_legend() is not None:  # None where --skip left the panel empty
                ax.get_legend().remove()
    if args.figure:  # one legend for both panels, below them
        handles, labels = axes[0].get_legend_handles_labels()
        figure.legend(handles, labels, loc="lower center", ncol=3, fontsize=9)
        figure.tight_layout(rect=(0, 0.14, 1, 1))
        figure.savefig(args.figure, dpi=90)
    save_run(args.out, rows)


if __name__ == "__main__":
    main()
