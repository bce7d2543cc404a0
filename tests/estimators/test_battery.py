"""Reliability battery: every public estimator on generated data, valid and invalid.

Valid data of random shape, scale (1e-6 … 1e6, per feature too), with duplicates,
near-duplicates, ties, imbalance, constant and integer features, float32, lists,
DataFrames and sparse matrices: outputs are finite, probabilities sum to one,
``predict`` agrees with ``predict_proba``, a second fit with the same ``random_state``
predicts the same, and a pickled model predicts identically. Invalid input raises
``ValueError``/``TypeError`` whose message names the problem.

The cases are drawn by hypothesis. The ``ci`` profile (the default, registered in
``conftest.py``) replays a fixed derandomised sample; ``--hypothesis-profile=explore``
draws many more at random.
"""

import warnings
from functools import cache, partial

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from sklearn.base import clone, is_classifier
from sklearn.datasets import make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import RBF, DotProduct

import sparsegp
from sparsegp import _memory
from sparsegp.datasets import make_xor_clusters
from sparsegp.testing import check_fitted_outputs
from sparsegp.testing import prediction_outputs as outputs

ESTIMATORS = [getattr(sparsegp, name) for name in sparsegp.__all__]
REGRESSORS = [e for e in ESTIMATORS if not is_classifier(e())]
CONTAINERS = ["ndarray", "float32", "list", "DataFrame", "csr"]


@st.composite
def datasets(draw, classification):
    """``(X, y, description)``: inputs in a random container and targets."""
    n = draw(st.integers(12, 50))  # FITC's default 10 pseudo-inputs need n ≥ 10
    d = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.standard_normal((n, d))
    features = draw(st.sampled_from(["plain", "integer", "ties", "constant"]))
    if features == "integer":
        X = np.round(3 * X)
    elif features == "ties":
        X = np.round(X, 1)
    elif features == "constant":
        X[:, rng.integers(d)] = 7.0
    rows = draw(st.sampled_from(["distinct", "duplicates", "near-duplicates"]))
    if rows != "distinct":
        copies = rng.integers(n, size=n // 3)
        X[: n // 3] = X[copies]
        if rows == "near-duplicates":
            X[: n // 3] *= 1 + 1e-10 * rng.standard_normal((n // 3, d))
    log_scale = draw(st.floats(-6, 6))
    if draw(st.booleans()):  # one scale per feature
        X *= 10.0 ** (log_scale + rng.uniform(-2, 2, size=d)).clip(-6, 6)
    else:
        X *= 10.0**log_scale
    y = classes(draw, rng, X) if classification else targets(draw, rng, X)
    container = draw(st.sampled_from(CONTAINERS))
    return in_container(X, container), y, f"{features}/{rows}/{container}"


def classes(draw, rng, X):
    """Labels of two or three classes, some imbalanced, with a few flipped."""
    n = len(X)
    n_classes = draw(st.sampled_from([2, 2, 3]))
    minority = draw(st.floats(0.1, 0.5))
    score = X[:, 0] / (np.std(X[:, 0]) or 1.0) + 0.5 * rng.standard_normal(n)
    cuts = np.quantile(score, np.linspace(minority, 1 - minority, n_classes - 1))
    codes = np.searchsorted(cuts, score)
    for c in range(n_classes):  # at least two examples of every class
        if np.sum(codes == c) < 2:
            codes[rng.choice(n, size=2, replace=False)] = c
    codes = codes if len(np.unique(codes)) == n_classes else np.arange(n) % n_classes
    names = draw(st.sampled_from(["int", "str", "pm1"]))
    if names == "str":
        return np.array(["cat", "dog", "emu"])[codes]
    return codes * 2 - 1 if names == "pm1" and n_classes == 2 else codes


def targets(draw, rng, X):
    """Smooth targets with noise, at a random scale and offset."""
    spread = np.ptp(X, axis=0)
    z = X / np.where(spread > 1e-9 * np.max(np.abs(X), axis=0), spread, 1.0)
    f = np.sin(z[:, 0]) + 0.5 * z[:, -1] + 0.1 * rng.standard_normal(len(X))
    return 10.0 ** draw(st.floats(-3, 3)) * f + draw(st.floats(-1e3, 1e3))


def in_container(X, container):
    if container == "float32":
        return X.astype(np.float32)
    if container == "list":
        return X.tolist()
    if container == "DataFrame":
        return pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    if container == "csr":
        return csr_matrix(X)
    return X


BATTERY = settings(
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    deadline=None,
)


def quietly_fitted(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bound and convergence warnings are expected
        return estimator.fit(X, y)


def check_valid_fit(estimator_class, X, y):
    model = quietly_fitted(estimator_class(random_state=0), X, y)
    got = check_fitted_outputs(model, X)
    if is_classifier(model):
        assert got[0].shape == (len(y), len(np.unique(y)))
    again = quietly_fitted(clone(model), X, y)
    for first, second in zip(got, outputs(again, X), strict=True):
        np.testing.assert_array_equal(first, second)


@pytest.mark.parametrize("estimator_class", ESTIMATORS, ids=lambda e: e.__name__)
@BATTERY
@given(data=st.data())
def test_estimator_on_valid_data(estimator_class, data):
    X, y, _ = data.draw(datasets(classification=is_classifier(estimator_class())))
    check_valid_fit(estimator_class, X, y)


#: Classifiers that fit all classes in one model, by name.
MULTICLASS_MODELS = {
    "FITC-multinomial": partial(sparsegp.FITCGPClassifier, multi_class="multinomial"),
    "FITC-multinomial-per-class": partial(
        sparsegp.FITCGPClassifier, multi_class="multinomial", shared_prior=False
    ),
}


@st.composite
def many_classes(draw):
    """``(X, y)``: 3-10 classes, string or integer labels, one class of two points."""
    X, _, _ = draw(datasets(classification=True))
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
    n = len(X)
    n_classes = draw(st.integers(3, min(10, n // 4)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    codes = np.arange(n) % (n_classes - 1)
    rng.shuffle(codes)
    codes[rng.choice(n, size=2, replace=False)] = n_classes - 1  # the rare class
    if draw(st.booleans()):
        return X, np.array([f"class {c}" for c in range(n_classes)])[codes]
    return X, codes


@pytest.mark.parametrize(
    "estimator_class", MULTICLASS_MODELS.values(), ids=MULTICLASS_MODELS.keys()
)
@BATTERY
@given(data=st.data())
def test_multiclass_model_on_valid_data(estimator_class, data):
    X, y = data.draw(many_classes())
    check_valid_fit(estimator_class, X, y)


def toy_problem(estimator_class):
    """30 valid points in 2-D with targets the estimator takes."""
    X = np.random.default_rng(0).standard_normal((30, 2))
    return X, np.arange(30) % 2 if is_classifier(estimator_class()) else X[:, 0]


def invalid_inputs(estimator_class):
    """``(name, X, y, message)``: training data the estimator must refuse."""
    X, y = toy_problem(estimator_class)
    with_nan, with_inf = X.copy(), X.copy()
    with_nan[3, 1], with_inf[3, 1] = np.nan, np.inf
    nan_labels = y.astype(float)
    nan_labels[4] = np.nan
    cases = [
        ("NaN in X", with_nan, y, "Input X contains NaN"),
        ("inf in X", with_inf, y, "Input X contains infinity"),
        ("empty", X[:0], y[:0], "0 sample"),
        ("mismatched lengths", X, y[:29], "inconsistent numbers of samples"),
        ("NaN label", X, nan_labels, "Input y contains NaN"),
        ("3-D X", X.reshape(30, 2, 1), y, "dim 3"),
        ("1-D X", X[:, 0], y, "Expected 2D array"),
        ("text in X", np.full((30, 2), "a"), y, "could not convert string"),
    ]
    if is_classifier(estimator_class()):
        cases.append(("one class", X, np.zeros(30), "at least two classes"))
    return cases


def invalid_cases():
    return list(_invalid_cases())


def _invalid_cases():
    for estimator_class in ESTIMATORS:
        for name, X, y, message in invalid_inputs(estimator_class):
            yield pytest.param(
                estimator_class, X, y, message, id=f"{estimator_class.__name__}-{name}"
            )


@pytest.mark.parametrize("estimator_class, X, y, message", invalid_cases())
def test_invalid_training_data_is_refused_by_name(estimator_class, X, y, message):
    with pytest.raises((ValueError, TypeError), match=message):
        estimator_class().fit(X, y)


#: Each estimator's size parameter and what it says when the size exceeds the data
#: (``None``: the online GPs keep every point when the cap is that large).
OVERSIZED = {
    sparsegp.IVMClassifier: ("active_set_size", "exceeds the 30 training points"),
    sparsegp.IVMRegressor: ("active_set_size", "exceeds the 30 training points"),
    sparsegp.FITCGPClassifier: ("n_inducing", "exceeds the 30 training points"),
    sparsegp.SparseGPRegressor: ("n_inducing", "exceeds the 30 training points"),
    sparsegp.NLPSparseGPClassifier: (
        "max_basis_vectors",
        "leaves no training point outside the basis",
    ),
    sparsegp.SparseOnlineGPClassifier: ("max_basis_vectors", None),
    sparsegp.SparseOnlineGPRegressor: ("max_basis_vectors", None),
}


def test_every_sized_estimator_is_in_the_size_tests():
    sized = {
        e
        for e in ESTIMATORS
        if e().get_params().keys()
        & {"active_set_size", "n_inducing", "max_basis_vectors"}
    }
    assert sized == set(OVERSIZED)


@pytest.mark.parametrize("estimator_class", list(OVERSIZED), ids=lambda e: e.__name__)
@pytest.mark.parametrize("value", [-1, 0, 2.5])
def test_negative_zero_or_fractional_sizes_name_the_parameter(estimator_class, value):
    X, y = toy_problem(estimator_class)
    name = OVERSIZED[estimator_class][0]
    with pytest.raises(ValueError, match=f"'{name}' parameter"):
        estimator_class(**{name: value}).fit(X, y)


@pytest.mark.parametrize("estimator_class", list(OVERSIZED), ids=lambda e: e.__name__)
def test_oversized_sizes_are_refused_by_name_or_capped(estimator_class):
    X, y = toy_problem(estimator_class)
    name, message = OVERSIZED[estimator_class]
    estimator = estimator_class(**{name: 10**6}, random_state=0)
    if message is None:
        assert np.all(np.isfinite(outputs(quietly_fitted(estimator, X, y), X)[0]))
    else:
        with pytest.raises(ValueError, match=f"{name}=1000000 {message}"):
            estimator.fit(X, y)


@pytest.mark.parametrize("estimator_class", ESTIMATORS, ids=lambda e: e.__name__)
def test_wrong_number_of_features_at_predict_is_named(estimator_class):
    X, y = toy_problem(estimator_class)
    model = quietly_fitted(estimator_class(random_state=0), X, y)
    with pytest.raises(ValueError, match="X has 1 features, but .* is expecting 2"):
        model.predict(X[:, :1])


def test_predict_agrees_with_predict_proba_when_the_score_rounds_to_a_tie(monkeypatch):
    """Φ(1e-17) is exactly ½ in float64: ``predict`` once took the sign of the score
    (class 1) while ``predict_proba`` tied (class 0). Found by the battery on a
    constant feature."""
    X, y = toy_problem(sparsegp.IVMClassifier)
    model = sparsegp.IVMClassifier(random_state=0).fit(X, y)
    monkeypatch.setattr(model, "decision_function", lambda X: np.full(len(X), 1e-17))
    proba = model.predict_proba(X)
    np.testing.assert_array_equal(
        model.predict(X), model.classes_[np.argmax(proba, axis=1)]
    )


def test_multiclass_probabilities_survive_underflow_of_every_class(monkeypatch):
    """Far from every class's data each one-vs-rest Φ(z) can underflow to 0; the
    normalisation is done in log space so the probabilities stay finite."""
    X, y = np.random.default_rng(0).standard_normal((30, 2)), np.arange(30) % 3
    model = sparsegp.IVMClassifier(random_state=0).fit(X, y)
    monkeypatch.setattr(
        model, "decision_function", lambda X: np.array([[-40.0, -45.0, -50.0]])
    )
    proba = model.predict_proba(X[:1])
    assert np.all(np.isfinite(proba)) and proba[0, 0] > 0.99


@pytest.mark.parametrize(
    "estimator, parameter",
    [
        (sparsegp.EPGPClassifier(), "sparse classifier"),
        (sparsegp.RVMClassifier(method="batch"), "method='ssem'"),
        (sparsegp.RVMRegressor(method="batch"), "method='ssem'"),
    ],
    ids=lambda e: type(e).__name__ if hasattr(e, "fit") else "",
)
def test_dense_methods_estimate_memory_before_allocating(
    monkeypatch, estimator, parameter
):
    """Full EP and the batch RVM hold n × n matrices: with too little memory they
    say so, naming what to change, instead of being killed mid-fit."""
    monkeypatch.setattr(_memory, "available_memory", lambda: 10**3)
    X, y = toy_problem(type(estimator))
    with pytest.raises(MemoryError, match=parameter):
        estimator.fit(X, y)


def noise_free_line(variant):
    """y = 2·x₀ + 0.1 on 60 points in 3-D, X as a user might hand it over."""
    X = np.random.default_rng(0).random((60, 3))
    if variant == "integer":
        X = np.round(10 * X)
    elif variant == "constant feature":
        X[:, 2] = 1.0
    elif variant == "near-duplicates":
        X[30:] = X[:30] * (1 + 1e-9)
    y = 2 * X[:, 0] + 0.1
    if variant == "DataFrame":
        return pd.DataFrame(X), y
    return (X.tolist(), y) if variant == "list of lists" else (X, y)


@pytest.mark.parametrize("regressor", REGRESSORS, ids=lambda e: e.__name__)
@pytest.mark.parametrize(
    "variant",
    [
        "plain",
        "integer",
        "constant feature",
        "near-duplicates",
        "DataFrame",
        "list of lists",
    ],
)
def test_noise_free_targets_give_finite_accurate_predictions(regressor, variant):
    """The noise level runs to its lower bound and the amplitude to its upper one on
    noise-free data; predictions once turned to NaN there without a warning."""
    X, y = noise_free_line(variant)
    model = quietly_fitted(regressor(random_state=0), X, y)
    mean, std = model.predict(X, return_std=True)
    assert np.all(np.isfinite(mean)) and np.all(np.isfinite(std)) and np.all(std >= 0)
    assert np.sqrt(np.mean((mean - y) ** 2)) < 0.05 * np.std(y)


@pytest.mark.parametrize("regressor", REGRESSORS, ids=lambda e: e.__name__)
@pytest.mark.parametrize("level", [0.0, 1.0, -3e5])
def test_constant_targets_are_predicted(regressor, level):
    """Constant targets normalise to zeros: the RVM's noise started at 0.01·var(t) = 0
    and its floor was relative to tᵀt = 0, so A + ΨᵀΩΨ was infinite."""
    X = np.random.default_rng(0).standard_normal((20, 2))
    model = quietly_fitted(regressor(random_state=0), X, np.full(20, level))
    mean, std = model.predict(X, return_std=True)
    np.testing.assert_allclose(mean, level, atol=1e-6)
    assert np.all(np.isfinite(std))


@pytest.mark.parametrize("regressor", REGRESSORS, ids=lambda e: e.__name__)
def test_targets_whose_variance_overflows_are_refused_by_name(regressor):
    X = np.random.default_rng(0).standard_normal((20, 2))
    spread = np.linspace(-1.0, 1.0, 20)
    for y in (1e300 * spread, 1e-300 * spread):
        with pytest.raises(ValueError, match="variance .*over- or underflows float64"):
            regressor().fit(X, y)
    for scale in (1e100, 1e-100):  # near the edges of what is accepted: fitted
        model = quietly_fitted(
            regressor(random_state=0), X, scale * np.sin(3 * X[:, 0])
        )
        assert np.all(np.isfinite(model.predict(X)))


@pytest.mark.parametrize("regressor", REGRESSORS, ids=lambda e: e.__name__)
def test_constant_targets_of_any_size_are_predicted(regressor):
    X = np.random.default_rng(0).standard_normal((20, 2))
    model = quietly_fitted(regressor(random_state=0), X, np.full(20, 1e300))
    np.testing.assert_allclose(model.predict(X), 1e300)


CLASSIFIER_TYPES = [
    sparsegp.EPGPClassifier,
    sparsegp.FITCGPClassifier,
    sparsegp.IVMClassifier,
    sparsegp.NLPSparseGPClassifier,
    sparsegp.SparseOnlineGPClassifier,
    sparsegp.RVMClassifier,
]


@pytest.mark.parametrize("scale", [1e150, 1e-150, 2.0**600, 1e-300])
@pytest.mark.parametrize("classifier", CLASSIFIER_TYPES, ids=lambda e: e.__name__)
def test_inputs_of_extreme_magnitude_give_the_model_at_scale_one(classifier, scale):
    """X is rescaled by a power of two (exact) before any kernel sees it: the model is
    the one at scale 1 as far as the method is scale-invariant (FITC's float32 sweeps
    round differently at other scales, and its 20 L-BFGS-B steps carry that into its
    probabilities: by 1.7e-5 here)."""
    X, y = make_xor_clusters(60, random_state=1)
    at_one = quietly_fitted(classifier(random_state=0), X, y)
    scaled = quietly_fitted(classifier(random_state=0), scale * X, y)
    assert scaled.score(scale * X, y) == at_one.score(X, y)
    tolerance = 1e-3 if classifier is sparsegp.FITCGPClassifier else 1e-9
    np.testing.assert_allclose(
        scaled.predict_proba(scale * X), at_one.predict_proba(X), atol=tolerance
    )


@pytest.mark.parametrize("scale", [1e150, 1e-300])
def test_fitc_sweeping_in_float64_gives_the_model_at_scale_one(scale):
    """What moves FITC's model between scales is its float32 sweeps' rounding
    (algorithms.md §5.3): sweeping in float64 it is the model at scale 1."""
    X, y = make_xor_clusters(60, random_state=1)
    fits = [
        quietly_fitted(
            sparsegp.FITCGPClassifier(sweep_dtype="float64", random_state=0), s * X, y
        ).predict_proba(s * X)
        for s in (1.0, scale)
    ]
    np.testing.assert_allclose(fits[1], fits[0], atol=1e-9)


@cache
def _training_accuracy_at_scale_one(classifier):
    X, y = make_xor_clusters(60, random_state=1)
    return quietly_fitted(classifier(random_state=0), X, y).score(X, y)


@pytest.mark.parametrize("classifier", CLASSIFIER_TYPES, ids=lambda e: e.__name__)
@settings(BATTERY, max_examples=6)
@given(
    exponent=st.floats(-305.0, 305.0),
    sign=st.sampled_from([1.0, -1.0]),
)
def test_any_finite_scale_gives_the_accuracy_at_scale_one(classifier, exponent, sign):
    """X × ±10^e for e anywhere in float64's normal range (subnormal inputs lose bits
    no rescaling restores): the training accuracy of the model at scale 1 — to one
    point for FITC, whose L-BFGS-B path through 2·M pseudo-input coordinates differs
    by rounding between scales that are not powers of two."""
    X, y = make_xor_clusters(60, random_state=1)
    scaled = sign * 10.0**exponent * X
    model = quietly_fitted(classifier(random_state=0), scaled, y)
    points = 1 if classifier is sparsegp.FITCGPClassifier else 0
    at_one = _training_accuracy_at_scale_one(classifier)
    assert abs(model.score(scaled, y) - at_one) <= points / len(y) + 1e-12
    assert np.all(np.isfinite(model.predict_proba(scaled)))


@pytest.mark.parametrize("classifier", CLASSIFIER_TYPES, ids=lambda e: e.__name__)
@settings(BATTERY, max_examples=6)
@given(exponent=st.floats(0.0, 17.0), sign=st.sampled_from([1.0, -1.0]))
def test_any_offset_gives_the_accuracy_at_zero_or_is_refused(
    classifier, exponent, sign
):
    """X + ±10^e (a timestamp, a distant origin): the squared distances' cancellation
    once sent FITC to chance at 10⁸ and every method at 10¹²; the offset is now taken
    off first, and where it has already rounded the values away (10¹⁵ on inputs of
    range 6) the fit says so."""
    X, y = make_xor_clusters(60, random_state=1)
    shifted = X + sign * 10.0**exponent
    try:
        model = quietly_fitted(classifier(random_state=0), shifted, y)
    except ValueError as error:
        assert "Subtract" in str(error) and "where the data are made" in str(error)
        assert exponent > 14.0
        return
    # one point of 60 for FITC's path, and where the offset rounds the inputs
    # themselves (at 10¹⁰ to 10⁻⁶ of their range, at 3·10¹⁴ to a sixteenth)
    rounded = classifier is sparsegp.FITCGPClassifier or exponent > 10.0
    at_zero = _training_accuracy_at_scale_one(classifier)
    assert abs(model.score(shifted, y) - at_zero) <= rounded / len(y) + 1e-12


@pytest.mark.parametrize("estimator_class", ESTIMATORS, ids=lambda e: e.__name__)
def test_inputs_an_offset_rounded_to_one_value_are_fitted_with_a_warning(
    estimator_class,
):
    """xor at scale 10⁻⁵⁰ around 10⁵: float64 holds every row as the same input. The
    fit says so (never a silently constant model) and predicts finite values."""
    X, y = make_xor_clusters(40, random_state=1)
    rounded = 1e-50 * X + 1e5
    assert len(np.unique(rounded)) == 1
    targets = y if is_classifier(estimator_class()) else X[:, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.warns(sparsegp.exceptions.FeatureScaleWarning, match="same input"):
            model = estimator_class(random_state=0).fit(rounded, targets)
    check_fitted_outputs(model, rounded)
    with pytest.raises(ValueError, match="cannot hold even the integers apart"):
        estimator_class().fit(0.0 * X + 1e20, targets)  # one input, past 2⁵³


def test_a_non_stationary_kernel_is_never_shifted():
    X, y = make_xor_clusters(60, random_state=1)
    model = quietly_fitted(
        sparsegp.EPGPClassifier(DotProduct(), optimizer=None), X + 1e6, y
    )
    assert model.input_offset_ == 0.0
    shifted = quietly_fitted(sparsegp.EPGPClassifier(optimizer=None), X + 1e6, y)
    np.testing.assert_allclose(shifted.input_offset_, 1e6 + np.zeros(2), rtol=1e-5)


@pytest.mark.parametrize("classifier", CLASSIFIER_TYPES, ids=lambda e: e.__name__)
def test_an_input_no_kernel_can_see_past_is_refused_by_name(classifier):
    X, y = make_xor_clusters(60, random_state=1)
    X[0, 0] = 1e300
    with pytest.raises(ValueError, match="Remove or clip the outlying values"):
        classifier().fit(X, y)
    with pytest.raises(ValueError, match="Pass kernel=None"):
        classifier(kernel=RBF(1.0)).fit(1e200 * make_xor_clusters(60)[0], y)


@pytest.mark.parametrize(
    "estimator",
    [
        sparsegp.EPGPClassifier(max_iter_optimizer=1),
        sparsegp.EPGPClassifier(optimizer=None, max_sweeps=1),
        sparsegp.FITCGPClassifier(optimizer=None, max_sweeps=1),
        sparsegp.NLPSparseGPClassifier(max_outer_iterations=1),
        sparsegp.RVMClassifier(max_iter=1),
        sparsegp.RVMRegressor(max_iter=1),
    ],
    ids=repr,
)
def test_iteration_caps_are_honoured_with_a_convergence_warning(estimator):
    """A fit stopped by its iteration cap returns a usable model and says so."""
    X, y = make_moons(100, noise=0.3, random_state=0)  # toy_problem's labels are noise
    if not is_classifier(estimator):
        y = np.sin(3 * X[:, 0]) + X[:, 1]
    with pytest.warns(ConvergenceWarning, match="max_iter|max_sweeps|max_outer"):
        estimator.set_params(random_state=0).fit(X, y)
    assert np.all(np.isfinite(outputs(estimator, X)[0]))
    assert estimator.converged_ is False


@pytest.mark.parametrize("estimator_class", ESTIMATORS, ids=lambda e: e.__name__)
def test_every_estimator_reports_its_iterations_and_convergence(estimator_class):
    X, y = make_moons(80, noise=0.2, random_state=0)
    if not is_classifier(estimator_class()):
        y = np.sin(3 * X[:, 0])
    model = quietly_fitted(estimator_class(random_state=0), X, y)
    assert int(np.min(model.n_iter_)) >= 0 and np.ndim(model.n_iter_) == 0
    assert isinstance(model.converged_, bool)


@pytest.mark.parametrize(
    "offset, scale", [(1e9, 1.0), (0.0, 2.0**60), (1e12, 2.0**-50)]
)
def test_a_models_points_are_given_and_read_in_the_units_of_x(offset, scale):
    """Inputs shifted and scaled internally: pseudo-inputs, basis and relevance vectors
    read back in X's units, and pseudo-inputs given in X's units are used as such."""
    X, y = make_xor_clusters(60, random_state=1)
    moved = (X + offset) * scale
    Z = X[:4]
    fitc = sparsegp.FITCGPClassifier(inducing_init=(Z + offset) * scale, optimizer=None)
    fitc = quietly_fitted(fitc, moved, y)
    np.testing.assert_allclose(fitc.inducing_points_, (Z + offset) * scale, rtol=1e-9)
    at_one = quietly_fitted(
        sparsegp.FITCGPClassifier(inducing_init=Z, optimizer=None), X, y
    )
    np.testing.assert_allclose(  # X + 1e12 holds X to about 1e-4
        fitc.predict_proba(moved), at_one.predict_proba(X), atol=1e-3
    )
    for estimator, attribute in (
        (
            sparsegp.SparseOnlineGPClassifier(optimizer=None, shuffle=False),
            "basis_vectors_",
        ),
        (sparsegp.RVMClassifier(n_basis=20, random_state=0), "relevance_vectors_"),
    ):
        points = getattr(quietly_fitted(estimator, moved, y), attribute)
        rows = [
            np.flatnonzero(np.all(np.isclose(moved, p, rtol=1e-9), axis=1))
            for p in points
        ]
        assert all(len(r) >= 1 for r in rows), attribute  # each is a row of X
