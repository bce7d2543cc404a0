"""IVMClassifier and IVMRegressor: selection modes, precision, progress, errors, FITC posterior."""

import logging
import threading
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits, make_blobs, make_classification
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern, WhiteKernel
from sklearn.utils.estimator_checks import parametrize_with_checks

from sparsegp import IVMClassifier, IVMRegressor, _memory
from sparsegp.datasets import make_xor_clusters
from sparsegp.methods import every_site
from sparsegp.methods import ivm as ivm_method
from sparsegp.methods.ivm import GaussianTask, ProbitTask

from ..conftest import features_that_count_alike, relevant_and_irrelevant_features


# scikit-learn's checks fit toy data under the iteration caps set here for speed:
# convergence and bound warnings are expected there
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(
    [
        IVMClassifier(
            active_set_size=0.5,
            n_outer_iterations=1,
            max_iter_optimizer=5,
            random_state=0,
        ),
        IVMClassifier(
            active_set_size=0.5,
            posterior="fitc",
            n_outer_iterations=1,
            max_iter_optimizer=5,
            random_state=0,
        ),
        IVMRegressor(
            active_set_size=0.5,
            n_outer_iterations=1,
            max_iter_optimizer=5,
            random_state=0,
        ),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_regressor_selection_picks_largest_variance_first():
    X = np.array([[0.0], [0.1], [5.0], [0.05]])
    kernel = RBF(1.0) + WhiteKernel(0.1)
    ivm = IVMRegressor(
        kernel,
        active_set_size=3,
        optimizer=None,
        n_random_start=1,
        selection="greedy",
        random_state=0,
    ).fit(X, np.zeros(4))
    assert 2 in ivm.active_set_[:2]


def test_regressor_auto_selection_avoids_spending_the_set_on_outliers():
    """Greedy (largest variance first) spends d on 20 far-away inputs; uniform covers
    the bulk where the test points are; ``"auto"`` sees it in held-out squared error."""
    rng = np.random.default_rng(0)
    bulk, far = rng.uniform(-3, 3, size=(380, 1)), rng.uniform(20, 200, size=(20, 1))
    X = np.concatenate([bulk, far])
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(400)
    X_test = rng.uniform(-3, 3, size=(500, 1))
    kernel = ConstantKernel(1.0) * RBF(0.7) + WhiteKernel(0.01)
    errors = {}
    for selection in ("randomized", "auto"):
        model = IVMRegressor(
            kernel,
            active_set_size=25,
            selection=selection,
            optimizer=None,
            random_state=0,
        ).fit(X, y)
        errors[selection] = np.mean(
            (model.predict(X_test) - np.sin(2 * X_test[:, 0])) ** 2
        )
    assert model.selection_used_ == "random"
    assert errors["auto"] < errors["randomized"] / 2


def test_classifier_learns_xor_and_is_reproducible():
    X, y = make_xor_clusters(300, random_state=0)
    X_test, y_test = make_xor_clusters(500, random_state=1)
    a = IVMClassifier(active_set_size=60, random_state=3).fit(X, y)
    b = IVMClassifier(active_set_size=60, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.active_set_, b.active_set_)
    assert np.mean(a.predict(X_test) != y_test) < 0.2
    mean, var = a.latent_mean_and_variance(X_test[:3])
    assert np.all(var > 0)
    assert isinstance(a.selection_time_, float) and a.selection_time_ > 0


@pytest.mark.parametrize("selection", ["randomized", "greedy", "random"])
def test_single_precision_store_gives_the_double_precision_classifier(selection):
    X, y = make_xor_clusters(400, random_state=0)
    X_test, _ = make_xor_clusters(200, random_state=1)
    fits = [
        IVMClassifier(
            active_set_size=60,
            selection=selection,
            selection_size=80,
            n_full_greedy=10,
            store_dtype=dtype,
            optimizer=None,
            random_state=0,
        ).fit(X, y)
        for dtype in ("float64", "float32")
    ]
    np.testing.assert_array_equal(fits[0].active_set_, fits[1].active_set_)
    np.testing.assert_allclose(
        fits[0].predict_proba(X_test), fits[1].predict_proba(X_test), atol=1e-4
    )


def test_verbose_selection_shows_progress(capsys):
    X, y = make_xor_clusters(100, random_state=0)
    IVMClassifier(active_set_size=20, optimizer=None, verbose=1).fit(X, y)
    assert "IVM selection" in capsys.readouterr().err


def test_classifier_bad_input():
    X, y = make_xor_clusters(20, random_state=0)
    with pytest.raises(ValueError, match="exceeds the 20 training points"):
        IVMClassifier(active_set_size=21).fit(X, y)
    with pytest.raises(ValueError, match="at least two classes"):
        IVMClassifier().fit(X, np.ones(20))
    with pytest.raises(ValueError, match="NaN"):
        IVMClassifier().fit(np.full((20, 2), np.nan), y)


def test_regressor_needs_a_noise_term():
    with pytest.raises(ValueError, match="WhiteKernel"):
        IVMRegressor(RBF(1.0)).fit(np.arange(5.0)[:, None], np.zeros(5))


def test_auto_selection_avoids_the_label_noise_greedy_selection_picks():
    """On noisy imbalanced labels greedy selection does worse than the majority class;
    ``selection="auto"`` notices on held-out points and keeps the uniform active set."""
    X, y, X_test, y_test = noisy_imbalanced_problem()
    majority_error = np.mean(y_test != 0)
    errors = {}
    for selection in ("randomized", "auto"):
        model = IVMClassifier(
            active_set_size=100,
            selection=selection,
            optimizer=None,
            posterior="active_set",  # eq. 5: the active set alone predicts
            random_state=0,
        ).fit(X, y)
        errors[selection] = np.mean(model.predict(X_test) != y_test)
    assert errors["randomized"] > majority_error
    assert model.selection_used_ == "random"
    assert errors["auto"] < majority_error - 0.05


def noisy_imbalanced_problem():
    X, y = make_classification(
        n_samples=3000,
        n_features=6,
        n_informative=4,
        weights=[0.75],
        flip_y=0.15,
        random_state=2,
    )
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X[:2000], y[:2000], X[2000:], y[2000:]


@pytest.mark.parametrize(
    ("rows_per_point", "learnt_on"),
    [
        (2, [(1000, every_site.LEARN_BLOCK_ROWS), (2000, None)]),
        (20, [(2000, None)]),
    ],
)
def test_auto_posterior_adds_every_site_when_the_uniform_selection_wins(
    rows_per_point, learnt_on, monkeypatch
):
    """Label noise: eq. 5 on the uniform set uses d = 100 of 2 000 labels; the FITC
    pass puts a site on every one, on the same active set, its kernel relearnt on
    ``LEARN_ROWS_PER_POINT``·d random rows, at least ``LEARN_ROWS_LEAST`` (here
    1 000; in row blocks of at most ``LEARN_BLOCK_ROWS``), on every row where those
    would be all of them."""
    monkeypatch.setattr(every_site, "LEARN_ROWS_PER_POINT", rows_per_point)
    monkeypatch.setattr(every_site, "LEARN_ROWS_LEAST", 1000)
    rows_seen = []
    approximation = every_site.fitc_approximation

    def recorded(X, y, jitter, name, pool, largest=None):
        rows_seen.append((len(X), largest))
        return approximation(X, y, jitter, name, pool, largest)

    monkeypatch.setattr(every_site, "fitc_approximation", recorded)
    X, y, X_test, y_test = noisy_imbalanced_problem()
    scores = {}
    for posterior in ("active_set", "auto"):
        model = IVMClassifier(
            active_set_size=100, posterior=posterior, random_state=0
        ).fit(X, y)
        assert model.selection_used_ == "random"
        proba = model.predict_proba(X_test)[np.arange(len(y_test)), y_test]
        scores[posterior] = (
            np.mean(model.predict(X_test) != y_test),
            -np.mean(np.log(proba)),
            model.active_set_,
            model.kernel_.get_params(),
        )
    assert rows_seen == learnt_on
    np.testing.assert_array_equal(scores["auto"][2], scores["active_set"][2])
    assert scores["auto"][3] != scores["active_set"][3]  # relearnt
    assert scores["auto"][1] < scores["active_set"][1] - 0.01
    assert scores["auto"][0] <= scores["active_set"][0] + 0.005


def test_auto_posterior_keeps_eq_5_where_the_pass_would_cost_more_than_selection(
    monkeypatch,
):
    """Beyond ``PASS_SIZE`` (C·n·d²) the pass is left out, without a warning: the
    model is eq. 5's."""
    monkeypatch.setattr(every_site, "PASS_SIZE", 2000 * 100**2 - 1)
    X, y, X_test, _ = noisy_imbalanced_problem()
    params = dict(active_set_size=100, random_state=0)
    eq5 = IVMClassifier(posterior="active_set", **params).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auto = IVMClassifier(**params).fit(X, y)
    np.testing.assert_array_equal(auto.predict_proba(X_test), eq5.predict_proba(X_test))


@pytest.mark.parametrize(
    ("d", "n", "n_problems", "result"),
    [
        (1000, 50_000, 1, ("fmin_l_bfgs_b", 2000)),
        (1500, 20_000, 1, ("fmin_l_bfgs_b", 3000)),
        (100, 5000, 1, ("fmin_l_bfgs_b", 2000)),
        (100, 1500, 1, ("fmin_l_bfgs_b", None)),
        (400, 50_000, 10, None),
        (2400, 60_000, 1, None),
    ],
)
def test_relearning_rows_grow_with_d_and_the_pass_stays_within_its_budget(
    d, n, n_problems, result
):
    """``LEARN_ROWS_PER_POINT``·d rows, at least ``LEARN_ROWS_LEAST`` (every row
    where fewer), and no pass where C·n·d² exceeds ``PASS_SIZE``."""
    assert every_site.relearning("fmin_l_bfgs_b", d, n, n_problems) == result


def test_auto_posterior_keeps_eq_5_with_a_warning_when_the_pass_would_not_fit(
    monkeypatch,
):
    X, y, X_test, _ = noisy_imbalanced_problem()
    fits = IVMClassifier(active_set_size=100, random_state=0)
    eq5 = IVMClassifier(active_set_size=100, posterior="active_set", random_state=0)
    eq5.fit(X, y)
    # room for the selection's store (n × d), not for FITC's six M × n blocks
    monkeypatch.setattr(_memory, "available_memory", lambda: 2_000 * 100 * 8 * 3)
    with pytest.warns(UserWarning, match="does not fit"):
        fits.fit(X, y)
    np.testing.assert_array_equal(fits.predict_proba(X_test), eq5.predict_proba(X_test))


def test_auto_selection_keeps_greedy_where_it_is_more_accurate():
    """Clean digits (4 against the rest): greedy 0.5 % test error, uniform 5.7 %; the
    default posterior is then the FITC pass on the greedy set."""
    X, digits = load_digits(return_X_y=True)
    y = np.where(digits == 4, 1, -1)
    model = IVMClassifier(active_set_size=100, optimizer=None, random_state=0)
    model.fit(X[:1200] / 16.0, y[:1200])
    assert model.selection_used_ == "randomized"
    assert np.mean(model.predict(X[1200:] / 16.0) != y[1200:]) < 0.02
    fitc = IVMClassifier(
        active_set_size=100, optimizer=None, posterior="fitc", random_state=0
    ).fit(X[:1200] / 16.0, y[:1200])
    np.testing.assert_array_equal(
        model.predict_proba(X[1200:] / 16.0), fitc.predict_proba(X[1200:] / 16.0)
    )


def test_verbose_hyperparameter_rounds_show_progress(capsys):
    X, y = make_xor_clusters(100, random_state=0)
    IVMClassifier(
        active_set_size=20, n_outer_iterations=1, max_iter_optimizer=3, verbose=1
    ).fit(X, y)
    assert "IVM round 1: L_IVM" in capsys.readouterr().err


def test_fitc_posterior_keeps_the_active_set_and_mends_the_probabilities():
    """The same selection; every training point then informs the posterior, and the
    IVM's overconfident probabilities on xor (NLP 0.55) come close to full EP's."""
    X, y = make_xor_clusters(300, random_state=0)
    X_test, y_test = make_xor_clusters(1000, random_state=1)
    nlp, sets = {}, {}
    for posterior in ("active_set", "fitc"):
        ivm = IVMClassifier(
            active_set_size=30,
            posterior=posterior,
            selection="randomized",  # the entropy score's set: eq. 5 overconfident
            random_state=0,
        )
        ivm.fit(X, y)
        proba = ivm.predict_proba(X_test)[np.arange(len(y_test)), (y_test > 0) * 1]
        nlp[posterior], sets[posterior] = -np.mean(np.log(proba)), ivm.active_set_
    np.testing.assert_array_equal(sets["fitc"], sets["active_set"])
    assert nlp["fitc"] < 0.7 * nlp["active_set"]


def test_fitc_posterior_with_a_kernel_fitc_cannot_differentiate_keeps_it():
    X, y = make_xor_clusters(200, random_state=0)
    kernel = ConstantKernel(1.0) * Matern(nu=0.5)
    ivm = IVMClassifier(kernel, active_set_size=30, random_state=0).fit(X, y)
    fitc = IVMClassifier(
        kernel, active_set_size=30, posterior="fitc", random_state=0
    ).fit(X, y)
    assert fitc.kernel_.get_params() == ivm.kernel_.get_params()
    assert np.mean(fitc.predict(X) != y) < 0.2


def test_verbose_fitc_posterior_shows_its_progress(capsys, caplog):
    X, y = make_xor_clusters(100, random_state=0)
    with caplog.at_level(logging.INFO, logger="sparsegp"):
        IVMClassifier(
            active_set_size=20, posterior="fitc", n_outer_iterations=1, verbose=1
        ).fit(X, y)
    assert "IVMClassifier: FITC evidence" in capsys.readouterr().err  # not FITC's name
    assert "IVMClassifier: FITC posterior over 100 points" in caplog.text


@pytest.mark.parametrize("estimator", [IVMClassifier(), IVMRegressor()])
def test_default_active_set_is_a_fifth_of_the_data_up_to_5_root_n_and_a_thousand(
    estimator,
):
    estimator.classes_ = np.array([0, 1])  # a regressor ignores it
    assert estimator._active_set_size(1_000) == 200  # N/5, under 300
    assert estimator._active_set_size(2_000) == 300  # 5·√2 000 = 224 < 300
    assert estimator._active_set_size(7_291) == 427  # 5·√7 291
    assert estimator._active_set_size(5_002) == 354
    assert estimator._active_set_size(48_000) == 1_000
    assert estimator.set_params(active_set_size=0.5)._active_set_size(48_000) == 24_000


def test_one_vs_rest_problems_share_the_default_active_sets_budget(monkeypatch):
    monkeypatch.setattr(ivm_method, "DEFAULT_MAX_ACTIVE_SET", 40)
    X, y = make_blobs(400, centers=4, random_state=0)
    options = dict(posterior="active_set", n_outer_iterations=1, random_state=0)
    four = IVMClassifier(**options).fit(X, y)
    assert [len(active) for active in four.active_set_] == [20] * 4  # 40/√4
    two = IVMClassifier(**options).fit(X[y < 2], y[y < 2])
    assert len(two.active_set_) == 40
    small = IVMClassifier(**options).fit(X[:80], y[:80])  # N/5 below the cap
    assert [len(active) for active in small.active_set_] == [16] * 4


def test_the_fitc_posterior_does_not_depend_on_n_jobs(monkeypatch):
    from sparsegp.methods import fitc_ep

    monkeypatch.setattr(fitc_ep, "BLOCK_ROWS", 50)
    X, y = make_xor_clusters(200, random_state=0)
    options = dict(active_set_size=20, posterior="fitc", random_state=0)
    one = IVMClassifier(n_jobs=1, **options).fit(X, y)
    two = IVMClassifier(n_jobs=2, **options).fit(X, y)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))


def test_the_two_auto_selections_on_two_threads_give_the_one_thread_model():
    X, y = make_xor_clusters(300, random_state=1)
    y[::7] = 1 - y[::7]  # noise: both selections are scored, either may win
    options = dict(active_set_size=30, n_outer_iterations=1, random_state=0)
    one = IVMClassifier(n_jobs=1, **options).fit(X, y)
    two = IVMClassifier(n_jobs=2, **options).fit(X, y)
    assert one.estimators_[0].details["selection"] in ("randomized", "random")
    np.testing.assert_array_equal(
        one.estimators_[0].details["active_set"],
        two.estimators_[0].details["active_set"],
    )
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))


@pytest.mark.parametrize("chosen", ["random", "randomized"])
def test_a_head_started_pass_gives_the_one_thread_model(monkeypatch, chosen):
    """On two threads the pass over every site starts on the model of the fit that
    ends first (here the uniform one: the greedy one is held back) while the other
    runs; kept if that model is chosen, abandoned if not: the one-thread model."""
    from sparsegp.approximations.blocks import GatedPool
    from sparsegp.methods.every_site import EverySitePass

    fit_ivm, evidence = ivm_method.ActiveSetFitting._fit_ivm, EverySitePass.evidence
    pools, head_started = [], threading.Event()

    def held_back(self, X, y, kernel, rng, strategy, stop=None):
        result = fit_ivm(self, X, y, kernel, rng, strategy, stop)
        if strategy == "randomized" and self.settings.threads > 1:
            assert head_started.wait(5)  # until the uniform fit's pass has begun
        return result

    def recorded(self, model, pool=None):
        pools.append(type(pool))
        if isinstance(pool, GatedPool):
            head_started.set()
        return evidence(self, model, pool)

    monkeypatch.setattr(ivm_method.ActiveSetFitting, "_fit_ivm", held_back)
    monkeypatch.setattr(EverySitePass, "evidence", recorded)
    monkeypatch.setattr(
        ivm_method.ActiveSetFitting,
        "_better_fit",
        lambda *args: ("randomized", "random").index(chosen),
    )
    X, y = make_xor_clusters(300, random_state=1)
    options = dict(active_set_size=30, posterior="fitc", random_state=0)
    one = IVMClassifier(n_jobs=1, **options).fit(X, y)
    del pools[:]
    two = IVMClassifier(n_jobs=2, **options).fit(X, y)
    assert pools[0] is GatedPool
    assert len(pools) == (1 if chosen == "random" else 2)  # abandoned: run again
    assert one.estimators_[0].details["selection"] == chosen
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
    for key in ("active_set", "n_sweeps", "fitc_evaluations"):
        np.testing.assert_array_equal(
            one.estimators_[0].details[key], two.estimators_[0].details[key]
        )


def test_the_hyperparameter_rounds_objective_adds_the_amplitude_prior():
    """``L_IVM`` plus the log amplitude's prior, its gradient by finite differences."""
    from sparsegp.testing import assert_gradient_matches

    rng = np.random.default_rng(0)
    X_I, y_I = rng.standard_normal((12, 3)), np.where(rng.random(12) > 0.5, 1.0, -1.0)
    sites = (rng.uniform(0.2, 2.0, 12), rng.standard_normal(12))
    kernel = ConstantKernel(30.0) * RBF(1.3) + ConstantKernel(0.5)
    with_prior = ProbitTask(amplitude_prior=2.0)
    alone = ProbitTask(amplitude_prior=None)

    def value(theta, task=with_prior):
        return task.evidence(kernel.clone_with_theta(theta), X_I, y_I, sites)[0]

    got, gradient = with_prior.evidence(kernel, X_I, y_I, sites)
    log_amplitude = np.log(30.0)
    assert got == pytest.approx(
        value(kernel.theta, alone) - log_amplitude**2 / (2 * 2.0**2)
    )
    assert_gradient_matches(value, gradient, kernel.theta, step=1e-6, rtol=1e-6)


def test_ard_auto_keeps_a_length_scale_per_feature_where_it_predicts_better():
    X, y = relevant_and_irrelevant_features(500, 0)
    X_test, y_test = relevant_and_irrelevant_features(2000, 1)
    params = dict(active_set_size=80, selection="random", random_state=0)
    fits = {ard: IVMClassifier(ard=ard, **params).fit(X, y) for ard in (False, "auto")}
    chosen = fits["auto"].estimators_[0]
    assert chosen.details["ard"] and chosen.details["ard_evidence_gain"] > 7
    assert chosen.n_iterations == 4  # the three rounds and the ARD round
    length_scales = fits["auto"].kernel_.k1.k2.length_scale
    assert max(length_scales[:2]) < min(length_scales[2:])  # the noise told apart
    errors = {ard: 1.0 - fit.score(X_test, y_test) for ard, fit in fits.items()}
    assert errors["auto"] < errors[False] - 0.03


def test_ard_auto_keeps_the_isotropic_rounds_where_features_count_alike():
    X, y = features_that_count_alike(300, 0)
    params = dict(active_set_size=60, selection="random", random_state=0)
    fit = IVMClassifier(ard="auto", **params).fit(X, y)
    assert not fit.estimators_[0].details["ard"]
    assert np.ndim(fit.kernel_.k1.k2.length_scale) == 0
    isotropic = IVMClassifier(ard=False, **params).fit(X, y)
    np.testing.assert_array_equal(fit.predict_proba(X), isotropic.predict_proba(X))


@pytest.mark.parametrize("gain, selections", [(6.9, 2), (7.1, 3)])
def test_ard_round_reselects_only_where_l_ivm_gains_more_than_its_penalty(
    monkeypatch, gain, selections
):
    """Eight features: the ARD kernel's seven more length-scales must gain over 7
    nats of ``L_IVM`` before the set is reselected with it."""
    X, y = relevant_and_irrelevant_features(200, 0)
    calls = []
    select = ivm_method.ActiveSetFitting._select

    def counted(self, *args, **kwargs):
        calls.append(args[2])  # the kernel
        return select(self, *args, **kwargs)

    def fake_maximize(self, X, y, kernel, sites, rng, label):
        ard = np.ndim(kernel.k1.k2.length_scale) == 1
        return kernel, gain if ard else 1.0  # ARD from the isotropic optimum

    monkeypatch.setattr(ivm_method.ActiveSetFitting, "_select", counted)
    monkeypatch.setattr(ivm_method.ActiveSetFitting, "_maximize_l_ivm", fake_maximize)
    IVMClassifier(
        ard="auto",
        active_set_size=30,
        selection="random",
        posterior="active_set",
        n_outer_iterations=1,
        random_state=0,
    ).fit(X, y)
    assert len(calls) == selections
    assert all(np.ndim(k.k1.k2.length_scale) == 0 for k in calls[:2])
    assert all(np.ndim(k.k1.k2.length_scale) == 1 for k in calls[2:])


def test_ivm_ard_true_starts_with_a_length_scale_per_feature():
    X, y = relevant_and_irrelevant_features(150, 0)
    fit = IVMClassifier(ard=True, active_set_size=30, random_state=0).fit(X, y)
    assert fit.kernel_.k1.k2.length_scale.shape == (8,)
    assert "ard" not in fit.estimators_[0].details
    with pytest.raises(ValueError, match="default kernel"):
        IVMClassifier(RBF(1.0), ard=True, active_set_size=30).fit(X, y)


def test_regressor_keeps_its_store_in_float64_whatever_its_size():
    """A float32 store rounds the selection's variances to about 10⁻⁷ of the prior's:
    on nearly noise-free targets they went negative (issue 89)."""
    assert GaussianTask().store_dtype("auto", 10**6, 1000) == np.float64
    assert ProbitTask().store_dtype("auto", 10**6, 1000) == np.float32


def test_rounds_without_a_finite_held_out_nlp_warn(monkeypatch):
    X = np.random.default_rng(0).normal(size=(80, 2))
    monkeypatch.setattr(
        ivm_method.ActiveSetFitting, "_held_out_nlp", lambda self, state, n, rng: np.nan
    )
    with pytest.warns(UserWarning, match="was not finite"):
        IVMRegressor(active_set_size=20, random_state=0).fit(X, X[:, 0])


def test_auto_selection_beyond_the_subsample_starts_from_its_kernel(monkeypatch):
    """Beyond AUTO_SELECTION_ROWS the subsample's fits learn the kernel; the one
    selection on every row starts from it, with no rounds of its own where the pass
    relearns the kernel, and with its rounds where there is no pass."""
    X, y = make_classification(n_samples=400, n_features=4, random_state=0)
    monkeypatch.setattr(ivm_method, "AUTO_SELECTION_ROWS", 150)
    calls = []
    fit_ivm = ivm_method.ActiveSetFitting._fit_ivm

    def recorded(self, X, y, kernel, rng, strategy, stop=None, d=None, rounds=None):
        model, learnt = fit_ivm(self, X, y, kernel, rng, strategy, stop, d, rounds)
        calls.append((len(y), kernel, rounds, learnt))
        return model, learnt

    monkeypatch.setattr(ivm_method.ActiveSetFitting, "_fit_ivm", recorded)
    IVMClassifier(active_set_size=40, random_state=0).fit(X, y)
    *subsample, full = calls
    assert [n for n, *_ in subsample] == [150, 150] and full[0] == 400
    assert full[2] == 0
    assert any(full[1] == learnt for *_, learnt in subsample)
    calls.clear()
    IVMClassifier(active_set_size=40, posterior="active_set", random_state=0).fit(X, y)
    assert calls[-1][2] is None  # n_outer_iterations rounds


def test_auto_selection_is_compared_on_the_first_of_several_classes(monkeypatch):
    """Under AUTO_SELECTION_ROWS rows only the first one-vs-rest problem fits both
    selections; the others fit its choice once, at its kernel and with no rounds
    where the pass relearns theirs, and with the default start and their rounds
    where there is no pass."""
    X, y = make_blobs(n_samples=300, centers=3, cluster_std=3.0, random_state=0)
    calls, compared = [], []
    fit_ivm = ivm_method.ActiveSetFitting._fit_ivm
    better_fit = ivm_method.ActiveSetFitting._better_fit

    def recorded(self, X, y, kernel, rng, strategy, stop=None, d=None, rounds=None):
        calls.append((strategy, kernel, rounds))
        return fit_ivm(self, X, y, kernel, rng, strategy, stop, d, rounds)

    def counted(self, *args):
        compared.append(True)
        return better_fit(self, *args)

    monkeypatch.setattr(ivm_method.ActiveSetFitting, "_fit_ivm", recorded)
    monkeypatch.setattr(ivm_method.ActiveSetFitting, "_better_fit", counted)
    clf = IVMClassifier(active_set_size=30, random_state=0).fit(X, y)
    first, *others = clf.estimators_
    assert len(compared) == 1 and len(calls) == 2 + len(others)
    assert {strategy for strategy, *_ in calls[:2]} == {"randomized", "random"}
    for model, (strategy, kernel, rounds) in zip(others, calls[2:], strict=True):
        assert strategy == first.details["selection"] == model.details["selection"]
        assert kernel == first.kernel and rounds == 0
    calls.clear()
    IVMClassifier(active_set_size=30, posterior="active_set", random_state=0).fit(X, y)
    assert [rounds for *_, rounds in calls[2:]] == [None, None]
    assert calls[2][1] == calls[0][1]  # the default kernel, not the first's


def test_auto_selection_decided_once_gives_the_model_auto_would_have():
    """A problem that takes another's choice (and no pass relearns its kernel) fits
    as ``"auto"`` would have had it chosen the same: the same stream, the same
    model."""
    from dataclasses import replace

    from sparsegp.methods.kernel_defaults import default_kernel

    X, y = make_classification(n_samples=240, n_features=4, random_state=1)
    y = np.where(y == 1, 1.0, -1.0)
    settings = ivm_method.IVMSettings(active_set_size=25, selection="auto")
    task = ProbitTask(0.0, None, "IVMClassifier")
    kernel = default_kernel(X, constant=1.0)

    def fitted(settings):
        fitting = ivm_method.ActiveSetFitting(settings, task, lambda line: None)
        return fitting.fit(X, y, kernel, np.random.RandomState(3))

    compared, learnt = fitted(settings)
    for strategy in ("randomized", "random"):
        chosen, _ = fitted(replace(settings, auto_choice=(strategy, learnt)))
        assert chosen.details["selection"] == strategy
        if strategy == compared.details["selection"]:
            np.testing.assert_array_equal(
                chosen.details["active_set"], compared.details["active_set"]
            )
            np.testing.assert_array_equal(chosen.kernel.theta, compared.kernel.theta)
        else:
            assert set(chosen.details["active_set"]) != set(
                compared.details["active_set"]
            )
