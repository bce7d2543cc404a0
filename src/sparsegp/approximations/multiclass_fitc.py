"""Multi-class EP on FITC priors: C latent functions on pseudo-inputs (algorithms.md §7).

Pure numerics: integer labels and the kernel blocks of the pseudo-inputs in (one set
shared by the classes, or one set per class, [VH17] §2);
the posterior EP runs on (:class:`MultiClassFITCPosterior`, driven by
:func:`~sparsegp.approximations.ep.run_ep` as the binary posteriors are), the evidence
gradient and a predictor out. The likelihood is the multinomial probit
(:class:`~sparsegp.likelihoods.MultinomialProbit`): the label's noisy latent exceeds
every other class's, a product of ``C − 1`` steps per point. EP approximates each step
by a Gaussian factorised across its two latents ([VH17]), so the posterior is one
FITC posterior per class (:class:`~sparsegp.approximations.fitc_ep.FITCPosterior`),
each on its class's ``K_uu``, ``K_uf`` (the same blocks for all when the set is
shared): a parallel sweep costs C binary refreshes, O(C·n·M²), memory O(C·n·M).

Step sites are held as four (n, C) arrays: the site the step ``(i, k)`` puts on the
label's latent ``f_{i,y_i}`` (``label``) and on ``f_{i,k}`` (``other``); column
``y_i`` is unused and stays zero.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import TypeVar, cast

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize_scalar
from sklearn.gaussian_process.kernels import Kernel

from .. import kernel_expression as expression
from ..likelihoods import MultinomialProbit, StepMoments, site_from_cavity
from .blocks import mapped_on
from .ep import (
    AndersonMixing,
    EPState,
    SiteUpdate,
    WarmStart,
    posterior_of,
    site_change,
    site_evidence_term,
)
from .fitc_ep import (
    FITCPosterior,
    FITCPrior,
    InMemoryFITC,
    fitc_weights,
    inducing_point_predictor,
    posterior_sensitivities,
    prior_derivatives,
)
from .predictor import Predictor

__all__ = [
    "InMemoryMultiClassFITC",
    "MultiClassFITCPosterior",
    "StepSites",
    "fit_variance_scale",
    "multiclass_fitc_predictor",
]

#: The variance of the noise on every latent: the probit's unit scale.
LATENT_NOISE = 1.0

#: Training points :func:`fit_variance_scale` reads (evenly spaced beyond): each
#: evaluation of its loss is a quadrature of O(C²) per point.
VARIANCE_SCALE_POINTS = 4000

#: The smallest ``γ`` :func:`fit_variance_scale` considers.
SMALLEST_VARIANCE_SCALE = 1e-3

_T = TypeVar("_T")


@dataclass(frozen=True)
class StepSites:
    """The Gaussian sites of the steps ``Θ(f_y − f_k)`` (algorithms.md §7.2).

    Attributes
    ----------
    tau_label, nu_label : ndarray of shape (n, C)
        Natural parameters of step ``(i, k)``'s site on ``f_{i,y_i}``.
    tau_other, nu_other : ndarray of shape (n, C)
        Those of its site on ``f_{i,k}``.
    """

    tau_label: np.ndarray
    nu_label: np.ndarray
    tau_other: np.ndarray
    nu_other: np.ndarray

    @classmethod
    def zeros(cls, n: int, n_classes: int) -> StepSites:
        return cls(*(np.zeros((n, n_classes)) for _ in range(4)))

    def copy(self) -> StepSites:
        return StepSites(*(np.array(a) for a in self.arrays()))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.tau_label, self.nu_label, self.tau_other, self.nu_other

    def class_sites(self, label_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each class's site on each point, ``(τ̃, ν̃)`` of shape (n, C): the sum of
        the steps' sites on that latent (``C − 1`` on the label's, one on another's)."""
        tau = self.tau_other + label_mask * self.tau_label.sum(axis=1, keepdims=True)
        nu = self.nu_other + label_mask * self.nu_label.sum(axis=1, keepdims=True)
        return tau, nu


@dataclass(frozen=True)
class StepCavities:
    """Every step's two cavities in natural parameters, each of shape (n, C)."""

    tau_label: np.ndarray
    nu_label: np.ndarray
    tau_other: np.ndarray
    nu_other: np.ndarray

    @classmethod
    def of(
        cls, sites: StepSites, labels: np.ndarray, mean: np.ndarray, var: np.ndarray
    ) -> StepCavities:
        """The cavities at marginals ``(mean, var)`` of shape (n, C)."""
        rows = np.arange(len(labels))
        label_mean, label_var = mean[rows, labels][:, None], var[rows, labels][:, None]
        return cls(
            1.0 / label_var - sites.tau_label,
            label_mean / label_var - sites.nu_label,
            1.0 / var - sites.tau_other,
            mean / var - sites.nu_other,
        )

    def scaled(self, scale: float | np.ndarray, labels: np.ndarray) -> StepCavities:
        """Cavities ``N(√s μ, s σ²)``: carried to a prior ``s`` times as wide
        (:func:`~sparsegp.approximations.ep.carried_sites`), ``s`` one number or one
        per class (each latent's own, the label's on the label's cavities)."""
        scale = np.asarray(scale, dtype=float)
        label_scale = scale[labels][:, None] if scale.ndim else scale
        return StepCavities(
            self.tau_label / label_scale,
            self.nu_label / np.sqrt(label_scale),
            self.tau_other / scale,
            self.nu_other / np.sqrt(scale),
        )

    def moments(
        self, likelihood: MultinomialProbit, labels: np.ndarray, where: np.ndarray
    ) -> StepMoments:
        """The steps' moments (:meth:`MultinomialProbit.step_moments`) where ``where``
        is True; elsewhere (the unused column, improper cavities) they are evaluated
        at unit precision, to be masked by the caller."""
        tau_label = np.where(where, self.tau_label, 1.0)
        tau_other = np.where(where, self.tau_other, 1.0)
        bias_difference = likelihood.bias[labels][:, None] - likelihood.bias
        return likelihood.step_moments(
            self.nu_label / tau_label,
            1.0 / tau_label,
            self.nu_other / tau_other,
            1.0 / tau_other,
            bias_difference,
        )


def prior_variance(priors: Sequence[FITCPrior]) -> float | np.ndarray:
    """The mean prior variance of one prior shared by the classes, or of each
    class's own (:attr:`~sparsegp.approximations.ep.WarmStart.prior_variance`)."""
    if len(priors) == 1:
        return priors[0].prior_variance
    return np.array([prior.prior_variance for prior in priors])


class MultiClassFITCPosterior:
    """The EP posterior of C latent functions on FITC priors (algorithms.md §7.3).

    A :class:`~sparsegp.approximations.ep.SitePosterior` for
    :func:`~sparsegp.approximations.ep.run_ep` (parallel sweeps only): one
    :class:`~sparsegp.approximations.fitc_ep.FITCPosterior` per class, each on the
    sum of the step sites on its latents.

    Parameters
    ----------
    priors : sequence of FITCPrior
        The noisy latents' priors (``K_FITC`` plus :data:`LATENT_NOISE`): one shared
        by every class, or one per class (its own kernel and pseudo-inputs).
    labels : ndarray of shape (n,)
        Class indices in ``0 … C − 1``.
    sites : StepSites
    store_dtype : numpy dtype, default=float64
        Precision of each class's n × M refresh products (:class:`FITCPosterior`).
    executor : Executor or None
        Where the classes' refreshes run (threads; None: one after another). The
        result does not depend on it.
    """

    checkpoint_is_value = True

    def __init__(
        self,
        priors: Sequence[FITCPrior],
        labels: np.ndarray,
        sites: StepSites,
        store_dtype: npt.DTypeLike = np.float64,
        executor: Executor | None = None,
    ) -> None:
        n_classes = sites.tau_label.shape[1]
        if len(priors) not in (1, n_classes):
            raise ValueError(
                f"{len(priors)} priors for {n_classes} classes: give one or one each."
            )
        self.priors = list(priors)
        self.prior_variance = prior_variance(priors)
        self.labels = labels
        self.step_sites = sites
        self.executor = executor
        self.label_mask = labels[:, None] == np.arange(n_classes)
        self.steps = ~self.label_mask
        tau, nu = sites.class_sites(self.label_mask)
        # one copy of each prior's V, whatever the number of classes on it
        stored = [prior.V.astype(store_dtype, copy=False) for prior in self.priors]
        self.classes = mapped_on(
            self.executor,
            lambda c: FITCPosterior(
                self.prior_of(c),
                tau[:, c],
                nu[:, c],
                store_dtype,
                stored[c % len(stored)],
            ),
            range(n_classes),
        )
        self._collect_marginals()

    def prior_of(self, c: int) -> FITCPrior:
        """Class ``c``'s prior: its own, or the one shared by every class."""
        return self.priors[c % len(self.priors)]

    def refresh(self) -> None:
        """Sum the step sites per class and refresh every class's posterior."""
        tau, nu = self.step_sites.class_sites(self.label_mask)
        for c, posterior in enumerate(self.classes):
            posterior.tau, posterior.nu = tau[:, c].copy(), nu[:, c].copy()
        mapped_on(self.executor, FITCPosterior.refresh, self.classes)
        self._collect_marginals()

    def _collect_marginals(self) -> None:
        parts = [posterior.marginals() for posterior in self.classes]
        self._mean = np.column_stack([mean for mean, _ in parts])
        self._var = np.column_stack([var for _, var in parts])

    def marginals(self) -> tuple[np.ndarray, np.ndarray]:
        """Posterior means and variances of the noisy latents, each (n, C)."""
        return self._mean, self._var

    def log_det(self) -> float:
        return sum(posterior.log_det() for posterior in self.classes)

    def site_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Each class's site on each point, ``(τ̃, ν̃)`` of shape (n, C)."""
        return self.step_sites.class_sites(self.label_mask)

    def sites(self) -> StepSites:
        return self.step_sites.copy()

    def checkpoint(self) -> tuple[StepSites, np.ndarray, np.ndarray]:
        """The sites and marginals, to start a later run from
        (:func:`carried_step_sites`)."""
        return self.sites(), self._mean.copy(), self._var.copy()

    def change_since(self, sites: object) -> float:
        old = cast(StepSites, sites)
        new = self.step_sites
        return max(
            site_change(new.tau_label, new.nu_label, old.tau_label, old.nu_label),
            site_change(new.tau_other, new.nu_other, old.tau_other, old.nu_other),
        )

    def cavities(self) -> StepCavities:
        return StepCavities.of(self.step_sites, self.labels, self._mean, self._var)

    def parallel_update(
        self,
        y: np.ndarray | None,
        likelihood: MultinomialProbit,
        damping: float,
        anderson: AndersonMixing,
    ) -> None:
        """Every step's sites moment-matched at the current marginals, damped and
        Anderson-mixed (one vector of all ``4·n·C`` site parameters)."""
        old = self.step_sites
        new = matched_step_sites(
            likelihood, self.labels, self.steps, old, self.cavities()
        )
        damped = [
            a + damping * (b - a)
            for a, b in zip(old.arrays(), new.arrays(), strict=True)
        ]
        tau, nu = anderson.step(
            np.concatenate([old.tau_label.ravel(), old.tau_other.ravel()]),
            np.concatenate([old.nu_label.ravel(), old.nu_other.ravel()]),
            np.concatenate([damped[0].ravel(), damped[2].ravel()]),
            np.concatenate([damped[1].ravel(), damped[3].ravel()]),
            per_site=True,
        )
        shape, size = old.tau_label.shape, old.tau_label.size
        self.step_sites = StepSites(
            tau[:size].reshape(shape),
            nu[:size].reshape(shape),
            tau[size:].reshape(shape),
            nu[size:].reshape(shape),
        )

    def evidence(self, y: np.ndarray | None, likelihood: MultinomialProbit) -> float:
        """``log Z_EP`` (algorithms.md §7.3): each class's Gaussian part plus every
        step's ``log Ẑ`` and its two sites' terms."""
        sites, cavities = self.step_sites, self.cavities()
        moments = cavities.moments(likelihood, self.labels, self.steps)
        terms = site_evidence_term(
            moments.log_z,
            sites.tau_label,
            sites.nu_label,
            cavities.tau_label,
            cavities.nu_label,
        )
        terms = site_evidence_term(
            terms,
            sites.tau_other,
            sites.nu_other,
            cavities.tau_other,
            cavities.nu_other,
        )
        _, nu = sites.class_sites(self.label_mask)
        gaussian = 0.5 * float(np.sum(nu * self._mean)) - 0.5 * self.log_det()
        return float(np.sum(terms, where=self.steps)) + gaussian

    def bias_gradient(self, likelihood: MultinomialProbit) -> np.ndarray:
        """``∂ log Z_EP/∂b_c``: each step's ``∂ log Ẑ`` at its cavities, ``+`` on the
        label's class, ``−`` on the other (algorithms.md §7.3)."""
        moments = self.cavities().moments(likelihood, self.labels, self.steps)
        g = np.where(self.steps, moments.label.g, 0.0)
        n_classes = likelihood.n_classes
        gains = np.bincount(self.labels, weights=g.sum(axis=1), minlength=n_classes)
        return gains - g.sum(axis=0)

    def sequential_sweep(self, order: np.ndarray, site_update: SiteUpdate) -> None:
        raise ValueError("The multi-class posterior runs parallel EP sweeps only.")


def matched_step_sites(
    likelihood: MultinomialProbit,
    labels: np.ndarray,
    steps: np.ndarray,
    sites: StepSites,
    cavities: StepCavities,
) -> StepSites:
    """The steps' moment-matched sites (algorithms.md §7.2); a step with an improper
    cavity keeps its sites, the unused column stays zero."""
    proper = steps & (cavities.tau_label > 0.0) & (cavities.tau_other > 0.0)
    moments = cavities.moments(likelihood, labels, proper)
    matched = []
    for tau_c, nu_c, step_moments, tau, nu in (
        (
            cavities.tau_label,
            cavities.nu_label,
            moments.label,
            sites.tau_label,
            sites.nu_label,
        ),
        (
            cavities.tau_other,
            cavities.nu_other,
            moments.other,
            sites.tau_other,
            sites.nu_other,
        ),
    ):
        tau_c = np.where(proper, tau_c, 1.0)
        new_tau, new_nu = site_from_cavity(nu_c / tau_c, 1.0 / tau_c, step_moments)
        matched.append(np.where(proper, np.maximum(new_tau, 0.0), tau))
        matched.append(np.where(proper, new_nu, nu))
    return StepSites(*(np.where(steps, a, 0.0) for a in matched))


def carried_step_sites(
    start: WarmStart,
    labels: np.ndarray,
    steps: np.ndarray,
    prior_variance: float | np.ndarray,
) -> StepSites:
    """The sites of a converged run carried to priors of mean variance
    ``prior_variance`` (one, or one per class) and ``start.likelihood``: each cavity
    widened by the ratio of its latent's priors' variances, then the steps matched
    there (algorithms.md §5.5)."""
    sites, mean, var = cast(tuple[StepSites, np.ndarray, np.ndarray], start.checkpoint)
    cavities = StepCavities.of(sites, labels, mean, var)
    scaled = cavities.scaled(start.scale_to(prior_variance), labels)
    return matched_step_sites(start.likelihood, labels, steps, sites, scaled)


def multiclass_fitc_predictor(state: EPState) -> Predictor:
    """The predictor of an EP state on a :class:`MultiClassFITCPosterior`: each
    class's FITC predictor (algorithms.md §7.4) on its set of pseudo-inputs, O(C·M²)
    memory. A test point is seen through ``k(X̄, x)`` and ``k(x, x)`` of ``G`` priors:
    ``G = 1`` shared by the classes, or ``G = C``, class ``c``'s kernel on its
    pseudo-inputs in rows ``c·M … (c + 1)·M − 1`` of ``k(X̄, x)`` and column ``c`` of
    ``k(x, x)``."""
    posterior = posterior_of(state, MultiClassFITCPosterior)
    parts = [
        inducing_point_predictor(p.prior.chol_uu, p.chol_B, fitc_weights(p))
        for p in posterior.classes
    ]
    return Predictor(
        weights=np.column_stack([part.weights for part in parts]),
        chol=np.stack([prior.chol_uu for prior in posterior.priors]),
        inner=np.stack([cast(np.ndarray, part.inner) for part in parts]),
    )


class InMemoryMultiClassFITC(InMemoryFITC):
    """Multi-class FITC-EP's posterior, evidence gradient and predictor on data in
    memory: :class:`~sparsegp.approximations.fitc_ep.InMemoryFITC`'s kernel blocks,
    one set for all classes or one per class.

    With ``per_class_priors`` each class's latent function has its own kernel and
    pseudo-inputs ([VH17] §2; one-vs-rest's binary models have as much): the kernel
    is then a :class:`~sklearn.gaussian_process.kernels.CompoundKernel` of C kernels
    and the pseudo-inputs ``C·M`` rows, class ``c``'s in rows ``c·M … (c + 1)·M − 1``.
    Otherwise one kernel and one set of ``M`` are shared by the classes.

    Parameters
    ----------
    X : ndarray of shape (n, D)
    labels : ndarray of shape (n,)
        Class indices in ``0 … n_classes − 1``.
    n_classes : int
    jitter : float
        ``ε_u`` ([NGH07] fn. 3).
    differentiable : bool
        Whether gradients will be asked for (:class:`InMemoryFITC`).
    pool : Executor or None, default=None
        Threads the classes' refreshes and gradients run on, each class's BLAS calls
        on one of them (results do not depend on it); None runs them in the
        caller's thread (:func:`~sparsegp.approximations.blocks.thread_pool`).
    n_threads : int, default=1
        The pool's threads: how many classes' gradients are in flight at once.
    per_class_priors : bool, default=False
        Whether each class's latent function has its own kernel and pseudo-inputs.
    """

    def __init__(
        self,
        X: np.ndarray,
        labels: np.ndarray,
        n_classes: int,
        jitter: float,
        differentiable: bool,
        pool: Executor | None = None,
        n_threads: int = 1,
        per_class_priors: bool = False,
    ) -> None:
        super().__init__(X, np.asarray(labels, dtype=np.intp), jitter, differentiable)
        self.n_classes = n_classes
        self.per_class_priors = per_class_priors
        self.bias_shape = (n_classes,)
        self.steps = self.labels[:, None] != np.arange(n_classes)
        self.executor = pool
        self.n_threads = 1 if pool is None else max(1, min(n_threads, n_classes))

    @staticmethod
    def likelihood(bias: np.ndarray) -> MultinomialProbit:  # type: ignore[override]
        """The multinomial probit with per-class biases ``bias``."""
        return MultinomialProbit(np.asarray(bias, dtype=float))

    def posterior(  # type: ignore[override]
        self,
        kernel: Kernel,
        Z: np.ndarray,
        start: WarmStart | None,
        store_dtype: npt.DTypeLike = np.float64,
    ) -> MultiClassFITCPosterior:
        """The posterior at ``kernel`` and pseudo-inputs ``Z`` (a compound kernel and
        ``C·M`` rows with ``per_class_priors``) from the sites of ``start`` (None:
        zero sites; else :func:`carried_step_sites`)."""
        if not self.per_class_priors:
            priors = [self.prior(kernel, Z, LATENT_NOISE)]
        else:
            kernels = self.class_kernels(kernel)
            if len(Z) % self.n_classes:
                raise ValueError(
                    f"{len(Z)} pseudo-inputs do not split into {self.n_classes} "
                    "equal sets, one per class."
                )
            Z_sets = np.split(Z, self.n_classes)
            priors = mapped_on(
                self.executor,
                lambda c: self.prior(kernels[c], Z_sets[c], LATENT_NOISE),
                range(self.n_classes),
            )
        if start is None:
            sites = StepSites.zeros(len(self.labels), self.n_classes)
        else:
            sites = carried_step_sites(
                start, self.labels, self.steps, prior_variance(priors)
            )
        return MultiClassFITCPosterior(
            priors, self.labels, sites, store_dtype, self.executor
        )

    def class_kernels(self, kernel: Kernel) -> list[Kernel]:
        """The C kernels of a compound ``kernel``, or a ``ValueError``."""
        parts = expression.compound_parts(kernel)
        if parts is None or len(parts) != self.n_classes:
            raise ValueError(
                f"A model with a prior per class needs a CompoundKernel of "
                f"{self.n_classes} kernels; got {kernel}."
            )
        return parts

    def gradient(  # type: ignore[override]
        self, state: EPState, likelihood: MultinomialProbit
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Gradient of ``log Z_EP`` in ``(θ, b, X̄)`` (algorithms.md §7.3): with one
        prior the classes' sensitivities summed in class order and contracted with
        its blocks once; with a prior per class each class's contracted with its
        own, ``θ`` and ``X̄`` the classes' in class order (the compound kernel's and
        the ``C·M`` rows')."""
        posterior = posterior_of(state, MultiClassFITCPosterior)

        def sensitivities(c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            return posterior_sensitivities(posterior.classes[c], state.mean[:, c])

        if len(posterior.priors) == 1:
            total: list[np.ndarray] = []
            for part in self._in_flight(sensitivities):
                total = (
                    list(part)
                    if not total
                    else [a + b for a, b in zip(total, part, strict=True)]
                )
            grad_theta, grad_inducing = prior_derivatives(posterior.priors[0]).gradient(
                *total
            )
        else:
            parts = list(
                self._in_flight(
                    lambda c: prior_derivatives(posterior.priors[c]).gradient(
                        *sensitivities(c)
                    )
                )
            )
            grad_theta = np.concatenate([theta for theta, _ in parts])
            grad_inducing = np.concatenate([inducing for _, inducing in parts])
        return grad_theta, posterior.bias_gradient(likelihood), grad_inducing

    def _in_flight(self, function: Callable[[int], _T]) -> Iterator[_T]:
        """``function`` of every class in class order, computed on the pool at most
        :attr:`n_threads` at once (each holds an M × n array)."""
        for first in range(0, self.n_classes, self.n_threads):
            yield from mapped_on(
                self.executor,
                function,
                range(first, min(first + self.n_threads, self.n_classes)),
            )

    def predictor(self, state: EPState) -> Predictor:
        return multiclass_fitc_predictor(state)


def fit_variance_scale(
    likelihood: MultinomialProbit,
    mean: np.ndarray,
    var: np.ndarray,
    labels: np.ndarray,
) -> MultinomialProbit:
    """``likelihood`` with the ``γ`` in ``[10⁻³, 1]`` of largest held-out log
    likelihood of the training labels (algorithms.md §7.4).

    Each point's held-out predictive is its EP cavity (``ep.leave_one_out``: every
    class's latent with the point's sites removed), whose variance holds the unit
    noise; ``γ`` scales the rest. One bounded scalar search in ``log γ`` over up to
    :data:`VARIANCE_SCALE_POINTS` evenly spaced points (those with finite cavities;
    none: ``γ = 1``).

    Parameters
    ----------
    likelihood : MultinomialProbit
    mean, var : ndarray of shape (n, C)
        The noisy latents' cavity means and variances at the training points.
    labels : ndarray of shape (n,)
        Class indices in ``0 … C − 1``.
    """
    finite = np.flatnonzero(
        np.isfinite(mean).all(axis=1) & np.isfinite(var).all(axis=1)
    )
    if not len(finite):
        return replace(likelihood, variance_scale=1.0)
    rows = finite[
        np.unique(
            np.linspace(0, len(finite) - 1, min(len(finite), VARIANCE_SCALE_POINTS))
            .round()
            .astype(int)
        )
    ]
    mean, labels = mean[rows], labels[rows]
    latent_var = np.maximum(var[rows] - LATENT_NOISE, 0.0)

    def loss(log_scale: float) -> float:
        scaled = replace(likelihood, variance_scale=float(np.exp(log_scale)))
        log_p = scaled.log_predict_proba(mean, latent_var)
        return -float(np.sum(log_p[np.arange(len(labels)), labels]))

    result = minimize_scalar(
        loss,
        bounds=(np.log(SMALLEST_VARIANCE_SCALE), 0.0),
        method="bounded",
        options={"xatol": 1e-3},
    )
    # the bounded search stops short of its ends: γ = 1 is kept unless beaten
    better = bool(np.isfinite(result.fun)) and result.fun < loss(0.0)
    return replace(
        likelihood, variance_scale=float(np.exp(result.x)) if better else 1.0
    )
