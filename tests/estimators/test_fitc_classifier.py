"""FITCGPClassifier: learning pseudo-inputs, reproducibility, errors and memory."""

import logging
import warnings

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import Matern
from sklearn.utils.estimator_checks import parametrize_with_checks

from sparsegp import FITCGPClassifier, _memory
from sparsegp.datasets import make_xor_clusters
from sparsegp.methods.ard import ARD_SCREEN_ITERATIONS

from ..conftest import relevant_and_irrelevant_features, small_problem


# scikit-learn's checks fit toy data under the iteration caps set here for speed:
# convergence and bound warnings are expected there
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(
    [
        FITCGPClassifier(
            n_inducing=3, n_restarts_optimizer=0, max_iter_optimizer=5, random_state=0
        )
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_four_pseudo_inputs_learn_xor():
    X, y = make_xor_clusters(200, random_state=0)
    X_test, y_test = make_xor_clusters(2000, random_state=1)
    clf = FITCGPClassifier(n_inducing=4, random_state=0).fit(X, y)
    assert (
        1.0 - clf.score(X_test, y_test) < 0.16
    )  # Bayes error ≈ 0.13 ([NGH07] Figure 1)
    assert clf.inducing_points_.shape == (4, 2)


@pytest.mark.parametrize("init", ["kmeans", "random", "ivm"])
def test_fit_is_reproducible_for_every_initialisation(init):
    X, y, _ = small_problem(n=40)
    fits = [
        FITCGPClassifier(
            n_inducing=4, inducing_init=init, max_iter_optimizer=3, random_state=1
        ).fit(X, y)
        for _ in range(2)
    ]
    np.testing.assert_array_equal(fits[0].inducing_points_, fits[1].inducing_points_)
    np.testing.assert_array_equal(fits[0].predict_proba(X), fits[1].predict_proba(X))


def test_float32_sweeps_learn_the_float64_model_and_predict_in_float64():
    X, y = make_xor_clusters(300, random_state=0)
    X_test, _ = make_xor_clusters(500, random_state=1)
    fits = {
        dtype: FITCGPClassifier(  # one kernel: ARD's choice is a threshold
            n_inducing=6, sweep_dtype=dtype, ard=False, random_state=0
        ).fit(X, y)
        for dtype in ("float32", "float64")
    }
    single, double = fits["float32"], fits["float64"]
    np.testing.assert_allclose(
        single.log_marginal_likelihood_value_,
        double.log_marginal_likelihood_value_,
        rtol=1e-3,
    )
    # two 20-iteration optimizer paths in different arithmetic: nearby points
    difference = np.abs(single.predict_proba(X_test) - double.predict_proba(X_test))
    assert difference.mean() < 0.01 and difference.max() < 0.1
    assert single.estimators_[0].predictor.weights.dtype == np.float64


def test_without_an_optimizer_float32_sweeps_start_the_float64_fixed_point():
    """``optimizer=None``: float32 sweeps to an evaluation's tolerance, then the final
    float64 run from there — the float64 fixed point, as a float64 run from zero
    sites reaches it (both within 1e-6 of it converged to 1e-12; 1e-7 and 8e-9
    observed)."""
    X, y = make_xor_clusters(300, random_state=0)
    X_test, _ = make_xor_clusters(500, random_state=1)
    learnt = FITCGPClassifier(n_inducing=6, random_state=0).fit(X, y)

    def fixed(**options):
        return FITCGPClassifier(
            learnt.kernel_,
            inducing_init=learnt.inducing_points_,
            bias=learnt.bias_,
            optimizer=None,
            **options,
        ).fit(X, y)

    reference = fixed(sweep_dtype="float64", tol=1e-10).predict_proba(X_test)
    for dtype in ("float32", "float64"):
        np.testing.assert_allclose(
            fixed(sweep_dtype=dtype).predict_proba(X_test), reference, atol=1e-6
        )


def test_a_tol_below_float32_resolution_sweeps_in_float64():
    # float32 sweeps cannot settle the evidence to tol / 10 = 1e-7: at tol = 1e-6
    # they ran 252 sweeps where float64 took 108 (make_classification, 5 000 points)
    X, y = make_xor_clusters(300, random_state=0)
    X_test, _ = make_xor_clusters(200, random_state=1)
    fits = [
        FITCGPClassifier(n_inducing=6, sweep_dtype=dtype, tol=1e-6, random_state=0).fit(
            X, y
        )
        for dtype in ("float32", "float64")
    ]
    np.testing.assert_array_equal(
        fits[0].predict_proba(X_test), fits[1].predict_proba(X_test)
    )


def test_fixed_inducing_points_stay_put_and_the_kernel_is_learnt():
    X, y, kernel = small_problem(n=40)
    Z = X[:5].copy()
    clf = FITCGPClassifier(kernel, inducing_init=Z, optimize_inducing=False).fit(X, y)
    np.testing.assert_array_equal(clf.inducing_points_, Z)
    assert not np.allclose(clf.kernel_.theta, kernel.theta)


def test_multiclass_has_pseudo_inputs_per_class():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 2))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    clf = FITCGPClassifier(
        n_inducing=3, n_restarts_optimizer=0, max_iter_optimizer=3, random_state=0
    ).fit(X, y)
    assert len(clf.inducing_points_) == 3
    assert clf.predict_proba(X).shape == (60, 3)


def test_default_inducing_set_is_a_fifth_of_the_data_up_to_two_hundred():
    clf = FITCGPClassifier()
    assert clf._inducing_size(400) == 80
    assert clf._inducing_size(48_000) == 200
    assert clf._inducing_size(3) == 1
    assert clf.set_params(n_inducing=10)._inducing_size(48_000) == 10
    X, y, _ = small_problem(n=40)
    fitted = FITCGPClassifier(max_iter_optimizer=2, random_state=0).fit(X, y)
    assert fitted.inducing_points_.shape == (8, 2)


def test_repeated_inputs_are_pseudo_inputs_once(rng):
    """Fewer distinct inputs than M: they are the pseudo-inputs (k-means cannot place
    M distinct centres); a warning only when the user asked for that M."""
    distinct = rng.standard_normal((12, 2))
    X = distinct[np.arange(200) % 12]
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no k-means ConvergenceWarning either
        default = FITCGPClassifier(max_iter_optimizer=2, random_state=0).fit(X, y)
    assert default.inducing_points_.shape == (12, 2)
    with pytest.warns(UserWarning, match="12 distinct inputs, fewer than n_inducing"):
        FITCGPClassifier(n_inducing=20, max_iter_optimizer=2).fit(X, y)
    # the sample k-means sees has few distinct rows, X more than M: k-means on X's
    # distinct rows, weighted by their counts
    X = np.vstack([np.repeat(distinct[:1], 976, axis=0), rng.standard_normal((24, 2))])
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = FITCGPClassifier(n_inducing=20, optimizer=None, random_state=0).fit(
            X, y
        )
    assert len(np.unique(fitted.inducing_points_, axis=0)) == 20


def test_kmeans_gives_each_class_an_equal_share_of_the_pseudo_inputs(rng):
    """A class of a tenth of the points starts with half the pseudo-inputs (k-means
    on all the points gave it about a tenth), also among three classes; a class with
    fewer distinct inputs than its share leaves the start to k-means on all points."""
    rare = rng.standard_normal((40, 2)) + 10.0
    X = np.vstack([rare, rng.standard_normal((360, 2))])
    y = np.r_[np.ones(40), np.zeros(360)].astype(int)
    Z = FITCGPClassifier(n_inducing=20, optimizer=None, random_state=0).fit(X, y)
    assert np.count_nonzero(Z.inducing_points_[:, 0] > 5.0) == 10
    labels = np.r_[np.full(40, 2), (X[40:, 0] > 0).astype(int)]
    multinomial = FITCGPClassifier(
        n_inducing=30, multi_class="multinomial", optimizer=None, random_state=0
    ).fit(X, labels)
    assert np.count_nonzero(multinomial.inducing_points_[:, 0] > 5.0) == 10
    X[:40] = X[0]  # the rare class is one input: its share goes to k-means on all
    Z = FITCGPClassifier(n_inducing=20, optimizer=None, random_state=0).fit(X, y)
    assert len(np.unique(Z.inducing_points_, axis=0)) == 20


def test_random_pseudo_inputs_are_distinct_inputs(rng):
    distinct = rng.standard_normal((30, 2))
    X = distinct[rng.integers(0, 30, 400)]  # 400 rows, 30 distinct inputs
    y = (X[:, 0] > 0).astype(int)
    for M, expected in ((20, 20), (30, 30)):
        clf = FITCGPClassifier(
            n_inducing=M, inducing_init="random", optimizer=None, random_state=0
        )
        Z = clf.fit(X, y).inducing_points_
        assert len(np.unique(Z, axis=0)) == len(Z) == expected
        assert all(np.any(np.all(np.isclose(distinct, z), axis=1)) for z in Z)


def test_bad_input_gets_clear_errors():
    X, y, _ = small_problem(n=20)
    with pytest.raises(ValueError, match="n_inducing=30 exceeds the 20"):
        FITCGPClassifier(n_inducing=30).fit(X, y)
    with pytest.raises(ValueError, match=r"shape \(M, 2\)"):
        FITCGPClassifier(inducing_init=np.zeros((3, 5))).fit(X, y)
    with pytest.raises(ValueError, match="Matern"):
        FITCGPClassifier(Matern(nu=0.5), n_inducing=3).fit(X, y)
    with pytest.raises(ValueError, match="one class"):
        FITCGPClassifier(n_inducing=3).fit(X, np.ones(20))
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        FITCGPClassifier(n_inducing=3).fit(X_nan, y)


def test_any_kernel_works_with_fixed_hyperparameters():
    X, y, _ = small_problem(n=30)
    clf = FITCGPClassifier(Matern(nu=0.5), n_inducing=5, optimizer=None, random_state=0)
    assert clf.fit(X, y).score(X, y) > 0.7


def test_a_fitted_model_keeps_o_m_squared_memory_not_o_n_m():
    import pickle

    sizes = []
    for n in (300, 3000):
        X = np.random.default_rng(0).standard_normal((n, 3))
        y = np.where(X[:, 0] > 0, 1, -1)
        clf = FITCGPClassifier(n_inducing=10, optimizer=None, random_state=0)
        sizes.append(len(pickle.dumps(clf.fit(X, y))))
    assert sizes[1] < 1.1 * sizes[0]


def test_pseudo_input_blocks_too_large_for_memory_name_the_parameter(monkeypatch):
    monkeypatch.setattr(_memory, "available_memory", lambda: 10**5)
    X, y = make_xor_clusters(200, random_state=0)
    with pytest.raises(MemoryError, match="n_inducing"):
        FITCGPClassifier(n_inducing=20).fit(X, y)


def test_verbose_reports_the_final_ep_run(caplog):
    X, y = make_xor_clusters(200, random_state=0)
    with caplog.at_level(logging.DEBUG, logger="sparsegp"):
        FITCGPClassifier(n_inducing=6, optimizer=None, verbose=2, random_state=0).fit(
            X, y
        )
    assert any("final EP: log Z_EP" in r.message for r in caplog.records)


def test_blocks_grow_past_block_count_blocks_of_block_rows():
    """Up to BLOCK_COUNT · BLOCK_ROWS rows the blocks have at most BLOCK_ROWS rows;
    past that BLOCK_COUNT blocks (a power of two) until they reach LARGEST_BLOCK_ROWS."""
    from sparsegp.approximations.blocks import balanced_row_ranges
    from sparsegp.methods import fitc_ep as fc

    threshold = fc.BLOCK_COUNT * fc.BLOCK_ROWS
    assert fc.block_rows(1) == fc.block_rows(threshold) == fc.BLOCK_ROWS
    largest = fc.BLOCK_COUNT * fc.LARGEST_BLOCK_ROWS
    for n in (threshold + 1, 10**6, largest):
        ranges = balanced_row_ranges(n, fc.block_rows(n))
        assert len(ranges) == fc.BLOCK_COUNT
        assert ranges[0][0] == 0 and ranges[-1][1] == n
        assert max(b - a for a, b in ranges) <= fc.LARGEST_BLOCK_ROWS
    assert fc.block_rows(10 * largest) == fc.LARGEST_BLOCK_ROWS


@pytest.mark.parametrize("in_turns", [False, True])
def test_the_model_does_not_depend_on_n_jobs(in_turns, monkeypatch):
    """Row blocks are fixed by the data; n_jobs only runs them on threads, or in the
    fit's thread where the pool finds that faster (``in_turns``: each block
    function's maps on the threads and in the fit's thread in turns)."""
    from sparsegp.approximations import blocks
    from sparsegp.methods import fitc_ep

    monkeypatch.setattr(fitc_ep, "BLOCK_ROWS", 40)
    if in_turns:
        monkeypatch.setattr(blocks._Timings, "next_on_threads", _in_turns)
    X, y = make_xor_clusters(150, random_state=2)
    options = dict(n_inducing=8, max_iter_optimizer=5, random_state=0)
    one = FITCGPClassifier(n_jobs=1, **options).fit(X, y)
    two = FITCGPClassifier(n_jobs=2, **options).fit(X, y)
    assert len(fitc_ep.fitc_approximation(X, y, 1e-6).blocks.blocks) == 4
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
    assert one.estimators_[0].details == two.estimators_[0].details


def test_ard_auto_keeps_a_length_scale_per_feature_where_features_are_irrelevant():
    X, y = relevant_and_irrelevant_features(400, 0)
    X_test, y_test = relevant_and_irrelevant_features(2000, 1)
    fits = {
        ard: FITCGPClassifier(ard=ard, n_inducing=20, random_state=0).fit(X, y)
        for ard in (False, "auto")
    }
    chosen = fits["auto"].estimators_[0].details
    assert chosen["ard"] and chosen["ard_evidence_gain"] > 7
    length_scales = fits["auto"].kernel_.k2.length_scale
    assert length_scales.shape == (8,)
    assert max(length_scales[:2]) < min(length_scales[2:])  # the noise told apart
    errors = {ard: 1.0 - fit.score(X_test, y_test) for ard, fit in fits.items()}
    assert errors["auto"] < errors[False] - 0.03


def test_ard_auto_keeps_the_isotropic_kernel_where_every_feature_counts_alike():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 8))
    y = np.where(X.sum(axis=1) + 0.5 * rng.standard_normal(150) > 0, 1, -1)
    fit = FITCGPClassifier(ard="auto", n_inducing=10, random_state=0).fit(X, y)
    details = fit.estimators_[0].details
    assert not details["ard"] and details["ard_evidence_gain"] <= 7
    assert np.ndim(fit.kernel_.k2.length_scale) == 0
    isotropic = FITCGPClassifier(ard=False, n_inducing=10, random_state=0).fit(X, y)
    np.testing.assert_array_equal(fit.predict_proba(X), isotropic.predict_proba(X))
    screen = fit.estimators_[0].n_iterations - isotropic.estimators_[0].n_iterations
    assert 0 < screen <= 2 * ARD_SCREEN_ITERATIONS  # the screen, no whole ARD fit


def test_ard_true_learns_a_length_scale_per_feature_and_needs_the_default_kernel():
    """``ard=True`` refuses a given kernel; the default ``"auto"`` keeps it."""
    X, y = relevant_and_irrelevant_features(100, 0)
    fit = FITCGPClassifier(ard=True, n_inducing=5, random_state=0).fit(X, y)
    assert fit.kernel_.k2.length_scale.shape == (8,)
    with pytest.raises(ValueError, match="default kernel"):
        FITCGPClassifier(Matern(nu=1.5), ard=True, n_inducing=5).fit(X, y)
    given = FITCGPClassifier(Matern(nu=1.5), n_inducing=5, random_state=0).fit(X, y)
    assert np.ndim(given.kernel_.length_scale) == 0  # "auto" keeps a given kernel
    assert "ard" not in given.estimators_[0].details


def test_ard_auto_chooses_per_problem_and_for_the_multinomial_model():
    X, y = relevant_and_irrelevant_features(300, 0)
    labels = np.where(X[:, 0] > 1.0, 2, np.where(y > 0, 0, 1))  # three classes
    for multi_class in ("one_vs_rest", "multinomial"):
        fit = FITCGPClassifier(
            ard="auto", n_inducing=10, multi_class=multi_class, random_state=0
        ).fit(X, labels)
        chosen = [model.details["ard"] for model in fit.estimators_]
        assert len(chosen) == (3 if multi_class == "one_vs_rest" else 1)
        assert any(chosen)
        assert np.all(np.isfinite(fit.predict_proba(X)))


def _in_turns(timings):
    """A ``RowPool``'s choice that takes the threads and the caller's thread in turns."""
    timings.on_threads = not getattr(timings, "on_threads", False)
    return timings.on_threads
