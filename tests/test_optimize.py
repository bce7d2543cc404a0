"""The shared L-BFGS-B driver and the kernel/bias parameter vector."""

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from sparsegp._optimize import (
    ParameterSpace,
    bias_block,
    inputs_block,
    kernel_block,
    maximize,
    slope_block,
)
from sparsegp.exceptions import NotPSDError
from sparsegp.testing import assert_gradient_matches


def test_maximize_finds_the_maximum_of_a_concave_function():
    target = np.array([0.3, -1.2])

    def objective(x):
        return -np.sum((x - target) ** 2), -2 * (x - target)

    result = maximize(objective, np.zeros(2), [(-5, 5), (-5, 5)])
    np.testing.assert_allclose(result.x, target, atol=1e-6)


def test_start_value_is_the_objective_at_the_start_within_the_bounds():
    """What an optimisation gained, ``value - start_value``, without evaluating the
    start again: L-BFGS-B's first evaluation, at ``x0`` clipped to the bounds."""
    target = np.array([0.3, -1.2])

    def objective(x):
        return -np.sum((x - target) ** 2), -2 * (x - target)

    for x0 in (np.zeros(2), np.array([9.0, 0.0])):  # the second outside the bounds
        result = maximize(objective, x0, [(-5, 5), (-5, 5)], n_restarts=2)
        start = np.clip(x0, -5, 5)
        assert result.start_value == objective(start)[0]
        assert result.value > result.start_value


def test_random_restarts_keep_an_unbounded_entry_at_its_start():
    evaluated = []

    def objective(x):
        evaluated.append(x.copy())
        return -np.sum((x - 1.0) ** 2), -2 * (x - 1.0)

    bounds = [(-5.0, 5.0), (-np.inf, np.inf)]
    maximize(objective, np.array([0.0, 0.5]), bounds, n_restarts=3, random_state=0)
    starts = np.array(evaluated)
    assert np.all(np.isfinite(starts))
    # each run's first evaluation is its start: the bounded entry drawn, the other x0's
    assert np.sum((starts[:, 1] == 0.5) & (starts[:, 0] != 0.0)) >= 3


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
        [kernel_block(kernel), bias_block((-3, 3)), None, inputs_block(Z, unit=2.0)]
    )
    x = space.pack({"kernel": kernel, "bias": 0.7, "inducing": Z, "other": 1})
    np.testing.assert_allclose(x[:3], [np.log(2.0), np.log(0.5), 0.7])
    np.testing.assert_allclose(x[3:], Z.ravel() / 2.0)
    values = space.unpack(x + 0.1)
    assert np.isclose(values["bias"], 0.8) and isinstance(values["bias"], float)
    np.testing.assert_allclose(values["kernel"].theta, kernel.theta + 0.1)
    assert isinstance(values["kernel"], type(kernel))
    np.testing.assert_allclose(values["inducing"], Z + 0.2)
    assert len(space) == 9 and space.bounds().shape == (9, 2)
    np.testing.assert_array_equal(space.bounds()[2], [-3, 3])
    assert "bias" in space and "slope" not in space
    fixed = ParameterSpace([kernel_block(ConstantKernel(1.0, "fixed"))])
    assert len(fixed) == 0 and fixed.bounds().shape == (0, 2)
    assert fixed.pack({"kernel": ConstantKernel(1.0, "fixed")}).shape == (0,)


def test_each_block_applies_its_own_chain_rule():
    """``f(v) = Σ c·v`` over a slope held as its log and inputs held in units of 3:
    the packed gradient is the finite-difference gradient in the vector."""
    space = ParameterSpace([slope_block((-5, 5)), inputs_block(np.zeros(2), unit=3.0)])
    weights = {"slope": 1.7, "inducing": np.array([0.5, -2.0])}

    def objective(x):
        values = space.unpack(x)
        value = (
            weights["slope"] * values["slope"]
            + weights["inducing"] @ values["inducing"]
        )
        return value, space.pack_gradient(values, weights)

    x = space.pack({"slope": 0.8, "inducing": np.array([1.0, 2.0])})
    assert space.unpack(x)["slope"] == pytest.approx(0.8)
    assert_gradient_matches(lambda x: objective(x)[0], objective(x)[1], x)


def test_progress_bar_reports_iterations_and_changes_nothing(capsys):
    def objective(x):
        return -np.sum((x - 2.0) ** 2), -2.0 * (x - 2.0)

    quiet = maximize(objective, np.zeros(2), [(-5, 5), (-5, 5)])
    shown = maximize(objective, np.zeros(2), [(-5, 5), (-5, 5)], progress="test fit")
    np.testing.assert_array_equal(quiet.x, shown.x)
    assert "test fit" in capsys.readouterr().err


def test_a_quiet_trial_point_leaves_other_threads_their_warnings():
    """The optimizer's trial points add jitter without a warning in their own thread
    only: a fit on another thread still warns, and the process's warning filters are
    left as they were (``warnings.catch_warnings`` on two threads at once left an
    "ignore" behind)."""
    import threading
    import warnings

    from sparsegp._linalg import cholesky_jitter
    from sparsegp.exceptions import NumericalWarning

    singular, inside, go_on = np.ones((2, 2)), threading.Event(), threading.Event()

    def objective(x):
        inside.set()
        assert go_on.wait(5)
        cholesky_jitter(singular)  # quiet here
        return -float(x @ x), -2.0 * x

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        filters = list(warnings.filters)
        other = threading.Thread(
            target=maximize, args=(objective, np.ones(1), [(-1.0, 1.0)]), daemon=True
        )
        other.start()
        assert inside.wait(5)
        cholesky_jitter(singular)  # while the other thread is inside the objective
        go_on.set()
        other.join(5)
        assert warnings.filters == filters
    assert [w.category for w in caught] == [NumericalWarning]
