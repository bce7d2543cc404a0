"""The validation-based sparse GP classifier's recipe: [SSK09]'s two loops.

A basis grown by the validation NLP (the inner loop), a few L-BFGS-B steps on the
same loss with the basis fixed, and again, until the loss stops falling
(:class:`Plateau`); ``ard="auto"``'s iterations on from there. The estimator
(:class:`~sparsegp.NLPSparseGPClassifier`) reads its parameters into
:class:`NLPSettings` and calls :func:`fit_nlp_classifier` (algorithms.md §2).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np
from scipy.spatial.distance import pdist
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Kernel

from .._optimize import (
    Objective,
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
from ..approximations.nlp_selection import (
    HeldOutLoss,
    nlp_loss,
    select_by_nlp,
    validation_loss,
)
from ..exceptions import warn_at_caller
from ..kernels import KernelBlocks
from ..likelihoods import Probit
from .ard import ard_starts
from .fitted import FittedModel
from .kernel_defaults import feature_spreads, warn_if_few_features_count

__all__ = [
    "NLPSettings",
    "Plateau",
    "choose_iteration",
    "fit_nlp_classifier",
    "median_heuristic_kernel",
]

#: ``ard="auto"``'s screen runs this many hyperparameter steps' L-BFGS-B iterations
#: at once: one step's iterations can move the loss by less than the penalty where
#: ARD goes on to pay (algorithms.md §2.3).
_ARD_SCREEN_STEPS = 4
#: Points used for the median pairwise distance of the default kernel.
_N_MEDIAN = 1000
#: Bounds of log λ when the slope is learnt.
_LOG_SLOPE_BOUNDS = (np.log(1e-3), np.log(1e3))

#: Where a fit's progress messages go (nowhere unless the estimator is verbose).
Report = Callable[[str], None]


def median_heuristic_kernel(X: np.ndarray, rng: np.random.RandomState) -> Kernel:
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


@dataclass(frozen=True)
class NLPSettings:
    """What [SSK09]'s two loops need besides the data (the estimator's parameters of
    the same names; ``basis_size`` is ``d``, ``learn`` whether an optimizer runs,
    ``ard`` whether ``ard="auto"``'s iterations follow)."""

    basis_size: int
    working_set_size: int = 59
    validation_size: int | None = 2000
    store_dtype: str = "float32"
    learn: bool = True
    learn_slope: bool = True
    max_iter_optimizer: int = 5
    max_outer_iterations: int = 20
    patience: int = 5
    tol: float = 1e-3
    model_choice: str = "one_se"
    ard: bool = False
    progress: bool = False


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
    def of(
        cls, state: ADFActiveSet, kernel: Kernel, loss: HeldOutLoss
    ) -> _OuterIteration:
        active = np.asarray(state.active)
        likelihood = cast(Probit, state.likelihood)
        return cls(kernel, likelihood, active, state.p[active], state.m[active], loss)

    def penalised(self, penalty: float) -> _OuterIteration:
        """This iteration with ``penalty`` added to its loss."""
        loss = self.loss._replace(value=self.loss.value + penalty)
        return replace(self, loss=loss, penalty=self.penalty + penalty)

    def freeze(self, X: np.ndarray) -> FittedModel:
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


def choose_iteration(iterations: list[Any], rule: str) -> Any:
    """The outer iteration whose model is returned ([SSK09] §2.5 keeps the last).

    ``"lowest"``: the lowest training NLP. ``"one_se"``: the earliest iteration within
    one standard error of it — the loss is a mean over the points outside the basis,
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

    def __init__(self, tol: float, patience: int) -> None:
        self.tol, self.patience = tol, patience
        self.reference: HeldOutLoss | None = None
        self.stalled = 0

    def record(self, loss: HeldOutLoss) -> None:
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
    def reached(self) -> bool:
        """``patience`` iterations in a row without a significant decrease."""
        return self.stalled >= self.patience


def fit_nlp_classifier(
    X: np.ndarray,
    y: np.ndarray,
    kernel: Kernel,
    likelihood: Probit,
    settings: NLPSettings,
    rng: np.random.RandomState,
    pool: Any,
    report: Report,
) -> FittedModel:
    """The two-loop algorithm of [SSK09] §2.5 on labels ``y`` in ``{−1, +1}``: the
    model of the outer iteration ``settings.model_choice`` picks, its iterations
    counted; the loss's completion of the columns outside the basis on the thread
    ``pool`` (the model does not depend on it). Warns where the loss was still
    falling at ``max_outer_iterations``."""
    start = time.perf_counter()
    loops = _Loops(X, y, settings, rng, pool, report)
    iterations, plateau = loops.outer(kernel, likelihood, settings.learn)
    if settings.ard:
        ard, ard_plateau = loops.ard(iterations)
        iterations += ard
        plateau = ard_plateau or plateau
    if settings.learn and not plateau.reached:
        lowest = min(iteration.loss.value for iteration in iterations)
        warn_at_caller(
            f"NLPSparseGPClassifier: stopped at max_outer_iterations="
            f"{settings.max_outer_iterations} while the validation NLP was still "
            f"falling (lowest {lowest:.3g}); the iterations run are chosen from. "
            "Raise max_outer_iterations — unless the classes are separable, where "
            "the loss falls without end as the model grows more confident.",
            ConvergenceWarning,
        )
    chosen = choose_iteration(iterations, settings.model_choice)
    report(
        f"NLPSparseGPClassifier: n={len(y)} d={settings.basis_size} "
        f"{len(iterations)} outer iterations, iteration "
        f"{iterations.index(chosen) + 1} kept, NLP {chosen.loss.value:.4f} "
        f"({time.perf_counter() - start:.1f} s)"
    )
    model = chosen.freeze(X)
    if settings.ard:
        model = replace(model, details=model.details | {"ard": chosen.penalty > 0})
    return replace(
        model,
        n_iterations=len(iterations),
        converged=not settings.learn or plateau.reached,
    )


class _Loops:
    """The outer iterations of one fit, on its data and settings."""

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        settings: NLPSettings,
        rng: np.random.RandomState,
        pool: Any,
        report: Report,
    ) -> None:
        self.X, self.y, self.settings = X, y, settings
        self.rng, self.pool, self.report = rng, pool, report

    def outer(
        self,
        kernel: Kernel,
        likelihood: Probit,
        learn: bool,
        reference: HeldOutLoss | None = None,
    ) -> tuple[list[_OuterIteration], Plateau]:
        """The outer iterations (a basis, its loss, a hyperparameter step) until the
        loss stops falling (below ``reference``, a loss to beat, where given)."""
        settings = self.settings
        iterations: list[_OuterIteration] = []
        plateau = Plateau(settings.tol, settings.patience)
        plateau.reference = reference
        while True:
            state, outside = self._select(kernel, likelihood)
            loss = nlp_loss(state, outside, self.pool)
            iterations.append(_OuterIteration.of(state, kernel, loss))
            plateau.record(loss)
            self.report(
                f"  NLP outer iteration {len(iterations)}: training NLP "
                f"{loss.value:.4f} ± {loss.standard_error:.4f}, {kernel}, "
                f"slope {likelihood.slope:.3g}, bias {likelihood.bias:.3g}"
            )
            if (
                not learn
                or plateau.reached
                or len(iterations) >= settings.max_outer_iterations
            ):
                return iterations, plateau
            kernel, likelihood, _ = self._hyperparameter_step(
                kernel, likelihood, iterations[-1]
            )

    def ard(
        self, iterations: list[_OuterIteration]
    ) -> tuple[list[_OuterIteration], Plateau | None]:
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
        settings = self.settings
        start = choose_iteration(iterations, settings.model_choice)
        fitted = len(self.y) - settings.basis_size
        if settings.validation_size is not None:
            fitted = min(fitted, settings.validation_size)
        penalty = (self.X.shape[1] - 1) / fitted
        screen = _ARD_SCREEN_STEPS * settings.max_iter_optimizer
        kernel, likelihood, fall = self._hyperparameter_step(
            start.kernel, start.likelihood, start, screen, ard=True
        )
        self.report(f"  NLP ARD screen: loss fell {fall:.4f} (penalty {penalty:.4f})")
        if fall <= penalty:
            return [], None
        to_beat = start.loss._replace(value=start.loss.value - penalty)
        ard, plateau = self.outer(kernel, likelihood, True, to_beat)
        return [iteration.penalised(penalty) for iteration in ard], plateau

    def _select(
        self, kernel: Kernel, likelihood: Probit
    ) -> tuple[ADFActiveSet, np.ndarray]:
        """A basis of ``d`` vectors grown from empty (the inner loop, [SSK09] §2.5
        steps 2-6): the selection state, in ``store_dtype``, and the points outside."""
        settings, X = self.settings, self.X
        dtype = np.dtype(settings.store_dtype)
        state = ADFActiveSet(
            KernelBlocks(kernel, X, dtype),
            kernel.diag(X),
            self.y,
            likelihood,
            settings.basis_size,
            dtype=dtype,
        )
        outside = select_by_nlp(
            state,
            settings.basis_size,
            self.rng,
            working_set_size=settings.working_set_size,
            validation_size=settings.validation_size,
        )
        return state, outside

    def _hyperparameter_step(
        self,
        kernel: Kernel,
        likelihood: Probit,
        iteration: _OuterIteration,
        max_iter: int | None = None,
        ard: bool = False,
    ) -> tuple[Kernel, Probit, float]:
        """A few (``max_iter``, by default ``max_iter_optimizer``) L-BFGS-B steps on
        ``NLP(u)`` with ``iteration``'s basis and sites fixed, from ``kernel`` and
        ``likelihood``: those learnt, and by how much the loss fell.

        With ``validation_size``, on that many of the points outside, drawn once for
        the step. With ``ard``, from the isotropic ``kernel`` given a length-scale per
        feature (from each of :func:`~sparsegp.methods.ard.ard_starts`, the lower loss
        kept), the fall measured from ``kernel``'s loss.
        """
        settings, X, y = self.settings, self.X, self.y
        active = iteration.active
        outside = np.setdiff1d(np.arange(len(y)), active)
        size = settings.validation_size
        if size is not None and size < len(outside):
            outside = self.rng.choice(outside, size=size, replace=False)
        data = (X[active], iteration.p, iteration.m, X[outside], y[outside])
        starts = [(kernel, 0.0)]
        if ard:

            def negative_loss_at(kernel: Kernel) -> float:
                return -validation_loss(kernel, likelihood, *data).value

            starts = ard_starts(kernel, feature_spreads(X), negative_loss_at)
        space = ParameterSpace(
            [
                kernel_block(starts[0][0]),
                bias_block(),
                slope_block(_LOG_SLOPE_BOUNDS) if settings.learn_slope else None,
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
                max_iter=max_iter or settings.max_iter_optimizer,
                random_state=self.rng,
                progress="NLP: validation loss" if settings.progress else None,
            )
            # from the loss at ``kernel``: each start's lies ``excess`` below it
            if result.value - result.start_value + excess > fall:
                best, fall = result, result.value - result.start_value + excess
        assert best is not None  # every start's result beats a fall of −∞
        values = initial | space.unpack(best.x)
        return values["kernel"], Probit(values["bias"], values["slope"]), fall


def _negative_validation_loss(
    space: ParameterSpace, initial: dict, data: tuple
) -> Objective:
    """``x ↦ (−NLP(u), its gradient)`` in ``space``'s vector (algorithms.md §2.5),
    ``initial`` holding what ``space`` does not learn; ``data``: the basis' inputs,
    site precisions and means, and the validation points' inputs and labels."""

    def negative_loss(x: np.ndarray) -> tuple[float, np.ndarray]:
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
