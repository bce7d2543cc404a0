"""The Informative Vector Machine: IVMClassifier and IVMRegressor."""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral, Real

from sklearn.gaussian_process.kernels import ConstantKernel, Kernel, WhiteKernel
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ..methods.every_site import EverySitePass, pass_fits_in_memory, relearning
from ..methods.fitc_ep import require_fitc_memory
from ..methods.ivm import (
    AUTO_SELECTION_ROWS,
    ActiveSetFitting,
    GaussianTask,
    IVMSettings,
    IVMTask,
    ProbitTask,
    default_active_set_size,
)
from ..methods.kernel_defaults import default_kernel
from ._base import (
    AMPLITUDE_PRIOR_CONSTRAINT,
    ARD_CONSTRAINT,
    GPClassifierMixin,
    GPRegressorMixin,
    chooses_ard,
    pass_caller,
    per_problem,
    report_progress,
    starting_kernel,
    warn_at_bounds,
)

_SHARED_CONSTRAINTS: dict = {
    "kernel": [None, Kernel],
    "active_set_size": [
        None,
        Interval(Integral, 1, None, closed="left"),
        Interval(Real, 0, 1, closed="right"),
    ],
    "selection": [StrOptions({"auto", "randomized", "greedy", "random"})],
    "selection_size": [Interval(Integral, 1, None, closed="left")],
    "retain": [Interval(Real, 0, 1, closed="both")],
    "n_random_start": [Interval(Integral, 1, None, closed="left")],
    "store_dtype": [StrOptions({"auto", "float32", "float64"})],
    "n_full_greedy": [Interval(Integral, 0, None, closed="left")],
    "optimizer": [StrOptions({"fmin_l_bfgs_b"}), None],
    "n_outer_iterations": [Interval(Integral, 1, None, closed="left")],
    "max_iter_optimizer": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}


class _IVMFitting:
    """How both IVMs read their parameters into the recipe
    (:class:`~sparsegp.methods.ivm.ActiveSetFitting`); each gives its task
    (``_task()``)."""

    #: Threads the fit may use (set per problem by ``_fit_problems``).
    _n_row_threads = 1

    # The estimators' parameters and their task's hooks, which the recipe reads.
    active_set_size: int | float | None
    selection: str
    selection_size: int
    retain: float
    n_random_start: int
    n_full_greedy: int
    store_dtype: str
    optimizer: str | None
    n_outer_iterations: int
    max_iter_optimizer: int
    verbose: int
    _n_binary_problems: Callable[[], int]
    _task: Callable[[], IVMTask]

    def _active_set_size(self, n):
        """``d``: ``active_set_size``, or for ``None``
        :func:`~sparsegp.methods.ivm.default_active_set_size`."""
        d = self.active_set_size
        if d is None:
            d = default_active_set_size(n, self._n_binary_problems())
        d = max(1, int(round(d * n))) if isinstance(d, float) else int(d)
        if d > n:
            raise ValueError(
                f"active_set_size={self.active_set_size} exceeds the {n} training points."
            )
        return d

    #: ``selection="auto"``'s choice on the first one-vs-rest problem and that
    #: problem's kernel, which the others take (:meth:`IVMClassifier._fit_problems`);
    #: None: each compares.
    _auto_choice: tuple[str, Kernel] | None = None

    def _chooses_ard(self, X):
        """Whether a fit tries a length-scale per feature (``ard="auto"``)."""
        return False

    def _fit_active_set(self, X, y, kernel, rng, then=None):
        """``(FittedModel, kernel)`` by the recipe, the model passed through ``then``
        (an :class:`~sparsegp.methods.every_site.EverySitePass`) where given."""
        settings = IVMSettings(
            active_set_size=self._active_set_size(len(y)),
            selection=self.selection,
            selection_size=self.selection_size,
            retain=self.retain,
            n_random_start=self.n_random_start,
            n_full_greedy=self.n_full_greedy,
            store_dtype=self.store_dtype,
            learn=self.optimizer is not None,
            n_outer_iterations=self.n_outer_iterations,
            max_iter_optimizer=self.max_iter_optimizer,
            ard=self._chooses_ard(X),
            threads=self._n_row_threads,
            progress=bool(self.verbose),
            auto_choice=self._auto_choice,
        )
        fitting = ActiveSetFitting(
            settings, self._task(), lambda line: report_progress(self, message=line)
        )
        return fitting.fit(X, y, kernel, rng, then)


class IVMClassifier(_IVMFitting, GPClassifierMixin):
    """Informative Vector Machine: sparse GP classification by greedy ADF selection.

    A probit GP classifier whose posterior keeps sites on an active set of ``d`` points
    only, chosen greedily by the reduction of posterior entropy they bring (Lawrence,
    Seeger & Herbrich 2002, eqs. 1-4); O(n·d²) time, O(n·d) memory, predictions in
    O(d) (mean) and O(d²) (variance) per point (eq. 5).

    Parameters
    ----------
    kernel : sklearn kernel, default=None
        ``None`` means ``ConstantKernel(1.0) * RBF(ℓ₀) + ConstantKernel(1.0)`` with
        ``ℓ₀ = √(Σ_d var x_d)`` (``√D`` for standardised inputs) and a learnt prior
        variance of a random offset (the paper fixes it at 0.1). Without
        it, greedy selection on ringnorm picks mostly points of the broad class and the
        model predicts one class; started at 0.1, the first L_IVM step collapses the
        length-scale there, started at 1.0 it does not.
    ard : bool or "auto", default=False
        One length-scale per feature (automatic relevance determination) in the
        default kernel; ``False`` is the paper's isotropic kernel. ``"auto"`` (not
        the default: it did not pass the defaults gate, algorithms.md
        §5.8): after the rounds one more, on the best round's
        active set and sites, from the isotropic optimum of ``L_IVM``; where its
        ``L_IVM`` rises by more than the ``D − 1`` length-scales it adds (Akaike's
        penalty, as for :class:`FITCGPClassifier`) the set is reselected with it, and
        kept if it predicts the training points outside the active set better
        (algorithms.md §1.8). ``True`` learns ARD length-scales from the start.
        With a given ``kernel``, ``"auto"`` keeps it; without an optimizer there is
        nothing to choose.
    active_set_size : int, float in (0, 1] or None, default=None
        ``d``, or a fraction of the training set. ``None``: N/5 (the size of [SSK09]'s
        IVM columns), at most 5√n (``ACTIVE_SET_PER_ROOT_N``; 300 where that is more:
        the selection's O(n·d²) then grows as n², as an SVM's fit does) and
        ``DEFAULT_MAX_ACTIVE_SET`` (1 000): selection costs O(n·d²) time and O(n·d)
        memory. With C > 2 classes
        each one-vs-rest problem takes at most 1 000/√C, so that the C fits cost
        about one binary fit.
    selection : {"auto", "randomized", "greedy", "random"}, default="auto"
        ``"randomized"``: the paper's randomized greedy schedule (``n_random_start``
        random, then ``n_full_greedy`` full greedy, then a selection index of
        ``selection_size`` points, ``retain`` of which survive each step);
        ``"greedy"``: full greedy; ``"random"``: uniform (the paper's baseline).
        ``"auto"`` fits with randomized greedy and with uniform selection and keeps
        the model with the lower error on training points outside both active sets
        (then the lower NLP; greedy on a tie). The entropy score favours points on
        the wrong side of the boundary, so on noisy labels greedy selection fills the
        active set with label noise (on noisy data far worse than uniform selection);
        on clean digits it is several times more accurate than uniform. Beyond
        ``AUTO_SELECTION_ROWS`` (2 000) rows the two compare on a random subsample
        of that many, with ``d`` scaled to it, and the better strategy alone then
        selects on every row. With several classes under that many rows the
        first one-vs-rest problem compares, and the others select once with its
        strategy at its kernel where the pass over every site relearns theirs.
    selection_size, retain, n_random_start, n_full_greedy : default 500, 0.5, 2, 198
        The randomized greedy schedule of [LSH02] §3.
    store_dtype : {"auto", "float32", "float64"}, default="auto"
        Precision of the selection's O(n·d) store ``V`` (and in memory of its kernel
        blocks), on a dask cluster too (each row block's share of ``V``).
        ``float32`` halves its memory and runs the selection about 1.8× faster; the
        marginals, sites and the fitted posterior stay in float64; both precisions
        give the same test error and most of the same active set.
        ``"auto"``: float32 when the store exceeds ``_SINGLE_PRECISION_BYTES`` (80 MB)
        in float64, else float64.
    posterior : {"auto", "active_set", "fitc"}, default="auto"
        ``"auto"``: ``"fitc"``'s pass over every site, its kernel and bias relearnt
        on max(``every_site.LEARN_ROWS_PER_POINT``·d, ``LEARN_ROWS_LEAST``) rows
        drawn at random (every row where there are fewer), so that the pass costs
        about the selection's time (algorithms.md §1.9); eq. 5 where C·n·d² exceeds
        ``every_site.PASS_SIZE`` (5·10¹⁰: the pass's EP would cost more than the
        selection) or where the pass would not fit in memory (with a warning).
        Eq. 5's probabilities are under-confident on clean data and predict from d
        labels alone on noisy data; the pass calibrates both.
        ``"active_set"``: the paper's eq. 5, sites on the active set only.
        ``"fitc"``: Naish-Guzman & Holden's compromise ([NGH07] §6): after selection, EP
        over all n sites on the FITC prior whose pseudo-inputs are the active set,
        its kernel and bias relearnt from the IVM's by five (``every_site.FITC_ITERATIONS``)
        L-BFGS-B steps on the FITC EP evidence (kept fixed with ``optimizer=None``).
        Every training point then informs the posterior, which mends the IVM's
        under-confident probabilities (eq. 5 keeps large variances away from the
        active set, pulling them toward ½). Costs O(n·d²) per EP sweep and evidence
        gradient on top of the selection. Other kernels than sums and products of
        ``ConstantKernel``, ``RBF`` and ``Matern`` (``nu`` 1.5, 2.5) keep the IVM's
        kernel and bias in this pass.
    bias : "class_ratio" or float, default="class_ratio"
        Probit bias ``b``; ``"class_ratio"`` is the paper's ``Φ⁻¹(r)`` with ``r`` the
        fraction of positive training points.
    bias_variance : float or None, default=None
        If set, a *fixed* ``ConstantKernel(bias_variance)`` is added to the kernel, as
        in the paper's MNIST runs (0.1) where hyperparameters were not learnt.
    optimizer : "fmin_l_bfgs_b" or None, default="fmin_l_bfgs_b"
        Hyperparameters alternate between selection and maximising the approximate
        marginal likelihood of the active set with its sites fixed (algorithms.md §1.8); ``None``
        keeps the kernel fixed.
    n_outer_iterations : int, default=3
        Alternations of optimisation and reselection.
    max_iter_optimizer : int, default=20
        L-BFGS-B iterations per alternation.
    amplitude_prior : float or None, default=3.0
        As for :class:`EPGPClassifier`: the prior on the log amplitude, here on
        ``L_IVM`` in the hyperparameter rounds and on the FITC evidence of the pass
        that relearns the kernel.
    n_jobs, random_state, verbose
        One-vs-rest processes (and for a binary problem ``selection="auto"``'s two
        fits on a thread each, its FITC posterior on ``n_jobs`` threads over row
        blocks, started on the first fit to end; the model does not depend on it),
        reproducibility (selection and restarts), progress.

    Attributes
    ----------
    odds_weight_ : float
        How the one-vs-rest probabilities of more than two classes combine: ``P(k) ∝ Φ_k
        (1 − Φ_k)^(−w)``, fitted in [0, 1] by the leave-one-out likelihood of the
        training labels from the binary models' EP cavities (algorithms.md §7.5); 0 (the
        ``Φ_k`` normalised) for two classes or without the FITC pass
        (``posterior="active_set"``).
    n_iter_ : int or ndarray
        Alternations of hyperparameter steps and reselection run on every row
        (``n_outer_iterations``, and one more for ``ard="auto"``'s round; 0 without
        an optimizer, and 0 where ``selection="auto"`` learnt the kernel on a
        subsample and the pass over every site relearns it).
    converged_ : bool
        Always True: the schedule is fixed.
    active_set_ : ndarray of shape (d,), or list of them (one per class beyond two)
        Training indices of the active set, in inclusion order.
    selection_used_ : str, or list of them (one per class beyond two)
        The selection that chose the kept active set (``"randomized"`` or
        ``"random"`` under ``selection="auto"``).
    selection_time_ : float, or list of them (one per class beyond two)
        Wall-clock seconds of the selection that chose the kept active set (the
        O(n·d²) part of the fit; hyperparameter rounds reselect).
    kernel_, bias_, log_marginal_likelihood_value_, classes_, estimators_
        As for :class:`EPGPClassifier`; the evidence is ``L_IVM`` of the active set
        (the FITC EP evidence with ``posterior="fitc"``).

    References
    ----------
    [LSH02] Lawrence, N., Seeger, M. and Herbrich, R. (2003). Fast sparse Gaussian
    process methods: the informative vector machine. NIPS 15.
    [NGH07] Naish-Guzman, A. and Holden, S. (2008). The generalized FITC
    approximation. NIPS 20.
    [SSK09] Sundararajan, S., Shevade, S. and Keerthi, S. S. (2009). Validation-based
    sparse Gaussian process classifier design. Neural Computation 21(7).
    The mathematics: docs/algorithms.md §1; [NGH07] for ``posterior="fitc"``.

    Examples
    --------
    >>> from sparsegp import IVMClassifier
    >>> from sparsegp.datasets import make_xor_clusters
    >>> X, y = make_xor_clusters(200, random_state=0)
    >>> clf = IVMClassifier(active_set_size=30, random_state=0).fit(X, y)
    >>> clf.active_set_.shape
    (30,)
    """

    _parameter_constraints: dict = {
        **_SHARED_CONSTRAINTS,
        "posterior": [StrOptions({"auto", "active_set", "fitc"})],
        "bias": [StrOptions({"class_ratio"}), Real],
        "bias_variance": [None, Interval(Real, 0, None, closed="neither")],
        "amplitude_prior": AMPLITUDE_PRIOR_CONSTRAINT,
        "ard": ARD_CONSTRAINT,
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        kernel=None,
        *,
        ard=False,
        active_set_size=None,
        selection="auto",
        selection_size=500,
        retain=0.5,
        n_random_start=2,
        n_full_greedy=198,
        store_dtype="auto",
        posterior="auto",
        bias="class_ratio",
        bias_variance=None,
        optimizer="fmin_l_bfgs_b",
        n_outer_iterations=3,
        max_iter_optimizer=20,
        amplitude_prior=3.0,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.active_set_size = active_set_size
        self.selection = selection
        self.selection_size = selection_size
        self.retain = retain
        self.n_random_start = n_random_start
        self.n_full_greedy = n_full_greedy
        self.store_dtype = store_dtype
        self.posterior = posterior
        self.bias = bias
        self.bias_variance = bias_variance
        self.optimizer = optimizer
        self.n_outer_iterations = n_outer_iterations
        self.max_iter_optimizer = max_iter_optimizer
        self.amplitude_prior = amplitude_prior
        self.ard = ard
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _check_training_size(self, X):
        d = self._active_set_size(len(X))
        if self.posterior == "fitc":
            require_fitc_memory(d, len(X))

    def _task(self):
        return ProbitTask(self.bias, self.amplitude_prior, type(self).__name__)

    def _chooses_ard(self, X):
        return chooses_ard(self, X)

    def _kernel_for(self, X):
        kernel = starting_kernel(self, X, lambda: default_kernel(X, constant=1.0))
        if self.bias_variance is not None:
            kernel = kernel + ConstantKernel(self.bias_variance, "fixed")
        return kernel

    def _fit_problems(self, X, problems):
        """The one-vs-rest problems; below ``AUTO_SELECTION_ROWS`` rows
        ``selection="auto"`` compares its two selections on the first problem only,
        and the others select once with its choice at its kernel where the pass over
        every site relearns theirs (:meth:`~sparsegp.methods.ivm.ActiveSetFitting.fit`):
        the label noise the comparison detects is the data set's, and the second
        selection's fit and the rounds would triple every problem's cost."""
        if (
            self.selection != "auto"
            or len(problems) < 2
            or len(X) > AUTO_SELECTION_ROWS
        ):
            return super()._fit_problems(X, problems)
        first = super()._fit_problems(X, problems[:1])
        self._auto_choice = (first[0].details["selection"], first[0].kernel)
        try:
            return first + super()._fit_problems(X, problems[1:])
        finally:
            del self._auto_choice

    def _fit_binary(self, X, y, random_state):
        kernel = self._kernel_for(X)
        then = self._posterior_pass(X, y, random_state)
        rng = check_random_state(random_state)
        return self._fit_active_set(X, y, kernel, rng, then)[0]

    def _posterior_pass(self, X, y, random_state):
        """The pass over every site that ``posterior`` asks for, or None (eq. 5's
        posterior): ``"auto"``'s relearns the kernel on max(2·d, 2 000) rows and is
        left out where it would cost more than the selection
        (:func:`~sparsegp.methods.every_site.relearning`), and with a warning where it would not fit
        in memory."""
        optimizer, learn_rows, caller = self.optimizer, None, pass_caller(self)
        if self.posterior == "active_set":
            return None
        if self.posterior == "auto":
            d = self._active_set_size(len(y))
            budget = relearning(self.optimizer, d, len(y), self._n_binary_problems())
            if budget is None:
                return None
            kept = "eq. 5's posterior"
            if not pass_fits_in_memory(caller, X, d, len(y), kept):
                return None
            optimizer, learn_rows = budget
        return EverySitePass(
            caller,
            X,
            y,
            random_state,
            optimizer,
            self.amplitude_prior,
            learn_rows=learn_rows,
        )

    def _fit_binary_distributed(self, X, y, random_state):
        """:meth:`_fit_binary` with the rows of the dask array ``X`` on the cluster."""
        return self._fit_binary(X, y, random_state)

    def _set_fitted_summaries(self):
        super()._set_fitted_summaries()
        models = self.estimators_
        self.active_set_ = per_problem(m.details["active_set"] for m in models)
        self.selection_time_ = per_problem(
            m.details["selection_seconds"] for m in models
        )
        self.selection_used_ = per_problem(m.details["selection"] for m in models)


class IVMRegressor(_IVMFitting, GPRegressorMixin):
    """Informative Vector Machine for regression: greedy subset of the data.

    With a Gaussian likelihood the ADF sites are exact, and the entropy score picks the
    point of largest current posterior variance; prediction is exact GP regression
    on the active subset (algorithms.md §1.10). The noise is the kernel's
    ``WhiteKernel`` term, as in ``GaussianProcessRegressor``.

    Parameters
    ----------
    kernel : sklearn kernel with a WhiteKernel summand, default=None
        ``None`` means ``ConstantKernel(1.0) * RBF(ℓ₀) + WhiteKernel(0.1)``.
    ard : bool, default=False
        Give the default kernel a length-scale per feature, learnt with the others
        (``True`` applies to ``kernel=None`` only). Where features differ in
        relevance it pays (algorithms.md §1.10); the evidence then has ``D`` more
        hyperparameters to learn on the active set.
    active_set_size, selection_size, retain, n_random_start, n_full_greedy
        As for :class:`IVMClassifier`.
    store_dtype : {"auto", "float32", "float64"}, default="auto"
        As for :class:`IVMClassifier`, but ``"auto"`` is float64 whatever the store's
        size: a point's posterior variance ``k(x, x) − ‖v‖²`` is the difference of
        the store's entries, which float32 rounds to about 10⁻⁷ of the prior
        variance, and on nearly noise-free targets the noise variance is no larger
        (the selection's variances then go negative, every round's evidence is NaN
        and the start kernel is kept: worse than a linear model).
    selection : {"randomized", "auto", "greedy", "random"}, default="randomized"
        As for :class:`IVMClassifier` (``"auto"`` compares held-out squared errors).
        With a Gaussian likelihood the greedy score is the posterior variance, which
        label noise does not mislead, so the paper's randomized greedy is the default;
        it does spend the set on isolated inputs first (largest variance), where
        ``"auto"`` helps.
    optimizer, n_outer_iterations, max_iter_optimizer, random_state, verbose
        As for :class:`IVMClassifier`; the evidence is the exact GP regression evidence
        of the active subset, noise level included.
    normalize_y : bool, default=True
        Centre and scale the targets by their mean and standard deviation, as
        ``GaussianProcessRegressor(normalize_y=True)``; ``kernel_`` is then in those
        units. Without it a zero-mean GP on targets far from zero (Friedman #1, mean
        14) explains them as noise.

    Attributes
    ----------
    n_iter_ : int or ndarray
        Alternations of hyperparameter steps and reselection run.
    converged_ : bool
        Always True: the schedule is fixed.
    active_set_ : ndarray of shape (d,)
    selection_used_ : str
        The selection that chose the kept active set.
    selection_time_ : float
        Wall-clock seconds of the selection that chose the kept active set.
    kernel_ : Kernel
        Learnt kernel, ``WhiteKernel`` term included (in normalised units).
    log_marginal_likelihood_value_ : float
    y_mean_, y_std_ : float
        The target normalisation (0 and 1 without ``normalize_y``).

    References
    ----------
    [LSH02] Lawrence, N., Seeger, M. and Herbrich, R. (2003). Fast sparse Gaussian
    process methods: the informative vector machine. NIPS 15.
    The mathematics: docs/algorithms.md §1.10.
    """

    _parameter_constraints: dict = {
        **_SHARED_CONSTRAINTS,
        "ard": ["boolean"],
        "normalize_y": ["boolean"],
    }

    def _n_binary_problems(self):
        """One fit has the default size's budget (:meth:`_active_set_size`)."""
        return 1

    def __init__(
        self,
        kernel=None,
        *,
        ard=False,
        active_set_size=None,
        selection="randomized",
        selection_size=500,
        retain=0.5,
        n_random_start=2,
        n_full_greedy=198,
        store_dtype="auto",
        optimizer="fmin_l_bfgs_b",
        n_outer_iterations=3,
        max_iter_optimizer=20,
        normalize_y=True,
        random_state=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.ard = ard
        self.active_set_size = active_set_size
        self.selection = selection
        self.selection_size = selection_size
        self.retain = retain
        self.n_random_start = n_random_start
        self.n_full_greedy = n_full_greedy
        self.store_dtype = store_dtype
        self.optimizer = optimizer
        self.n_outer_iterations = n_outer_iterations
        self.max_iter_optimizer = max_iter_optimizer
        self.normalize_y = normalize_y
        self.random_state = random_state
        self.verbose = verbose

    def _task(self):
        return GaussianTask(type(self).__name__)

    def _fit_model(self, X, y):
        """Select the active set (and learn the kernel) from ``X``, ``y``."""
        kernel = starting_kernel(self, X, lambda: default_kernel(X) + WhiteKernel(0.1))
        self._task().likelihood(kernel, y)  # validates the noise term first
        model, kernel = self._fit_active_set(
            X, y, kernel, check_random_state(self.random_state)
        )
        if self.optimizer is not None:
            warn_at_bounds(kernel, self)
        return model, kernel

    def _set_fitted_summaries(self):
        self.active_set_ = self.model_.details["active_set"]
        self.selection_time_ = self.model_.details["selection_seconds"]
        self.selection_used_ = self.model_.details["selection"]
