"""Features in different units: standardised where the evidence prefers them.

An isotropic kernel weighs each feature by its variance, so where features are in
different units the widest decide alone (raw breast cancer: the default kernel sees
about 1.7 of its 30 features, algorithms.md §0.5). A classifier with the default
kernel, on inputs where it would see fewer than a fifth of the features
(:func:`~._base.few_features_seen`), fits full EP's isotropic kernel on a subsample
twice — on the inputs as they are and with each feature divided by its spread — and
keeps the units of the higher log evidence: one model family each, with as many
hyperparameters, so the evidence compares them without a penalty. Pixels (MNIST,
scikit-learn's digits) keep their units on their own: the rarely inked ones would be
magnified.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._base import default_kernel, feature_spreads, few_features_seen
from .ep_classifier import fit_full_ep, full_ep_settings

#: Points of the subsample whose evidence chooses the units, its L-BFGS-B iterations
#: and the amplitude's prior (``EPGPClassifier``'s).
_SUBSAMPLE, _MAX_ITER, _AMPLITUDE_PRIOR = 200, 20, 3.0


def standardised_if_better(estimator, X, y):
    """``X`` in the units a classifier with the default kernel fits in.

    ``X`` itself, or each (non-constant) feature divided by its spread where the
    default kernel sees few of the features and full EP's isotropic kernel
    on up to :data:`_SUBSAMPLE` points (a fixed draw; the most frequent class
    against the rest) has the higher log evidence on them so. The division is folded
    into ``estimator.input_scale_`` (per feature then), so predictions, the model's
    points and its kernel come back in ``X``'s units; the kernel then has a
    length-scale per feature.
    """
    if getattr(estimator, "kernel", None) is not None:
        return X
    spreads = feature_spreads(X)
    if few_features_seen(spreads) is None:
        return X
    scales = np.where(spreads > 0, spreads, 1.0)
    rows = np.random.default_rng(0).permutation(len(X))[:_SUBSAMPLE]
    classes, counts = np.unique(y[rows], return_counts=True)
    if len(classes) < 2:
        return X
    labels = np.where(y[rows] == classes[np.argmax(counts)], 1.0, -1.0)
    settings = full_ep_settings(max_iter=_MAX_ITER, amplitude_prior=_AMPLITUDE_PRIOR)
    evidence = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the raw units' kernel warns, as it should
        for standardised in (False, True):
            subsample = X[rows] / scales if standardised else X[rows]
            fit = fit_full_ep(
                subsample, labels, default_kernel(subsample), 0.0, settings
            )
            evidence[standardised] = fit.log_evidence
    if not evidence[True] > evidence[False]:
        return X
    estimator.input_scale_ = estimator.input_scale_ * scales
    return X / scales
