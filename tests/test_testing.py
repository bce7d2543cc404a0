"""The package's own checks catch what they are for."""

import numpy as np
import pytest
from sklearn.datasets import make_moons

from sparsegp import IVMClassifier
from sparsegp.testing import (
    assert_gradient_matches,
    assert_latent_close,
    central_gradient,
    check_fitted_outputs,
)


def test_central_gradient_is_second_order():
    f = lambda x: np.sin(x[0]) * x[1] ** 3  # noqa: E731
    x = np.array([0.4, 1.3])
    exact = [np.cos(0.4) * 1.3**3, 3 * np.sin(0.4) * 1.3**2]
    np.testing.assert_allclose(central_gradient(f, x, 1e-4), exact, rtol=1e-8)


def test_a_wrong_gradient_fails_the_check():
    f = lambda x: float(x @ x)  # noqa: E731
    x = np.array([1.0, -2.0])
    assert_gradient_matches(f, 2 * x, x)
    with pytest.raises(AssertionError):
        assert_gradient_matches(f, 2 * x + [0.0, 1e-3], x)


def test_latent_and_output_checks_pass_and_fail_as_they_should(monkeypatch):
    X, y = make_moons(60, noise=0.2, random_state=0)
    model = IVMClassifier(random_state=0).fit(X, y)
    check_fitted_outputs(model, X)
    assert_latent_close(model, model, X)
    other = IVMClassifier(active_set_size=5, random_state=1).fit(X, y)
    with pytest.raises(AssertionError):
        assert_latent_close(model, other, X)
    monkeypatch.setattr(
        model, "predict", lambda X: model.classes_[np.zeros(len(X), int)]
    )
    with pytest.raises(AssertionError):
        check_fitted_outputs(model, X)
