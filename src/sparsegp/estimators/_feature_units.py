"""An estimator's inputs standardised where the evidence prefers them
(:func:`~sparsegp.methods.feature_units.standardising_scales`)."""

from __future__ import annotations

from sklearn.base import is_classifier

from ..methods.feature_units import standardising_scales


def standardised_if_better(estimator, X, y):
    """``X`` in the units an estimator with the default kernel fits in: ``X`` itself,
    or each feature divided by its spread where
    :func:`~sparsegp.methods.feature_units.standardising_scales` finds the evidence
    higher so. The division is folded into ``estimator.input_scale_`` (per feature
    then), so predictions, the model's points and its kernel come back in ``X``'s
    units; the kernel then has a length-scale per feature. A given kernel keeps
    ``X``."""
    if getattr(estimator, "kernel", None) is not None:
        return X
    scales = standardising_scales(X, y, is_classifier(estimator))
    if scales is None:
        return X
    estimator.input_scale_ = estimator.input_scale_ * scales
    return X / scales
