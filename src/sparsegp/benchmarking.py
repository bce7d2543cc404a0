"""Side-by-side evaluation of classifiers: test error, test NLP, fit time, model size.

Used by ``sparsegp demo`` and by the scripts in ``benchmarks/``. Peers a user would
pick instead of this package (scikit-learn's SVC and GaussianProcessClassifier) are
built here so every table times them in the same run.
"""

from __future__ import annotations

import json
import platform
import shlex
import sys
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC

#: Probabilities are clipped here before taking logs, so one confident mistake
#: costs at most ``-log(1e-12)`` ≈ 27.6 nats.
_PROB_FLOOR = 1e-12


@dataclass(frozen=True)
class Result:
    """One estimator on one train/test split."""

    estimator: str
    dataset: str
    realization: int
    error: float
    nlp: float
    fit_seconds: float
    model_size: int


def libsvm_has_platt() -> bool:
    """Whether scikit-learn's ``SVC`` still takes ``probability`` (deprecated in 1.9,
    removed in 1.11)."""
    return "probability" in SVC().get_params()


class PlattSVC(ClassifierMixin, BaseEstimator):
    """RBF ``SVC(C, gamma)`` with Platt-scaled probabilities: every benchmark's peer.

    libsvm's own five-fold Platt fit (``SVC(probability=True)``, the papers' peer)
    while scikit-learn has it, its deprecation warning silenced; then the replacement
    scikit-learn's deprecation names, ``CalibratedClassifierCV(SVC(), method="sigmoid",
    ensemble=False)``: the same sigmoid on five-fold decision values, fitted by
    scikit-learn on other folds (on banana its probabilities within 0.015 of libsvm's).
    ``support_`` and ``n_support_`` are the SVC's fitted on all of ``X``.
    """

    def __init__(self, C=1.0, gamma="scale", random_state=None):
        self.C = C
        self.gamma = gamma
        self.random_state = random_state

    def fit(self, X, y):
        """Fit the SVC and its sigmoid."""
        params = dict(C=self.C, gamma=self.gamma, random_state=self.random_state)
        if libsvm_has_platt():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                self.svc_ = SVC(probability=True, **params).fit(X, y)
            self.classifier_ = self.svc_
        else:
            self.classifier_ = CalibratedClassifierCV(
                SVC(**params), method="sigmoid", ensemble=False
            ).fit(X, y)
            self.svc_ = self.classifier_.calibrated_classifiers_[0].estimator
        self.classes_ = self.classifier_.classes_
        self.support_, self.n_support_ = self.svc_.support_, self.svc_.n_support_
        return self

    def predict(self, X):
        """Class labels (the SVC's decisions)."""
        return self.svc_.predict(X)

    def predict_proba(self, X):
        """Platt-scaled probabilities."""
        return self.classifier_.predict_proba(X)


class CrossValidatedSVC(ClassifierMixin, BaseEstimator):
    """RBF SVC with ``C`` and ``gamma`` by 5-fold CV, then Platt probabilities.

    The grid search runs without Platt scaling (five times cheaper); the chosen
    parameters are refitted with ``probability=True``.
    """

    def __init__(
        self,
        C_grid=(0.1, 1.0, 10.0, 100.0, 1000.0),
        gamma_grid=(0.01, 0.1, 1.0, 10.0),
        cv=5,
        random_state=0,
    ):
        self.C_grid = C_grid
        self.gamma_grid = gamma_grid
        self.cv = cv
        self.random_state = random_state

    def fit(self, X, y):
        """Grid-search ``C`` and ``gamma`` (in units of ``1/n_features``), refit."""
        gammas = np.asarray(self.gamma_grid) / X.shape[1]
        search = GridSearchCV(
            SVC(kernel="rbf"),
            {"C": list(self.C_grid), "gamma": list(gammas)},
            cv=self.cv,
        ).fit(X, y)
        self.svc_ = PlattSVC(random_state=self.random_state, **search.best_params_)
        self.svc_.fit(X, y)
        self.classes_ = self.svc_.classes_
        return self

    def predict(self, X):
        """Class labels of the refitted SVC (sign of its decision function)."""
        return self.svc_.predict(X)

    def predict_proba(self, X):
        """Platt-scaled probabilities."""
        return self.svc_.predict_proba(X)


class OffsetGaussianProcessClassifier(GaussianProcessClassifier):
    """scikit-learn's Laplace GPC whose kernel's last summand is a constant offset.

    An offset that ends at its lower bound means the data need none; its
    ``ConvergenceWarning`` is not shown, as sparsegp's own bound warnings treat
    offsets (:func:`~sparsegp.estimators._base.warn_at_bounds`). Any other warning
    is.
    """

    def fit(self, X, y):
        with warnings.catch_warnings():
            warnings.filterwarnings(
                "ignore",
                message=r"The optimal value found for dimension 0 of parameter "
                r"k2__constant_value is close to the specified lower bound",
                category=ConvergenceWarning,
            )
            return super().fit(X, y)


def sklearn_gpc(n_features, random_state=0):
    """scikit-learn's Laplace GPC with ``C·RBF + C``: the constant term stands in for a bias."""
    kernel = ConstantKernel(1.0) * RBF(np.sqrt(n_features)) + ConstantKernel(1.0)
    return OffsetGaussianProcessClassifier(kernel, random_state=random_state)


def model_size(estimator, n_train):
    """Points the fitted model keeps: support vectors, active set, or all of them.

    A pipeline's size is its last step's.
    """
    if isinstance(estimator, Pipeline):
        estimator = estimator[-1]
    if isinstance(estimator, CrossValidatedSVC):
        estimator = estimator.svc_
    if hasattr(estimator, "n_support_"):  # libsvm
        return int(estimator.n_support_.sum())
    for attribute in ("active_set_", "basis_vectors_", "inducing_points_"):
        if hasattr(estimator, attribute):
            points = getattr(estimator, attribute)  # a list of arrays: one-vs-rest
            return sum(map(len, points)) if isinstance(points, list) else len(points)
    if hasattr(estimator, "relevance_vectors_"):  # a list of arrays when one-vs-rest
        vectors = estimator.relevance_vectors_
        return sum(map(len, vectors)) if isinstance(vectors, list) else len(vectors)
    return n_train


def evaluate(
    estimator, X_train, y_train, X_test, y_test, *, name, dataset="", realization=0
) -> tuple[Result, object]:
    """Fit a clone of ``estimator`` and score it on the test set.

    Returns
    -------
    result : Result
    fitted : the fitted clone
    """
    estimator = clone(estimator)
    start = time.perf_counter()
    estimator.fit(X_train, y_train)
    seconds = time.perf_counter() - start
    proba = estimator.predict_proba(X_test)
    column = np.searchsorted(estimator.classes_, y_test)
    p_true = np.clip(proba[np.arange(len(y_test)), column], _PROB_FLOOR, 1.0)
    result = Result(
        estimator=name,
        dataset=dataset,
        realization=realization,
        error=float(np.mean(estimator.predict(X_test) != y_test)),
        nlp=float(-np.mean(np.log(p_true))),
        fit_seconds=seconds,
        model_size=model_size(estimator, len(y_train)),
    )
    return result, estimator


def dgemm_rate(m, k, n, repeats=3, dtype=np.float64):
    """Flops per second of a ``(m×k)·(k×n)`` product (float64 unless ``dtype`` says
    otherwise: float32 is sgemm) on this machine now.

    Benchmarks put it beside their times: the floor of a method is its unavoidable
    flops at this rate.
    """
    rng = np.random.default_rng(0)
    A = rng.standard_normal((m, k)).astype(dtype)
    B = rng.standard_normal((k, n)).astype(dtype)
    A @ B
    start = time.perf_counter()
    for _ in range(repeats):
        A @ B
    return repeats * 2.0 * m * k * n / (time.perf_counter() - start)


def summarize(results):
    """Mean and standard deviation per (dataset, estimator), in first-seen order."""
    groups: dict[tuple[str, str], list[Result]] = {}
    for r in results:
        groups.setdefault((r.dataset, r.estimator), []).append(r)
    rows = []
    for (dataset, name), rs in groups.items():
        row = {"dataset": dataset, "estimator": name, "n": len(rs)}
        for field in ("error", "nlp", "fit_seconds", "model_size"):
            values = np.array([getattr(r, field) for r in rs], dtype=float)
            row[field] = (
                float(values.mean()),
                float(values.std(ddof=1) if len(rs) > 1 else 0),
            )
        rows.append(row)
    return rows


def format_table(results) -> str:
    """Markdown table: error %, NLP (nats), fit seconds and size, as mean ± sd with
    the number of runs where some row has more than one run, else as single values."""
    rows = summarize(results)
    repeated = any(row["n"] > 1 for row in rows)
    runs = "| runs " if repeated else ""
    lines = [
        f"| data set | estimator {runs}| test error % | test NLP (nats) | fit s | size |",
        "|---|---" + "|---:" * (5 if repeated else 4) + "|",
    ]
    for row in rows:
        (e, es), (p, ps), (t, ts), (m, _) = (
            row["error"],
            row["nlp"],
            row["fit_seconds"],
            row["model_size"],
        )
        if repeated:
            cells = [str(row["n"]), f"{100 * e:.2f} ± {100 * es:.2f}"]
            cells += [f"{p:.3f} ± {ps:.3f}", f"{t:.2f} ± {ts:.2f}"]
        else:
            cells = [f"{100 * e:.2f}", f"{p:.3f}", f"{t:.2f}"]
        line = [row["dataset"], row["estimator"], *cells, f"{m:.0f}"]
        lines.append("| " + " | ".join(line) + " |")
    return "\n".join(lines)


def as_records(results):
    """Plain dicts, for saving as JSON."""
    return [asdict(r) if isinstance(r, Result) else r for r in results]


def save_run(path, results, **extra):
    """Write ``results`` as JSON with the command, date and machine that produced them."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    run = {
        "command": "python " + shlex.join(sys.orig_argv[1:]),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": platform.platform(),
        "results": as_records(results),
        **extra,
    }
    path.write_text(json.dumps(run, indent=1))
