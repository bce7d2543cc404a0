"""``ard="auto"``'s held-out comparison (``_held_out_ard``)."""

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.utils import check_random_state

from sparsegp.estimators._held_out_ard import (
    HELD_OUT_MAX_ROWS,
    HELD_OUT_MIN_PER_LABEL,
    HELD_OUT_MIN_ROWS,
    held_out_prefers_ard,
    lower_by_a_standard_error,
)
from sparsegp.likelihoods import Probit


class _Fixed:
    """A fitted model whose latent mean at x is ``scale·x₀`` with unit variance."""

    def __init__(self, scale):
        self.scale, self.likelihood = scale, Probit(0.0)

    def latent_mean_and_variance(self, X):
        return self.scale * X[:, 0], np.ones(len(X))


def _labels_of_the_first_feature(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    return X, np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1, -1)


def _compare(X, y, isotropic_scale, ard_scale, fitted, n_problems=1):
    def fit_on_rows(X_rows, y_rows, start):
        fitted.append((len(y_rows), np.ndim(start.k2.length_scale)))
        return _Fixed(ard_scale if np.ndim(start.k2.length_scale) else isotropic_scale)

    kernel = ConstantKernel(1.0) * RBF(1.0)
    rng = check_random_state(0)
    return held_out_prefers_ard(X, y, kernel, fit_on_rows, rng, n_problems)


@pytest.mark.parametrize(
    ("isotropic_scale", "ard_scale", "prefers"),
    [(0.3, 2.0, True), (2.0, 0.3, False), (2.0, 2.0, False)],
    ids=["ard-better", "isotropic-better", "the-same"],
)
def test_ard_is_preferred_only_by_more_than_a_standard_error(
    isotropic_scale, ard_scale, prefers
):
    """Both kernels fitted on four fifths of the rows (the isotropic one, then its
    ARD form), scored on the last fifth: ARD only where its loss is lower by more
    than a standard error of the paired differences (not where they are equal)."""
    X, y = _labels_of_the_first_feature(1500)
    fitted = []
    assert _compare(X, y, isotropic_scale, ard_scale, fitted) == prefers
    assert fitted == [(1200, 0), (1200, 1)]


def test_too_few_rows_or_a_rare_label_make_no_comparison_and_many_are_sampled():
    """No comparison under 1 000 rows or with nine of a label; at most 5 000 rows
    compared, 5 000/√C for each of C one-vs-rest problems."""
    X, y = _labels_of_the_first_feature(HELD_OUT_MIN_ROWS - 1)
    fitted = []
    assert _compare(X, y, 0.3, 2.0, fitted) is None and not fitted
    X, y = _labels_of_the_first_feature(2000)
    y[:] = 1
    y[:9] = -1  # nine rows of one label
    assert _compare(X, y, 0.3, 2.0, fitted) is None and not fitted
    X, y = _labels_of_the_first_feature(3 * HELD_OUT_MAX_ROWS)
    assert _compare(X, y, 0.3, 2.0, fitted)
    assert fitted == [(4 * HELD_OUT_MAX_ROWS // 5, 0), (4 * HELD_OUT_MAX_ROWS // 5, 1)]
    fitted.clear()  # four one-vs-rest problems share the rows: a half each
    assert _compare(X, y, 0.3, 2.0, fitted, n_problems=4)
    assert fitted[0][0] == 4 * (HELD_OUT_MAX_ROWS // 2) // 5


def test_a_label_with_fewer_than_250_rows_makes_no_comparison():
    """249 positives among 2 000 rows: none (a fifth would score 50 of them); 250
    are compared."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 3))
    least = HELD_OUT_MIN_PER_LABEL
    for positives, compared in ((least - 1, False), (least, True)):
        y = -np.ones(2000, dtype=int)
        y[rng.choice(2000, positives, replace=False)] = 1
        fitted = []
        assert (_compare(X, y, 0.3, 2.0, fitted) is not None) == compared
        assert bool(fitted) == compared


def test_a_lower_mean_within_its_standard_error_does_not_choose_ard():
    """Differences alternating ±1 about a mean of −0.01 (standard error 0.032 on
    1 000 rows) keep the isotropic kernel; about −0.1, three standard errors below
    zero, choose ARD."""
    alternating = np.tile([-1.0, 1.0], 500)
    assert not lower_by_a_standard_error(alternating - 0.01)
    assert lower_by_a_standard_error(alternating - 0.1)
    assert not lower_by_a_standard_error(np.zeros(1000))
