"""The one-vs-rest helpers shared by the classifiers (``sparsegp.estimators._base``)."""

import numpy as np

from sparsegp.estimators._base import one_vs_rest, per_problem, positive_classes


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
