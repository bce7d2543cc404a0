"""The log amplitude's prior keeps latent error bars readable on separable data."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from sparsegp import (
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    SparseOnlineGPClassifier,
)

SIZES = {
    FITCGPClassifier: dict(n_inducing=10),
    IVMClassifier: dict(active_set_size=20),
}


@pytest.mark.parametrize(
    "estimator",
    [EPGPClassifier, FITCGPClassifier, IVMClassifier, SparseOnlineGPClassifier],
)
def test_on_separable_classes_the_prior_keeps_the_latent_scale(estimator):
    X, y = make_blobs(120, centers=[[-2, 0], [2, 0]], cluster_std=0.7, random_state=0)
    options = dict(random_state=0, **SIZES.get(estimator, {}))
    fits = {
        prior: estimator(amplitude_prior=prior, **options).fit(X, y)
        for prior in (3.0, None)
    }
    amplitude = {
        prior: np.exp(fit.estimators_[0].kernel.theta[0]) for prior, fit in fits.items()
    }
    largest_sd = {
        prior: np.sqrt(fit.latent_mean_and_variance(X)[1].max())
        for prior, fit in fits.items()
    }
    assert amplitude[3.0] < 100 and largest_sd[3.0] < 5  # 40, 3.3-3.7 measured
    assert amplitude[None] > 3 * amplitude[3.0]  # 148-2 900 measured
    assert fits[3.0].score(X, y) == fits[None].score(X, y) == 1.0


def test_the_prior_must_be_positive_or_none():
    X, y = make_blobs(20, centers=2, random_state=0)
    with pytest.raises(ValueError, match="amplitude_prior"):
        FITCGPClassifier(n_inducing=4, amplitude_prior=0.0).fit(X, y)
