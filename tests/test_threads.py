"""BLAS thread policy: one thread inside a fit, the caller's count restored after."""

import threading
from unittest import mock

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from sparsegp import EPGPClassifier
from sparsegp._threads import fit_threads


def blas_threads():
    return {
        lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"
    }


def test_a_fit_runs_single_threaded_and_restores_the_callers_threads():
    with threadpool_limits(2, user_api="blas"):
        with fit_threads():
            assert blas_threads() == {1}
            with fit_threads():  # a fit inside a fit
                assert blas_threads() == {1}
            assert blas_threads() == {1}
        assert blas_threads() == {2}


def test_estimator_fit_restores_the_callers_threads(monkeypatch):
    seen = []
    original = EPGPClassifier._fit_binary

    def spy(self, X, y, random_state):
        seen.append(blas_threads())
        return original(self, X, y, random_state)

    monkeypatch.setattr(EPGPClassifier, "_fit_binary", spy)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    with threadpool_limits(2, user_api="blas"):
        EPGPClassifier(optimizer=None).fit(X, y)
        assert seen == [{1}] and blas_threads() == {2}


def test_a_fit_runs_openmp_code_single_threaded_too():
    # scikit-learn's k-means (FITC's initial pseudo-inputs) uses OpenMP threads.
    def openmp_threads():
        return {
            lib["num_threads"]
            for lib in threadpool_info()
            if lib["user_api"] == "openmp"
        }

    if not openmp_threads():
        pytest.skip("no OpenMP runtime loaded")
    with threadpool_limits(2), fit_threads():
        assert openmp_threads() == {1} and blas_threads() == {1}


def test_fits_overlapping_in_two_threads_each_give_the_single_fit_result():
    """The BLAS limit is process-wide: a fit that ends while another runs must not
    restore the caller's count under it, and the last to end must restore it."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 3))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    alone = EPGPClassifier(random_state=0).fit(X, y).predict_proba(X)
    both_inside, first_done = threading.Barrier(2), threading.Event()
    results, counts = {}, {}
    original = EPGPClassifier._fit_binary

    def fit_binary(self, X, y, random_state):
        both_inside.wait(timeout=30)
        if threading.current_thread().name == "second":
            first_done.wait(timeout=30)  # the first fit has ended meanwhile
        counts[threading.current_thread().name] = blas_threads()
        return original(self, X, y, random_state)

    def fit(name):
        results[name] = EPGPClassifier(random_state=0).fit(X, y).predict_proba(X)
        if name == "first":
            first_done.set()

    with (
        threadpool_limits(2, user_api="blas"),
        mock.patch.object(EPGPClassifier, "_fit_binary", fit_binary),
    ):
        threads = [
            threading.Thread(target=fit, args=(name,), name=name)
            for name in ("first", "second")
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert blas_threads() == {2}
    assert counts == {"first": {1}, "second": {1}}
    for name in ("first", "second"):
        np.testing.assert_array_equal(results[name], alone)


def test_a_fit_in_a_worker_thread_runs_single_threaded_under_the_callers_limit():
    seen = []

    def fit():
        with fit_threads():
            seen.append(blas_threads())

    with threadpool_limits(2, user_api="blas"):
        thread = threading.Thread(target=fit)
        thread.start()
        thread.join()
        assert seen == [{1}] and blas_threads() == {2}
