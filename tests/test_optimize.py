"""The shared L-BFGS-B driver and the kernel/bias parameter vector."""

import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from sparsegp._optimize import (
    ParameterSpace,
    bias_block,
    inputs_block,
    kernel_block,
    maximize,
)
from sparsegp.exceptions import NotPSDError


def test_maximize_finds_the_maximum_of_a_concave_function():
    target = np.array([0.3, -1.2])

    def objective(x):
        return -np.sum((x - target) ** 2), -2 * (x - target)

    result = maximize(objective, np.zeros(2), [(-5, 5), (-5, 5)])
    np.testing.assert_allclose(result.x, target, atol=1e-6)


def test_maximize_respects_bounds_and_restarts_never_hurt():
    def objective(x):  # two maxima; the better one at x = 3
        value = np.exp(-((x[0] + 2) ** 2)) + 2 * np.exp(-((x[0] - 3) ** 2))
        grad = -2 * (x[0] + 2) * np.exp(-((x[0] + 2) ** 2)) - 4 * (x[0] - 3) * np.exp(
            -((x[0] - 3) ** 2)
        )
        return value, np.array([grad])

    single = maximize(objective, np.array([-2.5]), [(-4, 4)])
    several = maximize(
        objective, np.array([-2.5]), [(-4, 4)], n_restarts=8, random_state=0
    )
    assert several.value >= single.value
    np.testing.assert_allclose(several.x, [3.0], atol=1e-4)
    assert several.n_starts == 9


def test_failed_evaluations_are_avoided_not_fatal():
    def objective(x):
        if x[0] > 1.0:
            raise NotPSDError("too far")
        return -((x[0] - 2) ** 2), np.array([-2 * (x[0] - 2)])

    result = maximize(objective, np.array([0.0]), [(-3, 3)])
    assert result.x[0] <= 1.0 + 1e-8


def test_parameter_space_round_trip():
    kernel = ConstantKernel(2.0) * RBF(0.5)
    Z = np.arange(6.0).reshape(3, 2)
    space = ParameterSpace(
        [kernel_block(kernel), bias_block((-3, 3)), None, inputs_block(Z)]
    )
    x = space.pack({"theta": kernel.theta, "bias": 0.7, "inducing": Z, "other": 1})
    np.testing.assert_allclose(x[:3], [np.log(2.0), np.log(0.5), 0.7])
    values = space.unpack(x + 0.1)
    assert np.isclose(values["bias"], 0.8) and isinstance(values["bias"], float)
    np.testing.assert_allclose(values["theta"], kernel.theta + 0.1)
    np.testing.assert_allclose(values["inducing"], Z + 0.1)
    assert len(space) == 9 and space.bounds().shape == (9, 2)
    np.testing.assert_array_equal(space.bounds()[2], [-3, 3])
    assert "bias" in space and "log_slope" not in space
    fixed = ParameterSpace([kernel_block(ConstantKernel(1.0, "fixed"))])
    assert len(fixed) == 0 and fixed.bounds().shape == (0, 2)
    assert fixed.pack({"theta": np.zeros(0)}).shape == (0,)


def test_progress_bar_reports_iterations_and_changes_nothing(capsys):
    def objective(x):
        return -np.sum((x - 2.0) ** 2), -2.0 * (x - 2.0)

    quiet = maximize(objective, np.zeros(2), [(-5, 5), (-5, 5)])
    shown = maximize(objective, np.zeros(2), [(-5, 5), (-5, 5)], progress="test fit")
    np.testing.assert_array_equal(quiet.x, shown.x)
    assert "test fit" in capsys.readouterr().err
