"""The RVM's recipe: a dictionary of centres, Subspace EM (or batch EM) on its kernel
columns, the fitted model, and the basis's widths per feature.

:class:`~sparsegp.RVMRegressor` and :class:`~sparsegp.RVMClassifier` read their
parameters into :class:`RVMSettings` and call :func:`fit_rvm` with the basis they
choose: [QW03]'s fixed ``RBF(ℓ₀)``, a given kernel, or the widths of a sparse GP
learnt on the same targets (:func:`widths_by_fitc_ep`, :func:`widths_by_vfe`,
algorithms.md §4.5).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Kernel

from .. import kernel_expression as expression
from .._memory import require_memory
from ..approximations.rvm_ssem import (
    RVMFit,
    batch_em,
    relevance_predictor,
    subspace_em,
    sweep_offers,
)
from ..kernels import KernelBlocks
from .fitc_ep import learnt_fitc_model, require_fitc_memory
from .fitted import FittedModel
from .pseudo_inputs import class_shares
from .sparse_regression import SparseRegression, default_starts

__all__ = [
    "BASIS_INDUCING",
    "RVMSettings",
    "dictionary",
    "fit_rvm",
    "widths_by_fitc_ep",
    "widths_by_vfe",
]

#: Pseudo-inputs of the sparse GP whose evidence gives the basis a width per feature
#: (``ard``): few, as its evidence need only tell the features' scales apart
#: (algorithms.md §4.5).
BASIS_INDUCING = 50

#: M × M matrices the batch method holds beside its n × M design matrix (ΨᵀΨ, the
#: posterior covariance and its factor).
_BATCH_SQUARE_ARRAYS = 3

#: Where a fit's progress messages go (nowhere unless the estimator is verbose).
Report = Callable[[str], None]
#: The basis's kernel and the record of how it was chosen.
Basis = tuple[Kernel, dict[str, Any]]


@dataclass(frozen=True)
class RVMSettings:
    """The estimators' parameters of the same names ([QW03]; algorithms.md §4)."""

    method: str = "ssem"
    update: str = "mackay"
    threshold: float = 1e12
    entering: str = "tipping_faul"
    bias: bool = True
    n_basis: int | None = 500
    batch_start: int = 20
    tol: float = 1e-3
    max_iter: int = 200


def dictionary(
    X: np.ndarray,
    n_basis: int | None,
    rng: np.random.RandomState,
    labels: np.ndarray | None = None,
) -> np.ndarray:
    """Row indices of the dictionary: ``n_basis`` distinct random rows of ``X`` (all
    of them when there are fewer); with ``labels``, as equal a share from each class
    as the classes' sizes allow (algorithms.md §4.3)."""
    if n_basis is None or n_basis >= len(X):
        return np.arange(len(X))
    if labels is None:
        return np.sort(rng.choice(len(X), size=n_basis, replace=False))
    drawn = [
        rng.choice(rows, size=k, replace=False)
        for rows, k in class_shares(labels, n_basis)
    ]
    return np.sort(np.concatenate(drawn))


def fit_rvm(
    X: np.ndarray,
    t: np.ndarray,
    basis: Callable[[], Basis],
    settings: RVMSettings,
    rng: np.random.RandomState,
    report: Report,
    name: str = "RVM",
    **options: Any,
) -> tuple[FittedModel, RVMFit]:
    """Train on targets (regression) or ±1 labels (``classification=True``) ``t``:
    the dictionary first, then ``basis()``'s kernel, then EM; the fitted model (the
    choice of basis in its details) and the EM's fit; ``name`` heads the progress
    line. ``options`` go to the EM (the noise, or the mean field and the pool)."""
    start = time.perf_counter()
    classification = bool(options.get("classification"))
    centres = dictionary(X, settings.n_basis, rng, t if classification else None)
    if settings.method == "batch":
        _require_batch_memory(len(X), len(centres) + (1 if settings.bias else 0))
    kernel, choice = basis()
    fit = _run_em(X, t, kernel, centres, settings, report, options)
    model = _model_from_fit(X, kernel, centres, fit, settings.bias)
    report(
        f"{name}: {len(model.points)} relevance vectors of {len(centres)} after "
        f"{fit.n_iterations} E-steps ({time.perf_counter() - start:.1f} s)"
    )
    return replace(model, details=model.details | choice), fit


def _run_em(
    X: np.ndarray,
    t: np.ndarray,
    kernel: Kernel,
    centres: np.ndarray,
    settings: RVMSettings,
    report: Report,
    options: dict[str, Any],
) -> RVMFit:
    """Subspace EM over kernel columns computed on demand, or batch EM on ``Ψ``."""
    offset = 1 if settings.bias else 0
    n_basis = len(centres) + offset
    reported = [0]  # the last multiple of 200 offers reported

    def callback(step: int, size: int) -> None:
        if step // 200 > reported[0]:  # the sweep may offer several at once
            reported[0] = step // 200
            report(f"  RVM step {step}: {size} active basis functions")

    common: dict[str, Any] = dict(
        update=settings.update,
        threshold=settings.threshold,
        entering=settings.entering,
        batch_start=settings.batch_start,
        tol=settings.tol,
        max_iter=settings.max_iter,
        callback=callback,
        **options,
    )
    if settings.method == "ssem":
        rows = KernelBlocks(kernel, X)
        ones = np.ones(len(X))

        def column(j: int) -> np.ndarray:
            if j < offset:
                return ones
            return rows(centres[j - offset : j - offset + 1])[0]

        # a classifier's E-steps cost O(n·|R|²), a regressor's O(|R|³)
        offers = sweep_offers(len(X)) if options.get("classification") else 1
        return subspace_em(column, n_basis, t, offers_per_step=offers, **common)
    Psi = kernel(X, X[centres])
    if settings.bias:
        Psi = np.column_stack([np.ones(len(X)), Psi])
    return batch_em(Psi, t, **common)


def _model_from_fit(
    X: np.ndarray, kernel: Kernel, centres: np.ndarray, fit: RVMFit, bias: bool
) -> FittedModel:
    """The fitted model with the bias (basis index 0), if kept, first."""
    offset = 1 if bias else 0
    relevant, alpha, predictor = relevance_predictor(fit, bias)
    vectors = centres[relevant[relevant >= offset] - offset]
    return FittedModel(
        kernel=kernel,
        likelihood=None,
        points=X[vectors],
        predictor=predictor,
        log_marginal_likelihood=float(fit.posterior.log_evidence),
        n_iterations=fit.n_iterations,
        converged=fit.converged,
        details={"alpha": alpha},
    )


def _require_batch_memory(n: int, n_basis: int) -> None:
    """``MemoryError`` before a batch fit whose ``n × n_basis`` design matrix and
    square matrices would not fit in memory."""
    require_memory(
        8.0 * (n * n_basis + _BATCH_SQUARE_ARRAYS * n_basis**2),
        f"the batch RVM's design matrix ({n} × {n_basis}) and its "
        f"{_BATCH_SQUARE_ARRAYS} {n_basis} × {n_basis} matrices (float64)",
        "use method='ssem', a smaller n_basis, or fit on a subsample",
    )


def _rbf_length_scales(kernel: Kernel) -> np.ndarray:
    """The length-scales of the RBF in ``kernel`` (``ConstantKernel * RBF``)."""
    leaves = expression.parse(kernel).leaves()
    (rbf,) = [leaf for leaf in leaves if isinstance(leaf, expression.Stationary)]
    return np.atleast_1d(rbf.length_scale)


def widths_by_fitc_ep(
    X: np.ndarray,
    t: np.ndarray,
    rbf: Kernel,
    auto: bool,
    rng: np.random.RandomState,
    pool: Any,
    progress: str | None,
    not_converged: Callable[[int], None],
    report: Report,
) -> Basis:
    """The classifier's basis with a width per feature (algorithms.md §4.5): the
    length-scales over √2 of the FITC-EP model of :data:`BASIS_INDUCING`
    pseudo-inputs learnt on the same labels from ``rbf`` (Gaussian basis functions of
    width ``ℓ/√2`` make a degenerate GP of length-scale ``ℓ``); with ``auto``, only
    where that GP's evidence keeps its ARD kernel, ``rbf`` otherwise. The record
    holds the GP's choice and its evidence gain."""
    require_fitc_memory(
        min(BASIS_INDUCING, len(X)),
        len(X),
        remedy="use ard=False ([QW03]'s fixed basis), or fit on a subsample",
    )
    seed = int(rng.randint(np.iinfo(np.int32).max))
    gp = learnt_fitc_model(
        X,
        t,
        ConstantKernel(1.0) * rbf,
        BASIS_INDUCING,
        seed,
        pool,
        "auto" if auto else True,
        progress=progress,
        not_converged=not_converged,
    )
    ard = not auto or gp.details["ard"]
    choice = {"ard": ard, "ard_evidence_gain": gp.details.get("ard_evidence_gain")}
    report(
        f"  RVM basis: FITC-EP (M = {BASIS_INDUCING}) kernel {gp.kernel}, "
        f"evidence gain of ARD {choice['ard_evidence_gain']}: "
        f"{'widths per feature' if ard else 'the fixed RBF(ℓ₀)'}"
    )
    if not ard:
        return rbf, choice
    widths = _rbf_length_scales(gp.kernel) / np.sqrt(2.0)
    return RBF(widths, length_scale_bounds="fixed"), choice


def widths_by_vfe(
    X: np.ndarray,
    t: np.ndarray,
    rng: np.random.RandomState,
    progress: str | None,
    not_converged: Callable[[int | None], None],
    report: Report,
) -> Basis:
    """The regressor's basis with a width per feature: the length-scales over √2 of
    the VFE sparse GP regression of :data:`BASIS_INDUCING` pseudo-inputs learnt on the
    same targets (``not_converged`` sees L-BFGS-B's cap where it stopped on it)."""
    method = SparseRegression(n_inducing=min(BASIS_INDUCING, len(X)), progress=progress)
    gp = method.fit(X, t, default_starts(X, ard=True), rng)
    if not gp.converged:
        not_converged(method.max_iter)
    report(f"  RVM basis: VFE (M = {method.n_inducing}) kernel {gp.kernel}")
    widths = _rbf_length_scales(gp.kernel) / np.sqrt(2.0)
    return RBF(widths, length_scale_bounds="fixed"), {"ard": True}
