"""The generalized FITC classifier: EP on a FITC prior with learnt pseudo-inputs."""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from joblib import effective_n_jobs
from sklearn.gaussian_process.kernels import Kernel
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from .._dask import is_dask_array, rows_of
from ..approximations.blocks import (
    thread_pool,
)
from ..approximations.evidence import EvidenceSettings
from ..approximations.fitc_ep import InMemoryFITC
from ..approximations.multiclass_fitc import (
    InMemoryMultiClassFITC,
)
from ..approximations.partitioned_fitc import PartitionedFITC
from ..exceptions import warn_at_caller
from ..kernels import (
    check_input_differentiable,
)
from ..methods.ard import screen_rows
from ..methods.fitc_ep import (
    DEFAULT_MAX_INDUCING,
    FITCRecipe,
    fit_fitc_ep,
    fitc_approximation,
    ivm_pseudo_inputs,
    kmeans_pseudo_inputs,
    require_fitc_memory,
)
from ..methods.kernel_defaults import default_length_scale, feature_spreads
from ._base import (
    AMPLITUDE_PRIOR_CONSTRAINT,
    ARD_CONSTRAINT,
    CLASSIFIER_RUNTIME_CONSTRAINTS,
    GPClassifierMixin,
    chooses_ard,
    fifth_up_to,
    per_problem,
    report_progress,
    starting_kernel,
    warn_ep_not_converged,
)
from ._input_units import conditioned_inputs, in_input_units


class FITCGPClassifier(GPClassifierMixin):
    """Sparse GP classifier: EP on the FITC prior with M learnt pseudo-inputs.

    Naish-Guzman & Holden's generalized FITC approximation ([NGH07]): the latent
    function is conditioned on its values at ``M`` pseudo-inputs ``X̄`` placed anywhere
    in input space, the training latents are independent given them (FITC prior), and
    EP approximates the probit posterior in O(N·M²) per sweep. Kernel
    hyperparameters, the probit bias and the pseudo-inputs maximise the EP evidence
    with its analytic gradient. A handful of pseudo-inputs often matches the full GP
    classifier ([NGH07] Table 1: M = 2 on twonorm and ringnorm).

    .. math:: p(y \\mid f) = \\Phi(y (f + b)), \\quad
              f \\sim N(0, Q_{ff} + \\mathrm{diag}(K_{ff} - Q_{ff})).

    Cost: O(N·M²) per EP sweep and per evidence gradient (plus O(N·M·D) for the
    pseudo-inputs), O(N·M) memory; prediction O(M) mean, O(M²) variance per point.

    Parameters
    ----------
    kernel : sklearn kernel, default=None
        ``None`` means ``ConstantKernel(1.0) * RBF(ℓ₀)``, the isotropic kernel of
        [NGH07], with ``ℓ₀ = √(Σ_d var x_d)`` (``√D`` for standardised inputs).
        Learning hyperparameters or pseudo-inputs needs sums and products of
        ``ConstantKernel``, ``RBF`` and ``Matern`` with ``nu`` 1.5 or 2.5 (scalar or
        ARD length-scales); with ``optimizer=None`` any kernel works.
    ard : bool or "auto", default=False
        One length-scale per feature (automatic relevance determination) in the
        default kernel. ``False`` is [NGH07]'s isotropic kernel. ``"auto"`` fits the
        isotropic kernel, then screens the ARD kernel from its optimum on at most
        ``ARD_SCREEN_ROWS`` (1 000) random rows: a few L-BFGS-B iterations with the
        pseudo-inputs held, and only where the screen's log evidence rises by more
        than the ``D − 1`` length-scales it adds (Akaike's penalty, [Aka74]) a
        whole ARD fit on every row, kept if its own gain is (algorithms.md §5.8).
        It pays where some features are irrelevant or in other units; the screen
        costs a bounded share of the isotropic fit, the whole ARD fit about one
        more. Not the default: it did not pass the defaults gate (algorithms.md
        §5.8). ``True`` learns ARD length-scales. With a given
        ``kernel``, ``"auto"`` keeps it.
    n_inducing : int or None, default=None
        Number of pseudo-inputs ``M`` (at most the number of training samples).
        ``None`` means N/5 up to ``DEFAULT_MAX_INDUCING`` (200): up to 200 the error
        fell with M on every set of 10³-10⁵ points measured. [NGH07]'s IDA
        tables use M = 2-200, set per data set. Ignored when ``inducing_init`` is an
        array.
    inducing_init : {"kmeans", "random", "ivm"} or array of shape (M, n_features), \
default="kmeans"
        Initial pseudo-inputs: k-means centres of each class, M shared equally
        between the classes (fitted on at most 20 random training points per centre;
        the distinct training inputs themselves when there are at most M), a random
        subset of the distinct training inputs ([NGH07]), the active set of an IVM
        with the initial kernel, or given.
    optimize_inducing : bool, default=True
        Learn the pseudo-inputs with the hyperparameters. ``False`` learns only the
        kernel and bias, the compromise [NGH07] suggests for high-dimensional inputs.
    optimizer : "fmin_l_bfgs_b" or None, default="fmin_l_bfgs_b"
        ``None`` keeps kernel, bias and pseudo-inputs at their initial values.
    n_restarts_optimizer : int, default=0
        Extra initialisations (new initial pseudo-inputs drawn by ``inducing_init``);
        the one with the highest evidence wins. [NGH07] took the best of 3-5; each costs
        a whole fit, and from k-means centres one start is usually enough. Not used
        for an array ``inducing_init``.
    max_iter_optimizer : int, default=20
        L-BFGS-B iterations per initialisation ([NGH07]: 20 CG iterations).
    learn_bias : bool, default=True
        Learn the probit bias ``b``.
    bias : float, default=0.0
        Initial (or fixed) bias.
    ep_mode : {"parallel", "sequential"}, default="parallel"
        Parallel EP updates all sites from the same marginals, then refreshes the
        posterior by two O(N·M²) matrix products (BLAS-3, near the machine's peak);
        sequential is [NGH07]'s EP, one O(M²) update of the structured posterior per
        site in random order. Both reach the same fixed point; parallel takes more
        sweeps but each is an order of magnitude cheaper.
    damping : float in (0, 1] or "auto", default="auto"
        Fraction of each moment-matched site change applied; ``"auto"`` is 1 for
        sequential and 0.8 for parallel EP.
    tol : float, default=1e-3
        EP's tolerance: each evidence evaluation of the optimizer settles the log
        evidence to ``tol / 10`` (relative) and the sites to ``√tol``, or the sites
        alone to ``tol / 10``; the fitted model's final EP run settles both to
        ``tol / 100``.
    max_sweeps : int, default=100
        Maximum EP sweeps per evidence evaluation.
    jitter : float, default=1e-6
        ``ε_u`` added to the diagonal of ``K_uu`` ([NGH07] footnote 3).
    sweep_dtype : {"float32", "float64"}, default="float32"
        Precision of the n × M products of the parallel EP sweeps inside the
        optimizer (``V diag(G) Vᵀ`` and ``L_B⁻¹ V``); float32 halves their time.
        The factor ``L_B``, the sites, the marginals and the evidence gradient stay
        float64, and the fitted model's final EP run is float64 throughout. Without an
        optimizer the sweeps first converge in this precision, as an evaluation's
        would, and the final float64 run starts from there. float32 needs ``tol``
        ≥ 1.2e-6 (an evidence tolerance ``tol / 10`` above float32's machine
        epsilon); a tighter ``tol`` sweeps in float64. float32's rounding steers the
        optimizer's path: the same data in other units gives probabilities 10⁻⁵
        apart (60 xor points) and test NLPs up to 10⁻³ apart (breast cancer), where
        float64 gives the same model to 10⁻¹¹ (algorithms.md §5.3).
    multi_class : {"one_vs_rest", "multinomial"}, default="one_vs_rest"
        Beyond two classes: ``"one_vs_rest"`` fits C binary models, each with its own
        pseudo-inputs, kernel and bias, and normalises their probabilities;
        ``"multinomial"`` fits one model, a latent function per class, one kernel
        and per-class biases, with EP on the multinomial probit likelihood ([VH17];
        algorithms.md §7): O(C·N·M²) per sweep as one-vs-rest, O(C·N·M) memory,
        O(C·M²) per prediction, probabilities from the classes' joint predictive.
        One-vs-rest stays the default: at the same M the multinomial model measured
        0.4-3.1 points less accurate on scikit-learn's digits, MNIST and a noisy
        ten-class set, its NLP 1.13-1.24× one-vs-rest's (with its fitted
        ``variance_scale_``), and 1.8-3.1× slower (its EP converges in more sweeps).
    shared_prior : bool, default=True
        For the multinomial model: one kernel and one set of ``M`` pseudo-inputs
        shared by the classes' latent functions. ``False`` gives each class's its
        own kernel and ``M`` pseudo-inputs, as one-vs-rest's binary models have
        ([VH17] §2; ``kernel_`` a :class:`~sparsegp.kernels.KernelPerClass`): the
        same O(C·N·M²) per sweep, C kernel evaluations instead of one; measured
        up to 3.4× slower, better on scikit-learn's digits and a noisy ten-class
        set, worse on MNIST, behind one-vs-rest on the two larger sets (algorithms.md
        §8 item 7).
    amplitude_prior : float or None, default=3.0
        As for :class:`EPGPClassifier`: the prior on the log amplitude, here on
        FITC's EP evidence (the multinomial model's too).
    n_jobs : int, default=None
        Cores for one fit, each with one BLAS thread; the fitted model does not
        depend on it. A binary problem's parallel EP runs its row blocks
        (:func:`block_rows`) on ``n_jobs`` threads; one-vs-rest problems
        run on up to ``n_jobs`` processes (joblib), each with the threads left over;
        a multinomial fit runs its classes' products on ``n_jobs`` threads.
    random_state : int, RandomState instance or None, default=None
        Seeds the initial pseudo-inputs and the EP visiting orders.
    verbose : int, default=0
        1 shows a progress bar over the optimizer's iterations and reports each
        fitted problem, 2 also each evidence evaluation.

    Attributes
    ----------
    odds_weight_ : float
        How the one-vs-rest probabilities of more than two classes combine: ``P(k) ∝ Φ_k
        (1 − Φ_k)^(−w)``, fitted in [0, 1] by the leave-one-out likelihood of the
        training labels from the binary models' EP cavities (algorithms.md §7.5); 0 (the
        ``Φ_k`` normalised) for two classes or the multinomial model.
    variance_scale_ : float
        The multinomial model's ``γ`` in [10⁻³, 1]: its probabilities see each latent's
        variance times ``γ``, fitted by the leave-one-out likelihood of the training
        labels from its EP cavities, a calibration of its under-confident predictive
        on clean data (algorithms.md §7.4); 1.0 otherwise.
        :meth:`latent_mean_and_variance` reports the variances unscaled.
    n_iter_ : int or ndarray
        Evidence evaluations of the optimizer over all starts, per one-vs-rest problem.
    converged_ : bool
        The best start's optimizer stopped on its tolerance and the final EP run
        converged. Often False by design: ``max_iter_optimizer=20`` is [NGH07]'s
        budget, not a convergence test.
    classes_ : ndarray of shape (n_classes,)
    inducing_points_ : ndarray of shape (M, n_features) or list of them
        Learnt pseudo-inputs (a list, one per class, for one-vs-rest and for a
        multinomial model with ``shared_prior=False``; one array, shared by the
        classes' latent functions, for a multinomial model).
    kernel_ : Kernel
        Learnt kernel (a ``CompoundKernel`` for one-vs-rest, a
        :class:`~sparsegp.kernels.KernelPerClass` for a multinomial model with
        ``shared_prior=False``).
    bias_ : float or ndarray of shape (n_classes,)
    log_marginal_likelihood_value_ : float
        EP log evidence (mean over one-vs-rest problems).
    estimators_ : list of FittedModel
        One fitted model per binary problem, with the evidence evaluations and EP
        sweeps its fit took (``n_iterations``, ``details["n_sweeps"]``, all starts).

    References
    ----------
    [NGH07] Naish-Guzman, A. and Holden, S. (2008). The generalized FITC
    approximation. NIPS 20.

    Examples
    --------
    >>> from sparsegp import FITCGPClassifier
    >>> from sparsegp.datasets import make_xor_clusters
    >>> X, y = make_xor_clusters(100, random_state=0)
    >>> clf = FITCGPClassifier(n_inducing=4, random_state=0).fit(X, y)
    >>> clf.inducing_points_.shape
    (4, 2)
    """

    _parameter_constraints: dict = {
        "kernel": [None, Kernel],
        "ard": ARD_CONSTRAINT,
        "n_inducing": [Interval(Integral, 1, None, closed="left"), None],
        "inducing_init": [StrOptions({"kmeans", "random", "ivm"}), "array-like"],
        "optimize_inducing": ["boolean"],
        "optimizer": [StrOptions({"fmin_l_bfgs_b"}), None],
        "n_restarts_optimizer": [Interval(Integral, 0, None, closed="left")],
        "max_iter_optimizer": [Interval(Integral, 1, None, closed="left")],
        "learn_bias": ["boolean"],
        "bias": [Real],
        "ep_mode": [StrOptions({"parallel", "sequential"})],
        "damping": [Interval(Real, 0, 1, closed="right"), StrOptions({"auto"})],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_sweeps": [Interval(Integral, 1, None, closed="left")],
        "jitter": [Interval(Real, 0, None, closed="left")],
        "sweep_dtype": [StrOptions({"float32", "float64"})],
        "multi_class": [StrOptions({"multinomial", "one_vs_rest"})],
        "shared_prior": ["boolean"],
        "amplitude_prior": AMPLITUDE_PRIOR_CONSTRAINT,
        **CLASSIFIER_RUNTIME_CONSTRAINTS,
    }

    def __init__(
        self,
        kernel=None,
        *,
        ard=False,
        n_inducing=None,
        inducing_init="kmeans",
        optimize_inducing=True,
        optimizer="fmin_l_bfgs_b",
        n_restarts_optimizer=0,
        max_iter_optimizer=20,
        learn_bias=True,
        bias=0.0,
        ep_mode="parallel",
        damping="auto",
        tol=1e-3,
        max_sweeps=100,
        jitter=1e-6,
        sweep_dtype="float32",
        multi_class="one_vs_rest",
        shared_prior=True,
        amplitude_prior=3.0,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.ard = ard
        self.n_inducing = n_inducing
        self.inducing_init = inducing_init
        self.optimize_inducing = optimize_inducing
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.max_iter_optimizer = max_iter_optimizer
        self.learn_bias = learn_bias
        self.bias = bias
        self.ep_mode = ep_mode
        self.damping = damping
        self.tol = tol
        self.max_sweeps = max_sweeps
        self.jitter = jitter
        self.sweep_dtype = sweep_dtype
        self.multi_class = multi_class
        self.shared_prior = shared_prior
        self.amplitude_prior = amplitude_prior
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    @property
    def inducing_points_(self):
        """Learnt pseudo-inputs (in ``X``'s units), one array per binary problem for
        one-vs-rest and per class for a multinomial model with a set per class."""
        points = per_problem(m.points for m in self.estimators_)
        chol = self.estimators_[0].predictor.chol
        if chol.ndim == 3 and len(chol) > 1:  # a set of pseudo-inputs per class
            points = np.split(points, len(chol))
        return in_input_units(self, points)

    @property
    def variance_scale_(self):
        """``γ`` of the multinomial model's predictive probabilities (1.0 otherwise)."""
        return float(getattr(self.estimators_[0].likelihood, "variance_scale", 1.0))

    def _given_inducing_points(self):
        return None if isinstance(self.inducing_init, str) else self.inducing_init

    def _inducing_size(self, n):
        """``M`` for ``n`` training points: ``n_inducing``, or for ``None`` N/5 up to
        ``DEFAULT_MAX_INDUCING``."""
        if self.n_inducing is None:
            return fifth_up_to(n, DEFAULT_MAX_INDUCING)
        return self.n_inducing

    def _check_training_size(self, X):
        given = self._given_inducing_points()
        if given is not None:
            given = np.asarray(given, dtype=float)
            if given.ndim != 2 or given.shape[1] != X.shape[1]:
                raise ValueError(
                    f"inducing_init must have shape (M, {X.shape[1]}) to match X; "
                    f"got shape {given.shape}."
                )
            if not np.all(np.isfinite(given)):
                raise ValueError("inducing_init contains NaN or infinity.")
        elif self._inducing_size(len(X)) > len(X):
            raise ValueError(
                f"n_inducing={self.n_inducing} exceeds the {len(X)} training points "
                f"the pseudo-inputs are initialised from."
            )
        if not is_dask_array(X):  # on a cluster the M × n blocks live on the workers
            require_fitc_memory(
                self._inducing_size(len(X)) if given is None else len(given),
                len(X),
                len(self.classes_) if self._fits_jointly() else 1,
                self._n_inducing_sets(),
            )

    def _n_inducing_sets(self):
        """Sets of pseudo-inputs: one per class for a multinomial model with a prior
        per class, else one."""
        if self._fits_jointly() and not self.shared_prior:
            return len(self.classes_)
        return 1

    def _initial_pseudo_inputs(self, X, y, kernel, rng):
        """Every set's initial pseudo-inputs, stacked (:meth:`_n_inducing_sets`, each
        drawn as ``inducing_init`` draws one)."""
        return np.concatenate(
            [
                self._initial_inducing(X, y, kernel, rng)
                for _ in range(self._n_inducing_sets())
            ]
        )

    def _initial_inducing(self, X, y, kernel, rng):
        given = self._given_inducing_points()
        if given is not None:  # in X's units: shifted and scaled as X was
            return conditioned_inputs(self, np.array(given, dtype=float), reset=False)
        M = self._inducing_size(len(X))
        if self.inducing_init == "random":
            Z = rows_of(X, rng.choice(len(X), M, replace=False))
            if is_dask_array(X) or len(np.unique(Z, axis=0)) == M:
                return Z
            distinct = np.unique(X, axis=0)  # repeated inputs drawn: draw distinct ones
            if len(distinct) <= M:
                return self._all_distinct_inputs(distinct, M)
            return distinct[rng.choice(len(distinct), M, replace=False)]
        if self.inducing_init == "ivm":
            if self._fits_jointly():
                raise ValueError(
                    "inducing_init='ivm' selects an active set for a binary problem; "
                    f"with {len(self.classes_)} classes use 'kmeans' or 'random', or "
                    "multi_class='one_vs_rest'."
                )
            if is_dask_array(X):
                raise ValueError(
                    "inducing_init='ivm' needs X in memory; use 'kmeans' or 'random' "
                    "with a dask array."
                )
            return ivm_pseudo_inputs(X, y, kernel, self.bias, M, rng)
        return self._kmeans_inducing(X, y, M, rng)

    def _kmeans_inducing(self, X, y, M, rng):
        """:func:`kmeans_pseudo_inputs`, all of ``X``'s distinct inputs (and a
        warning for a given ``n_inducing``) where it has fewer than ``M``."""
        centres = kmeans_pseudo_inputs(X, y, M, rng)
        return centres if len(centres) == M else self._all_distinct_inputs(centres, M)

    def _all_distinct_inputs(self, distinct, M):
        """The pseudo-inputs when X has no more than ``M`` distinct inputs: all of them
        (a warning if the user's ``n_inducing`` asked for more)."""
        if self.n_inducing is not None and len(distinct) < M:
            warn_at_caller(
                f"X has {len(distinct)} distinct inputs, fewer than "
                f"n_inducing={M}: they are the pseudo-inputs.",
                UserWarning,
            )
        return distinct

    def _ep_options(self, random_state):
        damping = self.damping
        if damping == "auto":
            damping = 1.0 if self.ep_mode == "sequential" else 0.8
        return dict(
            mode=self.ep_mode,
            damping=damping,
            tol=self.tol,
            max_sweeps=self.max_sweeps,
            random_state=random_state,
        )

    def _fits_jointly(self):
        return self.multi_class == "multinomial" and len(self.classes_) > 2

    def _fit_binary(self, X, y, random_state):
        if self.ep_mode != "parallel":  # site by site, on the whole posterior
            in_memory = InMemoryFITC(X, y, self.jitter, self.optimizer is not None)
            return self._fit_on(in_memory, X, y, random_state)
        with thread_pool(self._n_row_threads) as pool:
            data = fitc_approximation(X, y, self.jitter, pool=pool)
            return self._fit_on(data, X, y, random_state, pool)

    def _fit_multiclass(self, X, y, random_state):
        """All classes at once: ``y`` holds class indices (:meth:`_fits_jointly`)."""
        if self.ep_mode != "parallel":
            raise ValueError(
                "The multinomial FITC model runs ep_mode='parallel' only; use "
                "multi_class='one_vs_rest' for sequential EP."
            )
        n_threads = min(effective_n_jobs(self.n_jobs), len(self.classes_))
        with thread_pool(n_threads) as pool:
            data = InMemoryMultiClassFITC(
                X,
                y,
                len(self.classes_),
                self.jitter,
                self.optimizer is not None,
                pool,
                n_threads,
                per_class_priors=not self.shared_prior,
            )
            return self._fit_on(data, X, y, random_state)

    def _fit_binary_distributed(self, X, y, random_state):
        """FITC-EP with the rows of the dask array ``X`` kept on the cluster."""
        if self.ep_mode != "parallel":
            raise ValueError("FITC-EP on a cluster runs ep_mode='parallel' only.")
        data = fitc_approximation(X, y, self.jitter, type(self).__name__)
        try:
            return self._fit_on(data, X, y, random_state)
        finally:
            data.close()

    def _fit_on(self, data, X, y, random_state, pool=None):
        """Fit from ``n_restarts_optimizer + 1`` initialisations on ``data``, an
        :class:`InMemoryFITC` or a :class:`PartitionedFITC` of ``X``, ``y`` (row
        blocks on the thread ``pool``, which the ARD screen's rows share), by
        :func:`~sparsegp.methods.fitc_ep.fit_fitc_ep`."""
        start_time = time.perf_counter()
        rng = check_random_state(random_state)
        kernel = starting_kernel(self, X)
        if self.optimizer is not None:
            check_input_differentiable(kernel)
        given = self._given_inducing_points() is not None
        n_starts = 1 if given else 1 + self.n_restarts_optimizer
        unit = default_length_scale(X) / np.sqrt(X.shape[1])
        starts = [
            self._initial_pseudo_inputs(X, y, kernel, rng) for _ in range(n_starts)
        ]
        ard = chooses_ard(self, X)
        recipe = FITCRecipe(
            self._evidence_settings(unit, random_state),
            bias=float(self.bias),
            n_sets=self._n_inducing_sets(),
            ard=ard,
            spreads=feature_spreads(X) if ard else None,
            not_converged=lambda n_sweeps: warn_ep_not_converged(
                self, n_sweeps, self.tol
            ),
        )
        screen_data = self._screen_data(data, X, y, rng, pool) if ard else None
        best = fit_fitc_ep(data, kernel, starts, recipe, screen_data)
        report_progress(
            self,
            message=f"FITCGPClassifier: n={len(y)} M={len(best.points)} "
            f"log Z_EP={best.log_marginal_likelihood:.3f} kernel={best.kernel} "
            f"bias={np.array2string(np.asarray(best.likelihood.bias), precision=3)} "
            f"({time.perf_counter() - start_time:.1f} s)",
        )
        return best

    def _screen_data(self, data, X, y, rng, pool):
        """``ard="auto"``'s screen fits on :func:`~sparsegp.methods.ard.screen_rows`'
        rows of a binary problem in memory with parallel EP, their row blocks on
        ``pool``; None (the screen on every row) for a multi-class model, a cluster,
        sequential EP or a training set no larger than the screen's."""
        if not isinstance(data, PartitionedFITC) or is_dask_array(X):
            return None
        rows = screen_rows(len(y), rng)
        if len(rows) == len(y) or self._fits_jointly():
            return None
        return fitc_approximation(X[rows], y[rows], self.jitter, pool=pool)

    def _evidence_settings(self, unit, random_state):
        """How :func:`~sparsegp.approximations.evidence.maximize_evidence` runs,
        pseudo-inputs moved in units of the inputs' RMS spread (``unit``)."""
        return EvidenceSettings(
            ep_options=self._ep_options(random_state),
            max_iter=None if self.optimizer is None else self.max_iter_optimizer,
            learn_bias=self.learn_bias,
            learn_inducing=self.optimize_inducing,
            sweep_dtype=self.sweep_dtype,
            unit=unit,
            amplitude_prior=self.amplitude_prior,
            progress="FITCGPClassifier: EP evidence" if self.verbose else None,
            report=lambda line: report_progress(self, level=2, message=line),
        )
