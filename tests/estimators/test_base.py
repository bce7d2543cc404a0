"""The one-vs-rest helpers shared by the classifiers (``sparsegp.estimators._base``)."""

import warnings

import numpy as np
import pytest
from scipy.special import ndtr
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

from sparsegp import FITCGPClassifier, IVMRegressor
from sparsegp.estimators._base import (
    FittedModel,
    one_vs_rest,
    per_problem,
    positive_classes,
    warn_at_bounds,
)
from sparsegp.kernels import offset_names
from sparsegp.methods.ard import ard_if_it_pays


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
    assert "Narrow its prior (amplitude_prior < 3.0)" in str(warning.message)
    with pytest.warns(ConvergenceWarning, match=r"Put a prior on it"):
        warn_at_bounds(kernel, FITCGPClassifier(amplitude_prior=None))
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


def _three_classes(n=90, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    noisy = X[:, 0] + 0.5 * rng.standard_normal(n)  # overlapping classes
    return X, np.digitize(noisy, [-0.5, 0.5])


def test_one_vs_rest_probabilities_combine_by_the_leave_one_out_odds_weight():
    from sparsegp.approximations.one_vs_rest import class_log_probabilities

    X, y = _three_classes()
    clf = FITCGPClassifier(n_inducing=5, n_restarts_optimizer=0).fit(X, y)
    assert 0.0 <= clf.odds_weight_ <= 1.0
    expected = np.exp(
        class_log_probabilities(clf.decision_function(X), clf.odds_weight_)
    )
    np.testing.assert_allclose(clf.predict_proba(X), expected)
    # the training latents' cavities served the fit and are not kept
    assert all(m.leave_one_out is None for m in clf.estimators_)


def test_a_binary_model_or_one_without_held_out_latents_normalises_the_probabilities():
    from sparsegp import SparseOnlineGPClassifier

    X, y = _three_classes()
    binary = FITCGPClassifier(n_inducing=5, n_restarts_optimizer=0).fit(X, y > 0)
    assert binary.odds_weight_ == 0.0
    # two passes: the second pass's predictions have seen their examples (and the
    # online posterior: no EP cavities)
    online = SparseOnlineGPClassifier(
        max_basis_vectors=10, n_passes=2, posterior="online", random_state=0
    )
    online.fit(X, y)
    assert online.odds_weight_ == 0.0
    phi = ndtr(online.decision_function(X))
    np.testing.assert_allclose(
        online.predict_proba(X), phi / phi.sum(axis=1, keepdims=True)
    )
    streamed = SparseOnlineGPClassifier(max_basis_vectors=10, random_state=0)
    assert streamed.partial_fit(X, y, classes=[0, 1, 2]).odds_weight_ == 0.0


def test_one_online_pass_fits_the_weight_on_its_predictions_before_absorbing():
    from sparsegp import SparseOnlineGPClassifier

    X, y = _three_classes()
    online = SparseOnlineGPClassifier(
        max_basis_vectors=10, posterior="online", random_state=0
    ).fit(X, y)
    assert 0.0 < online.odds_weight_ <= 1.0


def test_a_fits_warnings_point_at_the_line_that_called_fit():
    """Every warning a fit gives is attributed to the user's call of ``fit``
    (``exceptions.warn_at_caller``), however deep in the package it arises: the RVM's
    EM inside its approximation, full EP's optimizer cap, a default kernel's feature
    scales."""
    from sparsegp import EPGPClassifier, RVMClassifier
    from sparsegp.datasets import make_xor_clusters
    from sparsegp.exceptions import FeatureScaleWarning

    X, y = make_xor_clusters(60, random_state=0)
    noise = np.random.default_rng(0).standard_normal((60, 10))
    wide = np.column_stack([1e4 * X[:, 0], noise])  # one wide feature decides
    with pytest.warns(Warning) as record:
        RVMClassifier(max_iter=1).fit(X, y)
        EPGPClassifier(max_iter_optimizer=1).fit(X, y)
        IVMRegressor(active_set_size=8).fit(wide, X[:, 0])
    categories = {w.category for w in record}
    assert {ConvergenceWarning, FeatureScaleWarning} <= categories
    assert {w.filename for w in record} == {__file__}


def test_warnings_of_one_vs_rest_fits_in_worker_processes_reach_the_caller():
    """With ``n_jobs`` the one-vs-rest problems fit in joblib's worker processes, which
    print their warnings where no one catches them: each is given again in the
    caller's process, at its call of ``fit``."""
    from sklearn.datasets import make_classification

    from sparsegp import RVMClassifier

    X, y = make_classification(
        150, n_features=4, n_informative=3, n_redundant=0, n_classes=3, random_state=0
    )
    with pytest.warns(ConvergenceWarning, match="RVM EM did not converge") as record:
        RVMClassifier(max_iter=1, n_jobs=2).fit(X, y)
    assert len(record) == 3
    assert {w.filename for w in record} == {__file__}


def _model_with_evidence(log_evidence, kernel=None):
    kernel = ConstantKernel(1.0) * RBF(1.0) if kernel is None else kernel
    return FittedModel(kernel, None, np.zeros((1, 3)), None, log_evidence)


@pytest.mark.parametrize(
    ("screen_gain", "whole_gain", "kept"),
    [(1.5, None, False), (2.5, 4.0, True), (2.5, 1.0, False)],
    ids=["screened-out", "kept", "whole-fit-below-the-penalty"],
)
@pytest.mark.parametrize("on_rows", [False, True], ids=["every-row", "subsample"])
def test_ard_auto_screens_from_the_isotropic_optimum_before_a_whole_fit(
    screen_gain, whole_gain, kept, on_rows
):
    """``ard="auto"`` on three features of one spread (a penalty of 2 nats): the
    screen starts at the fitted isotropic model with its kernel made ARD, its gain
    over the isotropic kernel's evidence on the same rows (on a subsample −40, not
    the fitted model's −100); the whole fit runs only where the screen's gain beats
    the penalty, is given the screen, and is kept only where its own gain over the
    isotropic model does."""
    isotropic = _model_with_evidence(-100.0)
    baseline = -40.0 if on_rows else -100.0
    screened, whole = [], []

    def screen(kernel, start, stage):
        screened.append((kernel, start, stage))
        gain = screen_gain if stage == "screen" else 0.0
        return _model_with_evidence(baseline + gain, kernel)

    def whole_ard_fit(best_screen):
        whole.append(best_screen)
        return _model_with_evidence(-100.0 + whole_gain)

    chosen, fits = ard_if_it_pays(
        isotropic, screen, whole_ard_fit, np.ones(3), subsample=on_rows
    )
    stages = [stage for _, _, stage in screened]
    assert stages == (["evaluate", "screen"] if on_rows else ["screen"])
    kernel, start, _ = screened[-1]
    assert start is isotropic
    np.testing.assert_array_equal(kernel.k2.length_scale, [1.0, 1.0, 1.0])
    assert len(whole) == (whole_gain is not None)
    if whole:
        assert whole[0] is fits[-2]  # the screen
    assert len(fits) == on_rows + 1 + (whole_gain is not None)
    assert chosen.details["ard"] == kept
    assert chosen.log_marginal_likelihood == (-96.0 if kept else -100.0)
    gain = screen_gain if whole_gain is None else whole_gain
    assert chosen.details["ard_evidence_gain"] == pytest.approx(gain)


@pytest.mark.parametrize("standardised_better", [True, False])
def test_ard_screens_from_standardised_features_too_where_their_evidence_is_higher(
    standardised_better,
):
    """Features of spreads 1, 100 and 0 (constant): the start on standardised
    features (length-scales 2·s_d/s̄, the constant feature's kept) is evaluated at
    the isotropic model's other parameters and, where its evidence is above the
    isotropic optimum's, screened beside the same function; the whole fit is given
    the screen of higher evidence."""
    isotropic = _model_with_evidence(-100.0, ConstantKernel(1.0) * RBF(2.0))
    calls, given = [], []
    screened = {False: -97.0, True: -96.0} if standardised_better else {}

    def screen(kernel, start, stage):
        calls.append((kernel.k2.length_scale.copy(), stage))
        by_spread = not np.allclose(kernel.k2.length_scale, 2.0)
        if stage == "evaluate":
            evidence = -99.0 if standardised_better else -101.0
        else:
            evidence = screened.get(by_spread, -97.0)
        return _model_with_evidence(evidence, kernel)

    def whole_ard_fit(best_screen):
        given.append(best_screen.kernel.k2.length_scale.copy())
        return _model_with_evidence(-90.0, best_screen.kernel)

    chosen, _ = ard_if_it_pays(
        isotropic, screen, whole_ard_fit, np.array([1.0, 100, 0]), subsample=False
    )
    common = np.sqrt((1.0 + 100.0**2) / 2)
    standardised = [2 / common, 200 / common, 2.0]
    np.testing.assert_allclose(calls[0][0], standardised)
    stages = [stage for _, stage in calls]
    if standardised_better:
        assert stages == ["evaluate", "screen", "screen"]
        np.testing.assert_allclose(calls[1][0], standardised)
        np.testing.assert_allclose(calls[2][0], [2.0, 2.0, 2.0])
        np.testing.assert_allclose(given[0], standardised)  # the higher screen
    else:
        assert stages == ["evaluate", "screen"]
        np.testing.assert_allclose(given[0], [2.0, 2.0, 2.0])
    assert chosen.details["ard"]
    assert chosen.log_marginal_likelihood == -90.0


def test_a_standardised_start_the_criterion_cannot_evaluate_is_no_start():
    """A criterion that fails at the second start (a factorisation refused) leaves
    the same function's start alone, as where no feature is narrow."""
    from sparsegp.exceptions import NotPSDError
    from sparsegp.methods.ard import ard_starts

    def criterion(kernel):
        if not np.allclose(kernel.k2.length_scale, 2.0):
            raise NotPSDError("K")
        return -100.0

    kernel = ConstantKernel(1.0) * RBF(2.0)
    ((start, excess),) = ard_starts(kernel, np.array([1.0, 100.0, 0.0]), criterion)
    np.testing.assert_array_equal(start.k2.length_scale, [2.0, 2.0, 2.0])
    assert excess == 0.0


def test_a_feature_switched_off_by_ard_is_not_a_bound_to_warn_of():
    """A length-scale per feature on its upper bound while others are not: the
    evidence switching an irrelevant feature off, no warning; all of them there (the
    isotropic kernel's case) still warns."""
    some = ConstantKernel(1.0) * RBF([1.0, 1e5, 2.0], (1e-5, 1e5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_at_bounds(some, FITCGPClassifier())
    every = ConstantKernel(1.0) * RBF([1e5, 1e5], (1e-5, 1e5))
    with pytest.warns(ConvergenceWarning, match="k2__length_scale ended on its upper"):
        warn_at_bounds(every, FITCGPClassifier())
    lower = ConstantKernel(1.0) * RBF([1e-5, 2.0], (1e-5, 1e5))
    with pytest.warns(ConvergenceWarning, match="length_scale ended on its lower"):
        warn_at_bounds(lower, FITCGPClassifier())
