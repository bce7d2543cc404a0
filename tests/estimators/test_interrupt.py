"""A fit stopped by ``KeyboardInterrupt`` leaves the estimator as it was: unfitted
(``NotFittedError``, not a missing attribute) if it was fresh, its previous fit if it had
one; and it fits again normally."""

import contextlib
import threading
import time
from unittest import mock

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import sparsegp
import sparsegp.approximations.rvm_ssem as rvm_ssem
from sparsegp import RVMRegressor, SparseGPRegressor
from sparsegp.approximations import sweep_kernels
from sparsegp.datasets import make_xor_clusters
from sparsegp.likelihoods import Gaussian, Probit
from sparsegp.methods import sparse_regression

ESTIMATORS = [getattr(sparsegp, name) for name in sparsegp.__all__]


@contextlib.contextmanager
def interrupted_on_third_call(*targets):
    """Patch each ``(target, name)`` to raise ``KeyboardInterrupt`` on the third call
    to any of them."""
    calls = []

    def interrupting(original):
        def interrupt(*args, **kwargs):
            calls.append(None)
            if len(calls) == 3:
                raise KeyboardInterrupt
            return original(*args, **kwargs)

        return interrupt

    with contextlib.ExitStack() as stack:
        for target, name in targets:
            original = getattr(target, name)
            stack.enter_context(mock.patch.object(target, name, interrupting(original)))
        yield


def interruption(estimator):
    if isinstance(estimator, RVMRegressor):
        return interrupted_on_third_call((rvm_ssem, "regression_e_step"))
    if isinstance(estimator, SparseGPRegressor):
        return interrupted_on_third_call((sparse_regression, "bound_and_gradient"))
    if "Regressor" in type(estimator).__name__:
        return interrupted_on_third_call((Gaussian, "moments"))
    # parallel EP on the probit runs compiled (sweep_kernels), without Probit.moments
    return interrupted_on_third_call(
        (Probit, "moments"), (sweep_kernels, "probit_site_update")
    )


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("make", ESTIMATORS, ids=lambda e: e.__name__)
def test_interrupted_fit_leaves_the_estimator_as_it_was(make):
    X, y = make_xor_clusters(60, random_state=0)
    y = X[:, 0] * X[:, 1] if "Regressor" in make.__name__ else y
    fresh = make(random_state=0)
    with interruption(fresh), pytest.raises(KeyboardInterrupt):
        fresh.fit(X, y)
    with pytest.raises(NotFittedError):
        fresh.predict(X)
    fitted = make(random_state=0).fit(X, y)
    expected = fitted.predict(X)
    with interruption(fitted), pytest.raises(KeyboardInterrupt):
        fitted.fit(X[:40], y[:40])
    np.testing.assert_array_equal(fitted.predict(X), expected)
    np.testing.assert_array_equal(fresh.fit(X, y).predict(X), expected)


def test_an_interrupted_selection_stops_the_other_one_on_its_thread():
    """``selection="auto"`` on two threads: the uniform selection is interrupted at
    once; the randomized one, on the other thread, ends at its next inclusion rather
    than after its 600."""
    from sklearn.datasets import make_classification

    from sparsegp.approximations import blocks
    from sparsegp.methods.ivm import ActiveSetFitting

    X, y = make_classification(n_samples=4000, random_state=0)
    inclusions, original = [], ActiveSetFitting._select

    def select(self, X, y, kernel, d, rng, strategy, stop=None):
        if strategy == "random":
            raise KeyboardInterrupt
        return original(self, X, y, kernel, d, rng, strategy, stop)

    def counted(self, n=1):
        inclusions.append(n)
        return original_update(self, n)

    original_update = blocks.CheckedProgress.update
    estimator = sparsegp.IVMClassifier(active_set_size=600, n_jobs=2, random_state=0)
    with (
        mock.patch.object(ActiveSetFitting, "_select", select),
        mock.patch.object(blocks.CheckedProgress, "update", counted),
        pytest.raises(KeyboardInterrupt),
    ):
        estimator.fit(X, y)
    assert len(inclusions) < 600
    with pytest.raises(NotFittedError):
        estimator.predict(X)


def test_an_interrupt_abandons_the_head_started_pass():
    """On two threads the pass over every site starts on the first selection's model
    while the other runs; Ctrl-C as the model is chosen stops it at its next block."""
    from sparsegp.approximations.blocks import GatedPool, Stopped
    from sparsegp.methods import ivm as ivm_method
    from sparsegp.methods.every_site import EverySitePass

    started, outcomes = threading.Event(), []
    fit_ivm = ivm_method.ActiveSetFitting._fit_ivm

    def held_back(self, X, y, kernel, rng, strategy, stop=None):
        result = fit_ivm(self, X, y, kernel, rng, strategy, stop)
        if strategy == "randomized":
            assert started.wait(5)  # the uniform fit ended first: a head start
        return result

    def endless(self, model, pool=None):
        assert isinstance(pool, GatedPool)
        started.set()
        try:
            for _ in range(5000):  # about 5 s, unless stopped
                pool.submit(time.sleep, 0.001).result()
        except Stopped:
            outcomes.append("stopped")
            raise
        outcomes.append("never stopped")

    def interrupted(*args):
        raise KeyboardInterrupt

    X, y = make_xor_clusters(300, random_state=1)
    estimator = sparsegp.IVMClassifier(
        active_set_size=30, posterior="fitc", n_jobs=2, random_state=0
    )
    with (
        mock.patch.object(ivm_method.ActiveSetFitting, "_fit_ivm", held_back),
        mock.patch.object(EverySitePass, "evidence", endless),
        mock.patch.object(ivm_method.ActiveSetFitting, "_better_fit", interrupted),
        pytest.raises(KeyboardInterrupt),
    ):
        estimator.fit(X, y)
    assert outcomes == ["stopped"]
    with pytest.raises(NotFittedError):
        estimator.predict(X)
