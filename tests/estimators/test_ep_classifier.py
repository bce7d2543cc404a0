"""EPGPClassifier as a scikit-learn estimator."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.utils.estimator_checks import parametrize_with_checks

from sparsegp import EPGPClassifier
from sparsegp.datasets import make_xor_clusters

#: Checks skipped, with the reason.
EXPECTED_FAILED_CHECKS: dict[str, str] = {}


# scikit-learn's checks fit toy data under the iteration caps set here for speed:
# convergence and bound warnings are expected there
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(
    [EPGPClassifier(max_iter_optimizer=5, random_state=0)],
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def xor_data():
    X, y = make_xor_clusters(120, random_state=0)
    X_test, y_test = make_xor_clusters(400, random_state=1)
    return X, y, X_test, y_test


@pytest.fixture(scope="module")
def fitted(xor_data):
    X, y, _, _ = xor_data
    return EPGPClassifier(random_state=0).fit(X, y)


def test_learns_xor_near_bayes_error(fitted, xor_data):
    _, _, X_test, y_test = xor_data
    assert np.mean(fitted.predict(X_test) != y_test) < 0.2  # Bayes error ≈ 13 %


def test_optimisation_raises_the_evidence(fitted, xor_data):
    X, y, _, _ = xor_data
    fixed = EPGPClassifier(optimizer=None).fit(X, y)
    assert fitted.log_marginal_likelihood_value_ > fixed.log_marginal_likelihood_value_


def test_predict_agrees_with_probabilities(fitted, xor_data):
    _, _, X_test, _ = xor_data
    proba = fitted.predict_proba(X_test)
    np.testing.assert_array_equal(
        fitted.predict(X_test), fitted.classes_[(proba[:, 1] > 0.5).astype(int)]
    )
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_latent_variance_grows_away_from_data(fitted):
    _, near = fitted.latent_mean_and_variance(np.array([[1.5, 1.5]]))
    _, far = fitted.latent_mean_and_variance(np.array([[30.0, 30.0]]))
    assert far[0] > 10 * near[0]
    np.testing.assert_allclose(far[0], fitted.kernel_.diag(np.array([[30.0, 30.0]]))[0])


def test_pickle_round_trip_gives_identical_predictions(fitted, xor_data):
    _, _, X_test, _ = xor_data
    clone = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(
        clone.predict_proba(X_test), fitted.predict_proba(X_test)
    )


def test_fixed_random_state_reproduces_fit(xor_data):
    X, y, X_test, _ = xor_data
    a = EPGPClassifier(n_restarts_optimizer=1, random_state=7).fit(X, y)
    b = EPGPClassifier(n_restarts_optimizer=1, random_state=7).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X_test), b.predict_proba(X_test))


def test_bias_is_learnt_for_unbalanced_classes():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 2))
    y = np.where(X[:, 0] > 1.0, 1, -1)  # about 16 % positives
    clf = EPGPClassifier(random_state=0).fit(X, y)
    assert clf.bias_ < 0


def test_multiclass_one_vs_rest_is_the_same_with_two_jobs():
    X, y = load_iris(return_X_y=True)
    kernel = ConstantKernel(1.0) * RBF(1.0)
    one = EPGPClassifier(kernel, max_iter_optimizer=20, random_state=0).fit(X, y)
    two = EPGPClassifier(kernel, max_iter_optimizer=20, random_state=0, n_jobs=2).fit(
        X, y
    )
    np.testing.assert_allclose(one.predict_proba(X), two.predict_proba(X))
    assert one.predict_proba(X).shape == (150, 3)
    assert np.mean(one.predict(X) == y) > 0.95
    mean, var = one.latent_mean_and_variance(X[:5])
    assert mean.shape == var.shape == (5, 3)


@pytest.mark.parametrize(
    "X, y, message",
    [
        (np.array([[0.0], [np.nan], [1.0]]), np.array([0, 1, 1]), "NaN"),
        (np.array([[0.0], [np.inf], [1.0]]), np.array([0, 1, 1]), "infinity"),
        (np.eye(4, 2), np.ones(4), "at least two classes"),
        (np.eye(4, 2), np.array([0, 1, 0]), "inconsistent numbers of samples"),
    ],
)
def test_bad_input_gets_a_clear_error(X, y, message):
    with pytest.raises(ValueError, match=message):
        EPGPClassifier().fit(X, y)


def test_bad_parameter_gets_a_clear_error(xor_data):
    X, y, _, _ = xor_data
    with pytest.raises(ValueError, match="damping"):
        EPGPClassifier(damping=0.0).fit(X, y)


def test_a_hyperparameter_on_its_bound_is_reported():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 2))
    y = np.where(X[:, 0] > 0, 1, -1)  # a straight boundary: long length-scales fit best
    kernel = ConstantKernel(1.0) * RBF(0.3, length_scale_bounds=(1e-2, 0.5))
    with pytest.warns(ConvergenceWarning, match="length_scale ended on its upper"):
        EPGPClassifier(kernel, random_state=0).fit(X, y)


def test_ep_that_does_not_converge_is_reported():
    X, y = load_iris(return_X_y=True)
    y = np.where(y == 0, 1, -1)
    with pytest.warns(ConvergenceWarning, match="EP did not converge in 1 sweeps"):
        EPGPClassifier(optimizer=None, max_sweeps=1).fit(X, y)


def test_an_optimizer_stopped_by_its_iteration_cap_is_reported():
    X, y = load_iris(return_X_y=True)
    y = np.where(y == 1, 1, -1)
    with pytest.warns(
        ConvergenceWarning, match="cap of 1 iterations .*raise max_iter_optimizer"
    ):
        EPGPClassifier(max_iter_optimizer=1, random_state=0).fit(X, y)


def test_ard_auto_keeps_ard_only_where_the_evidence_pays_for_it():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 6))
    relevant = np.where(np.sin(2.0 * X[:, 0]) + X[:, 1] > 0, 1, -1)
    alike = np.where(X.sum(axis=1) + 0.5 * rng.standard_normal(200) > 0, 1, -1)
    chosen = {}
    for name, y in (("relevant", relevant), ("alike", alike)):
        fit = EPGPClassifier(ard="auto", max_iter_optimizer=30).fit(X, y)
        chosen[name] = fit.estimators_[0].details["ard"]
        assert np.ndim(fit.kernel_.k2.length_scale) == (1 if chosen[name] else 0)
    assert chosen == {"relevant": True, "alike": False}
    with pytest.raises(ValueError, match="default kernel"):
        EPGPClassifier(RBF(1.0), ard=True).fit(X, relevant)
