"""Targets as users have them: regressors say so when handed class labels, and take
numbers written as strings."""

import numpy as np
import pytest

from sparsegp import (
    IVMRegressor,
    RVMRegressor,
    SparseGPRegressor,
    SparseOnlineGPRegressor,
)

REGRESSORS = [IVMRegressor, RVMRegressor, SparseOnlineGPRegressor, SparseGPRegressor]


@pytest.mark.parametrize("regressor", REGRESSORS)
def test_string_labels_given_to_a_regressor_get_a_clear_error(regressor):
    X = np.random.default_rng(0).random((20, 2))
    with pytest.raises(ValueError, match="needs numeric targets; y holds 'spam'"):
        regressor().fit(X, np.array(["spam", "ham"] * 10))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("regressor", REGRESSORS)
def test_numbers_written_as_strings_are_numbers(regressor):
    X = np.random.default_rng(0).random((30, 2))
    y = X[:, 0] + X[:, 1]
    model = regressor(random_state=0)
    as_text = model.fit(X, y.astype(str)).predict(X)
    np.testing.assert_allclose(as_text, regressor(random_state=0).fit(X, y).predict(X))
