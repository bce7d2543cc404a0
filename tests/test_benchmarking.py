"""The evaluation harness shared by the demo and benchmarks/."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from sparsegp import EPGPClassifier, RVMClassifier, benchmarking
from sparsegp.benchmarking import (
    CrossValidatedSVC,
    dgemm_rate,
    evaluate,
    format_table,
    model_size,
    sklearn_gpc,
)
from sparsegp.datasets import load_banana, make_xor_clusters


def test_evaluate_and_table():
    X, y = make_xor_clusters(80, random_state=0)
    X_test, y_test = make_xor_clusters(200, random_state=1)
    ep, fitted = evaluate(
        EPGPClassifier(optimizer=None), X, y, X_test, y_test, name="ep", dataset="xor"
    )
    svc, _ = evaluate(
        CrossValidatedSVC(), X, y, X_test, y_test, name="svc", dataset="xor"
    )
    assert ep.model_size == 80 and svc.model_size < 80
    p = fitted.predict_proba(X_test)[np.arange(200), (y_test == 1).astype(int)]
    np.testing.assert_allclose(ep.nlp, -np.mean(np.log(p)))
    assert ep.error == np.mean(fitted.predict(X_test) != y_test)
    table = format_table([ep, svc])  # one run each: no runs column, no ± 0
    assert "| xor | ep | " in table and "| xor | svc | " in table
    assert "runs" not in table and "±" not in table
    twice = format_table([ep, ep, svc])
    assert "| xor | ep | 2 |" in twice and "±" in twice


def test_model_size_counts_relevance_vectors():
    X, y = make_xor_clusters(60, random_state=0)
    rvm = RVMClassifier(random_state=0).fit(X, y)
    assert model_size(rvm, len(y)) == len(rvm.relevance_vectors_) < len(y)
    pipeline = make_pipeline(StandardScaler(), RVMClassifier(random_state=0)).fit(X, y)
    assert model_size(pipeline, len(y)) == len(pipeline[-1].relevance_vectors_)
    svc = SVC().fit(X, y)
    assert model_size(svc, len(y)) == svc.n_support_.sum() < len(y)


def test_dgemm_rate_is_a_plausible_flop_rate():
    rate = dgemm_rate(64, 128, 32, repeats=2)
    assert 1e6 < rate < 1e13  # between a slow interpreter and ten top-end cores


def test_the_sklearn_peer_is_silent_only_about_an_offset_at_its_lower_bound():
    """Banana needs no offset: scikit-learn's warning about it is not shown; a kernel
    whose other parameter ends at a bound still warns."""
    X, y, _, _ = load_banana()
    X, y = X[:150], y[:150]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sklearn_gpc(X.shape[1]).fit(X, y)
    bounded = sklearn_gpc(X.shape[1]).set_params(
        kernel__k1__k2__length_scale_bounds=(10.0, 1e5)
    )
    with pytest.warns(ConvergenceWarning, match="length_scale"):
        bounded.fit(X, y)


def test_platt_svc_is_libsvms_platt_fit_and_its_replacement_when_removed(monkeypatch):
    """While ``SVC`` takes ``probability``, ``PlattSVC`` is ``SVC(probability=True)``
    (its deprecation silenced); without it, ``CalibratedClassifierCV``'s five-fold
    sigmoid on the same SVC: the same decisions and support vectors, probabilities
    near libsvm's."""
    X, y, X_test, _ = load_banana()
    X_test = X_test[:500]
    platt = benchmarking.PlattSVC(C=10.0, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        libsvm = SVC(C=10.0, probability=True, random_state=0).fit(X, y)
    np.testing.assert_array_equal(
        platt.predict_proba(X_test), libsvm.predict_proba(X_test)
    )
    assert model_size(platt, len(y)) == libsvm.n_support_.sum()
    monkeypatch.setattr(benchmarking, "libsvm_has_platt", lambda: False)
    replacement = benchmarking.PlattSVC(C=10.0, random_state=0).fit(X, y)
    np.testing.assert_array_equal(replacement.predict(X_test), libsvm.predict(X_test))
    np.testing.assert_array_equal(replacement.support_, libsvm.support_)
    difference = replacement.predict_proba(X_test) - libsvm.predict_proba(X_test)
    assert 0 < np.abs(difference).max() < 0.1
