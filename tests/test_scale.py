"""Inputs in any units: every classifier's default kernel follows the data's scale."""

import numpy as np
import pytest
from sklearn.datasets import make_moons

from sparsegp import (
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    NLPSparseGPClassifier,
    SparseOnlineGPClassifier,
)
from sparsegp._base import default_length_scale

ESTIMATORS = [
    lambda: EPGPClassifier(random_state=0),
    lambda: FITCGPClassifier(n_inducing=8, random_state=0),
    lambda: IVMClassifier(active_set_size=40, random_state=0),
    lambda: NLPSparseGPClassifier(max_basis_vectors=30, random_state=0),
    lambda: SparseOnlineGPClassifier(max_basis_vectors=40, random_state=0),
]


def test_default_length_scale_is_root_d_for_standardised_inputs():
    X = np.random.default_rng(0).standard_normal((5000, 9))
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    assert default_length_scale(X) == pytest.approx(3.0)
    assert default_length_scale(1e3 * X) == pytest.approx(3e3)
    assert default_length_scale(np.ones((10, 3))) == 1.0


@pytest.mark.parametrize("make", ESTIMATORS)
def test_accuracy_does_not_depend_on_the_units_of_the_inputs(make):
    # Before the data-scaled default, inputs × 1e3 or × 1e-3 gave chance accuracy.
    X, y = make_moons(150, noise=0.2, random_state=0)
    X_test, y_test = make_moons(500, noise=0.2, random_state=1)
    accuracy = {
        scale: make().fit(scale * X, y).score(scale * X_test, y_test)
        for scale in (1e-3, 1.0, 1e3)
    }
    assert accuracy[1.0] > 0.85
    assert abs(accuracy[1e-3] - accuracy[1.0]) < 0.03
    assert abs(accuracy[1e3] - accuracy[1.0]) < 0.03
