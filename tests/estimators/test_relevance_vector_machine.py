"""RVMRegressor and RVMClassifier: scikit-learn contract, sparsity, predictions, errors."""

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

from sparsegp import FITCGPClassifier, RVMClassifier, RVMRegressor, _memory
from sparsegp.datasets import (
    load_banana,
    mackey_glass_regression,
    make_mackey_glass,
    make_xor_clusters,
)
from sparsegp.methods.fitc_ep import LEARNT_FITC_DEFAULTS, learnt_fitc_model
from sparsegp.methods.kernel_defaults import default_rbf
from sparsegp.methods.pseudo_inputs import equal_shares
from sparsegp.methods.rvm import dictionary

from ..conftest import features_that_count_alike, relevant_and_irrelevant_features


# scikit-learn's checks fit toy data under the iteration caps set here for speed:
# convergence and bound warnings are expected there
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(
    [
        RVMRegressor(max_iter=50),
        # 20 EM steps stopped the fixed basis's binary blobs at one relevance vector
        RVMClassifier(max_iter=40, n_basis=30),
        RVMRegressor(method="batch"),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def sinc(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-10, 10, (n, 1))
    return X, np.sinc(X[:, 0] / np.pi) + 0.1 * rng.standard_normal(n)


@pytest.mark.parametrize("method", ["ssem", "batch"])
def test_regressor_is_sparse_and_accurate_on_sinc(method):
    X, y = sinc(200, 0)
    X_test = np.linspace(-10, 10, 300)[:, None]
    rvm = RVMRegressor(RBF(1.5), method=method).fit(X, y)
    mean, std = rvm.predict(X_test, return_std=True)
    assert len(rvm.relevance_vectors_) < 35
    assert np.sqrt(np.mean((mean - np.sinc(X_test[:, 0] / np.pi)) ** 2)) < 0.06
    assert rvm.noise_ == pytest.approx(0.01, rel=0.5)
    assert np.all(std >= np.sqrt(rvm.noise_))


@pytest.mark.parametrize("normalize_y", [False, True])
def test_regressor_prediction_is_the_weight_posterior(normalize_y):
    X, y = sinc(80, 1)
    y = 5.0 + 3.0 * y  # targets far from zero
    rvm = RVMRegressor(RBF(1.5), normalize_y=normalize_y).fit(X, y)
    shift, scale = (np.mean(y), np.std(y)) if normalize_y else (0.0, 1.0)
    weights = rvm.model_.predictor
    X_test = np.array([[-3.0], [0.5], [7.0]])
    Psi = rvm.kernel_(X_test, rvm.relevance_vectors_)
    if weights.bias_feature:
        Psi = np.column_stack([np.ones(len(X_test)), Psi])
    Sigma = np.linalg.inv(weights.chol @ weights.chol.T)
    mean, std = rvm.predict(X_test, return_std=True)
    np.testing.assert_allclose(
        mean, shift + scale * (Psi @ weights.weights), rtol=1e-10
    )
    latent = scale**2 * np.einsum("ij,jk,ik->i", Psi, Sigma, Psi)
    np.testing.assert_allclose(std**2, rvm.noise_ + latent, rtol=1e-8)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("mean_field", ["tap", "naive", "laplace"])
def test_classifier_learns_xor_with_few_relevance_vectors(mean_field):
    X, y = make_xor_clusters(300, random_state=0)
    X_test, y_test = make_xor_clusters(500, random_state=1)
    clf = RVMClassifier(mean_field=mean_field).fit(X, y)
    assert np.mean(clf.predict(X_test) != y_test) < 0.15
    assert len(clf.relevance_vectors_) < 40
    mean, var = clf.latent_mean_and_variance(X_test[:4])
    assert np.all(var > 0)


def test_classifier_multiclass_and_dictionary_subset():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 2)) + np.repeat([[0, 0], [4, 0], [0, 4]], 50, axis=0)
    y = np.repeat([0, 1, 2], 50)
    a = RVMClassifier(n_basis=40, random_state=1).fit(X, y)
    b = RVMClassifier(n_basis=40, random_state=1).fit(X, y)
    assert len(a.relevance_vectors_) == 3
    for va, vb in zip(a.relevance_vectors_, b.relevance_vectors_, strict=True):
        np.testing.assert_array_equal(va, vb)
    assert a.score(X, y) > 0.9


def test_classifier_dictionary_is_500_random_centres_by_default():
    """The default dictionary keeps the sweep linear in n: 500 distinct training
    inputs, drawn by ``random_state``; all of them with ``n_basis=None`` or fewer."""
    X = np.zeros((1_200, 2))
    default = RVMClassifier()
    centres = dictionary(X, default.n_basis, np.random.default_rng(0))
    assert len(centres) == len(np.unique(centres)) == 500
    np.testing.assert_array_equal(
        centres, dictionary(X, default.n_basis, np.random.default_rng(0))
    )
    assert len(dictionary(X[:300], default.n_basis, np.random.default_rng(0))) == 300
    assert (
        len(
            dictionary(X, RVMClassifier(n_basis=None).n_basis, np.random.default_rng(0))
        )
        == 1_200
    )


def test_classifier_dictionary_takes_an_equal_share_of_each_class():
    """A class of 10 % holds half of the dictionary, not a tenth of it; a class
    smaller than its share is taken whole and the other fills the dictionary."""
    X = np.arange(5_000.0)[:, None]
    labels = np.where(np.arange(5_000) % 10 == 0, 1.0, -1.0)
    centres = dictionary(X, 500, np.random.default_rng(0), labels)
    assert len(centres) == len(np.unique(centres)) == 500
    assert np.sum(labels[centres] == 1) == 250
    rare = np.where(np.arange(5_000) < 40, 1.0, -1.0)
    centres = dictionary(X, 500, np.random.default_rng(0), rare)
    assert np.sum(rare[centres] == 1) == 40 and len(np.unique(centres)) == 500


def test_equal_shares_fill_the_total_from_the_groups_that_have_points():
    assert list(equal_shares([50, 7_000], 500)) == [50, 450]
    assert list(equal_shares([300, 300], 500)) == [250, 250]
    assert list(equal_shares([1, 5, 5], 7)) == [1, 3, 3]
    assert equal_shares([100, 100, 100], 10).sum() == 10


@pytest.mark.parametrize("in_turns", [False, True])
def test_classifier_does_not_depend_on_n_jobs(in_turns, monkeypatch):
    """A binary fit's E-steps run their row blocks on ``n_jobs`` threads, or in the
    fit's thread where the pool finds that faster (``in_turns``: each block
    function's maps on the threads and in the fit's thread in turns); the blocks are
    fixed by the data."""
    from sparsegp.approximations import blocks, rvm_ssem

    monkeypatch.setattr(rvm_ssem, "E_STEP_BLOCK_ROWS", 50)
    if in_turns:
        monkeypatch.setattr(blocks._Timings, "next_on_threads", _in_turns)
    X, y = make_xor_clusters(200, random_state=1)
    one = RVMClassifier(n_jobs=1, random_state=0).fit(X, y)
    two = RVMClassifier(n_jobs=2, random_state=0).fit(X, y)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
    np.testing.assert_array_equal(one.relevance_vectors_, two.relevance_vectors_)


def test_bad_input_gets_clear_errors():
    X, y = make_xor_clusters(20, random_state=0)
    with pytest.raises(ValueError, match="at least two classes"):
        RVMClassifier().fit(X, np.ones(20))
    with pytest.raises(ValueError, match="NaN"):
        RVMRegressor().fit(np.full((20, 2), np.nan), np.zeros(20))
    with pytest.raises(ValueError, match="mean_field"):
        RVMClassifier(mean_field="exact").fit(X, y)
    with pytest.raises(ValueError, match="threshold"):
        RVMRegressor(threshold=0).fit(X, y.astype(float))


def test_centred_nearly_noise_free_series_keeps_its_relevance_vectors():
    """Mackey-Glass with [QW03]'s wide basis functions and normalised targets: σ² learnt
    from the first basis function (the bias, useless on centred targets) took all the
    variance, and no newcomer was admitted — a constant prediction. Learnt after the
    sweep (the default), the model keeps its relevance vectors; from a batch start (the
    default) even σ² learnt in every M-step does."""
    X, y = mackey_glass_regression(make_mackey_glass(700))
    X_train, y_train, X_test, y_test = X[:300], y[:300], X[300:], y[300:]
    kernel = RBF(np.sqrt(10.0))
    model = RVMRegressor(kernel, random_state=0).fit(X_train, y_train)
    assert len(model.relevance_vectors_) >= 10
    assert np.mean((model.predict(X_test) - y_test) ** 2) < 0.02 * np.var(y_test)
    noisy_start = RVMRegressor(kernel, learn_noise=True, batch_start=0, random_state=0)
    assert len(noisy_start.fit(X_train, y_train).relevance_vectors_) <= 1
    noisy_batch_start = RVMRegressor(kernel, learn_noise=True, random_state=0)
    assert len(noisy_batch_start.fit(X_train, y_train).relevance_vectors_) >= 10


def gaussian_classes(n, seed, d=20):
    """IDA twonorm's generator: two unit Gaussians in ``d`` dimensions, means ±2/√d."""
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], n)
    return rng.standard_normal((n, d)) + y[:, None] * (2 / np.sqrt(d)), y


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("seed", [1, 2])
def test_batch_start_finds_the_classes_a_wide_kernel_hides_from_the_sweep(seed):
    """With a kernel 4× the data's scale every basis function is nearly constant: none
    raises the evidence alone, and [QW03]'s sweep from an empty model keeps at most
    one (near-chance test accuracy). Batch EM on the first 20 finds the opposing
    weights that separate the classes."""
    X, y = gaussian_classes(400, seed)
    X_test, y_test = gaussian_classes(2000, seed + 100)
    kernel = RBF(4 * np.sqrt(np.sum(np.var(X, axis=0))))
    as_written = RVMClassifier(kernel, batch_start=0).fit(X, y)
    assert len(as_written.relevance_vectors_) <= 1
    assert as_written.score(X_test, y_test) < 0.6
    model = RVMClassifier(kernel).fit(X, y)
    assert len(model.relevance_vectors_) >= 3
    assert model.score(X_test, y_test) > 0.9


@pytest.mark.parametrize("seed", [0, 1])
def test_regressor_sweep_from_empty_reaches_the_batch_starts_sparse_model(seed):
    """The default width is wide for sinc on [−10, 10]. From an empty model the sweep
    kept 324-341 of 400 basis functions at an evidence 30-65 nats below a batch
    start's while α could pass the pruning threshold ``L`` (the one weight kept
    rather than none, its MacKay steps rounding beyond ``L``); with α at most ``L``
    both starts reach the same sparse model."""
    X, y = sinc(400, seed)
    X_test = np.linspace(-10, 10, 300)[:, None]
    as_written = RVMRegressor(batch_start=0).fit(X, y)
    model = RVMRegressor().fit(X, y)
    for fitted in (as_written, model):
        assert len(fitted.relevance_vectors_) < 150
        error = np.mean((fitted.predict(X_test) - np.sinc(X_test[:, 0] / np.pi)) ** 2)
        assert error < 1e-3
    assert as_written.log_marginal_likelihood_value_ == pytest.approx(
        model.log_marginal_likelihood_value_, abs=1.0
    )


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("mean_field", ["tap", "naive", "laplace"])
def test_small_banana_is_learnt_from_a_batch_start(mean_field):
    """On banana's first 100 points the sweep from an empty model ended at 40 % test
    error with every mean field (batch EM: 14 %)."""
    X, y, X_test, y_test = load_banana()
    model = RVMClassifier(mean_field=mean_field).fit(X[:100], y[:100])
    assert model.score(X_test, y_test) > 0.8


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("mean_field", ["tap", "naive", "laplace"])
def test_every_mean_field_fits_banana_without_a_crash(mean_field):
    # With Tipping & Faul's newcomers naive mean field's cavity variances overflowed
    # (NotPSDError on the first 200 banana points); it keeps [QW03]'s rule.
    X, y, X_test, y_test = load_banana()
    model = RVMClassifier(mean_field=mean_field, random_state=0).fit(X[:200], y[:200])
    proba = model.predict_proba(X_test)
    assert np.all(np.isfinite(proba)) and model.score(X_test, y_test) > 0.55


def test_separable_classes_get_a_warning_that_says_so():
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    # cultivar 0 against the rest: separable, every α of the final EM keeps falling
    with pytest.warns(ConvergenceWarning, match="separable") as record:
        RVMClassifier(max_iter=50, random_state=0).fit(X, y == 0)
    assert not any("raise max_iter" in str(w.message) for w in record)


def test_unsettled_weights_get_the_max_iter_advice():
    from sparsegp.approximations.rvm_ssem import _not_converged_message

    mixed = _not_converged_message(30, 4, np.array([-0.1, 0.2, -0.3, -0.1]))
    assert "raise max_iter" in mixed and "separable" not in mixed
    assert "separable" in _not_converged_message(30, 4, np.full(4, -1e-3))
    assert "raise max_iter" in _not_converged_message(30, 4, None)


def test_ard_auto_gives_the_basis_a_width_per_feature_where_few_features_count():
    """Two of eight features carry the labels: the small FITC-EP model's evidence
    keeps its ARD kernel, the basis takes its length-scales over √2, and the test
    error falls well below [QW03]'s isotropic basis's."""
    X, y = relevant_and_irrelevant_features(600, 0)
    X_test, y_test = relevant_and_irrelevant_features(2000, 1)
    fits = {
        str(ard): RVMClassifier(ard=ard, random_state=0).fit(X, y)
        for ard in (False, "auto")
    }
    details = fits["auto"].estimators_[0].details
    assert details["ard"] and details["ard_evidence_gain"] > 7
    widths = fits["auto"].kernel_.length_scale
    assert widths.shape == (8,) and widths[:2].max() < widths[2:].min()
    errors = {ard: 1.0 - fit.score(X_test, y_test) for ard, fit in fits.items()}
    assert errors["auto"] < errors["False"] - 0.03


def test_ard_auto_keeps_the_fixed_basis_where_every_feature_counts_alike():
    X, y = features_that_count_alike(300, 0)
    auto = RVMClassifier(ard="auto", random_state=0).fit(X, y)
    assert not auto.estimators_[0].details["ard"]
    fixed = RVMClassifier(ard=False, random_state=0).fit(X, y)
    np.testing.assert_array_equal(auto.predict_proba(X), fixed.predict_proba(X))
    assert "ard" not in fixed.estimators_[0].details
    numpy_false = RVMClassifier(ard=np.False_, random_state=0).fit(X, y)
    np.testing.assert_array_equal(numpy_false.predict_proba(X), fixed.predict_proba(X))
    forced = RVMClassifier(ard=True, random_state=0).fit(X, y)  # widths regardless
    assert forced.estimators_[0].details["ard"]
    assert forced.kernel_.length_scale.shape == (8,)
    with pytest.raises(ValueError, match="default kernel"):
        RVMClassifier(RBF(1.0), ard=True).fit(X, y)


@pytest.mark.parametrize("ard", [False, "auto"])
def test_basis_gp_is_the_fitc_classifier_with_its_defaults(ard):
    """``learnt_fitc_model`` fits what ``FITCGPClassifier(n_inducing=M, ard=ard)``
    fits from the same seed (its defaults held to the estimator's)."""
    defaults = FITCGPClassifier().get_params()
    defaults["damping"] = FITCGPClassifier()._ep_options(None)["damping"]  # "auto"
    for key, value in LEARNT_FITC_DEFAULTS.items():
        assert defaults[key] == value
    X, y = relevant_and_irrelevant_features(300, 2)
    reference = FITCGPClassifier(n_inducing=15, ard=ard, random_state=3).fit(X, y)
    seed = np.random.RandomState(3).randint(np.iinfo(np.int32).max, size=1)[0]
    start = ConstantKernel(1.0) * default_rbf(X)
    t = np.where(y == 1, 1.0, -1.0)
    with threadpool_limits(1):  # as the estimators fit: the same sums
        model = learnt_fitc_model(X, t, start, 15, seed, ard=ard)
    np.testing.assert_allclose(model.kernel.theta, reference.kernel_.theta, rtol=1e-10)
    np.testing.assert_allclose(
        model.latent_mean_and_variance(X)[0],
        reference.latent_mean_and_variance(X)[0],
        rtol=1e-8,
        atol=1e-10,
    )


def test_basis_gp_estimates_its_memory_before_allocating(monkeypatch):
    monkeypatch.setattr(_memory, "available_memory", lambda: 10**3)
    X, y = relevant_and_irrelevant_features(100, 0)
    with pytest.raises(MemoryError, match="ard=False"):
        RVMClassifier(ard="auto", random_state=0).fit(X, y)


def test_gaussian_basis_of_width_r_is_a_gp_of_length_scale_root_two_r():
    """The √2 of the basis widths (algorithms.md §4.5): Gaussian basis functions of
    width r at densely spread centres, equal prior weights, sum to the covariance
    ∝ exp(−(x − x′)²/(4r²)) — checked against the dense sum over a grid of centres."""
    r = 0.7
    centres = np.linspace(-40.0, 40.0, 8001)
    x = np.linspace(-3.0, 3.0, 13)
    basis = np.exp(-((x[:, None] - centres[None, :]) ** 2) / (2 * r**2))
    covariance = basis @ basis.T
    expected = RBF(np.sqrt(2.0) * r)(x[:, None])
    np.testing.assert_allclose(covariance / covariance[0, 0], expected, atol=1e-12)


def test_basis_gp_that_did_not_converge_says_so(monkeypatch):
    monkeypatch.setitem(LEARNT_FITC_DEFAULTS, "max_sweeps", 1)
    X, y = relevant_and_irrelevant_features(200, 0)
    with pytest.warns(ConvergenceWarning, match="gives the basis its widths"):
        RVMClassifier(ard="auto", random_state=0).fit(X, y)


def _in_turns(timings):
    """A ``RowPool``'s choice that takes the threads and the caller's thread in turns."""
    timings.on_threads = not getattr(timings, "on_threads", False)
    return timings.on_threads
