"""The validation-based sparse GP classifier: NLPSparseGPClassifier ([SSK09])."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from numbers import Integral, Real

import numpy as np
from scipy.spatial.distance import pdist
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Kernel
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from .._optimize import (
    ParameterSpace,
    bias_block,
    kernel_block,
    maximize,
    slope_block,
)
from ..approximations.adf_active_set import (
    ADFActiveSet,
    active_set_log_evidence,
    active_set_predictor,
    factor_from_sites,
)
from ..approximations.blocks import thread_pool
from ..approximations.nlp_selection import (
    HeldOutLoss,
    nlp_loss,
    select_by_nlp,
    validation_loss,
)
from ..exceptions import warn_at_caller
from ..kernels import KernelBlocks, check_input_differentiable
from ..likelihoods import Probit
from ..methods.ard import ard_starts
from ..methods.every_site import RELEARN_SIZE, every_site_if_it_fits, relearning
from ..methods.fitted import FittedModel
from ..methods.kernel_defaults import feature_spreads, warn_if_few_features_count
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

#: ``ard="auto"``'s screen runs this many hyperparameter steps' L-BFGS-B iterations
#: at once: one step's iterations can move the loss by less than the penalty where
#: ARD goes on to pay (algorithms.md §2.3).
_ARD_SCREEN_STEPS = 4
#: Points used for the median pairwise distance of the default kernel.
_N_MEDIAN = 1000
#: Bounds of log λ when the slope is learnt.
_LOG_SLOPE_BOUNDS = (np.log(1e-3), np.log(1e3))

#: The largest basis ``max_basis_vectors=None`` picks (N/5 below it). A selection pass
#: costs O(κ·s·d²) and the outer loop makes 6-20 of them: N/5 of tens of thousands of
#: points would take hours.
DEFAULT_MAX_BASIS_VECTORS = 500


def median_heuristic_kernel(X, rng):
    """``1 · exp(−‖x−x′‖²/(2σ²))`` with σ² the median squared pairwise distance.

    The initialisation algorithms.md §2.4 adopts for [SSK09]'s unspecified one ("as in
    Schölkopf & Smola 2002"), on a subsample of at most 1 000 points. The length-scale
    bounds are ``σ·(10⁻⁵, 10⁵)``, so inputs in any units get the same search range.
    Warns if the kernel would see few of ``X``'s features
    (:func:`~sparsegp.methods.kernel_defaults.warn_if_few_features_count`).
    """
    warn_if_few_features_count(feature_spreads(X))
    if len(X) > _N_MEDIAN:
        X = X[rng.choice(len(X), size=_N_MEDIAN, replace=False)]
    squared = pdist(X, "sqeuclidean")
    sigma2 = float(np.median(squared[squared > 0])) if np.any(squared > 0) else 1.0
    sigma = np.sqrt(sigma2)
    return ConstantKernel(1.0) * RBF(
        sigma, length_scale_bounds=(1e-5 * sigma, 1e5 * sigma)
    )


@dataclass(frozen=True, eq=False)  # compared by identity: it holds arrays
class _OuterIteration:
    """What an outer iteration leaves: its hyperparameters, basis, sites and loss (O(d))."""

    kernel: Kernel
    likelihood: Probit
    active: np.ndarray
    p: np.ndarray
    m: np.ndarray
    loss: HeldOutLoss
    #: Added to ``loss`` in ``ard="auto"``'s ARD iterations: Akaike's penalty per
    #: point for the length-scales added (algorithms.md §2.3).
    penalty: float = 0.0

    @classmethod
    def of(cls, state, kernel, loss):
        active = np.asarray(state.active)
        return cls(
            kernel, state.likelihood, active, state.p[active], state.m[active], loss
        )

    def penalised(self, penalty):
        """This iteration with ``penalty`` added to its loss."""
        loss = self.loss._replace(value=self.loss.value + penalty)
        return replace(self, loss=loss, penalty=self.penalty + penalty)

    def freeze(self, X):
        """The fitted model of this iteration (eq. 5's predictor and ``L_IVM``
        rebuilt from one O(d³) factorisation)."""
        X_active = X[self.active]
        L, c = factor_from_sites(self.kernel(X_active), self.p, self.m)
        return FittedModel(
            kernel=self.kernel,
            likelihood=self.likelihood,
            points=X_active,
            predictor=active_set_predictor(L, c, self.p),
            log_marginal_likelihood=active_set_log_evidence(L, c, self.p),
            details=dict(
                active_set=self.active,
                training_nlp=self.loss.value - self.penalty,
            ),
        )


def choose_iteration(iterations, rule):
    """The outer iteration to return: the lowest training NLP (``"lowest"``), or the
    earliest within one standard error of it (``"one_se"``).

    The one-standard-error rule ([BFOS84] §3.4.3): the loss the outer loop lowers is
    measured on the very points that chose the basis, so decreases smaller than its
    standard error are as likely to fit their noise as the data.
    """
    lowest = min(iterations, key=lambda iteration: iteration.loss.value)
    if rule == "lowest":
        return lowest
    limit = lowest.loss.value + lowest.loss.standard_error
    return next(it for it in iterations if it.loss.value <= limit)


class Plateau:
    """Counts the outer iterations since the loss last decreased significantly
    ([SSK09] §2.5: stop once it has not for ``patience`` of them).

    A decrease is significant when it takes the loss below the reference — the loss of
    the last significant decrease, so that a slow steady descent registers once it adds
    up — by more than the reference's standard error, by more than ``tol`` relative
    to it, and by more than one nat over all its points (``1 / n_points`` in the
    mean). A smaller decrease is within the noise of a mean over the points outside the
    basis, and the one-standard-error choice (:func:`choose_iteration`) treats such
    iterations as equals. The nat is a likelihood ratio of ``e`` over the whole
    held-out sample, below what a likelihood-ratio scale counts as evidence: where
    the classes separate, the loss falls towards zero by ever smaller relative halvings
    of a standard error that vanishes with it, and only that absolute floor ends the
    loop before its cap (algorithms.md §2.3).
    """

    def __init__(self, tol, patience):
        self.tol, self.patience = tol, patience
        self.reference, self.stalled = None, 0

    def record(self, loss):
        """Take an outer iteration's loss (a :class:`HeldOutLoss`)."""
        reference = self.reference
        if reference is None or loss.value < reference.value - max(
            self.tol * reference.value,
            reference.standard_error,
            1.0 / reference.n_points,
        ):
            self.reference, self.stalled = loss, 0
        else:
            self.stalled += 1

    @property
    def reached(self):
        """``patience`` iterations in a row without a significant decrease."""
        return self.stalled >= self.patience


def _negative_validation_loss(space, initial, data):
    """``x ↦ (−NLP(u), its gradient)`` in ``space``'s vector (algorithms.md §2.5),
    ``initial`` holding what ``space`` does not learn; ``data``: the basis' inputs,
    site precisions and means, and the validation points' inputs and labels."""

    def negative_loss(x):
        values = initial | space.unpack(x)
        likelihood = Probit(values["bias"], values["slope"])
        loss = validation_loss(values["kernel"], likelihood, *data)
        gradient = {
            "kernel": loss.kernel_gradient,
            "bias": loss.bias_gradient,
            "slope": loss.slope_gradient,
        }
        return -loss.value, -space.pack_gradient(values, gradient)

    return negative_loss


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
        """The two-loop algorithm of [SSK09] §2.5; returns the outer iteration that
        ``model_choice`` picks."""
        start = time.perf_counter()
        rng = check_random_state(random_state)
        kernel = starting_kernel(self, X, lambda: median_heuristic_kernel(X, rng))
        learn = self.optimizer is not None
        if learn:
            check_input_differentiable(kernel)
        likelihood = Probit(self.bias, self.slope)
        d = self._basis_size(len(y))
        with thread_pool(self._n_row_threads) as pool:
            iterations, plateau = self._outer_iterations(
                X, y, kernel, likelihood, d, rng, learn, pool
            )
            if chooses_ard(self, X):
                ard, ard_plateau = self._ard_iterations(X, y, iterations, d, rng, pool)
                iterations += ard
                plateau = ard_plateau or plateau
        if learn and not plateau.reached:
            lowest = min(iteration.loss.value for iteration in iterations)
            warn_at_caller(
                f"NLPSparseGPClassifier: stopped at max_outer_iterations="
                f"{self.max_outer_iterations} while the validation NLP was still "
                f"falling (lowest {lowest:.3g}); the iterations run are chosen from. "
                "Raise max_outer_iterations — unless the classes are separable, where "
                "the loss falls without end as the model grows more confident.",
                ConvergenceWarning,
            )
        chosen = choose_iteration(iterations, self.model_choice)
        report_progress(
            self,
            message=f"{type(self).__name__}: n={len(y)} d={d} {len(iterations)} outer "
            f"iterations, iteration {iterations.index(chosen) + 1} kept, NLP "
            f"{chosen.loss.value:.4f} ({time.perf_counter() - start:.1f} s)",
        )
        model = chosen.freeze(X)
        if chooses_ard(self, X):
            model = replace(model, details=model.details | {"ard": chosen.penalty > 0})
        model = replace(
            model,
            n_iterations=len(iterations),
            converged=not learn or plateau.reached,
        )
        return self._every_site(X, y, model, random_state)

    def _outer_iterations(
        self, X, y, kernel, likelihood, d, rng, learn, pool, reference=None
    ):
        """The outer iterations (a basis, its loss, a hyperparameter step) until the
        loss stops falling (below ``reference``, a loss to beat, where given); the
        loss's completion of the columns outside the basis on the thread ``pool``
        (``n_jobs``; the model does not depend on it)."""
        iterations, plateau = [], Plateau(self.tol, self.patience)
        plateau.reference = reference
        while True:
            state, outside = self._select(X, y, kernel, likelihood, d, rng)
            loss = nlp_loss(state, outside, pool)
            iterations.append(_OuterIteration.of(state, kernel, loss))
            plateau.record(loss)
            report_progress(
                self,
                message=f"  NLP outer iteration {len(iterations)}: training NLP "
                f"{loss.value:.4f} ± {loss.standard_error:.4f}, {kernel}, "
                f"slope {likelihood.slope:.3g}, bias {likelihood.bias:.3g}",
            )
            if (
                not learn
                or plateau.reached
                or len(iterations) >= self.max_outer_iterations
            ):
                return iterations, plateau
            kernel, likelihood, _ = self._hyperparameter_step(
                X, y, kernel, likelihood, _OuterIteration.of(state, kernel, loss), rng
            )

    def _ard_iterations(self, X, y, iterations, d, rng, pool):
        """``ard="auto"``'s outer iterations and their plateau: from the iteration
        ``model_choice`` picks, its kernel with a length-scale per feature (the same
        function to start, and on standardised features too where the loss is lower
        there, :func:`~sparsegp.methods.ard.ard_starts`), until the loss stops falling
        again. Their losses carry Akaike's penalty for the ``D − 1`` length-scales
        added, per point of the ``m`` that each hyperparameter step fits
        (``validation_size`` of the points outside the basis): the loss is measured on
        the points the hyperparameters were fitted to, so it is a training loss, and the
        model choice over all the iterations (isotropic first) keeps ARD only where it
        pays for them (algorithms.md §2.3). A screen first: ``_ARD_SCREEN_STEPS``
        hyperparameter steps' iterations at once of the ARD kernel on the chosen
        iteration's basis and sites, the iterations run only where they lower the loss
        by more than the penalty (none, and no plateau, if not). They stop after
        ``patience`` iterations in a row that do not take that penalised loss
        significantly below the chosen one's."""
        start = choose_iteration(iterations, self.model_choice)
        fitted = len(y) - d
        if self.validation_size is not None:
            fitted = min(fitted, self.validation_size)
        penalty = (X.shape[1] - 1) / fitted
        screen = _ARD_SCREEN_STEPS * self.max_iter_optimizer
        kernel, likelihood, fall = self._hyperparameter_step(
            X, y, start.kernel, start.likelihood, start, rng, screen, ard=True
        )
        report_progress(
            self,
            message=f"  NLP ARD screen: loss fell {fall:.4f} (penalty {penalty:.4f})",
        )
        if fall <= penalty:
            return [], None
        to_beat = start.loss._replace(value=start.loss.value - penalty)
        ard, plateau = self._outer_iterations(
            X, y, kernel, likelihood, d, rng, True, pool, to_beat
        )
        return [iteration.penalised(penalty) for iteration in ard], plateau

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

    def _select(self, X, y, kernel, likelihood, d, rng):
        """A basis of ``d`` vectors grown from empty (the inner loop, [SSK09] §2.5
        steps 2-6): the selection state, in ``store_dtype``, and the points outside."""
        dtype = np.dtype(self.store_dtype)
        state = ADFActiveSet(
            KernelBlocks(kernel, X, dtype),
            kernel.diag(X),
            y,
            likelihood,
            d,
            dtype=dtype,
        )
        outside = select_by_nlp(
            state,
            d,
            rng,
            working_set_size=self.working_set_size,
            validation_size=self.validation_size,
        )
        return state, outside

    def _hyperparameter_step(
        self, X, y, kernel, likelihood, iteration, rng, max_iter=None, ard=False
    ):
        """A few (``max_iter``, by default ``max_iter_optimizer``) L-BFGS-B steps on
        ``NLP(u)`` with ``iteration``'s basis and sites fixed, from ``kernel`` and
        ``likelihood``: those learnt, and by how much the loss fell.

        With ``validation_size``, on that many of the points outside, drawn once for
        the step. With ``ard``, from the isotropic ``kernel`` given a length-scale per
        feature (from each of :func:`~sparsegp.methods.ard.ard_starts`, the lower loss
        kept), the fall measured from ``kernel``'s loss.
        """
        active = iteration.active
        outside = np.setdiff1d(np.arange(len(y)), active)
        if self.validation_size is not None and self.validation_size < len(outside):
            outside = rng.choice(outside, size=self.validation_size, replace=False)
        data = (X[active], iteration.p, iteration.m, X[outside], y[outside])
        starts = [(kernel, 0.0)]
        if ard:

            def negative_loss_at(kernel):
                return -validation_loss(kernel, likelihood, *data).value

            starts = ard_starts(kernel, feature_spreads(X), negative_loss_at)
        space = ParameterSpace(
            [
                kernel_block(starts[0][0]),
                bias_block(),
                slope_block(_LOG_SLOPE_BOUNDS) if self.learn_slope else None,
            ]
        )
        initial = {"bias": likelihood.bias, "slope": likelihood.slope}
        negative_loss = _negative_validation_loss(space, initial, data)
        best, fall = None, -np.inf
        for start, excess in starts:
            result = maximize(
                negative_loss,
                space.pack(initial | {"kernel": start}),
                space.bounds(),
                max_iter=max_iter or self.max_iter_optimizer,
                random_state=rng,
                progress="NLP: validation loss" if self.verbose else None,
            )
            # from the loss at ``kernel``: each start's lies ``excess`` below it
            if result.value - result.start_value + excess > fall:
                best, fall = result, result.value - result.start_value + excess
        assert best is not None  # every start's result beats a fall of −∞
        values = initial | space.unpack(best.x)
        return values["kernel"], Probit(values["bias"], values["slope"]), fall

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
