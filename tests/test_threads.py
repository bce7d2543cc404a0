"""BLAS thread policy: one thread inside a fit, the caller's count restored after."""

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
