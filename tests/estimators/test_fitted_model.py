"""Every estimator returns the one fitted-model type, and predicts through it."""

import numpy as np
import pytest

from sparsegp import (
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    IVMRegressor,
    NLPSparseGPClassifier,
    RVMClassifier,
    RVMRegressor,
    SparseOnlineGPClassifier,
)
from sparsegp.datasets import make_xor_clusters
from sparsegp.methods.fitted import FittedModel

from ..conftest import regression_data

CLASSIFIERS = [
    EPGPClassifier(max_iter_optimizer=3),
    FITCGPClassifier(n_inducing=6, max_iter_optimizer=3),
    FITCGPClassifier(n_inducing=6, max_iter_optimizer=3, multi_class="multinomial"),
    IVMClassifier(active_set_size=12, max_iter_optimizer=3),
    IVMClassifier(active_set_size=12, posterior="fitc", max_iter_optimizer=3),
    NLPSparseGPClassifier(max_basis_vectors=6, max_outer_iterations=2),
    SparseOnlineGPClassifier(max_basis_vectors=6),
    RVMClassifier(),
]


@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=lambda e: repr(e)[:60])
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_every_classifier_fits_the_one_model_type(estimator):
    X, y = make_xor_clusters(60, random_state=0)
    y = np.where(X[:, 0] > 1.0, 2, y)  # three classes
    fitted = estimator.set_params(random_state=0).fit(X, y)
    models = fitted.estimators_
    assert models and all(type(model) is FittedModel for model in models)
    mean, var = fitted.latent_mean_and_variance(X[:7])
    by_model = [model.latent_mean_and_variance(X[:7]) for model in models]
    if len(models) == 1:  # the multinomial model: all classes' latents at once
        np.testing.assert_array_equal(mean, by_model[0][0])
        np.testing.assert_array_equal(var, by_model[0][1])
    else:
        np.testing.assert_array_equal(mean, np.column_stack([m for m, _ in by_model]))
        np.testing.assert_array_equal(var, np.column_stack([v for _, v in by_model]))


@pytest.mark.parametrize(
    "estimator",
    [IVMRegressor(active_set_size=12), RVMRegressor()],
    ids=lambda e: type(e).__name__,
)
def test_the_regressors_fit_it_too_their_noise_in_its_likelihood(estimator):
    X, y = regression_data(60, seed=1)
    fitted = estimator.set_params(random_state=0).fit(X, y)
    assert type(fitted.model_) is FittedModel
    mean, var = fitted.model_.latent_mean_and_variance(X[:7])
    _, std = fitted.predict(X[:7], return_std=True)
    noise = fitted.model_.likelihood.noise
    np.testing.assert_allclose(std**2, fitted.y_std_**2 * (var + noise), rtol=1e-10)
