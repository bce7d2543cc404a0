"""Features in different units: a classifier fits them standardised where the
evidence prefers it (``estimators._feature_units``)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_friedman1
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from sparsegp import (
    EPGPClassifier,
    FITCGPClassifier,
    IVMRegressor,
    RVMRegressor,
    SparseOnlineGPRegressor,
)
from sparsegp.estimators._feature_units import standardised_if_better
from sparsegp.estimators._input_units import kernel_in_input_units
from sparsegp.exceptions import FeatureScaleWarning
from sparsegp.methods.kernel_defaults import feature_spreads


def _unscaled(estimator):
    estimator.input_scale_ = 1.0
    return estimator


def test_features_in_different_units_are_divided_by_their_spreads():
    """Raw breast cancer (the default kernel sees 1.7 of 30 features): the subsample's
    evidence prefers the features standardised; each is divided by its spread, and
    ``input_scale_`` records the division; X times 10³ gives the same inputs."""
    X, y = load_breast_cancer(return_X_y=True)
    estimator = _unscaled(EPGPClassifier())
    standardised = standardised_if_better(estimator, X, y)
    np.testing.assert_allclose(estimator.input_scale_, feature_spreads(X))
    np.testing.assert_array_equal(standardised, X / estimator.input_scale_)
    wider = _unscaled(EPGPClassifier())
    np.testing.assert_allclose(
        standardised_if_better(wider, 1e3 * X, y), standardised, rtol=1e-14
    )


def test_one_informative_wide_feature_keeps_its_units():
    """The widest feature alone decides the labels, ten narrow ones are noise: the
    kernel sees about one feature, as it should, and the evidence keeps the units."""
    rng = np.random.default_rng(0)
    signal = rng.standard_normal(300)
    X = np.column_stack([100.0 * signal, rng.standard_normal((300, 10))])
    y = (signal > 0).astype(int)
    estimator = _unscaled(EPGPClassifier())
    assert standardised_if_better(estimator, X, y) is X
    assert estimator.input_scale_ == 1.0


def test_a_given_kernel_keeps_the_units():
    X, y = load_breast_cancer(return_X_y=True)
    estimator = _unscaled(EPGPClassifier(kernel=ConstantKernel() * RBF()))
    assert standardised_if_better(estimator, X, y) is X


def test_a_kernel_learnt_on_scaled_features_reads_back_in_their_units(rng):
    """A kernel learnt on ``X / s`` (one scale per feature), in ``X``'s units: the
    isotropic term gets a length-scale per feature, ``ℓ·s``, its bounds too, and
    takes ``X`` to the values the learnt kernel takes ``X / s`` to."""
    scale = np.array([2.0**-3, 1.0, 2.0**10])
    learnt = ConstantKernel(3.0) * RBF(0.7, (1e-3, 1e3))
    estimator = _unscaled(FITCGPClassifier())
    estimator.input_scale_ = scale
    in_units = kernel_in_input_units(estimator, learnt)
    X = rng.standard_normal((6, 3)) * scale
    np.testing.assert_allclose(in_units(X), learnt(X / scale), rtol=1e-12)
    np.testing.assert_allclose(in_units.k2.length_scale, 0.7 * scale)
    np.testing.assert_allclose(
        in_units.k2.length_scale_bounds, np.outer(scale, [1e-3, 1e3])
    )


@pytest.mark.parametrize("make", [EPGPClassifier, FITCGPClassifier])
def test_a_classifier_on_raw_breast_cancer_fits_as_on_standardised_features(make):
    """Raw breast cancer against the same features standardised beforehand: within a
    point of test error (6.1 % raw against 3.5 % standardised before, 2026-11-26)."""
    X, y = load_breast_cancer(return_X_y=True)
    train, test = np.arange(0, 569, 2), np.arange(1, 569, 2)
    mean, spread = X[train].mean(axis=0), X[train].std(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        raw = make(random_state=0).fit(X[train], y[train])
        standard = make(random_state=0).fit((X[train] - mean) / spread, y[train])
    error = 1 - raw.score(X[test], y[test])
    assert np.ndim(raw.input_scale_) == 1
    assert error <= 1 - standard.score((X[test] - mean) / spread, y[test]) + 0.01


@pytest.mark.parametrize("make", [IVMRegressor, SparseOnlineGPRegressor, RVMRegressor])
def test_a_regressor_fits_features_in_different_units_standardised(make):
    """Friedman #1 with its ten features in units 10⁻³ to 10³: exact regression's
    evidence on the subsample prefers them standardised; R² within 0.05 of the fit
    on the features in their common units."""
    X, y = make_friedman1(600, noise=1.0, random_state=0)
    units = np.logspace(-3, 3, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FeatureScaleWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = make(random_state=0).fit(X[:400] * units, y[:400])
        common = make(random_state=0).fit(X[:400], y[:400])
    assert np.shape(fitted.input_scale_) == (10,)
    r2 = fitted.score(X[400:] * units, y[400:])
    assert r2 > common.score(X[400:], y[400:]) - 0.05


@pytest.mark.parametrize("make", [IVMRegressor, SparseOnlineGPRegressor, RVMRegressor])
def test_a_regressor_fits_a_feature_five_times_narrower_standardised(make):
    """``sin 2x₀ · cos x₁`` with ``x₀`` in units five times larger: the kernel still
    sees 1.1 of the 2 features, so the few-features rule does not ask, and the IVM's
    R² was −0.35, the RVM's 0.64 (2026-11-29). A feature under √0.1 of the RMS
    spread makes a regressor, which has no length-scale per feature, ask the
    evidence: R² within 0.02 of the fit in one unit."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(1300, 2))
    y = np.sin(2 * X[:, 0]) * np.cos(X[:, 1]) + 0.1 * rng.standard_normal(1300)
    narrow = X * [0.2, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = make(random_state=0).fit(narrow[:300], y[:300])
        common = make(random_state=0).fit(X[:300], y[:300])
    assert np.shape(fitted.input_scale_) == (2,)
    r2 = fitted.score(narrow[300:], y[300:])
    assert r2 > common.score(X[300:], y[300:]) - 0.02
