"""Full EP's fitting recipe: the kernel and probit bias by its evidence, and ARD on it.

:class:`~sparsegp.EPGPClassifier` fits with it, and so do the online GP's
hyperparameters (on a subsample) and the input-units choice: one recipe, its
settings in one place (algorithms.md §6.1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from sklearn.gaussian_process.kernels import Kernel
from sklearn.utils import check_random_state

from ..approximations.dense_ep import DenseEP
from ..approximations.evidence import EvidenceFit, EvidenceSettings, maximize_evidence
from .ard import ARD_SCREEN_ITERATIONS, ard_if_it_pays, screen_rows
from .fitted import FittedModel, fitted_model
from .kernel_defaults import feature_spreads

__all__ = ["ard_by_full_ep", "ard_refit", "fit_full_ep", "full_ep_settings"]

#: What a caller does with each whole fit's result (its warnings, for one).
OnFit = Callable[[EvidenceFit], None]


def full_ep_settings(
    *,
    optimize: bool = True,
    max_iter: int = 100,
    learn_bias: bool = True,
    ep_mode: str = "parallel",
    damping: float = 1.0,
    tol: float = 1e-3,
    max_sweeps: int = 200,
    n_restarts: int = 0,
    random_state: Any = None,
    amplitude_prior: float | None = None,
    progress: str | None = None,
    report: Callable[[str], None] | None = None,
) -> EvidenceSettings:
    """How full EP's evidence is maximised, with :class:`~sparsegp.EPGPClassifier`'s
    defaults: ``tol`` is the optimizer's relative accuracy
    (:class:`~sparsegp.approximations.ep.WarmStartedEP`), every product float64, the
    training inputs never moved."""
    return EvidenceSettings(
        ep_options=dict(
            mode=ep_mode,
            damping=damping,
            tol=tol,
            max_sweeps=max_sweeps,
            random_state=random_state,
        ),
        max_iter=max_iter if optimize else None,
        learn_bias=learn_bias,
        learn_inducing=False,
        sweep_dtype=np.float64,
        n_restarts=n_restarts,
        random_state=random_state,
        ftol=tol,
        progress=progress,
        report=report,
        amplitude_prior=amplitude_prior,
    )


def fit_full_ep(
    X: np.ndarray,
    y: np.ndarray,
    kernel: Kernel,
    bias: float,
    settings: EvidenceSettings,
) -> EvidenceFit:
    """Kernel and probit bias by full EP's evidence from ``kernel`` and ``bias``
    (algorithms.md §6.1), the posterior at the optimum."""
    approximation = DenseEP(X, y, differentiable=settings.max_iter is not None)
    return maximize_evidence(approximation, kernel, X, float(bias), settings)


def ard_by_full_ep(
    X: np.ndarray,
    y: np.ndarray,
    isotropic: FittedModel,
    settings: EvidenceSettings,
    on_fit: OnFit,
    random_state: Any = None,
) -> FittedModel:
    """``ard="auto"`` on full EP's evidence (algorithms.md §5.8): the model
    :func:`~sparsegp.methods.ard.ard_if_it_pays` chooses between the fitted
    ``isotropic`` model and the same kernel with a length-scale per feature, screened
    from the isotropic optimum on :func:`~sparsegp.methods.ard.screen_rows`' rows
    (drawn from ``random_state``) and fitted on every row from the screen's end by
    :func:`ard_refit`. ``n_iterations`` counts every fit's."""
    rows = screen_rows(len(y), check_random_state(random_state))
    on_rows = len(rows) < len(y)
    screen = ard_refit(X[rows], y[rows], settings, on_fit)
    whole = ard_refit(X, y, settings, on_fit)

    def whole_ard_fit(screen_fit: FittedModel) -> FittedModel:
        return whole(screen_fit.kernel, screen_fit)  # from the screen's end

    model, ard_fits = ard_if_it_pays(
        isotropic, screen, whole_ard_fit, feature_spreads(X), 1, on_rows
    )
    n_iterations = sum(m.n_iterations for m in [isotropic, *ard_fits])
    return replace(model, n_iterations=n_iterations)


def ard_refit(
    X: np.ndarray, y: np.ndarray, settings: EvidenceSettings, on_fit: OnFit
) -> Callable[..., FittedModel]:
    """``refit(kernel, start, stage="fit")``: the full EP model of ``kernel`` from the
    fitted model ``start``'s bias by ``settings`` without restarts (``"fit"``, its
    result passed to ``on_fit``), at ``kernel`` and that bias (``"evaluate"``), or
    after ``ARD_SCREEN_ITERATIONS`` (``"screen"``, which stops on its cap by
    design)."""
    whole = replace(settings, n_restarts=0)
    stages = {
        "evaluate": replace(whole, max_iter=None),
        "screen": replace(whole, max_iter=ARD_SCREEN_ITERATIONS),
    }

    def refit(kernel: Kernel, start: FittedModel, stage: str = "fit") -> FittedModel:
        fit = fit_full_ep(X, y, kernel, start.likelihood.bias, stages.get(stage, whole))
        if stage == "fit":
            on_fit(fit)
        return fitted_model(fit)

    return refit
