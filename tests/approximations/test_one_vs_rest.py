"""One-vs-rest probit models combined into one distribution over the classes."""

import numpy as np
import pytest
from scipy.special import ndtr

from sparsegp.approximations.one_vs_rest import (
    class_log_probabilities,
    fit_odds_weight,
)


@pytest.mark.parametrize("weight", [0.0, 0.4, 1.0])
def test_probabilities_sum_to_one_and_keep_the_binary_models_order(weight, rng):
    scores = 3 * rng.standard_normal((50, 4))
    p = np.exp(class_log_probabilities(scores, weight))
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_array_equal(p.argmax(axis=1), scores.argmax(axis=1))
    phi = ndtr(scores)
    expected = phi / ndtr(-scores) ** weight  # 1 − Φ(z) without cancellation
    np.testing.assert_allclose(p, expected / expected.sum(axis=1, keepdims=True))


def test_far_from_every_class_the_probabilities_stay_finite():
    p = np.exp(class_log_probabilities(np.array([[-60.0, -61.0, -70.0]]), 1.0))
    assert np.all(np.isfinite(p)) and p[0, 0] > p[0, 1] > p[0, 2]


def _sample(weight, n, rng, n_classes=5):
    """Labels drawn from the combination at ``weight`` of random scores."""
    scores = rng.normal(-1.0, 1.5, (n, n_classes))
    p = np.exp(class_log_probabilities(scores, weight))
    labels = (p.cumsum(axis=1) > rng.random((n, 1))).argmax(axis=1)
    return scores, labels


@pytest.mark.parametrize("weight", [0.0, 0.5, 1.0])
def test_the_fitted_weight_recovers_the_one_labels_were_drawn_with(weight, rng):
    scores, labels = _sample(weight, 20_000, rng)
    assert abs(fit_odds_weight(scores, labels) - weight) < 0.1
