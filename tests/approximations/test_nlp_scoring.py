"""The compiled log Φ of the NLP candidate losses against scipy (algorithms.md §2.2)."""

import numpy as np
import pytest
from scipy.special import log_ndtr

from sparsegp.approximations.nlp_scoring import (
    LOG_PHI_TABLE,
    interpolated_log_ndtr,
)


def interpolated(z):
    return np.array([interpolated_log_ndtr(float(x), LOG_PHI_TABLE) for x in z])


def test_table_and_series_are_within_1e_10_of_scipy():
    z = np.linspace(-45.0, 9.0, 200_001)[:-1]
    assert np.max(np.abs(interpolated(z) - log_ndtr(z))) < 1e-10


@pytest.mark.parametrize("z", [-1e6, -500.0, -80.0, -38.5, -38.0])
def test_asymptotic_series_below_the_table_is_relatively_exact(z):
    assert interpolated([z])[0] == pytest.approx(log_ndtr(z), rel=1e-11)


@pytest.mark.parametrize("z", [9.0, 12.0, 1e6, np.inf])
def test_above_the_table_log_phi_is_zero_to_rounding(z):
    assert interpolated([z])[0] == 0.0
    assert abs(log_ndtr(z)) < 2e-19


def test_minus_infinity_is_minus_infinity():
    assert interpolated([-np.inf])[0] == -np.inf


def test_nan_stays_nan():
    assert np.isnan(interpolated([np.nan])[0])
