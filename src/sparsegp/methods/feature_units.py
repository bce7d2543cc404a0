"""Features in different units: standardised where the evidence prefers them.

An isotropic kernel weighs each feature by its variance, so where features are in
different units the widest decide alone (raw breast cancer: the default kernel sees
about 1.7 of its 30 features, algorithms.md §0.5). Where the default kernel would
see fewer than a fifth of the features
(:func:`~sparsegp.methods.kernel_defaults.few_features_seen`), the isotropic
kernel is fitted on a subsample (full EP for a classifier, exact regression for a
regressor) twice — on the inputs as they are and with each feature divided by its
spread — and the units of the higher log evidence are kept: one model family each,
with as many hyperparameters, so the evidence compares them without a penalty. A
regressor, whose kernel has no length-scale per feature to find a narrow feature
with, asks the same where some feature is narrow
(:func:`~sparsegp.kernels.has_narrow_feature`). Pixels (MNIST, scikit-learn's
digits) keep their units on their own: the rarely inked ones would be magnified.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.gaussian_process.kernels import WhiteKernel

from ..approximations.ivm import maximize_regression_evidence
from ..kernels import has_narrow_feature
from .full_ep import fit_full_ep, full_ep_settings
from .kernel_defaults import default_kernel, feature_spreads, few_features_seen

__all__ = ["standardising_scales"]

#: Points of the subsample whose evidence chooses the units, the L-BFGS-B iterations
#: of its kernel and the amplitude's prior of full EP's (``EPGPClassifier``'s).
_SUBSAMPLE, _MAX_ITER, _AMPLITUDE_PRIOR = 200, 20, 3.0


def standardising_scales(
    X: np.ndarray, y: np.ndarray, classification: bool
) -> np.ndarray | None:
    """Each feature's spread (1 for a constant one), where ``X`` divided by them
    fits better: where the default kernel sees few of the features (for a
    regressor, also where one of them is narrow) and the default isotropic kernel's
    log evidence on up to :data:`_SUBSAMPLE` points (a fixed draw) is higher so —
    full EP's for a classifier (the most frequent class against the rest), exact
    regression's for a regressor (``y`` its targets, standardised). None where ``X``
    keeps its units."""
    spreads = feature_spreads(X)
    narrow = not classification and has_narrow_feature(spreads)
    if few_features_seen(spreads) is None and not narrow:
        return None
    scales = np.where(spreads > 0, spreads, 1.0)
    rows = np.random.default_rng(0).permutation(len(X))[:_SUBSAMPLE]
    evidence = _classification_evidence if classification else _regression_evidence
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the raw units' kernel warns, as it should
        as_given = evidence(X[rows], y[rows])
        standardised = evidence(X[rows] / scales, y[rows])
    if as_given is None or standardised is None or not standardised > as_given:
        return None
    return scales


def _classification_evidence(X: np.ndarray, y: np.ndarray) -> float | None:
    """Full EP's log evidence, its default isotropic kernel learnt, of the most
    frequent class against the rest (None for one class)."""
    classes, counts = np.unique(y, return_counts=True)
    if len(classes) < 2:
        return None
    labels = np.where(y == classes[np.argmax(counts)], 1.0, -1.0)
    settings = full_ep_settings(max_iter=_MAX_ITER, amplitude_prior=_AMPLITUDE_PRIOR)
    return fit_full_ep(X, labels, default_kernel(X), 0.0, settings).log_evidence


def _regression_evidence(X: np.ndarray, y: np.ndarray) -> float:
    """Exact GP regression's log evidence ([RW06] eq. 5.9) of the standardised targets,
    the default isotropic kernel and a ``WhiteKernel`` noise learnt."""
    spread = float(np.std(y))
    y = (y - np.mean(y)) / (spread or 1.0)
    kernel = default_kernel(X) + WhiteKernel(0.1)
    return maximize_regression_evidence(kernel, X, y, max_iter=_MAX_ITER)[1]
