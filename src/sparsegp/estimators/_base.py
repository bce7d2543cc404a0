"""Behaviour every GP estimator of the package shares.

A concrete classifier implements one method, ``_fit_binary(X, y, random_state)``, which
fits a ±1 problem and returns a :class:`FittedModel`. This base class validates input,
encodes labels, runs one-vs-rest problems in parallel with joblib, and turns latent
predictions into ``predict``, ``predict_proba`` and ``decision_function``. Every
prediction method also takes a ``dask.array.Array`` and returns dask arrays, one task
per row block; ``fit`` on a dask array calls ``_fit_binary_distributed``, which the
estimators that fit on a cluster implement and the others refuse (``docs/dask.md``).
"""

from __future__ import annotations

import contextvars
import functools
import logging
import os
import warnings
from abc import abstractmethod
from dataclasses import replace
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from scipy.sparse import issparse
from scipy.special import ndtr
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import (
    CompoundKernel,
)
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._dask import aligned, is_dask_array, map_row_blocks, map_row_pairs
from .._threads import one_blas_thread
from ..approximations.evidence import EvidenceFit, EvidenceSettings
from ..approximations.one_vs_rest import class_log_probabilities
from ..exceptions import warn_at_caller
from ..kernels import (
    offset_names,
    with_length_scale_per_feature,
)
from ..methods.every_site import PassCaller
from ..methods.fitted import (
    FittedModel,
)
from ..methods.kernel_defaults import default_kernel
from ..methods.multiclass import odds_weight, with_variance_scale
from ._feature_units import standardised_if_better
from ._input_units import (
    conditioned_dask_inputs,
    conditioned_inputs,
    kernel_in_input_units,
)

#: ``amplitude_prior``: the standard deviation of the log amplitudes' normal prior
#: (:class:`~sparsegp.approximations.evidence.EvidenceSettings`), or None.
AMPLITUDE_PRIOR_CONSTRAINT: list = [Interval(Real, 0, None, closed="neither"), None]

#: ``ard``: a length-scale per feature in the default kernel (:func:`starting_kernel`).
ARD_CONSTRAINT: list = ["boolean", StrOptions({"auto"})]

#: Parameter constraints of the run-time options every GP classifier has.
CLASSIFIER_RUNTIME_CONSTRAINTS: dict = {
    "n_jobs": [Integral, None],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}

#: Distance in log-space below which a learnt hyperparameter counts as on its bound.
_BOUND_TOLERANCE = 1e-6


def fifth_up_to(n, cap):
    """The default sparse size: N/5 (the papers' setting on their small data sets),
    at least 1 and at most ``cap``."""
    return max(1, min(n // 5, cap))


def per_problem(values, stack=False):
    """A fitted summary: the single problem's value, or one per one-vs-rest problem.

    ``stack=True`` returns several values as an ndarray, otherwise as a list.
    """
    values = list(values)
    if len(values) == 1:
        return values[0]
    return np.array(values) if stack else values


def positive_classes(classes):
    """The class each binary problem separates from the rest (one for two classes)."""
    return classes[1:] if len(classes) == 2 else classes


def _against_the_rest(positive):
    return f"class {str(positive)!r} against the rest"


def one_vs_rest(classes, y):
    """Yield the ±1 labels of each binary problem, in ``positive_classes`` order."""
    for positive in positive_classes(classes):
        yield np.where(y == positive, 1.0, -1.0)


#: The package's logger; a fit's progress goes here when logging is configured.
LOGGER = logging.getLogger("sparsegp")


#: The one-vs-rest problem being fitted in this context (``"class 'a' against the
#: rest"``), named in every progress message; None for one binary or joint model.
_PROBLEM: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "sparsegp_problem", default=None
)


def report_progress(estimator, message, level=1):
    """Show a fit's progress when ``estimator.verbose >= level``.

    With logging configured (a handler on the ``sparsegp`` logger or the root), the
    message goes to the ``sparsegp`` logger — at INFO for ``level=1``, DEBUG for
    ``level=2`` — so applications route and filter it as they do their own; without,
    it is printed, as scikit-learn's ``verbose`` does. In a one-vs-rest fit each
    message names the class being separated from the rest.
    """
    if estimator.verbose < level:
        return
    if (problem := _PROBLEM.get()) is not None:
        message = f"{message} ({problem})"
    if LOGGER.hasHandlers():
        LOGGER.log(logging.INFO if level <= 1 else logging.DEBUG, message)
    else:
        print(message)


def validate_dask(estimator, X, y):
    """The checks of ``validate_data`` on a dask array ``X``, computed on the cluster.

    Returns ``X`` (float64, rows chunked, shifted and scaled as in-memory inputs
    are: :func:`~._input_units.conditioned_dask_inputs`) and ``y`` in memory.
    """
    if X.ndim != 2:
        raise ValueError(f"Expected a 2-D dask array X; got {X.ndim} dimensions.")
    if np.isnan(X.shape[0]):  # rows of unknown count, e.g. from a dataframe
        X = X.compute_chunk_sizes()
    y = np.asarray(y.compute() if is_dask_array(y) else y)
    if len(y) != X.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} rows and y {len(y)} labels; they must match."
        )
    X = X.astype(np.float64)
    if not bool(np.isfinite(X).all().compute()):
        raise ValueError("Input X contains NaN or infinity.")
    estimator.n_features_in_ = X.shape[1]
    return conditioned_dask_inputs(estimator, X), y


def validate_dense(estimator, X, y="no_validation", **options):
    """scikit-learn's ``validate_data`` in float64, ``scipy.sparse`` input made dense.

    The kernels and engines work on dense arrays; a LIBSVM file loads as CSR, so
    sparse input is accepted and converted (n × D doubles) rather than rejected.
    ``y`` as in ``validate_data``: omitted for ``X`` alone.
    """
    if is_dask_array(X):
        raise in_memory_only(estimator)
    reset = options.get("reset", True)
    if isinstance(y, str) and y == "no_validation":
        X = validate_data(
            estimator, X, dtype=np.float64, accept_sparse="csr", **options
        )
        X = aligned(X.toarray() if issparse(X) else X)
        return conditioned_inputs(estimator, X, reset)
    if options.get("y_numeric"):
        y = _numeric_targets(estimator, y)
    X, y = validate_data(
        estimator, X, y, dtype=np.float64, accept_sparse="csr", **options
    )
    X = aligned(X.toarray() if issparse(X) else X)
    return conditioned_inputs(estimator, X, reset), y


def in_memory_only(estimator):
    """The ``TypeError`` for a dask array given to a fit that needs the data in memory."""
    return TypeError(
        f"{type(estimator).__name__} fits in memory only; FITCGPClassifier and "
        "IVMClassifier fit dask arrays on a cluster (docs/dask.md). Compute X (or a "
        "subsample) first."
    )


def _numeric_targets(estimator, y):
    """``y`` as floats, or a ``ValueError`` naming a value that is not a number."""
    values = np.asarray(y)
    if values.dtype.kind in "biufc":  # complex: validate_data refuses it by name
        return y
    try:
        return values.astype(np.float64)
    except (TypeError, ValueError):
        bad = next(v for v in values.ravel() if not _is_number(v))
        raise ValueError(
            f"{type(estimator).__name__} needs numeric targets; y holds {str(bad)!r}. "
            "For class labels use a classifier (e.g. the same method's Classifier)."
        ) from None


def _is_number(value):
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def accept_sparse_tags(tags):
    """Estimator tags saying that ``scipy.sparse`` input is accepted."""
    tags.input_tags.sparse = True
    return tags


def pass_caller(estimator):
    """The :class:`~sparsegp.methods.every_site.PassCaller` of ``estimator``: its
    name, row threads, ``verbose`` and warnings."""
    return PassCaller(
        name=type(estimator).__name__,
        n_threads=estimator._n_row_threads,
        progress=bool(estimator.verbose),
        report=lambda line, level: report_progress(estimator, line, level),
        not_converged=lambda sweeps, tol: warn_ep_not_converged(estimator, sweeps, tol),
    )


def warn_ep_not_converged(estimator, n_sweeps, tol):
    """The ``ConvergenceWarning`` of a fitted model's EP run stopped after
    ``n_sweeps`` sweeps at tolerance ``tol``."""
    warn_at_caller(
        f"{type(estimator).__name__}: EP did not converge in {n_sweeps} "
        f"sweeps (tol={tol}); the fitted posterior may be inaccurate. "
        "Increase max_sweeps, or lower damping.",
        ConvergenceWarning,
    )


def warn_full_ep_not_converged(
    estimator, fit: EvidenceFit, settings: EvidenceSettings, advice: str
):
    """``ConvergenceWarning`` when :func:`~sparsegp.methods.full_ep.fit_full_ep`'s
    optimizer stopped on its iteration cap (with ``advice``), or its final EP run on
    ``max_sweeps``."""
    if not fit.optimizer_converged:
        warn_at_caller(
            f"{type(estimator).__name__}: L-BFGS-B stopped at its cap of "
            f"{settings.max_iter} iterations before the EP evidence converged; "
            f"{advice}.",
            ConvergenceWarning,
        )
    if not fit.ep_converged:
        tol = settings.ep_options["tol"]
        warn_ep_not_converged(estimator, fit.final_sweeps, tol)


def warn_at_bounds(kernel, estimator, problem=None):
    """``ConvergenceWarning`` for each learnt hyperparameter that ended on a bound.

    A length-scale or amplitude on its bound usually means inputs in units the
    default kernel does not suit (standardise ``X``) or bounds to widen. A constant
    offset on its lower bound is the evidence saying the data need none, and a
    length-scale per feature on its upper bound, while others are not, the evidence
    switching that feature off (what ARD is for): no warning. ``problem`` names the
    one-vs-rest problem the kernel was learnt for.
    """
    theta, start = kernel.theta, 0
    offsets = offset_names(kernel)
    for hyperparameter in kernel.hyperparameters:
        if hyperparameter.fixed:
            continue
        size = hyperparameter.n_elements
        values, bounds = theta[start : start + size], np.log(hyperparameter.bounds)
        start += size
        for side, limit in (("lower", bounds[:, 0]), ("upper", bounds[:, 1])):
            if side == "lower" and hyperparameter.name in offsets:
                continue
            on_bound = np.abs(values - limit) < _BOUND_TOLERANCE
            if side == "upper" and _features_switched_off(hyperparameter, on_bound):
                continue
            if np.any(on_bound):
                where = f" ({problem})" if problem else ""
                warn_at_caller(
                    f"{type(estimator).__name__}{where}: the learnt {hyperparameter.name} "
                    f"ended on its {side} bound ({np.exp(limit).min():.3g}); "
                    f"{_bound_advice(estimator, hyperparameter.name, side, offsets)}",
                    ConvergenceWarning,
                )


def _features_switched_off(hyperparameter, on_upper_bound):
    """Whether an ARD length-scale's upper bounds are only some of its features'."""
    return (
        "length_scale" in hyperparameter.name
        and hyperparameter.n_elements > 1
        and not np.all(on_upper_bound)
    )


def _bound_advice(estimator, name, side, offsets):
    """What a hyperparameter on a bound means, and what to do about it."""
    amplitude = "constant_value" in name and name not in offsets
    if is_classifier(estimator) and side == "upper" and amplitude:
        prior = getattr(estimator, "amplitude_prior", False)
        remedy = {
            False: "Fix the amplitude",  # an estimator without the prior
            None: "Put a prior on it (amplitude_prior=3.0, the default) or fix it",
        }.get(prior, f"Narrow its prior (amplitude_prior < {prior}) or fix it")
        return (
            "the classes are (nearly) separable under this kernel, and the evidence "
            "grows with the latent scale: the probabilities are sound, but the latent "
            "mean and variance (latent_mean_and_variance) are on an arbitrary scale. "
            f"{remedy} (e.g. ConstantKernel(1.0, 'fixed')) for latent error bars that "
            "can be read."
        )
    if "noise_level" in name and side == "lower":
        return "the targets look noise-free, or the kernel interpolates their noise."
    return "standardise X, or widen the kernel's bounds."


def restore_on_failure(fit):
    """Decorate ``fit``/``partial_fit``: if it raises (``KeyboardInterrupt`` included),
    the fitted attributes (names ending in ``_``) are put back as they were — a fresh
    estimator is unfitted again (``NotFittedError``, not a missing attribute), a
    fitted one keeps its previous fit. State updated in place by ``partial_fit`` (the
    online GPs' chunks) is not rolled back.
    """

    @functools.wraps(fit)
    def fit_or_restore(self, *args, **kwargs):
        before = {k: v for k, v in vars(self).items() if _is_fitted_attribute(k)}
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            for name in [k for k in vars(self) if _is_fitted_attribute(k)]:
                if name not in before:
                    delattr(self, name)
            for name, value in before.items():
                setattr(self, name, value)
            raise

    return fit_or_restore


def _is_fitted_attribute(name):
    return name.endswith("_") and not name.startswith("_")


def starting_kernel(estimator, X, default=None):
    """The kernel a fit starts from: ``estimator.kernel``, or the estimator's default
    kernel (``default()``, :func:`default_kernel` if not given) with a length-scale
    per feature for ``estimator.ard=True``. ``ard=True`` is for the default kernel
    only; ``"auto"`` keeps a given kernel."""
    ard = estimator.ard
    if estimator.kernel is not None:
        if not isinstance(ard, str) and ard:
            raise ValueError(
                "ard=True applies to the default kernel (kernel=None); give the "
                "kernel a length-scale per feature instead, e.g. "
                "RBF(np.ones(n_features))."
            )
        return estimator.kernel
    kernel = default_kernel(X) if default is None else default()
    if not isinstance(ard, str) and ard:
        return with_length_scale_per_feature(kernel, X.shape[1])
    return kernel


def chooses_ard(estimator, X):
    """Whether ``ard="auto"`` has a choice to make: the default kernel, learnt
    hyperparameters and more than one feature."""
    return (
        isinstance(estimator.ard, str)
        and estimator.kernel is None
        and estimator.optimizer is not None
        and X.shape[1] > 1
    )


class GPRegressorMixin(RegressorMixin, BaseEstimator):
    """``fit``, target normalisation and the predictions shared by the GP regressors.

    ``fit`` validates ``X`` and ``y``, normalises ``y`` (the ``normalize_y``
    parameter), puts ``X`` in the units the fit sees, and calls the subclass's
    ``_fit_model(X, y) -> (FittedModel, kernel)`` (the kernel with its
    ``WhiteKernel`` noise, in those units); its predictions come from that model.
    """

    def __sklearn_tags__(self):
        return accept_sparse_tags(super().__sklearn_tags__())

    #: Whether ``fit`` keeps a dask array's rows on its cluster (else it refuses one).
    _fits_dask_arrays = False
    #: The fewest training samples a fit accepts.
    _min_samples = 1

    @restore_on_failure
    @one_blas_thread
    def fit(self, X, y):
        """Learn the model and its hyperparameters from ``X``, ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            (A dask array where the regressor fits one on its cluster.)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : object
        """
        X, y = self._training_data(X, y)
        self.model_, kernel = self._fit_model(X, y)
        self.kernel_ = kernel_in_input_units(self, kernel)
        self.log_marginal_likelihood_value_ = self.model_.log_marginal_likelihood
        self.n_iter_, self.converged_ = self.model_.n_iterations, self.model_.converged
        self._set_fitted_summaries()
        return self

    def _set_fitted_summaries(self):
        """Attributes a regressor adds after ``fit`` (its active set, …)."""

    def _latent_and_noise(self, X):
        """Latent mean and variance at ``X`` and the noise, in normalised units."""
        model = self._fitted_model()
        mean, var = model.latent_mean_and_variance(X)
        return mean, var, model.likelihood.noise

    def _training_data(self, X, y):
        """``X`` and ``y`` validated, ``y`` normalised (:meth:`_normalize_targets`) and
        ``X`` in the units the fit sees
        (:func:`~._feature_units.standardised_if_better`)."""
        self._validate_params()
        distributed = is_dask_array(X) and self._fits_dask_arrays
        if distributed:  # the rows stay on the cluster
            X, y = validate_dask(self, X, y)
        else:
            X, y = validate_dense(self, X, y, y_numeric=True)
        if len(y) < self._min_samples:
            raise ValueError(
                f"{type(self).__name__} needs at least {self._min_samples} samples; "
                f"got n_samples = {len(y)}."
            )
        y = self._normalize_targets(y)
        return (X if distributed else standardised_if_better(self, X, y)), y

    def _normalize_targets(self, y):
        """Record the targets' mean and scale (identity without ``normalize_y``)."""
        self.y_mean_, self.y_std_ = 0.0, 1.0
        largest = float(np.max(np.abs(y))) if len(y) else 0.0
        if not self.normalize_y:
            _check_target_scale(self, largest, largest)
            return y
        # moments of y / 2^k, scaled back (exact): targets near float64's largest
        # values have a mean and spread that overflow when summed directly
        scale = float(np.ldexp(1.0, int(np.frexp(largest)[1]))) if largest else 1.0
        shrunk = y / scale
        mean, spread = float(np.mean(shrunk)), float(np.std(shrunk))
        if spread <= 16 * np.finfo(float).eps * np.max(np.abs(shrunk), initial=0.0):
            spread = 0.0  # constant targets: their spread is the mean's rounding
        self.y_mean_, self.y_std_ = scale * mean, (scale * spread) or 1.0
        _check_target_scale(self, largest, self.y_std_)
        if spread == 0.0:  # constant: the deviations are the mean's rounding
            return np.zeros_like(shrunk)
        return (shrunk - mean) / spread

    def predict(self, X, return_std=False, return_cov=False):
        """Predictive mean, and the standard deviation or covariance of ``y``.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features)
        return_std : bool, default=False
            Also return the predictive standard deviation (noise included).
        return_cov : bool, default=False
            Also return the predictive covariance of the targets at ``X`` (noise on
            its diagonal; in memory, n_samples × n_samples). Not with ``return_std``.

        Returns
        -------
        y_mean : ndarray of shape (n_samples,)
        y_std : ndarray of shape (n_samples,)
            With ``return_std``.
        y_cov : ndarray of shape (n_samples, n_samples)
            With ``return_cov``.
        """
        check_is_fitted(self)
        if return_std and return_cov:
            raise RuntimeError(
                "At most one of return_std or return_cov can be requested."
            )
        if return_cov:
            return self._mean_and_covariance(X)
        if is_dask_array(X):
            if not return_std:
                return map_row_blocks(self.predict, X, None, float, self.n_features_in_)
            return map_row_pairs(
                lambda block: self.predict(block, return_std=True),
                X,
                None,
                self.n_features_in_,
            )
        X = validate_dense(self, X, reset=False)
        mean, var, noise = self._latent_and_noise(X)
        mean = self.y_mean_ + self.y_std_ * mean
        if return_std:
            return mean, self.y_std_ * np.sqrt(var + noise)
        return mean

    def latent_mean_and_variance(self, X):
        """Mean and variance of the latent function (no noise) at ``X``, in the
        targets' units.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        mean, var : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_dense(self, X, reset=False)
        mean, var, _ = self._latent_and_noise(X)
        return self.y_mean_ + self.y_std_ * mean, self.y_std_**2 * var

    def sample_y(self, X, n_samples=1, random_state=0):
        """Draw targets at ``X`` from the joint predictive distribution, as
        ``GaussianProcessRegressor.sample_y`` does.

        Parameters
        ----------
        X : array-like of shape (n_samples_X, n_features)
        n_samples : int, default=1
        random_state : int, RandomState or None, default=0

        Returns
        -------
        y_samples : ndarray of shape (n_samples_X, n_samples)
        """
        rng = check_random_state(random_state)
        mean, cov = self.predict(X, return_cov=True)
        return rng.multivariate_normal(mean, cov, n_samples).T

    def _mean_and_covariance(self, X):
        """The predictive mean and the covariance of ``y`` (noise on the diagonal)."""
        X = validate_dense(self, X, reset=False)
        mean, _, noise = self._latent_and_noise(X)
        cov = self._fitted_model().latent_covariance(X)
        cov.flat[:: len(cov) + 1] += noise
        return self.y_mean_ + self.y_std_ * mean, self.y_std_**2 * cov

    def _fitted_model(self):
        """The fitted model that predicts (``model_``)."""
        return self.model_


def _check_target_scale(estimator, largest, spread):
    """``ValueError`` for targets whose variance (``spread``², the noise's units)
    over- or underflows float64: ``|y|`` or its spread beyond about 10^±150."""
    if spread == 0.0 or 1e-150 <= spread <= 1e150:
        return
    raise ValueError(
        f"{type(estimator).__name__}: the targets reach {largest:.3g} and spread over "
        f"{spread:.3g}; their variance (the noise's units) over- or underflows float64. "
        "Rescale y (divide it by a power of ten near its spread, with normalize_y=True) "
        "and multiply the predictions back."
    )


class GPClassifierMixin(ClassifierMixin, BaseEstimator):
    """Validation, one-vs-rest and predictions shared by all GP classifiers.

    Subclasses define ``n_jobs`` and ``random_state`` parameters and ``_fit_binary``.
    """

    def __sklearn_tags__(self):
        return accept_sparse_tags(super().__sklearn_tags__())

    def _n_binary_problems(self):
        """How many one-vs-rest fits share a default size's budget (one for two
        classes): ``classes_`` must be set."""
        return len(positive_classes(self.classes_))

    @abstractmethod
    def _fit_binary(self, X, y, random_state) -> FittedModel:
        """Fit labels ``y`` in ``{-1, +1}``; return the fitted model."""

    def _fits_jointly(self):
        """Whether this fit models all classes at once (``_fit_multiclass``) rather
        than one-vs-rest; estimators with a multi-class model say when."""
        return False

    def _fit_multiclass(self, X, y, random_state):
        """Fit class indices ``y`` in ``0 … C − 1`` with one model of C latents."""
        raise NotImplementedError

    @restore_on_failure
    def fit(self, X, y):
        """Fit the classifier: one binary GP for two classes; beyond, one multi-class
        model where the estimator has one (``multi_class``), else one binary GP per
        class (one-vs-rest).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs; NaN or infinite values raise ``ValueError``.
        y : array-like of shape (n_samples,)
            Class labels; at least two classes.

        Returns
        -------
        self : object
        """
        self._validate_params()
        distributed = is_dask_array(X)
        X, y = self._training_data(X, y, distributed)
        self._check_training_size(X)
        positives = positive_classes(self.classes_)
        seeds = check_random_state(self.random_state).randint(
            np.iinfo(np.int32).max, size=len(positives)
        )
        if self._fits_jointly():
            self.estimators_, names = (
                [self._fit_joint(X, y, seeds[0], distributed)],
                [None],
            )
        else:
            names = (
                [None]
                if len(positives) == 1
                else list(map(_against_the_rest, positives))
            )
            problems = list(
                zip(one_vs_rest(self.classes_, y), seeds, names, strict=True)
            )
            self.estimators_ = self._fit_one_vs_rest(X, problems, distributed)
        self.odds_weight_ = self._odds_weight(y)
        self.estimators_ = [
            replace(model, leave_one_out=None)  # O(n), needed in fit only
            for model in self.estimators_
        ]
        self._set_fitted_summaries()
        if getattr(self, "optimizer", None) is not None:
            for model, name in zip(self.estimators_, names, strict=True):
                warn_at_bounds(model.kernel, self, name)
        return self

    def _training_data(self, X, y, distributed):
        """``X`` and ``y`` validated, ``classes_`` set, and ``X`` in the units the
        fit sees (:func:`~._feature_units.standardised_if_better` in memory)."""
        if distributed:
            X, y = validate_dask(self, X, y)
        else:
            X, y = validate_dense(self, X, y, y_numeric=False)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least two classes; "
                f"got only one class ({self.classes_[0]})."
            )
        if distributed:
            return X, y
        return standardised_if_better(self, X, y), y

    def _odds_weight(self, y):
        """How one-vs-rest probabilities are combined
        (:func:`~sparsegp.methods.multiclass.odds_weight`, on the binary
        models' held-out latents at the training points, ``leave_one_out``);
        0 (the ``Φ``'s normalised) for one binary or joint model, or where a binary
        model has none."""
        models = self.estimators_
        if len(models) < 2 or self._is_multiclass_model():
            return 0.0
        return odds_weight(models, np.searchsorted(self.classes_, y))

    def _fit_joint(self, X, y, seed, distributed):
        """The one multi-class model (in memory only), its predictive variance scale
        fitted (algorithms.md §7.4)."""
        if distributed:
            raise ValueError(
                f"{type(self).__name__}'s multi-class model fits in memory only; "
                "fit a dask array with multi_class='one_vs_rest' (the default)."
            )
        codes = np.searchsorted(self.classes_, y)
        model = self._fit_multiclass_one_blas_thread(X, codes, seed)
        return with_variance_scale(model, codes)

    def _fit_one_vs_rest(self, X, problems, distributed):
        """The binary models of ``problems``: on the cluster one after another, each
        spread over it, or in memory by :meth:`_fit_problems`."""
        if distributed:
            return [
                self._fit_binary_distributed_one_blas_thread(X, labels, seed)
                for labels, seed, _ in problems
            ]
        return self._fit_problems(X, problems)

    #: Threads a binary problem's fit may run its row blocks on (:meth:`_fit_problems`).
    _n_row_threads = 1

    def _fit_problems(self, X, problems):
        """The one-vs-rest problems ``[(labels, seed, name)]``: up to ``n_jobs`` processes
        over the problems, and ``n_jobs // len(problems)`` threads in each problem's
        fit for the estimators whose fit runs on row blocks (``_n_row_threads``; a
        binary problem gets all ``n_jobs``, in this process)."""
        n_jobs = effective_n_jobs(self.n_jobs)
        self._n_row_threads = max(1, n_jobs // len(problems))
        if len(problems) > 1 and n_jobs > 1:
            fits = Parallel(n_jobs=min(n_jobs, len(problems)))(
                delayed(self._fit_binary_in_worker)(X, labels, seed, name, os.getpid())
                for labels, seed, name in problems
            )
            for message, category in (w for _, caught in fits for w in caught):
                warn_at_caller(message, category)
            return [model for model, _ in fits]
        return [
            self._fit_binary_one_blas_thread(X, labels, seed, name)
            for labels, seed, name in problems
        ]

    def _fit_binary_in_worker(self, X, y, random_state, problem, caller):
        """The binary model of :meth:`_fit_binary_one_blas_thread`, and, in a process
        other than the ``caller``'s, the warnings its fit gave, to be given again in
        the caller's (a worker process prints them where no one catches them)."""
        if os.getpid() == caller:  # a thread of the caller's: its warnings reach it
            return self._fit_binary_one_blas_thread(X, y, random_state, problem), []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = self._fit_binary_one_blas_thread(X, y, random_state, problem)
        return model, [(str(w.message), w.category) for w in caught]

    @one_blas_thread
    def _fit_binary_one_blas_thread(self, X, y, random_state, problem=None):
        token = _PROBLEM.set(problem)
        try:
            return self._fit_binary(X, y, random_state)
        finally:
            _PROBLEM.reset(token)

    @one_blas_thread
    def _fit_multiclass_one_blas_thread(self, X, y, random_state):
        return self._fit_multiclass(X, y, random_state)

    @one_blas_thread
    def _fit_binary_distributed_one_blas_thread(self, X, y, random_state):
        """:meth:`_fit_binary_distributed`, the client's share of it (k-means, the
        M × M factors, the optimizer) on one thread as in memory: the same arithmetic
        as the in-memory fit, bit for bit (docs/dask.md)."""
        return self._fit_binary_distributed(X, y, random_state)

    def _fit_binary_distributed(self, X, y, random_state) -> FittedModel:
        """Fit ``y`` (±1, in memory) on the dask array ``X`` without gathering it."""
        raise in_memory_only(self)

    def _check_training_size(self, X):
        """Hook for estimators that need a minimum number of samples."""

    def _set_fitted_summaries(self):
        models = self.estimators_
        self.n_iter_ = per_problem((m.n_iterations for m in models), stack=True)
        self.converged_ = all(model.converged for model in models)
        self.bias_ = per_problem((m.likelihood.bias for m in models), stack=True)
        kernels = [kernel_in_input_units(self, m.kernel) for m in models]
        self.kernel_ = kernels[0] if len(models) == 1 else CompoundKernel(kernels)
        if all(hasattr(m, "log_marginal_likelihood") for m in models):
            self.log_marginal_likelihood_value_ = float(
                np.mean([m.log_marginal_likelihood for m in models])
            )

    def _width(self):
        """Columns of the per-problem outputs: None for one binary problem, else one
        per class."""
        if self._is_multiclass_model():
            return len(self.classes_)
        return None if len(self.estimators_) == 1 else len(self.estimators_)

    def _is_multiclass_model(self):
        """Whether the fit is one model of all classes (more than two)."""
        return len(self.estimators_) == 1 and len(self.classes_) > 2

    def _validated(self, X):
        check_is_fitted(self)
        return validate_dense(self, X, reset=False)

    def latent_mean_and_variance(self, X):
        """Mean and variance of the latent function at ``X`` (the error bars).

        Returns
        -------
        mean : ndarray of shape (n_samples,) or (n_samples, n_classes)
            The latent mean, the bias not included; more than two classes give one
            column per class (its latent function in a multi-class model, its
            one-vs-rest problem's otherwise).
        var : ndarray of shape (n_samples,) or (n_samples, n_classes)
            The latent variance, in the same columns.
        """
        if is_dask_array(X):
            check_is_fitted(self)
            return map_row_pairs(
                self.latent_mean_and_variance, X, self._width(), self.n_features_in_
            )
        X = self._validated(X)
        parts = [m.latent_mean_and_variance(X) for m in self.estimators_]
        if len(parts) == 1:
            return parts[0]
        return np.column_stack([p[0] for p in parts]), np.column_stack(
            [p[1] for p in parts]
        )

    def decision_function(self, X):
        """Probit argument ``λ(μ* + b)/√(1 + λ²σ*²)`` of each problem: ``Φ`` of it is P.

        A multi-class model (more than two classes, ``multi_class="multinomial"``)
        gives each class's log predictive probability instead, whose argmax is
        :meth:`predict`.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            One score for two classes (positive favours ``classes_[1]``), else one
            column per class.
        """
        if is_dask_array(X):
            check_is_fitted(self)
            return map_row_blocks(
                self.decision_function, X, self._width(), float, self.n_features_in_
            )
        X = self._validated(X)
        if self._is_multiclass_model():
            model = self.estimators_[0]
            return model.likelihood.log_predict_proba(
                *model.latent_mean_and_variance(X)
            )
        scores = [
            m.likelihood.predictive_z(*m.latent_mean_and_variance(X))
            for m in self.estimators_
        ]
        return scores[0] if len(scores) == 1 else np.column_stack(scores)

    def predict_proba(self, X):
        """Class probabilities, columns in ``classes_`` order.

        Two classes: ``P(y = classes_[1]) = Φ(λ(μ* + b)/√(1 + λ²σ*²))``. More classes:
        a multi-class model's joint predictive probability that each class's noisy
        latent is the largest (algorithms.md §7.4), or the one-vs-rest ``Φ_k``
        combined as ``P(k) ∝ Φ_k (1 − Φ_k)^(−odds_weight_)`` (algorithms.md §7.5:
        normalised at weight 0, the odds at 1). A dask array ``X``
        gives a dask array, computed block by block on the cluster.
        """
        if is_dask_array(X):
            check_is_fitted(self)
            width = len(self.classes_)
            return map_row_blocks(
                self.predict_proba, X, width, float, self.n_features_in_
            )
        scores = self.decision_function(X)
        if self._is_multiclass_model():
            return np.exp(scores)
        if scores.ndim == 1:
            p = ndtr(scores)
            return np.column_stack([1.0 - p, p])
        return np.exp(class_log_probabilities(scores, self.odds_weight_))

    def predict(self, X):
        """Most probable class: the argmax of :meth:`predict_proba` (ties go to the
        first class in ``classes_``, also when Φ rounds a tiny score to exactly ½)."""
        if is_dask_array(X):
            check_is_fitted(self)
            return map_row_blocks(
                self.predict, X, None, self.classes_.dtype, self.n_features_in_
            )
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
