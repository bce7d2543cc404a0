"""The relevance vector machine trained by Subspace EM: RVMRegressor and RVMClassifier."""

from __future__ import annotations

from dataclasses import replace
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import Kernel
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ..approximations.blocks import thread_pool
from ..exceptions import warn_at_caller
from ..likelihoods import Gaussian, Probit
from ..methods.kernel_defaults import default_rbf
from ..methods.rvm import RVMSettings, fit_rvm, widths_by_fitc_ep, widths_by_vfe
from ._base import (
    ARD_CONSTRAINT,
    CLASSIFIER_RUNTIME_CONSTRAINTS,
    GPClassifierMixin,
    GPRegressorMixin,
    per_problem,
    report_progress,
    starting_kernel,
)
from ._input_units import in_input_units

_SHARED_CONSTRAINTS: dict = {
    "kernel": [None, Kernel],
    "method": [StrOptions({"ssem", "batch"})],
    "update": [StrOptions({"mackay", "em"})],
    "threshold": [Interval(Real, 0, None, closed="neither")],
    "entering": [StrOptions({"threshold", "tipping_faul"})],
    "bias": ["boolean"],
    "n_basis": [None, Interval(Integral, 1, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="left")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "batch_start": [Interval(Integral, 0, None, closed="left")],
}


class _RVMFitting:
    """How both estimators read their parameters into the RVM's recipe
    (:mod:`sparsegp.methods.rvm`)."""

    # The estimators' parameters, which the recipe reads.
    kernel: Kernel | None
    method: str
    update: str
    threshold: float
    entering: str
    bias: bool
    n_basis: int | None
    batch_start: int
    tol: float
    max_iter: int
    verbose: int

    def _fit_rvm(self, X, t, rng, **options):
        """Train on targets/labels ``t``; returns the :class:`FittedModel` and the fit."""
        settings = RVMSettings(
            method=self.method,
            update=self.update,
            threshold=self.threshold,
            entering=self.entering,
            bias=self.bias,
            n_basis=self.n_basis,
            batch_start=self.batch_start,
            tol=self.tol,
            max_iter=self.max_iter,
        )
        return fit_rvm(
            X,
            t,
            lambda: self._basis(X, t, rng, options.get("pool")),
            settings,
            rng,
            self._report,
            type(self).__name__,
            **options,
        )

    def _report(self, message):
        report_progress(self, message=message)

    def _basis(self, X, t, rng, pool):
        """The basis functions' kernel and a record of how it was chosen: ``kernel``,
        or [QW03]'s fixed ``RBF(ℓ₀)``."""
        return (default_rbf(X) if self.kernel is None else self.kernel), {}

    def _warn_widths_not_converged(self, what):
        warn_at_caller(
            f"{type(self).__name__}: {what} on the sparse GP that gives the basis its "
            "widths; the widths may be poor. Pass ard=False ([QW03]'s fixed basis) "
            "or a kernel.",
            ConvergenceWarning,
        )


class RVMRegressor(_RVMFitting, GPRegressorMixin):
    """Relevance vector machine for regression, grown by Subspace EM.

    Basis functions ``k(x, x_j)`` at the training inputs plus a bias; each weight has a
    prior ``N(0, α_j⁻¹)`` and the evidence ([QW03] eq. 11) is maximised over the α and the
    noise ``σ²``. Subspace EM (Quiñonero-Candela & Winther 2003, Fig. 1) adds basis
    functions one at a time, pruning those whose α reaches ``threshold``: O(n·|R|²) per
    step instead of the batch method's O(n³).

    Parameters
    ----------
    kernel : sklearn kernel, default=None
        Basis functions ``ψ_j(x) = k(x, x_j)``; fixed (not learnt), as in the paper.
        ``None`` means ``RBF(ℓ₀)``, ``ℓ₀ = √(Σ_d var x_d)`` (``√D`` for standardised
        inputs).
    ard : bool, default=False
        ``True``: a width per feature instead (``kernel=None`` only), the
        length-scales over √2 of the sparse GP regression (VFE,
        :class:`SparseGPRegressor`'s method with :data:`BASIS_INDUCING` pseudo-inputs)
        learnt on the same targets, as the classifier's ``ard`` takes FITC-EP's
        (algorithms.md §4.5): the RVM's own evidence prefers ever narrower widths.
    method : {"ssem", "batch"}, default="ssem"
        Subspace EM, or batch EM with every basis function active from the start.
    update : {"mackay", "em"}, default="mackay"
        α and σ² updates ([QW03] eq. 12). With ``"em"`` a newcomer entering at α = L moves
        away from L only additively, so ``threshold`` must be moderate (algorithms.md §4.3).
    threshold : float, default=1e12
        ``L``: α ≥ L prunes.
    entering : {"tipping_faul", "threshold"}, default="tipping_faul"
        Subspace EM's newcomers: ``"threshold"`` enter with α = L and one EM step, as
        [QW03]'s Fig. 1 is written; ``"tipping_faul"`` enter at the α that maximises the
        evidence with the others fixed, ``s²/(q² − s)``, and are skipped when
        ``q² ≤ s`` (Tipping & Faul 2003; algorithms.md §4.3 recommends it). From
        α = L a newcomer that the early, too-large noise estimate makes look useless is
        pruned for good, so ``"threshold"`` ends several times above batch EM's test
        error on Mackey-Glass, ``"tipping_faul"`` near it.
    bias : bool, default=True
        Include the constant basis function.
    n_basis : int or None, default=None
        Size of the dictionary of centres (a random subset of the training inputs);
        ``None`` uses all.
    batch_start : int, default=20
        Subspace EM starts from batch EM on this many basis functions (the first of
        the dictionary; the bias first), then visits the others one at a time. ``0`` is
        [QW03]'s sweep from an empty model, in which a newcomer enters only if it raises
        the evidence alone: where only several functions with opposing weights fit the
        data (a kernel wide for the data), the sweep ends at a model of low evidence —
        for classification near chance (algorithms.md §4.3). Costs O(n·m²) per E-step
        of that start. Ignored by ``method="batch"``.
    noise : float or None, default=None
        Initial ``σ²`` in the units of ``y``; ``None`` means ``(0.1 · std y)²``, as
        Tipping's SparseBayes.
    learn_noise : bool or "after_sweep", default="after_sweep"
        ``True`` learns ``σ²`` in every M-step ([QW03]). ``"after_sweep"`` holds it at
        ``noise`` while Subspace EM adds basis functions and learns it in the final
        batch EM. Learnt from the first few basis functions, ``σ²`` takes the residual
        of a tiny model: on nearly noise-free targets the sweep then prunes (or, with
        Tipping & Faul's newcomers, never admits) the functions the final model needs —
        with centred targets and wide basis functions (Mackey-Glass, ``normalize_y``)
        ``True`` keeps no relevance vector at all.
    tol : float, default=1e-6
        Final batch EM stops when the log evidence rises by less than this (relative).
    max_iter : int, default=500
        Cap on the final batch EM iterations.
    normalize_y : bool, default=True
        Centre and scale the targets by their mean and standard deviation before
        fitting (the weights' prior is then on the scale of the data). Without it,
        targets far from zero (scikit-learn's diabetes data, mean 152) kept no
        relevance vector. [QW03]'s experiments use raw targets (``False``).
    random_state, verbose
        Dictionary subset, progress.

    Attributes
    ----------
    converged_ : bool
        The final EM stopped on ``tol``, not ``max_iter`` (a
        ``ConvergenceWarning`` says when not).
    kernel_ : sklearn kernel
        The kernel of the basis functions (fixed during the fit).
    relevance_vectors_ : ndarray of shape (n_rv, n_features)
    alpha_ : ndarray
        Precisions of the surviving weights (bias first if it survived).
    noise_ : float
        Learnt ``σ²``, in the units of ``y``.
    log_marginal_likelihood_value_ : float
        Eq. 11 at the returned hyperparameters (of the normalised targets).
    y_mean_, y_std_ : float
        The target normalisation (0 and 1 without ``normalize_y``).
    n_iter_ : int
        E-steps taken.

    References
    ----------
    [QW03] Quiñonero-Candela, J. and Winther, O. (2003). Incremental Gaussian
    processes. NIPS 15.
    [TF03] Tipping, M. E. and Faul, A. C. (2003). Fast marginal likelihood
    maximisation for sparse Bayesian models. AISTATS.
    The mathematics: docs/algorithms.md §4.

    Examples
    --------
    >>> import numpy as np
    >>> from sparsegp import RVMRegressor
    >>> X = np.linspace(-5, 5, 100)[:, None]
    >>> rvm = RVMRegressor().fit(X, np.sinc(X[:, 0] / np.pi))
    >>> len(rvm.relevance_vectors_) < 20
    True
    """

    _parameter_constraints: dict = {
        **_SHARED_CONSTRAINTS,
        "noise": [None, Interval(Real, 0, None, closed="neither")],
        "learn_noise": ["boolean", StrOptions({"after_sweep"})],
        "ard": ["boolean"],
        "normalize_y": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel=None,
        *,
        ard=False,
        method="ssem",
        update="mackay",
        threshold=1e12,
        entering="tipping_faul",
        bias=True,
        n_basis=None,
        batch_start=20,
        noise=None,
        learn_noise="after_sweep",
        tol=1e-6,
        max_iter=500,
        normalize_y=True,
        random_state=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.ard = ard
        self.method = method
        self.update = update
        self.threshold = threshold
        self.entering = entering
        self.bias = bias
        self.n_basis = n_basis
        self.batch_start = batch_start
        self.noise = noise
        self.learn_noise = learn_noise
        self.tol = tol
        self.max_iter = max_iter
        self.normalize_y = normalize_y
        self.random_state = random_state
        self.verbose = verbose

    #: Two samples at least: the default initial noise is their variance's share.
    _min_samples = 2

    def _fit_model(self, X, y):
        """Grow the relevance vectors and learn α and σ² from ``X``, ``y``
        (normalised: the default initial σ² is 1 % of their variance)."""
        noise = 0.01 * np.var(y) if self.noise is None else self.noise / self.y_std_**2
        model, fit = self._fit_rvm(
            X,
            y,
            check_random_state(self.random_state),
            noise=max(noise, 1e-12),
            learn_noise=self.learn_noise,
        )
        return replace(model, likelihood=Gaussian(float(fit.noise))), model.kernel

    def _set_fitted_summaries(self):
        self.relevance_vectors_ = in_input_units(self, self.model_.points)
        self.alpha_ = self.model_.details["alpha"]
        self.noise_ = self.model_.likelihood.noise * self.y_std_**2

    def _basis(self, X, t, rng, pool):
        """``kernel``, [QW03]'s fixed ``RBF(ℓ₀)``, or with ``ard`` a width per
        feature (:func:`~sparsegp.methods.rvm.widths_by_vfe`)."""
        if self.kernel is not None or not self.ard:
            return starting_kernel(self, X, lambda: default_rbf(X)), {}
        return widths_by_vfe(
            X,
            t,
            rng,
            f"{type(self).__name__}: basis widths" if self.verbose else None,
            lambda cap: self._warn_widths_not_converged(
                f"L-BFGS-B stopped at its cap of {cap} iterations"
            ),
            self._report,
        )


class RVMClassifier(_RVMFitting, GPClassifierMixin):
    """Relevance vector machine for probit classification, by Subspace EM and mean field.

    Likelihood ``Φ(t·y(x)/σ_in)`` with ``y(x) = ψ(x)ᵀw``; the E-step is the mean-field
    posterior of [QW03] §4 — ``"tap"`` (adaptive TAP, which equals EP), ``"naive"`` mean
    field, or ``"laplace"`` (the MAP with Gaussian curvature) — solved by damped Newton
    steps (eq. 19); the M-step updates the α as for regression. ``σ_in`` is fixed.

    Parameters
    ----------
    ard : bool or "auto", default=False
        The basis's width per feature, for ``kernel=None``. ``False``: [QW03]'s fixed
        ``RBF(ℓ₀)``, the default (``"auto"`` did not pass the defaults gate on time,
        algorithms.md §5.8). ``True``: an RBF whose length-scales are
        those of a FITC-EP model with a length-scale per feature and
        ``BASIS_INDUCING`` (50) pseudo-inputs,
        learnt by its evidence on the same labels, over √2 (Gaussian basis functions
        of width ``ℓ/√2`` make a degenerate GP of length-scale ``ℓ``). ``"auto"``:
        those widths where that GP's evidence keeps its ARD kernel (more than
        ``D − 1`` nats above the isotropic one's, as ``FITCGPClassifier(ard="auto")``
        decides), ``RBF(ℓ₀)`` otherwise
        (algorithms.md §4.5). The RVM's own evidence cannot
        choose widths: it prefers ever narrower ones (algorithms.md §8 item 10).
    kernel, method, update, threshold, entering, bias, batch_start, tol, max_iter
        As for :class:`RVMRegressor` (from an empty model, ``batch_start=0``, the first
        points end far from batch EM's test error, algorithms.md §0.6); the
        final batch EM stops when no ``log α`` moves by more than ``tol`` from one
        E-step to the next ([QW03] gives no classification evidence to monitor); after
        each E-step its M-steps, O(|R|³) each, run at that E-step's sites until α
        settles there, extrapolating the ``log α`` that converge slowly (Aitken's Δ²,
        algorithms.md §4.4). With
        ``entering="tipping_faul"`` it deletes each weight whose evidence peaks at
        ``α = ∞`` (algorithms.md §4.4) rather than waiting for α to reach ``threshold``.
    n_basis : int or None, default=500
        Size of the dictionary of centres, a random subset of the training inputs (all
        of them when there are fewer) with an equal share from each class where the
        classes are large enough, so that a rare class has centres to choose its
        relevance vectors from; ``None`` uses all. Each centre offered to the
        sweep costs O(n·|R|) and, when it enters, an E-step of O(n·|R|²) (beyond
        5 000 training points ``⌈n/5 000⌉`` centres are offered per E-step): a
        dictionary of all n centres makes the fit O(n²·|R|), one of fixed size linear
        in n (algorithms.md §4.3).
    mean_field : {"tap", "naive", "laplace"}, default="tap"
        Naive mean field takes the prior variance as cavity variance: on well-separated
        classes it drives α to its floor and the weights to thousands, where its E-step
        cannot settle in double precision (a ``ConvergenceWarning`` says so). For the
        same reason its newcomers always enter at α = L (``entering`` is ignored).
    sigma_in : float, default=1.0
        Input noise of the probit.
    n_jobs, random_state, verbose
        One-vs-rest processes (and for a binary problem, on ``n_jobs`` threads, the
        row blocks of the adaptive-TAP E-steps; the model does not depend on it),
        dictionary subset, progress.

    Attributes
    ----------
    odds_weight_ : float
        How the one-vs-rest probabilities of more than two classes combine,
        ``P(k) ∝ Φ_k (1 − Φ_k)^(−w)`` (algorithms.md §7.5): 0 here, the ``Φ_k``
        normalised, as the cavities of its final E-step over-rate the odds (measured).
    converged_ : bool
        The final EM stopped on ``tol`` and the final mean-field E-step settled,
        for every one-vs-rest problem.
    relevance_vectors_ : ndarray, or list of them (one per class beyond two)
    n_iter_ : int or ndarray
        E-steps taken (per one-vs-rest problem).
    classes_, estimators_
    log_marginal_likelihood_value_ : float
        NaN: [QW03] defines no classification evidence.

    References
    ----------
    [QW03] Quiñonero-Candela, J. and Winther, O. (2003). Incremental Gaussian
    processes. NIPS 15.
    [OW00] Opper, M. and Winther, O. (2000). Gaussian processes for classification:
    mean-field algorithms. Neural Computation 12(11).
    [TF03] Tipping, M. E. and Faul, A. C. (2003). Fast marginal likelihood
    maximisation for sparse Bayesian models. AISTATS.
    The mathematics: docs/algorithms.md §4.4.

    Examples
    --------
    >>> from sparsegp import RVMClassifier
    >>> from sparsegp.datasets import make_xor_clusters
    >>> X, y = make_xor_clusters(200, random_state=0)
    >>> clf = RVMClassifier().fit(X, y)
    >>> clf.score(X, y) > 0.8
    True
    """

    _parameter_constraints: dict = {
        **_SHARED_CONSTRAINTS,
        "mean_field": [StrOptions({"tap", "naive", "laplace"})],
        "sigma_in": [Interval(Real, 0, None, closed="neither")],
        "ard": ARD_CONSTRAINT,
        **CLASSIFIER_RUNTIME_CONSTRAINTS,
    }

    def __init__(
        self,
        kernel=None,
        *,
        ard=False,
        method="ssem",
        update="mackay",
        threshold=1e12,
        entering="tipping_faul",
        bias=True,
        n_basis=500,
        mean_field="tap",
        sigma_in=1.0,
        batch_start=20,
        tol=1e-3,
        max_iter=200,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.ard = ard
        self.method = method
        self.update = update
        self.threshold = threshold
        self.entering = entering
        self.bias = bias
        self.n_basis = n_basis
        self.mean_field = mean_field
        self.sigma_in = sigma_in
        self.batch_start = batch_start
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _basis(self, X, t, rng, pool):
        """``kernel``, or ``ard``'s basis (algorithms.md §4.5): [QW03]'s fixed
        ``RBF(ℓ₀)``, or a width per feature
        (:func:`~sparsegp.methods.rvm.widths_by_fitc_ep`; for ``"auto"``, where that
        GP's evidence keeps its ARD kernel)."""
        if self.kernel is not None:
            return starting_kernel(self, X), {}  # refuses ard=True with a kernel
        rbf = default_rbf(X)
        auto = isinstance(self.ard, str)
        if not (auto or self.ard) or (auto and X.shape[1] == 1):
            return rbf, {}
        return widths_by_fitc_ep(
            X,
            t,
            rbf,
            auto,
            rng,
            pool,
            f"{type(self).__name__}: basis widths" if self.verbose else None,
            lambda n_sweeps: self._warn_widths_not_converged(
                f"the EP of the FITC model did not converge in {n_sweeps} sweeps"
            ),
            self._report,
        )

    def _fit_binary(self, X, y, random_state):
        with thread_pool(self._n_row_threads) as pool:
            model, _ = self._fit_rvm(
                X,
                y,
                check_random_state(random_state),
                classification=True,
                sigma_in=self.sigma_in,
                mean_field=self.mean_field,
                pool=pool,
            )
        return replace(model, likelihood=Probit(0.0, 1.0 / self.sigma_in))

    def _set_fitted_summaries(self):
        super()._set_fitted_summaries()
        points = per_problem(m.points for m in self.estimators_)
        self.relevance_vectors_ = in_input_units(self, points)
