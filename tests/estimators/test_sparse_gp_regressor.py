"""SparseGPRegressor: scikit-learn's checks, the M → n limit, the noise, threads."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_friedman1
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
from sklearn.utils.estimator_checks import parametrize_with_checks

from sparsegp import SparseGPRegressor


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(
    [
        SparseGPRegressor(n_inducing=10, max_iter=20, random_state=0),
        SparseGPRegressor(approximation="fitc", n_inducing=10, max_iter=20),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _friedman(n, seed=0):
    return make_friedman1(n_samples=n, noise=1.0, random_state=seed)


@pytest.mark.parametrize("approximation", ["vfe", "fitc"])
def test_pseudo_inputs_on_every_point_give_the_exact_gp(approximation):
    """M = n with the kernel held: the objective is the exact evidence and the
    predictions exact GP regression's (to the jitter)."""
    X, y = _friedman(150)
    kernel = ConstantKernel(4.0) * RBF(1.5) + WhiteKernel(0.1)
    sparse = SparseGPRegressor(
        kernel, n_inducing=150, approximation=approximation, optimizer=None
    ).fit(X, y)
    exact = GaussianProcessRegressor(kernel, optimizer=None, normalize_y=True).fit(X, y)
    X_test, _ = _friedman(50, seed=1)
    mean, std = sparse.predict(X_test, return_std=True)
    exact_mean, exact_std = exact.predict(X_test, return_std=True)
    np.testing.assert_allclose(mean, exact_mean, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(std, exact_std, rtol=1e-3)
    np.testing.assert_allclose(
        sparse.log_marginal_likelihood_value_,
        exact.log_marginal_likelihood_value_,
        rtol=1e-4,
    )


def test_vfe_bound_rises_towards_the_exact_evidence_with_m():
    """VFE's bound is below the exact evidence and closes on it as M grows
    ([Tit09])."""
    X, y = _friedman(200)
    kernel = ConstantKernel(4.0) * RBF(1.5) + WhiteKernel(0.1)
    exact = GaussianProcessRegressor(kernel, optimizer=None, normalize_y=True).fit(X, y)
    bounds = [
        SparseGPRegressor(kernel, n_inducing=M, optimizer=None, random_state=0)
        .fit(X, y)
        .log_marginal_likelihood_value_
        for M in (10, 50, 200)
    ]
    assert (
        bounds[0] < bounds[1] < bounds[2] <= exact.log_marginal_likelihood_value_ + 1e-6
    )
    # at M = n the gap is the jitter's (10⁻⁶ of the variance on K_uu's diagonal)
    assert exact.log_marginal_likelihood_value_ - bounds[2] < 1e-4 * abs(bounds[2])


def test_learns_the_noise_and_ard_reaches_the_noise_floor():
    """Friedman #1 with unit noise: with a length-scale per feature (the default) the
    test RMSE is near 1 and the learnt noise variance near 1; the isotropic kernel
    does worse."""
    X, y = _friedman(1500)
    X_test, y_test = _friedman(1000, seed=1)
    ard = SparseGPRegressor(n_inducing=60, random_state=0).fit(X, y)  # the default
    iso = SparseGPRegressor(n_inducing=60, ard=False, random_state=0).fit(X, y)
    rmse = [np.sqrt(np.mean((m.predict(X_test) - y_test) ** 2)) for m in (ard, iso)]
    assert rmse[0] < 1.15 < rmse[1]
    assert 0.7 < ard.noise_variance_ < 1.4
    assert ard.kernel_.k1.k2.length_scale.shape == (10,)


# a few iterations, for speed: the cap warns
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_threads_give_the_same_model():
    X, y = _friedman(3000)
    models = [
        SparseGPRegressor(
            n_inducing=20, max_iter=15, n_jobs=n_jobs, random_state=0
        ).fit(X, y)
        for n_jobs in (1, 2)
    ]
    np.testing.assert_allclose(
        models[0].predict(X[:50]), models[1].predict(X[:50]), rtol=1e-8
    )


# a few iterations, for speed: the cap warns
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_fixed_noise_is_held_and_a_kernel_without_noise_is_refused():
    X, y = _friedman(200)
    kernel = ConstantKernel(1.0) * RBF(1.0) + WhiteKernel(0.3, "fixed")
    reg = SparseGPRegressor(kernel, n_inducing=20, max_iter=10).fit(X, y)
    assert reg.kernel_.k2.noise_level == pytest.approx(0.3)
    with pytest.raises(ValueError, match="WhiteKernel"):
        SparseGPRegressor(ConstantKernel() * RBF()).fit(X, y)


# a few iterations, for speed: the cap warns
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_pickles_to_identical_predictions():
    X, y = _friedman(300)
    reg = SparseGPRegressor(n_inducing=20, max_iter=10, random_state=0).fit(X, y)
    again = pickle.loads(pickle.dumps(reg))
    np.testing.assert_array_equal(
        reg.predict(X, return_std=True), again.predict(X, return_std=True)
    )


def test_a_given_kernel_is_used_as_it_is():
    X, y = _friedman(200)
    kernel = ConstantKernel(1.0) * RBF(2.0) + WhiteKernel(0.5)
    reg = SparseGPRegressor(kernel, n_inducing=10, optimizer=None).fit(X, y)
    assert np.ndim(reg.kernel_.k1.k2.length_scale) == 0
    assert reg.kernel_.k2.noise_level == pytest.approx(0.5)


def test_an_optimizer_stopped_by_its_cap_warns():
    X, y = _friedman(300)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        SparseGPRegressor(n_inducing=20, max_iter=3, random_state=0).fit(X, y)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_pseudo_inputs_move_in_units_of_the_rows_spread_whatever_m(monkeypatch):
    """The optimizer's unit for the pseudo-inputs is the rows' mean feature spread,
    the same for any M (k-means centres' own spread shrinks as M grows), and 1 for
    constant inputs."""
    from sparsegp.methods import sparse_regression

    X, y = make_friedman1(n_samples=300, noise=0.5, random_state=0)
    units = []
    space = sparse_regression.SparseRegression._space

    def recording(self, *args):
        parameters = space(self, *args)
        units.append(parameters.blocks[-1].unit)  # the pseudo-inputs' block
        return parameters

    monkeypatch.setattr(sparse_regression.SparseRegression, "_space", recording)
    for M in (5, 60):
        SparseGPRegressor(n_inducing=M, max_iter=2, random_state=0).fit(X, y)
    assert len(units) == 8  # three screens and the fit, twice
    np.testing.assert_allclose(units[3], np.mean(np.std(X, axis=0)), rtol=1e-12)
    assert units[7] == units[3]
    assert sparse_regression.input_spread(np.ones((5, 3))) == 1.0
