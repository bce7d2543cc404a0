"""Rejection curves."""

import numpy as np
import pytest

from sparsegp.metrics import rejection_curve


def test_rejection_drops_the_least_confident_first():
    y = np.array([1, 1, -1, -1])
    p1 = np.array([0.95, 0.45, 0.52, 0.1])  # two mistakes, both near ½
    proba = np.column_stack([1 - p1, p1])
    fractions, errors = rejection_curve(
        y, proba, np.array([-1, 1]), fractions=np.array([0.0, 0.25, 0.5])
    )
    np.testing.assert_allclose(errors, [0.5, 1 / 3, 0.0])


def test_rejection_curve_checks_shapes():
    with pytest.raises(ValueError, match="shape"):
        rejection_curve(np.ones(3), np.ones((2, 2)), np.array([0, 1]))
