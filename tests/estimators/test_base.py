"""The one-vs-rest helpers shared by the classifiers (``sparsegp.estimators._base``)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

from sparsegp import FITCGPClassifier, IVMRegressor
from sparsegp.estimators._base import (
    offset_names,
    one_vs_rest,
    per_problem,
    positive_classes,
    warn_at_bounds,
)


def test_two_classes_are_one_problem_with_the_second_class_positive():
    classes = np.array(["a", "b"])
    y = np.array(["b", "a", "b"])
    assert list(positive_classes(classes)) == ["b"]
    (labels,) = list(one_vs_rest(classes, y))
    np.testing.assert_array_equal(labels, [1.0, -1.0, 1.0])


def test_more_classes_are_one_problem_per_class():
    classes = np.array([0, 1, 2])
    y = np.array([2, 0, 1, 2])
    problems = list(one_vs_rest(classes, y))
    assert len(problems) == 3
    np.testing.assert_array_equal(problems[2], [1.0, -1.0, -1.0, 1.0])
    np.testing.assert_array_equal(sum(problems), [-1.0, -1.0, -1.0, -1.0])


def test_per_problem_unwraps_one_value_and_lists_or_stacks_several():
    assert per_problem(iter([3])) == 3
    assert per_problem([np.arange(2), np.arange(3)])[1].shape == (3,)
    stacked = per_problem([1.5, 2.5], stack=True)
    assert isinstance(stacked, np.ndarray)
    np.testing.assert_array_equal(stacked, [1.5, 2.5])


def test_offsets_are_the_constant_terms_of_the_top_level_sum():
    kernel = ConstantKernel() * RBF() + ConstantKernel() + WhiteKernel()
    assert offset_names(kernel) == {"k1__k2__constant_value"}
    assert offset_names(ConstantKernel() * RBF()) == set()


def test_an_offset_the_data_do_not_need_is_no_warning_but_a_separable_amplitude_is():
    kernel = ConstantKernel(1e5, (1e-5, 1e5)) * RBF(1.0) + ConstantKernel(
        1e-5, (1e-5, 1e5)
    )
    with pytest.warns(ConvergenceWarning) as caught:
        warn_at_bounds(kernel, FITCGPClassifier())
    (warning,) = caught  # the amplitude's, not the offset's
    assert "k1__k1__constant_value ended on its upper bound" in str(warning.message)
    assert "separable" in str(warning.message)
    regression = ConstantKernel(1.0) * RBF(1.0) + WhiteKernel(1e-5, (1e-5, 1.0))
    with pytest.warns(ConvergenceWarning, match="noise-free"):
        warn_at_bounds(regression, IVMRegressor())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_at_bounds(
            ConstantKernel(1.0) * RBF(1.0) + ConstantKernel(1e-5), IVMRegressor()
        )


def test_a_bound_warning_names_the_one_vs_rest_problem():
    kernel = ConstantKernel(1.0) * RBF(1e5, (1e-5, 1e5))
    with pytest.warns(ConvergenceWarning, match=r"\(class 'b' against the rest\): the"):
        warn_at_bounds(kernel, FITCGPClassifier(), "class 'b' against the rest")


def test_an_offset_on_its_upper_bound_is_not_called_separable():
    kernel = ConstantKernel(1.0) * RBF(1.0) + ConstantKernel(1e5, (1e-5, 1e5))
    with pytest.warns(ConvergenceWarning) as caught:
        warn_at_bounds(kernel, FITCGPClassifier())
    (warning,) = caught
    assert "k2__constant_value ended on its upper bound" in str(warning.message)
    assert "separable" not in str(warning.message)
