"""The validation-based sparse GP classifier: NLPSparseGPClassifier ([SSK09])."""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.gaussian_process.kernels import ConstantKernel, Kernel
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ..approximations.blocks import thread_pool
from ..kernels import check_input_differentiable
from ..likelihoods import Probit
from ..methods.every_site import RELEARN_SIZE, every_site_if_it_fits, relearning
from ..methods.nlp_classifier import (
    NLPSettings,
    fit_nlp_classifier,
    median_heuristic_kernel,
)
from ._base import (
    AMPLITUDE_PRIOR_CONSTRAINT,
    ARD_CONSTRAINT,
    CLASSIFIER_RUNTIME_CONSTRAINTS,
    GPClassifierMixin,
    chooses_ard,
    fifth_up_to,
    pass_caller,
    per_problem,
    report_progress,
    starting_kernel,
)

#: The largest basis ``max_basis_vectors=None`` picks (N/5 below it). A selection pass
#: costs O(κ·s·d²) and the outer loop makes 6-20 of them: N/5 of tens of thousands of
#: points would take hours.
DEFAULT_MAX_BASIS_VECTORS = 500


class NLPSparseGPClassifier(GPClassifierMixin):
    """Sparse GP classifier whose basis and hyperparameters minimise a validation NLP.

    Sundararajan, Shevade & Keerthi (2009). The sparse ADF posterior of the IVM is
    grown one basis vector at a time; each step includes, from a random working set of
    ``κ`` candidates, the one that most lowers the negative log predictive loss of the
    training points outside the basis (eqs. 2.7-2.8, 2.14). The same loss, with the basis
    and its sites fixed, is then decreased in the kernel hyperparameters, the bias and
    the probit slope by a few L-BFGS-B steps, and the basis is chosen afresh ([SSK09]
    §2.5). O(n·d² + κ·s·d²) time per basis (s = ``validation_size``), O(n·d) memory;
    predictions as the IVM's (O(d) mean, O(d²) variance).

    Parameters
    ----------
    kernel : sklearn kernel, default=None
        ``None`` means ``ConstantKernel(1.0) * RBF(σ)`` with σ² the median squared
        distance between training points (algorithms.md §2.4). Hyperparameter learning
        needs sums and products of ``ConstantKernel``, ``RBF`` and ``Matern`` (``nu``
        1.5 or 2.5).
    ard : bool or "auto", default=False
        One length-scale per feature (automatic relevance determination) in the
        default kernel; ``False`` is the paper's isotropic kernel. ``"auto"`` (not
        the default: it did not pass the defaults gate, algorithms.md
        §5.8): after the outer loop, where a screen — the
        L-BFGS-B iterations of four hyperparameter steps at once, of the chosen
        iteration's kernel made ARD on its basis — lowers the loss by more than
        Akaike's penalty, ``(D − 1)/m`` per point for the ``m`` points a step fits,
        more outer iterations from there until the loss stops falling again; their
        losses carry the penalty, and ``model_choice`` picks among all the
        iterations, the isotropic ones first (algorithms.md §2.3). Where ARD is
        screened out the fit costs the screen more, where not about twice the outer
        loop's time. ``True`` learns ARD length-scales from the start. With a given
        ``kernel``, ``"auto"`` keeps it.
    max_basis_vectors : int, float in (0, 1) or None, default=None
        ``d_max``; a float is a fraction of the training set, ``None`` means N/5 (the
        paper's setting, N ≤ 1 300 in its tables), at most
        ``DEFAULT_MAX_BASIS_VECTORS`` (500): the cost grows as d². Must leave at
        least one training point outside.
    working_set_size : int or None, default=59
        ``κ``: candidates scored per inclusion (Smola & Bartlett's 59). ``None`` scores
        every point outside the basis; 1 is random selection ([SSK09]'s baseline).
    validation_size : int or None, default=2000
        Training points outside the basis that score the candidates (drawn once per
        selection pass; only their columns are kept current) and that the
        hyperparameter steps average over (drawn once per step): unbiased estimates of
        eqs. 2.8 and 2.14. ``None`` uses all of them, as the paper does (and as 2000
        does on every set of its tables, N ≤ 1 300).
        Scoring costs O(κ·s·k) per inclusion instead of O(κ·n·k).
    bias, slope : float, default=0.0, 1.0
        Initial probit bias ``b`` and slope ``λ`` of ``Φ(λ y (f + b))``.
    store_dtype : {"float32", "float64"}, default="float32"
        Precision of the selection's O(n·d) store ``V`` and of its kernel blocks (the
        validation sample's kernel, the candidates' rows): their products run about
        twice as fast in float32, and the marginals ``a``, ``h``, the sites, the loss,
        the hyperparameter step and the fitted model stay in float64.
    learn_slope : bool, default=True
        Learn ``λ`` with the kernel and the bias, as [SSK09] does. At the method's fixed
        point only ``λ²v`` and ``λb`` matter (algorithms.md §2.5), but the
        hyperparameter step holds the sites, and there ``λ`` sharpens the predictions
        where the amplitude cannot, in fewer outer iterations and to a lower test NLP.
        ``False`` fixes ``λ`` at ``slope``.
    posterior : {"auto", "active_set"}, default="auto"
        ``"active_set"``: the paper's predictor, sites on the d basis vectors only
        (the IVM's eq. 5). ``"auto"``: then one EP run over every training site on the
        FITC prior whose pseudo-inputs are the basis ([NGH07] §6, as the IVM's
        default), from the learnt kernel, bias and slope (the slope folded into the
        amplitude, ``kernel_ = λ² · kernel``, and the bias, ``λ b``), kernel and bias
        relearnt as the IVM's are: five L-BFGS-B steps on FITC's evidence, on every
        row while C·n·d² ≤ ``every_site.RELEARN_SIZE`` (5·10⁹, C one-vs-rest
        problems), beyond on ``RELEARN_SIZE``/(C·d²) random rows (algorithms.md §2.6). The
        basis' d labels alone miss a rare class, which the pass mends. The basis'
        posterior is kept where the pass would cost more than the selection
        (C·n·d² above ``every_site.PASS_SIZE``), and, with a warning, where it would
        not fit in memory.
    amplitude_prior : float or None, default=3.0
        As for :class:`FITCGPClassifier`: the standard deviation of a normal prior on
        the log amplitude, in the pass's relearning by FITC's evidence (the
        validation loss of [SSK09] has none).
    optimizer : "fmin_l_bfgs_b" or None, default="fmin_l_bfgs_b"
        ``None``: one basis at the given kernel, bias and slope.
    max_iter_optimizer : int, default=5
        L-BFGS-B iterations per outer iteration. [SSK09] takes "one or two line searches"
        of CG; L-BFGS-B forgets its curvature between outer iterations, and 5 steps
        reach as low a loss in fewer outer iterations.
    max_outer_iterations : int, default=20
        Cap on outer iterations ([SSK09]: about 10 are typical).
    patience : int, default=5
        Stop once the training NLP has not decreased significantly for this many
        consecutive outer iterations: by more than its standard error, by more than
        ``tol`` (relative) and by one nat over the points it averages (:class:`Plateau`),
        below the loss of the last significant decrease.
    tol : float, default=1e-3
    model_choice : {"one_se", "lowest"}, default="one_se"
        The outer iteration whose model is returned. ``"lowest"``: the lowest training
        NLP. ``"one_se"``: the earliest within one standard error of it (the
        one-standard-error rule; the loss is measured on the points that chose the
        basis, and on small sets its last decreases fit their noise).
    n_jobs, random_state, verbose
        One-vs-rest processes (and for a binary problem, on ``n_jobs`` threads, the
        completion of the columns outside the basis that each outer iteration's loss
        needs and the FITC pass's row blocks; the model does not depend on it),
        reproducibility (first point, working sets), progress.

    Attributes
    ----------
    odds_weight_ : float
        How the one-vs-rest probabilities of more than two classes combine: ``P(k) ∝ Φ_k
        (1 − Φ_k)^(−w)``, fitted in [0, 1] by the leave-one-out likelihood of the
        training labels from the binary models' EP cavities (algorithms.md §7.5); 0 (the
        ``Φ_k`` normalised) for two classes or where the paper's predictor is kept
        (``posterior="active_set"``, or a pass over every site that would not fit in
        memory).
    n_iter_ : int or ndarray
        Outer iterations run (as ``n_outer_iterations_``).
    converged_ : bool
        The validation NLP stopped falling (``patience``) before
        ``max_outer_iterations``; a ``ConvergenceWarning`` says when not.
    active_set_ : ndarray of shape (d,), or list of them (one per class beyond two)
        Training indices of the basis vectors, in inclusion order.
    training_nlp_ : float or ndarray
        The loss ``NLP(u)`` of the returned model (the outer iteration ``model_choice``
        picks).
    n_outer_iterations_ : int or ndarray
        Outer iterations run.
    kernel_, bias_, classes_, estimators_
        As for :class:`EPGPClassifier`.
    log_marginal_likelihood_value_ : float
        ``L_IVM`` of the basis with its sites (algorithms.md §1.8), for reference: the
        method does not maximise it.

    References
    ----------
    [SSK09] Sundararajan, S., Shevade, S. and Keerthi, S. S. (2009). Validation-based
    sparse Gaussian process classifier design. Neural Computation 21(7).
    The mathematics: docs/algorithms.md §2.

    Examples
    --------
    >>> from sparsegp import NLPSparseGPClassifier
    >>> from sparsegp.datasets import make_xor_clusters
    >>> X, y = make_xor_clusters(200, random_state=0)
    >>> clf = NLPSparseGPClassifier(max_basis_vectors=20, random_state=0).fit(X, y)
    >>> clf.active_set_.shape
    (20,)
    """

    _parameter_constraints: dict = {
        "kernel": [None, Kernel],
        "max_basis_vectors": [
            None,
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="neither"),
        ],
        "working_set_size": [None, Interval(Integral, 1, None, closed="left")],
        "validation_size": [None, Interval(Integral, 1, None, closed="left")],
        "bias": [Real],
        "slope": [Interval(Real, 0, None, closed="neither")],
        "store_dtype": [StrOptions({"float32", "float64"})],
        "learn_slope": ["boolean"],
        "posterior": [StrOptions({"auto", "active_set"})],
        "optimizer": [StrOptions({"fmin_l_bfgs_b"}), None],
        "max_iter_optimizer": [Interval(Integral, 1, None, closed="left")],
        "max_outer_iterations": [Interval(Integral, 1, None, closed="left")],
        "patience": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "model_choice": [StrOptions({"one_se", "lowest"})],
        "ard": ARD_CONSTRAINT,
        "amplitude_prior": AMPLITUDE_PRIOR_CONSTRAINT,
        **CLASSIFIER_RUNTIME_CONSTRAINTS,
    }

    def __init__(
        self,
        kernel=None,
        *,
        ard=False,
        max_basis_vectors=None,
        working_set_size=59,
        validation_size=2000,
        bias=0.0,
        slope=1.0,
        store_dtype="float32",
        learn_slope=True,
        posterior="auto",
        amplitude_prior=3.0,
        optimizer="fmin_l_bfgs_b",
        max_iter_optimizer=5,
        max_outer_iterations=20,
        patience=5,
        tol=1e-3,
        model_choice="one_se",
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.max_basis_vectors = max_basis_vectors
        self.working_set_size = working_set_size
        self.validation_size = validation_size
        self.bias = bias
        self.slope = slope
        self.store_dtype = store_dtype
        self.learn_slope = learn_slope
        self.posterior = posterior
        self.amplitude_prior = amplitude_prior
        self.optimizer = optimizer
        self.max_iter_optimizer = max_iter_optimizer
        self.max_outer_iterations = max_outer_iterations
        self.patience = patience
        self.tol = tol
        self.model_choice = model_choice
        self.ard = ard
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _basis_size(self, n):
        d = self.max_basis_vectors
        if d is None:
            d = fifth_up_to(n, DEFAULT_MAX_BASIS_VECTORS)
        elif isinstance(d, float):
            d = max(1, int(round(d * n)))
        if d >= n:
            raise ValueError(
                f"max_basis_vectors={self.max_basis_vectors} leaves no training point "
                f"outside the basis to validate on; use fewer than the {n} points."
            )
        return int(d)

    def _check_training_size(self, X):
        self._basis_size(len(X))

    def _fit_binary(self, X, y, random_state):
        """The two-loop algorithm of [SSK09] §2.5
        (:func:`~sparsegp.methods.nlp_classifier.fit_nlp_classifier`), then
        ``posterior="auto"``'s pass over every site."""
        rng = check_random_state(random_state)
        kernel = starting_kernel(self, X, lambda: median_heuristic_kernel(X, rng))
        learn = self.optimizer is not None
        if learn:
            check_input_differentiable(kernel)
        settings = NLPSettings(
            basis_size=self._basis_size(len(y)),
            working_set_size=self.working_set_size,
            validation_size=self.validation_size,
            store_dtype=self.store_dtype,
            learn=learn,
            learn_slope=self.learn_slope,
            max_iter_optimizer=self.max_iter_optimizer,
            max_outer_iterations=self.max_outer_iterations,
            patience=self.patience,
            tol=self.tol,
            model_choice=self.model_choice,
            ard=chooses_ard(self, X),
            progress=bool(self.verbose),
        )
        with thread_pool(self._n_row_threads) as pool:
            model = fit_nlp_classifier(
                X,
                y,
                kernel,
                Probit(self.bias, self.slope),
                settings,
                rng,
                pool,
                lambda message: report_progress(self, message=message),
            )
        return self._every_site(X, y, model, random_state)

    def _every_site(self, X, y, model, random_state):
        """``posterior="auto"``'s pass over every site from the slope folded into the
        kernel's amplitude and the bias (``Φ(λ(f + b)) = Φ(λf + λb)``), kernel and
        bias relearnt on :func:`~sparsegp.methods.every_site.relearning`'s rows."""
        if self.posterior != "auto":
            return model
        slope = model.likelihood.slope
        folded = (
            ConstantKernel(slope**2, "fixed") * model.kernel,
            slope * model.likelihood.bias,
        )
        kept = "the basis' posterior ([SSK09], sites on the basis only)"
        budget = relearning(
            self.optimizer,
            len(model.points),
            len(y),
            self._n_binary_problems(),
            RELEARN_SIZE,
        )
        if budget is None:
            return model
        optimizer, learn_rows = budget
        return every_site_if_it_fits(
            pass_caller(self),
            X,
            y,
            model,
            random_state,
            optimizer,
            kept,
            start=folded,
            amplitude_prior=self.amplitude_prior,
            learn_rows=learn_rows,
        )

    def _set_fitted_summaries(self):
        super()._set_fitted_summaries()
        models = self.estimators_
        self.active_set_ = per_problem(m.details["active_set"] for m in models)
        self.training_nlp_ = per_problem(
            (m.details["training_nlp"] for m in models), stack=True
        )
        self.n_outer_iterations_ = per_problem(
            (m.n_iterations for m in models), stack=True
        )
