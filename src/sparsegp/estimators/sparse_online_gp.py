"""Csató's sparse online GP: SparseOnlineGPRegressor and SparseOnlineGPClassifier.

Both learn from a stream in one pass with ``partial_fit`` (or ``fit``), keeping at most
``max_basis_vectors`` basis vectors; the mathematics is in
:mod:`sparsegp.approximations.online`. [Csa02] fixes the hyperparameters; here, by
default, they are estimated once from a subsample by the exact model's evidence
(exact regression, full EP: algorithms.md §3.6) before the pass, or taken as given
with ``optimizer=None``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from numbers import Integral, Real

import numpy as np
from sklearn.gaussian_process.kernels import Kernel, WhiteKernel
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._threads import one_blas_thread
from ..kernels import split_white_noise
from ..likelihoods import Gaussian, Probit
from ..methods.every_site import every_site_if_it_fits
from ..methods.full_ep import ard_by_full_ep, full_ep_settings
from ..methods.kernel_defaults import default_kernel
from ..methods.online_gp import (
    OnlinePasses,
    ard_candidates,
    classifier_model,
    default_basis_size,
    default_hyperparameter_samples,
    hyperparameter_sample_size,
    online_model,
    prequential_choice,
    regressor_hyperparameters,
    run_passes,
)
from ._base import (
    AMPLITUDE_PRIOR_CONSTRAINT,
    ARD_CONSTRAINT,
    GPClassifierMixin,
    GPRegressorMixin,
    chooses_ard,
    one_vs_rest,
    pass_caller,
    per_problem,
    report_progress,
    restore_on_failure,
    starting_kernel,
    validate_dense,
    warn_at_bounds,
    warn_full_ep_not_converged,
)
from ._input_units import in_input_units, kernel_in_input_units

_SHARED_CONSTRAINTS: dict = {
    "kernel": [None, Kernel],
    "max_basis_vectors": [Interval(Integral, 1, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="left")],
    "deletion_score": [StrOptions({"approximate", "exact"})],
    "n_passes": [Interval(Integral, 1, None, closed="left")],
    "shuffle": ["boolean"],
    "optimizer": [StrOptions({"fmin_l_bfgs_b"}), None],
    "n_hyperparameter_samples": [Interval(Integral, 2, None, closed="left")],
    "n_restarts_optimizer": [Interval(Integral, 0, None, closed="left")],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}


class _OnlineFitting:
    """How both estimators read their parameters into the passes
    (:mod:`sparsegp.methods.online_gp`)."""

    # The estimators' parameters and their task's hooks, which the passes read.
    max_basis_vectors: int | None
    tol: float
    deletion_score: str
    n_passes: int
    shuffle: bool
    n_hyperparameter_samples: int | None
    verbose: int
    _n_binary_problems: Callable[[], int]

    def _passes(self, n):
        """The passes over ``n`` examples (None: a stream), their BV set capped at
        ``max_basis_vectors`` or
        :func:`~sparsegp.methods.online_gp.default_basis_size`."""
        d = self.max_basis_vectors
        if d is None:
            d = default_basis_size(n, self._n_binary_problems())
        return OnlinePasses(
            basis_size=d,
            tol=self.tol,
            deletion_score=self.deletion_score,
            n_passes=self.n_passes,
            shuffle=self.shuffle,
            progress=bool(self.verbose),
        )

    def _hyperparameter_samples(self):
        """The size of the hyperparameter subsample, before any growth."""
        return self.n_hyperparameter_samples

    def _subsample(self, n, rng, size=None):
        """The rows of ``size`` random examples of ``n`` (the hyperparameter
        subsample's size by default)."""
        size = min(n, self._hyperparameter_samples() if size is None else size)
        return rng.choice(n, size=size, replace=False) if size < n else np.arange(n)

    def _report(self, state, start):
        report_progress(
            self,
            message=f"{type(self).__name__}: {state.n_seen} examples, {state.size} basis "
            f"vectors, {state.n_deleted} deleted, {state.n_projected} projected "
            f"({time.perf_counter() - start:.1f} s)",
        )


class SparseOnlineGPRegressor(_OnlineFitting, GPRegressorMixin):
    """GP regression learnt online on a bounded set of basis vectors (Csató 2002, ch. 3).

    Each example is absorbed in O(d²) by the exact online update of the posterior
    process (eq. 57); if the BV set then holds more than ``max_basis_vectors``
    elements, the one whose removal costs least in KL divergence is projected out
    (eqs. 78-81). Memory O(d²), independent of the number of examples.

    Parameters
    ----------
    kernel : sklearn kernel with a WhiteKernel summand, default=None
        The ``WhiteKernel`` level is the observation noise, as in
        ``GaussianProcessRegressor`` (a fitted ``GaussianProcessRegressor().kernel_``
        can be passed as is). ``None`` means
        ``ConstantKernel(1.0) * RBF(ℓ₀) + WhiteKernel(0.1)``.
    ard : bool, default=False
        Give the default kernel a length-scale per feature, learnt with the others
        by the subsample's evidence (``True`` applies to ``kernel=None`` only).
    max_basis_vectors : int or None, default=None
        The cap ``d`` on the BV set. ``None``: the classifier's budget for two
        classes, :func:`~sparsegp.methods.online_gp.default_basis_size` (600 up to
        50 000 examples, fewer beyond, at least 300): a pass costs O(n·d²), and a BV
        set of 100 kept the error of larger training sets above that of smaller
        ones.
    tol : float, default=1e-6
        ``ε_tol``: an example whose feature-space residual ``γ`` is below
        ``tol·k(x, x)`` is projected onto the current basis (eq. 88) and does not join
        it; this keeps ``K_BV⁻¹`` well conditioned on (near-)duplicate inputs.
    deletion_score : {"approximate", "exact"}, default="approximate"
        Deletion score: eq. 85 (the mean term, O(d), used in [Csa02]'s experiments) or
        eq. 83 (the full KL divergence, O(d³) per deletion). (Not ``score``: that
        name is scikit-learn's ``score`` method.)
    n_passes : int, default=1
        ``2`` adds a pass that refits the posterior on the basis of the first pass,
        held fixed (every example projected onto it once more; for regression the
        DTC posterior on that basis); the cost is that of the first pass again.
    shuffle : bool, default=True
        Present the examples of ``fit`` in a random order (``random_state``);
        ``partial_fit`` keeps the given order.
    optimizer : "fmin_l_bfgs_b" or None, default="fmin_l_bfgs_b"
        Hyperparameters (noise included) are estimated once, by exact GP regression
        on a random subsample of ``n_hyperparameter_samples`` examples (of the first
        chunk for ``partial_fit``), then kept fixed for the online pass. ``None`` uses
        the kernel as given.
    n_hyperparameter_samples : int, default=500
        Size of that subsample (O(n³) exact GP regression).
    n_restarts_optimizer : int, default=2
        Extra optimiser starts from random hyperparameters.
    normalize_y : bool, default=True
        Centre and scale the targets by the mean and standard deviation of the data
        given to ``fit`` (of the first chunk for ``partial_fit``), as
        ``GaussianProcessRegressor(normalize_y=True)``; ``kernel_`` is then in those
        units. Without it, a zero-mean GP on Friedman #1 (targets around 14) fits
        "all noise" from the default kernel. Pass ``False`` with a kernel fitted to
        raw targets.
    random_state : int, RandomState or None, default=None
        Order of presentation and the subsample.
    verbose : int, default=0
        Print a summary of each fit.

    Attributes
    ----------
    n_iter_ : int or ndarray
        Examples absorbed (one online update each).
    converged_ : bool
        Always True: a pass has nothing to converge.
    basis_vectors_ : ndarray of shape (t, n_features)
        The current BV set (t ≤ max_basis_vectors).
    kernel_ : Kernel
        Kernel of the online pass, ``WhiteKernel`` term included.
    model_ : FittedModel
        The posterior as it stands; ``model_.details["online_state"]`` is the online
        state (``α``, ``C``, ``Q`` and counters ``n_seen``, ``n_deleted``,
        ``n_projected``) that ``partial_fit`` continues.
    log_marginal_likelihood_value_ : float
        NaN: a single pass defines no evidence.

    References
    ----------
    [Csa02] Csató, L. (2002). Gaussian processes - iterative sparse approximations.
    PhD thesis, Aston University, chapter 3.
    The mathematics: docs/algorithms.md §3.

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from sparsegp import SparseOnlineGPRegressor
    >>> X, y = make_friedman1(n_samples=500, noise=1.0, random_state=0)
    >>> reg = SparseOnlineGPRegressor(max_basis_vectors=50, random_state=0).fit(X, y)
    >>> reg.basis_vectors_.shape
    (50, 10)
    """

    _parameter_constraints: dict = {
        **_SHARED_CONSTRAINTS,
        "max_basis_vectors": [Interval(Integral, 1, None, closed="left"), None],
        "ard": ["boolean"],
        "normalize_y": ["boolean"],
    }

    def _n_binary_problems(self):
        """One fit has the default size's budget
        (:func:`~sparsegp.methods.online_gp.default_basis_size`)."""
        return 1

    def __init__(
        self,
        kernel=None,
        *,
        ard=False,
        max_basis_vectors=None,
        tol=1e-6,
        deletion_score="approximate",
        n_passes=1,
        shuffle=True,
        optimizer="fmin_l_bfgs_b",
        n_hyperparameter_samples=500,
        n_restarts_optimizer=2,
        normalize_y=True,
        random_state=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.ard = ard
        self.max_basis_vectors = max_basis_vectors
        self.tol = tol
        self.deletion_score = deletion_score
        self.n_passes = n_passes
        self.shuffle = shuffle
        self.optimizer = optimizer
        self.n_hyperparameter_samples = n_hyperparameter_samples
        self.n_restarts_optimizer = n_restarts_optimizer
        self.normalize_y = normalize_y
        self.random_state = random_state
        self.verbose = verbose

    def _fit_model(self, X, y):
        """Learn from ``X``, ``y`` in ``n_passes`` passes, starting afresh."""
        start = time.perf_counter()
        rng = check_random_state(self.random_state)
        kernel = self._hyperparameters(X, y, rng)
        latent, likelihood = _split_noise(kernel)
        passes = self._passes(len(y))
        state, _ = run_passes(X, y, latent, likelihood, passes, rng)
        self._report(state, start)
        return online_model(state), kernel

    @restore_on_failure
    @one_blas_thread
    def partial_fit(self, X, y):
        """Absorb the examples ``X``, ``y`` in the given order (one online pass).

        The first call sets up the model (hyperparameters from this chunk unless
        ``optimizer=None``); calls in chunks equal one call on their concatenation
        when the hyperparameters are fixed.

        Returns
        -------
        self : object
        """
        start = time.perf_counter()
        first = not hasattr(self, "model_")
        if first:
            self._validate_params()
        X, y = validate_dense(self, X, y, y_numeric=True, reset=first)
        if first:
            y = self._normalize_targets(y)
            kernel = self._hyperparameters(X, y, check_random_state(self.random_state))
            self.kernel_ = kernel_in_input_units(self, kernel)
            latent, likelihood = _split_noise(kernel)
            state = self._passes(None).new_state(latent, likelihood)
        else:
            y = (y - self.y_mean_) / self.y_std_
            state = self.model_.details["online_state"]
        state.update(X, y)
        self._report(state, start)
        self.model_ = online_model(state)
        self.n_iter_, self.converged_ = state.n_seen, True
        self.log_marginal_likelihood_value_ = self.model_.log_marginal_likelihood
        return self

    def _hyperparameters(self, X, y, rng):
        kernel = starting_kernel(
            self, X, lambda: default_kernel(X, constant=1.0) + WhiteKernel(0.1)
        )
        _split_noise(kernel)  # a clear error before any work
        if self.optimizer is None:
            return kernel
        rows = self._subsample(len(y), rng)
        learnt = regressor_hyperparameters(
            X[rows], y[rows], kernel, self.n_restarts_optimizer, rng
        )
        warn_at_bounds(learnt, self)
        return learnt

    @property
    def basis_vectors_(self):
        check_is_fitted(self)
        return in_input_units(self, self.model_.points)


class SparseOnlineGPClassifier(_OnlineFitting, GPClassifierMixin):
    """Probit GP classifier learnt online on a bounded BV set (Csató 2002, ch. 3).

    The online update of eq. 57 with the probit's averaged-likelihood moments (ADF),
    KL-optimal deletion of the least important basis vector (eqs. 78-85); O(d²) per
    example, one pass. Multi-class problems are one-vs-rest.

    Parameters
    ----------
    kernel : sklearn kernel, default=None
        ``None`` means ``ConstantKernel(1.0) * RBF(ℓ₀) + ConstantKernel(1.0)``
        (a learnt variance of a random offset, as for the IVM).
    ard : bool or "auto", default=False
        One length-scale per feature (automatic relevance determination) in the
        default kernel; ``False`` keeps [Csa02]'s isotropic kernel. ``"auto"`` (not
        the default: it did not pass the defaults gate, algorithms.md
        §5.8): ``fit`` learns the isotropic kernel on the
        hyperparameters' subsample and the ARD kernel from its optimum, runs the pass
        with each (in one order) and keeps ARD where its prequential NLP — each
        example predicted before the pass absorbed it — over the examples outside
        the subsample is lower by more than one standard error ([Daw84]; about twice
        the isotropic fit's time). The subsample's evidence alone cannot tell: on a
        few hundred examples ARD rarely gains the ``D − 1`` nats its length-scales
        cost, where on 50 000 it predicts much better. ``partial_fit``, which cannot
        replay its stream, and a training set no larger than the subsample choose by
        that evidence test, as :class:`EPGPClassifier` does (algorithms.md §5.8).
        ``True`` learns ARD length-scales. With a given ``kernel``, ``"auto"`` keeps
        it.
    max_basis_vectors : int or None, default=None
        The cap ``d`` on the BV set. A pass costs O(n·d²). ``None``: 600 for two
        classes up to 50 000 examples, fewer
        where C one-vs-rest problems or more examples would cost more — ``d`` such
        that the passes cost one such pass together (``600·√(50 000/(C·n))``), at
        least 300 (:func:`~sparsegp.methods.online_gp.default_basis_size`; 600 for
        ``partial_fit``'s two classes, a stream's length unknown). On low-noise data
        the error keeps falling past d = 300 (docs/guide.md, "Default sizes").
    tol, deletion_score, n_passes, shuffle
        As for :class:`SparseOnlineGPRegressor`.
    posterior : {"auto", "online"}, default="auto"
        ``"online"``: [Csa02]'s predictor, the posterior the pass leaves, each
        example's likelihood absorbed once (ADF) and projected onto the BV set.
        ``"auto"``: then, in ``fit``, one EP run over every training example on the
        FITC prior whose pseudo-inputs are the BV set ([NGH07] §6, as the IVM's and
        the NLP classifier's defaults), the kernel and bias kept: the second sweep
        over the data that [Csa02]'s discussion leaves to EP, at O(n·d²) per sweep. The
        single pass leaves the probabilities under-confident where the data allow
        confident ones, and the run over every example lowers the test NLP and ECE
        there for a fraction more of the fit's time (algorithms.md §3.7).
        ``partial_fit`` absorbs its examples
        into the online state ``fit`` left, and the model then predicts from that
        state. Kept, with a warning, where the pass would not fit in memory.
    optimizer : "fmin_l_bfgs_b" or None, default="fmin_l_bfgs_b"
        Kernel and probit bias are estimated once by :class:`EPGPClassifier` on a
        random subsample of ``n_hyperparameter_samples`` examples (of the first chunk
        for ``partial_fit``), then fixed. ``None`` keeps ``kernel`` and ``bias``.
    n_hyperparameter_samples : int or None, default=None
        Size of that subsample (O(n³) EP), grown (up to four times) until it holds
        about 30 examples of the rarer class: with fewer, EP's evidence can prefer a
        model that predicts the base rate everywhere. ``None``: 1 000 for two classes,
        ``1 000/∛C`` (at least 300) for C one-vs-rest problems, which together then
        cost one subsample's fit
        (:func:`~sparsegp.methods.online_gp.default_hyperparameter_samples`). A larger
        subsample learns the shorter length-scales that many examples support.
    n_restarts_optimizer : int, default=0
        Extra optimiser starts from random hyperparameters. The classifier, like
        :class:`EPGPClassifier`, starts once by default: on the defaults gate's
        sets two more found no better model at twice the time (algorithms.md
        §3.6).
    bias : float, default=0.0
        Probit bias ``b`` (the starting value when it is learnt).
    amplitude_prior : float or None, default=3.0
        As for :class:`EPGPClassifier`: the prior on the log amplitude, here on
        the evidence of the hyperparameters' subsample.
    n_jobs : int or None, default=None
        One-vs-rest problems fitted in parallel by ``fit``.
    random_state, verbose
        As for :class:`SparseOnlineGPRegressor`.

    Attributes
    ----------
    odds_weight_ : float
        How the one-vs-rest probabilities of more than two classes combine: ``P(k) ∝ Φ_k
        (1 − Φ_k)^(−w)``, fitted in [0, 1] by the likelihood of the training labels
        under each example's held-out prediction (algorithms.md §7.5): its EP cavity
        in the pass over every example (``posterior="auto"``), else its prediction
        before the online pass absorbed it; 0 (the ``Φ_k`` normalised) for two
        classes, for ``posterior="online"`` with ``n_passes > 1`` (a later pass has
        seen its examples) and after ``partial_fit`` alone.
    n_iter_ : int or ndarray
        Examples absorbed per one-vs-rest problem.
    converged_ : bool
        Always True: a pass has nothing to converge.
    basis_vectors_ : ndarray of shape (t, n_features), or a list (one per class
        beyond two)
    kernel_, bias_, classes_, estimators_
        As for :class:`EPGPClassifier`; ``estimators_[c].predictor`` is the online
        state, or with the pass over every example (``posterior="auto"``) FITC's
        predictor, the online state then ``estimators_[c].details["online_state"]``.

    References
    ----------
    [Csa02] Csató, L. (2002). Gaussian processes - iterative sparse approximations.
    PhD thesis, Aston University, chapter 3.
    [Daw84] Dawid, A. P. (1984). Statistical theory: the prequential approach. Journal
    of the Royal Statistical Society A 147(2).
    The mathematics: docs/algorithms.md §3.

    Examples
    --------
    >>> from sparsegp import SparseOnlineGPClassifier
    >>> from sparsegp.datasets import make_xor_clusters
    >>> X, y = make_xor_clusters(300, random_state=0)
    >>> clf = SparseOnlineGPClassifier(max_basis_vectors=20, random_state=0)
    >>> clf.partial_fit(X[:150], y[:150], classes=[-1, 1]).partial_fit(X[150:], y[150:])
    SparseOnlineGPClassifier(max_basis_vectors=20, random_state=0)
    >>> len(clf.basis_vectors_)
    20
    """

    _parameter_constraints: dict = {
        **_SHARED_CONSTRAINTS,
        "max_basis_vectors": [Interval(Integral, 1, None, closed="left"), None],
        "n_hyperparameter_samples": [Interval(Integral, 2, None, closed="left"), None],
        "bias": [Real],
        "amplitude_prior": AMPLITUDE_PRIOR_CONSTRAINT,
        "ard": ARD_CONSTRAINT,
        "posterior": [StrOptions({"auto", "online"})],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        kernel=None,
        *,
        ard=False,
        max_basis_vectors=None,
        tol=1e-6,
        deletion_score="approximate",
        n_passes=1,
        shuffle=True,
        posterior="auto",
        optimizer="fmin_l_bfgs_b",
        n_hyperparameter_samples=None,
        n_restarts_optimizer=0,
        bias=0.0,
        amplitude_prior=3.0,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.max_basis_vectors = max_basis_vectors
        self.tol = tol
        self.deletion_score = deletion_score
        self.n_passes = n_passes
        self.shuffle = shuffle
        self.posterior = posterior
        self.optimizer = optimizer
        self.n_hyperparameter_samples = n_hyperparameter_samples
        self.n_restarts_optimizer = n_restarts_optimizer
        self.bias = bias
        self.amplitude_prior = amplitude_prior
        self.ard = ard
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _hyperparameter_samples(self):
        if self.n_hyperparameter_samples is None:
            return default_hyperparameter_samples(self._n_binary_problems())
        return self.n_hyperparameter_samples

    def _fit_binary(self, X, y, random_state):
        start = time.perf_counter()
        rng = check_random_state(random_state)
        candidates, outside, details = self._hyperparameters(X, y, rng, True)
        order = rng.get_state()
        passes, runs = self._passes(len(y)), []
        for kernel, likelihood in candidates:
            rng.set_state(order)  # every candidate sees the examples in one order
            runs.append(run_passes(X, y, kernel, likelihood, passes, rng))
        chosen = 0
        if len(runs) > 1:
            chosen, details, message = prequential_choice(candidates, runs, y, outside)
            report_progress(self, message=message)
        state, predictive = runs[chosen]
        self._report(state, start)
        model = online_model(state, details)
        if self.n_passes == 1:  # held out, as EP's cavities: not after a later pass
            model = replace(model, leave_one_out=(predictive[:, 0], predictive[:, 1]))
        return self._every_example(X, y, model, random_state)

    def _every_example(self, X, y, model, random_state):
        """``posterior="auto"``'s EP over every example on the FITC prior whose
        pseudo-inputs are the BV set, the kernel and bias kept (algorithms.md
        §3.7)."""
        if self.posterior != "auto":
            return model
        kept = "the online posterior ([Csa02], each example absorbed once)"
        return every_site_if_it_fits(
            pass_caller(self), X, y, model, random_state, None, kept
        )

    def _hyperparameters(self, X, y, rng, replayable=False):
        """The kernels and likelihoods to run the pass with, the rows outside the
        hyperparameters' subsample and the record of a choice made: one model (the
        rows None), or for ``ard="auto"`` in a fit that can replay its pass
        (``fit``, not a stream's first chunk) with examples outside the subsample,
        the isotropic model and the ARD model fitted from it, for
        :meth:`_prequential_choice`; otherwise the subsample's evidence chooses
        (algorithms.md §3.6)."""
        kernel = starting_kernel(self, X, lambda: default_kernel(X, constant=1.0))
        if self.optimizer is None:
            return [(kernel, Probit(float(self.bias)))], None, {}
        rows = self._subsample(
            len(y), rng, hyperparameter_sample_size(y, self._hyperparameter_samples())
        )
        X_sub, y_sub = X[rows], y[rows]
        if len(np.unique(y_sub)) < 2:
            raise ValueError(
                f"The {len(y_sub)} examples used to estimate the hyperparameters hold "
                "one class only; pass a first chunk with both classes, a larger "
                "n_hyperparameter_samples, or optimizer=None with a fixed kernel."
            )
        # the fit's own seed, drawn as a fitted EPGPClassifier draws its problem's
        settings = full_ep_settings(
            n_restarts=self.n_restarts_optimizer,
            random_state=int(rng.randint(np.iinfo(np.int32).max, size=1)[0]),
            amplitude_prior=self.amplitude_prior,
            progress=f"{type(self).__name__}: EP evidence" if self.verbose else None,
        )
        advice = "to keep a kernel fixed, pass it with optimizer=None"

        def warn(fit):
            warn_full_ep_not_converged(self, fit, settings, advice)

        model = classifier_model(X_sub, y_sub, kernel, self.bias, settings, warn)
        if not chooses_ard(self, X):
            return [(model.kernel, model.likelihood)], None, {}
        outside = np.ones(len(y), dtype=bool)
        outside[rows] = False
        if not (replayable and outside.any()):  # the subsample's evidence decides
            model = ard_by_full_ep(X_sub, y_sub, model, settings, warn)
            choice = {key: model.details[key] for key in ("ard", "ard_evidence_gain")}
            return [(model.kernel, model.likelihood)], None, choice
        return ard_candidates(X_sub, y_sub, model, settings, warn), outside, {}

    @restore_on_failure
    @one_blas_thread
    def partial_fit(self, X, y, classes=None):
        """Absorb the examples ``X``, ``y`` in the given order (one online pass).

        After ``fit`` it continues the online state ``fit`` left and predicts from
        it (``posterior="auto"``'s EP over every example is ``fit``'s alone).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, required on the first call
            All classes the stream will contain.

        Returns
        -------
        self : object
        """
        start = time.perf_counter()
        first = not hasattr(self, "estimators_")
        if first:
            self._validate_params()
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit."
                )
            classes = np.unique(classes)
            if len(classes) < 2:
                raise ValueError(
                    f"{type(self).__name__} needs at least two classes; got {classes!r}."
                )
        X, y = validate_dense(self, X, y, reset=first)
        check_classification_targets(y)
        if first:
            self.classes_ = classes
        unknown = np.setdiff1d(y, self.classes_)
        if len(unknown):
            raise ValueError(
                f"Labels {unknown!r} are not among the classes {self.classes_!r} "
                "given on the first call to partial_fit."
            )
        if first:
            states = self._first_states(X, y)
        else:
            states = [model.details["online_state"] for model in self.estimators_]
        for labels, state in zip(one_vs_rest(self.classes_, y), states, strict=True):
            state.update(X, labels)
            self._report(state, start)
        self.estimators_ = [online_model(state) for state in states]
        if first:  # the examples' predictions before absorption are not kept here
            self.odds_weight_ = 0.0
        self._set_fitted_summaries()
        return self

    def _first_states(self, X, y):
        """Each one-vs-rest problem's empty online state, its hyperparameters learnt on
        the first chunk ``X``, ``y``."""
        rng = check_random_state(self.random_state)
        states = []
        for labels in one_vs_rest(self.classes_, y):
            kernel, likelihood = self._hyperparameters(X, labels, rng)[0][0]
            states.append(self._passes(None).new_state(kernel, likelihood))
        return states

    def _set_fitted_summaries(self):
        super()._set_fitted_summaries()
        points = per_problem(m.points for m in self.estimators_)
        self.basis_vectors_ = in_input_units(self, points)


def _split_noise(kernel):
    """Latent kernel and Gaussian likelihood from a kernel with a WhiteKernel term."""
    latent, noise = split_white_noise(kernel)
    return latent, Gaussian(noise)
