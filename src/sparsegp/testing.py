"""Checks the package's tests use, for anyone adding a method or a kernel.

- :func:`central_gradient` and :func:`assert_gradient_matches`: an analytic gradient
  against central differences (scipy's ``approx_fprime`` taken forward and backward);
- :func:`assert_latent_close`: two models' latent predictions (mean and variance) at the
  same inputs;
- :func:`check_fitted_outputs`: what every fitted estimator must give — finite
  outputs, probabilities that sum to one, ``predict`` consistent with
  ``predict_proba``, identical predictions after pickling.
"""

from __future__ import annotations

import pickle

import numpy as np
from scipy.optimize import approx_fprime
from sklearn.base import is_classifier

__all__ = [
    "assert_gradient_matches",
    "assert_latent_close",
    "central_gradient",
    "check_fitted_outputs",
    "prediction_outputs",
]


def central_gradient(f, x, step=1e-5):
    """``(f(x + h e_j) − f(x − h e_j)) / 2h`` for every coordinate ``j``.

    ``scipy.optimize.approx_fprime`` with step ``+h`` and ``−h`` (its forward
    differences), averaged: the O(h²) central difference.
    """
    x = np.asarray(x, dtype=float)
    return 0.5 * (approx_fprime(x, f, step) + approx_fprime(x, f, -step))


def assert_gradient_matches(f, gradient, x, *, step=1e-5, rtol=1e-5, atol=0.0):
    """Assert that ``gradient`` (at ``x``) equals the central difference of ``f``."""
    np.testing.assert_allclose(
        gradient, central_gradient(f, x, step), rtol=rtol, atol=atol
    )


def assert_latent_close(model, reference, X, *, rtol=1e-7, atol=0.0):
    """Assert that two fitted models predict the same latent mean and variance at X."""
    for got, expected in zip(
        model.latent_mean_and_variance(X),
        reference.latent_mean_and_variance(X),
        strict=True,
    ):
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def prediction_outputs(model, X):
    """Every prediction a fitted estimator offers, as a tuple of arrays."""
    if is_classifier(model):
        mean, var = model.latent_mean_and_variance(X)
        return model.predict_proba(X), model.predict(X), mean, var
    return model.predict(X, return_std=True)


def check_fitted_outputs(model, X):
    """Assert the contract of a fitted estimator's predictions at ``X``.

    Finite outputs; for classifiers, probabilities in [0, 1] summing to one, ``predict``
    the argmax of ``predict_proba`` and non-negative latent variances; for regressors,
    non-negative standard deviations; a pickled copy predicting identically.

    Returns
    -------
    tuple of ndarray
        :func:`prediction_outputs` of ``model`` at ``X``.
    """
    got = prediction_outputs(model, X)
    for array in got:
        if array.dtype.kind == "f":
            assert np.all(np.isfinite(array)), array
    if is_classifier(model):
        proba, labels, _, var = got
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
        assert np.all((proba >= 0) & (proba <= 1))
        np.testing.assert_array_equal(labels, model.classes_[np.argmax(proba, axis=1)])
        assert np.all(var >= 0)
    else:
        assert np.all(got[1] >= 0)
    restored = pickle.loads(pickle.dumps(model))
    for first, second in zip(got, prediction_outputs(restored, X), strict=True):
        np.testing.assert_array_equal(first, second)
    return got
