"""How a classifier of more than two classes combines or calibrates its models.

One-vs-rest: the binary models' probabilities combine as ``P(k) ∝ Φ_k
(1 − Φ_k)^(−w)`` with ``w`` fitted by the leave-one-out likelihood of the training
labels (algorithms.md §7.5). The multinomial model: its predictive variances scaled
by ``γ`` fitted the same way (algorithms.md §7.4).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..approximations.multiclass_fitc import fit_variance_scale
from ..approximations.one_vs_rest import fit_odds_weight
from .fitted import FittedModel

__all__ = ["odds_weight", "with_variance_scale"]


def odds_weight(models: list[FittedModel], codes: np.ndarray) -> float:
    """``w`` of one-vs-rest ``models`` (one per class, in order) for the training
    labels' class indices ``codes``, from each binary model's held-out latents at the
    training points (``leave_one_out``,
    :func:`~sparsegp.approximations.one_vs_rest.fit_odds_weight`); 0 (the ``Φ_k``
    normalised) where a model has none."""
    scores = []
    for model in models:
        if model.leave_one_out is None:
            return 0.0
        scores.append(model.likelihood.predictive_z(*model.leave_one_out))
    return fit_odds_weight(np.column_stack(scores), codes)


def with_variance_scale(model: FittedModel, codes: np.ndarray) -> FittedModel:
    """The multinomial ``model`` with its predictive variance scale ``γ`` fitted to
    the class indices ``codes`` from its held-out latents
    (:func:`~sparsegp.approximations.multiclass_fitc.fit_variance_scale`)."""
    if model.leave_one_out is None:
        raise ValueError("the multinomial model holds no held-out latents to fit γ to.")
    mean, var = model.leave_one_out
    likelihood = fit_variance_scale(model.likelihood, mean, var, codes)
    return replace(model, likelihood=likelihood)
