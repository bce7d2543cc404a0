"""NLPSparseGPClassifier: scikit-learn contract, the full EP limit, learning, errors."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern
from sklearn.utils.estimator_checks import parametrize_with_checks

from sparsegp import EPGPClassifier, FITCGPClassifier, NLPSparseGPClassifier, _memory
from sparsegp.datasets import make_xor_clusters
from sparsegp.estimators import nlp_classifier as nlp_module
from sparsegp.methods import every_site

from ..conftest import features_that_count_alike, relevant_and_irrelevant_features


# scikit-learn's checks fit toy data under the iteration caps set here for speed:
# convergence and bound warnings are expected there
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@parametrize_with_checks(
    [
        NLPSparseGPClassifier(
            max_basis_vectors=0.5, max_outer_iterations=2, random_state=0
        )
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_approaches_full_ep_as_the_basis_grows_to_n():
    X, y = make_xor_clusters(120, random_state=0)
    X_test, _ = make_xor_clusters(300, random_state=1)
    options = dict(kernel=ConstantKernel(2.0) * RBF(1.0), optimizer=None, bias=0.1)
    full = EPGPClassifier(random_state=0, **options).fit(X, y).predict_proba(X_test)
    gaps = []
    for d in (12, 60, 119):
        sparse = NLPSparseGPClassifier(max_basis_vectors=d, random_state=0, **options)
        gaps.append(np.mean(np.abs(sparse.fit(X, y).predict_proba(X_test) - full)))
    assert gaps[0] > gaps[1] > gaps[2]
    assert gaps[2] < 0.01  # d = n − 1: one ADF pass over (almost) all points


def test_learns_xor_lowers_its_loss_and_is_reproducible():
    X, y = make_xor_clusters(300, random_state=0)
    X_test, y_test = make_xor_clusters(500, random_state=1)
    fixed = NLPSparseGPClassifier(max_basis_vectors=30, optimizer=None, random_state=3)
    a = NLPSparseGPClassifier(max_basis_vectors=30, random_state=3).fit(X, y)
    b = NLPSparseGPClassifier(max_basis_vectors=30, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.active_set_, b.active_set_)
    assert a.training_nlp_ < 0.9 * fixed.fit(X, y).training_nlp_
    assert a.n_outer_iterations_ > 1
    assert np.mean(a.predict(X_test) != y_test) < 0.15
    mean, var = a.latent_mean_and_variance(X_test[:3])
    assert mean.shape == (3,) and np.all(var > 0)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_fixing_the_slope_changes_little():
    """λ and the amplitude are redundant at the fixed point (§2.5): fixing λ = 1
    changes the model little (the paper's predictor: the default pass folds λ into
    the kernel)."""
    X, y = make_xor_clusters(200, random_state=0)
    X_test, _ = make_xor_clusters(200, random_state=1)
    options = dict(
        max_basis_vectors=20,
        max_outer_iterations=4,
        posterior="active_set",
        random_state=0,
    )
    fixed = NLPSparseGPClassifier(learn_slope=False, **options).fit(X, y)
    learnt = NLPSparseGPClassifier(**options).fit(X, y)
    assert fixed.estimators_[0].likelihood.slope == 1.0
    assert learnt.estimators_[0].likelihood.slope != 1.0
    gap = np.abs(learnt.predict_proba(X_test) - fixed.predict_proba(X_test))
    assert np.mean(gap) < 0.1


def test_multiclass_has_a_basis_per_class():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((90, 2)) + np.repeat([[0, 0], [3, 0], [0, 3]], 30, axis=0)
    y = np.repeat(["a", "b", "c"], 30)
    clf = NLPSparseGPClassifier(max_basis_vectors=10, random_state=0).fit(X, y)
    assert len(clf.active_set_) == 3 and clf.training_nlp_.shape == (3,)
    assert np.mean(clf.predict(X) == y) > 0.9
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)


def test_bad_input_gets_clear_errors():
    X, y = make_xor_clusters(20, random_state=0)
    with pytest.raises(ValueError, match="leaves no training point"):
        NLPSparseGPClassifier(max_basis_vectors=20).fit(X, y)
    with pytest.raises(ValueError, match="at least two classes"):
        NLPSparseGPClassifier().fit(X, np.ones(20))
    with pytest.raises(ValueError, match="NaN"):
        NLPSparseGPClassifier().fit(np.full((20, 2), np.nan), y)
    with pytest.raises(ValueError, match="working_set_size"):
        NLPSparseGPClassifier(working_set_size=0).fit(X, y)
    with pytest.raises(ValueError, match="Matern"):
        NLPSparseGPClassifier(Matern(nu=0.5)).fit(X, y)


def test_any_kernel_works_with_fixed_hyperparameters():
    X, y = make_xor_clusters(60, random_state=0)
    clf = NLPSparseGPClassifier(Matern(), optimizer=None, random_state=0).fit(X, y)
    assert clf.n_outer_iterations_ == 1 and len(clf.active_set_) == 12


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_verbose_fit_shows_the_optimizer_progress(capsys):
    X, y = make_xor_clusters(120, random_state=0)
    NLPSparseGPClassifier(
        max_basis_vectors=10, max_outer_iterations=2, verbose=1, random_state=0
    ).fit(X, y)
    assert "NLP: validation loss" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_validation_sample_as_large_as_the_data_is_the_paper_method():
    X, y = make_xor_clusters(150, random_state=0)
    fits = [
        NLPSparseGPClassifier(
            max_basis_vectors=15,
            validation_size=size,
            max_outer_iterations=3,
            random_state=0,
        ).fit(X, y)
        for size in (None, 1000)
    ]
    np.testing.assert_array_equal(fits[0].active_set_, fits[1].active_set_)
    np.testing.assert_allclose(fits[0].predict_proba(X), fits[1].predict_proba(X))


def test_a_validation_sample_learns_as_well_as_all_points():
    # 600 points, 100 of them scoring each candidate and each hyperparameter step.
    X, y = make_xor_clusters(600, random_state=0)
    X_test, y_test = make_xor_clusters(2000, random_state=1)
    scores = {
        size: NLPSparseGPClassifier(
            max_basis_vectors=20, validation_size=size, random_state=0
        )
        .fit(X, y)
        .score(X_test, y_test)
        for size in (None, 100)
    }
    assert scores[None] > 0.8
    assert scores[100] > scores[None] - 0.02


def test_one_standard_error_rule_returns_an_earlier_iteration_of_the_same_run():
    X, y = make_xor_clusters(150, random_state=2)
    options = dict(
        max_basis_vectors=15, max_outer_iterations=8, ard=False, random_state=1
    )
    lowest = NLPSparseGPClassifier(model_choice="lowest", **options).fit(X, y)
    one_se = NLPSparseGPClassifier(model_choice="one_se", **options).fit(X, y)
    # the same outer loop; only the iteration returned differs
    assert one_se.n_outer_iterations_ == lowest.n_outer_iterations_
    assert lowest.training_nlp_ < one_se.training_nlp_ < lowest.training_nlp_ + 0.1


def test_choose_iteration_takes_the_earliest_within_one_standard_error():
    from sparsegp.approximations.nlp_selection import HeldOutLoss
    from sparsegp.methods.nlp_classifier import choose_iteration

    class Iteration:
        def __init__(self, value, standard_error):
            self.loss = HeldOutLoss(value, standard_error, 1000)

    path = [Iteration(0.45, 0.04), Iteration(0.33, 0.04), Iteration(0.30, 0.03)]
    path += [Iteration(0.29, 0.03), Iteration(0.31, 0.03)]
    assert choose_iteration(path, "lowest") is path[3]
    assert choose_iteration(path, "one_se") is path[2]  # 0.30 ≤ 0.29 + 0.03 < 0.33
    assert choose_iteration(path[:1], "one_se") is path[0]


def test_plateau_ignores_noise_but_registers_a_slow_descent():
    from sparsegp.approximations.nlp_selection import HeldOutLoss
    from sparsegp.methods.nlp_classifier import Plateau

    def run(values, standard_error=0.01, tol=1e-3, patience=3, n_points=1000):
        plateau = Plateau(tol, patience)
        for step, value in enumerate(values, start=1):
            plateau.record(HeldOutLoss(value, standard_error, n_points))
            if plateau.reached:
                return step
        return None

    # each fall within the standard error (and the last a new lowest): noise, stop
    assert run([0.30, 0.295, 0.296, 0.2949]) == 4
    # 0.004 per iteration: the third is 0.012 below the reference and resets it
    assert run([0.30, 0.296, 0.292, 0.288, 0.284, 0.280, 0.276]) is None
    # a fall larger than the error, but not than tol, does not count
    assert run([0.30, 0.25, 0.25, 0.25], standard_error=0.001, tol=0.5) == 4
    # separable classes: each halving of a vanishing loss gains less than one nat
    # over the 1 000 points, and the loop stops
    halvings = [4e-3, 1e-3, 5e-4, 2.5e-4, 1.25e-4, 6e-5]
    assert run(halvings, standard_error=1e-5) == 5
    assert run(halvings, standard_error=1e-5, n_points=10**6) is None


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_single_precision_store_gives_the_double_precision_classifier():
    X, y = make_xor_clusters(300, random_state=0)
    X_test, _ = make_xor_clusters(200, random_state=1)
    options = dict(max_basis_vectors=30, max_outer_iterations=3, random_state=0)
    fits = [
        NLPSparseGPClassifier(store_dtype=dtype, **options).fit(X, y)
        for dtype in ("float64", "float32")
    ]
    np.testing.assert_array_equal(fits[0].active_set_, fits[1].active_set_)
    assert fits[1].training_nlp_ == pytest.approx(fits[0].training_nlp_, rel=1e-5)
    np.testing.assert_allclose(
        fits[0].predict_proba(X_test), fits[1].predict_proba(X_test), atol=1e-4
    )


def test_the_cap_on_outer_iterations_warns_with_the_loss_reached():
    X, y = make_xor_clusters(150, random_state=0)
    clf = NLPSparseGPClassifier(max_basis_vectors=15, max_outer_iterations=2)
    with pytest.warns(ConvergenceWarning, match=r"still falling \(lowest 0\.\d+\)"):
        clf.set_params(random_state=0).fit(X, y)
    assert not clf.converged_


def test_default_basis_is_a_fifth_of_the_data_up_to_five_hundred():
    clf = NLPSparseGPClassifier()
    assert clf._basis_size(1_300) == 260
    assert clf._basis_size(48_000) == 500
    assert clf.set_params(max_basis_vectors=0.2)._basis_size(48_000) == 9_600


def test_the_default_pass_puts_a_site_on_every_point_of_a_rare_class():
    """10 % positives: the basis' labels alone under-predict the rare class; the pass
    over every site (slope folded into the kernel) lowers the test error and NLP."""
    X, y = make_classification(  # measured: 8.5 % / 0.240 → 6.6 % / 0.202
        n_samples=3000,
        n_features=20,
        n_informative=10,
        weights=[0.9],
        flip_y=0.02,
        random_state=0,
    )
    X, X_test, y, y_test = X[:2000], X[2000:], y[:2000], y[2000:]
    scores = {}
    for posterior in ("active_set", "auto"):
        model = NLPSparseGPClassifier(  # the isotropic kernel the numbers are of
            max_basis_vectors=40, posterior=posterior, ard=False, random_state=0
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
        proba = model.predict_proba(X_test)[np.arange(len(y_test)), y_test]
        scores[posterior] = (
            np.mean(model.predict(X_test) != y_test),
            -np.mean(np.log(proba)),
        )
    assert scores["auto"][0] < scores["active_set"][0] - 0.01
    assert scores["auto"][1] < scores["active_set"][1] - 0.02


def _rare_class_problem():
    X, y = make_classification(
        n_samples=1500, n_features=6, n_informative=4, weights=[0.9], random_state=1
    )
    return X[:1000], y[:1000], X[1000:]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_the_pass_is_fitc_ep_on_the_basis_with_the_slope_folded_in(monkeypatch):
    """``Φ(λ(f + b)) = Φ(λf + λb)``: the pass equals FITC's EP with pseudo-inputs at
    the basis, kernel ``λ²k`` and bias ``λb``, where nothing is relearnt."""
    monkeypatch.setattr(nlp_module, "relearning", lambda *args: (None, None))
    X, y, X_test = _rare_class_problem()
    options = dict(max_basis_vectors=30, max_outer_iterations=3, random_state=0)
    paper = NLPSparseGPClassifier(posterior="active_set", **options).fit(X, y)
    model = NLPSparseGPClassifier(**options).fit(X, y)
    slope = paper.estimators_[0].likelihood.slope
    assert slope != 1.0
    fitc = FITCGPClassifier(
        ConstantKernel(slope**2, "fixed") * paper.kernel_,
        inducing_init=X[paper.active_set_],
        optimizer=None,
        bias=slope * paper.bias_,
        damping=0.8,
        random_state=0,
    ).fit(X, y)
    np.testing.assert_allclose(
        model.predict_proba(X_test), fitc.predict_proba(X_test), atol=1e-6
    )


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_the_papers_predictor_is_kept_with_a_warning_when_the_pass_would_not_fit(
    monkeypatch,
):
    X, y, X_test = _rare_class_problem()
    options = dict(max_basis_vectors=30, max_outer_iterations=3, random_state=0)
    paper = NLPSparseGPClassifier(posterior="active_set", **options).fit(X, y)
    # room for the selection's store (n × d), not for FITC's M × n blocks
    monkeypatch.setattr(_memory, "available_memory", lambda: 1_000 * 30 * 8 * 3)
    with pytest.warns(UserWarning, match="does not fit"):
        kept = NLPSparseGPClassifier(**options).fit(X, y)
    np.testing.assert_array_equal(
        kept.predict_proba(X_test), paper.predict_proba(X_test)
    )


def test_the_model_does_not_depend_on_n_jobs(monkeypatch):
    """The loss's columns in pieces and the pass's row blocks, on two threads or one."""
    from sparsegp.approximations import adf_active_set
    from sparsegp.methods import fitc_ep

    monkeypatch.setattr(adf_active_set, "_COMPLETE_PIECE", 16)
    monkeypatch.setattr(fitc_ep, "BLOCK_ROWS", 40)
    X, y = make_xor_clusters(160, random_state=4)
    options = dict(max_basis_vectors=12, random_state=0)
    one = NLPSparseGPClassifier(n_jobs=1, **options).fit(X, y)
    two = NLPSparseGPClassifier(n_jobs=2, **options).fit(X, y)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
    np.testing.assert_array_equal(one.active_set_, two.active_set_)


def test_ard_auto_keeps_a_length_scale_per_feature_only_where_it_pays():
    """More outer iterations with the chosen kernel made ARD where one screening
    step lowers the loss by more than Akaike's penalty; their loss carries the
    penalty and the model choice runs over every iteration."""
    outcomes = {}
    for name, data in (
        ("relevant", relevant_and_irrelevant_features),
        ("alike", features_that_count_alike),
    ):
        X, y = data(400, 0)
        X_test, y_test = data(2000, 1)
        fits = {
            ard: NLPSparseGPClassifier(ard=ard, random_state=0).fit(X, y)
            for ard in (False, "auto")
        }
        auto = fits["auto"]
        errors = {ard: 1.0 - fit.score(X_test, y_test) for ard, fit in fits.items()}
        outcomes[name] = auto.estimators_[0].details["ard"]
        if outcomes[name]:
            assert auto.kernel_.k2.k2.length_scale.shape == (8,)  # λ² · c · RBF
            assert errors["auto"] < errors[False] - 0.03
            assert auto.n_outer_iterations_ > fits[False].n_outer_iterations_
        else:  # the screen's one step ends it: no ARD iteration run
            assert auto.n_outer_iterations_ == fits[False].n_outer_iterations_
            np.testing.assert_array_equal(
                auto.predict_proba(X_test), fits[False].predict_proba(X_test)
            )
    assert outcomes == {"relevant": True, "alike": False}
    with pytest.raises(ValueError, match="default kernel"):
        NLPSparseGPClassifier(RBF(1.0), ard=True).fit(X, y)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    ("relearn_size", "learnt_on"), [(5e9, 1000), (400 * 30**2, 400)]
)
def test_the_pass_relearns_kernel_and_bias_by_fitcs_evidence(
    relearn_size, learnt_on, monkeypatch
):
    """From the folded start, five L-BFGS-B steps on FITC's evidence with the basis
    held, on every row while n·d² ≤ ``RELEARN_SIZE`` and on ``RELEARN_SIZE / d²``
    random rows above (then the EP over every row at the kernel learnt there)."""
    monkeypatch.setattr(nlp_module, "RELEARN_SIZE", relearn_size)
    monkeypatch.setattr(every_site, "LEARN_ROWS_LEAST", 0)
    rows_seen = []
    approximation = every_site.fitc_approximation

    def recorded(X, y, jitter, name, pool, largest=None):
        rows_seen.append(len(X))
        return approximation(X, y, jitter, name, pool, largest)

    monkeypatch.setattr(every_site, "fitc_approximation", recorded)
    X, y, _ = _rare_class_problem()
    options = dict(max_basis_vectors=30, max_outer_iterations=3, random_state=0)
    relearnt = NLPSparseGPClassifier(**options).fit(X, y)
    assert rows_seen == ([1000] if learnt_on == 1000 else [learnt_on, 1000])
    monkeypatch.setattr(nlp_module, "relearning", lambda *args: (None, None))
    kept = NLPSparseGPClassifier(**options).fit(X, y)
    np.testing.assert_array_equal(relearnt.active_set_, kept.active_set_)
    assert relearnt.kernel_.get_params() != kept.kernel_.get_params()
