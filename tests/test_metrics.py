"""Rejection curves and the expected calibration error."""

import numpy as np
import pytest
from sklearn.calibration import calibration_curve

from sparsegp.metrics import expected_calibration_error, rejection_curve


def test_rejection_drops_the_least_confident_first():
    y = np.array([1, 1, -1, -1])
    p1 = np.array([0.95, 0.45, 0.52, 0.1])  # two mistakes, both near ½
    proba = np.column_stack([1 - p1, p1])
    fractions, errors = rejection_curve(
        y, proba, np.array([-1, 1]), fractions=np.array([0.0, 0.25, 0.5])
    )
    np.testing.assert_allclose(errors, [0.5, 1 / 3, 0.0])


def test_multiclass_rejection_drops_the_smallest_largest_probability_first():
    y = np.array(["a", "b", "c", "c"])
    proba = np.array(
        [[0.9, 0.05, 0.05], [0.5, 0.4, 0.1], [0.2, 0.2, 0.6], [0.1, 0.1, 0.8]]
    )  # one mistake (the second point), the least confident
    _, errors = rejection_curve(
        y, proba, np.array(["a", "b", "c"]), fractions=np.array([0.0, 0.25])
    )
    np.testing.assert_allclose(errors, [0.25, 0.0])


def test_rejection_curve_checks_shapes():
    with pytest.raises(ValueError, match="shape"):
        rejection_curve(np.ones(3), np.ones((2, 2)), np.array([0, 1]))


def test_expected_calibration_error_is_the_reliability_gap():
    # The reliability diagram of scikit-learn (same equal-width bins) weighted by the
    # points per bin, against the definition computed independently.
    rng = np.random.default_rng(0)
    proba = rng.random(5000) ** 2
    y = rng.random(5000) < np.sqrt(proba)  # under-confident where p is small
    prob_true, prob_pred = calibration_curve(y, proba, n_bins=15)
    counts = np.histogram(proba, bins=np.linspace(0, 1, 16))[0]
    expected = np.sum(counts[counts > 0] / len(y) * np.abs(prob_true - prob_pred))
    assert expected_calibration_error(y, proba) == pytest.approx(expected, rel=1e-12)
    assert expected > 0.1


def test_calibrated_probabilities_have_a_small_expected_calibration_error():
    rng = np.random.default_rng(1)
    proba = rng.random(100_000)
    y = rng.random(100_000) < proba
    assert expected_calibration_error(y, proba) < 0.01
    assert expected_calibration_error(y, 1 - proba) > 0.3


def test_expected_calibration_error_checks_its_input():
    with pytest.raises(ValueError, match="one length"):
        expected_calibration_error([0, 1], [0.5])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        expected_calibration_error([0, 1], [0.5, 1.5])
