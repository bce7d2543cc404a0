"""Kernel, biases and pseudo-inputs by the EP evidence, over any approximation that
computes it and its gradient (algorithms.md §5.8, §6.1, §7.3).

:class:`EvidenceApproximation` is what an engine offers for this: its likelihood's
parameters, the EP posterior at a kernel and pseudo-inputs, the evidence gradient
and a predictor. FITC-EP in memory
(:class:`~sparsegp.approximations.fitc_ep.InMemoryFITC`) and on row blocks
(:class:`~sparsegp.approximations.partitioned_fitc.PartitionedFITC`), the multi-class
model (:class:`~sparsegp.approximations.multiclass_fitc.InMemoryMultiClassFITC`) and
full EP (:class:`~sparsegp.approximations.dense_ep.DenseEP`) implement it;
:func:`maximize_evidence` runs L-BFGS-B over it with warm-started EP
(:class:`~sparsegp.approximations.ep.WarmStartedEP`) and returns an
:class:`EvidenceFit`. Estimators choose the settings; a method that needs another's
posterior (the IVM's FITC pass, [NGH07] §6; the online GP's hyperparameters) calls
this, not the other's estimator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt
from sklearn.gaussian_process.kernels import Kernel

from .._optimize import (
    Objective,
    OptimizationResult,
    ParameterSpace,
    bias_block,
    inputs_block,
    kernel_block,
    maximize,
)
from ..kernels import amplitude_mask
from .ep import EPState, SitePosterior, WarmStart, WarmStartedEP, leave_one_out
from .predictor import Predictor

__all__ = [
    "EvidenceApproximation",
    "EvidenceFit",
    "EvidenceSettings",
    "maximize_evidence",
]


class EvidenceApproximation(Protocol):
    """An engine's EP evidence as a function of kernel, bias and pseudo-inputs."""

    @property
    def labels(self) -> np.ndarray | None:
        """The labels :func:`~sparsegp.approximations.ep.run_ep` needs (None where the
        posterior holds them)."""

    #: The shape of the likelihood's bias (``()``: one probit bias; ``(C,)``).
    bias_shape: tuple[int, ...]

    def likelihood(self, bias: Any) -> Any:
        """The likelihood at ``bias``."""

    def posterior(
        self,
        kernel: Kernel,
        Z: np.ndarray,
        start: WarmStart | None,
        store_dtype: npt.DTypeLike = np.float64,
    ) -> SitePosterior[Any]:
        """The posterior at ``kernel`` and ``Z`` from ``start``'s sites."""

    def gradient(
        self, state: EPState, likelihood: Any
    ) -> tuple[np.ndarray, Any, np.ndarray]:
        """``∂ log Z_EP`` in ``(θ, b, Z)`` at the kernel and ``Z`` of ``state``'s
        posterior (each posterior carries what its gradient needs)."""

    def predictor(self, state: EPState) -> Predictor:
        """What prediction needs of a converged state."""


if TYPE_CHECKING:  # mypy checks that the engines implement the protocol
    from .dense_ep import DenseEP
    from .fitc_ep import InMemoryFITC
    from .multiclass_fitc import InMemoryMultiClassFITC
    from .partitioned_fitc import PartitionedFITC

    def _implementations(
        in_memory: InMemoryFITC,
        partitioned: PartitionedFITC,
        multiclass: InMemoryMultiClassFITC,
        dense: DenseEP,
    ) -> list[EvidenceApproximation]:
        checked: list[EvidenceApproximation] = [in_memory]
        checked.append(partitioned)
        checked.append(multiclass)
        checked.append(dense)
        return checked


@dataclass(frozen=True)
class EvidenceSettings:
    """How :func:`maximize_evidence` runs.

    Attributes
    ----------
    ep_options : dict
        Keyword arguments of :func:`~sparsegp.approximations.ep.run_ep` (its ``tol``
        is the optimizer's accuracy, :class:`WarmStartedEP`).
    max_iter : int or None
        L-BFGS-B iterations; None keeps kernel, bias and pseudo-inputs fixed.
    learn_bias, learn_inducing : bool
    sweep_dtype : numpy dtype
        Precision of the evaluations' n × M products (the final run is float64);
        float64 where the evaluations' evidence tolerance is below float32's
        resolution.
    unit : float
        The length the optimizer moves pseudo-inputs in (the inputs' RMS spread), so
        that its steps do not depend on the units of ``X``.
    n_restarts, random_state, ftol
        :func:`~sparsegp._optimize.maximize`'s random restarts, their seed, and the
        relative improvement that ends a run (None: scipy's default).
    progress : str or None
        A progress bar's label over the optimizer's iterations.
    report : callable or None
        Called with a line per evidence evaluation and for the final run.
    amplitude_prior : float or None
        The standard deviation ``s`` of a normal prior on the log of each learnt
        amplitude ``σ²`` (:func:`~sparsegp.kernels.amplitude_mask`), centred at
        ``log σ² = 0``: the optimizer maximises ``log Z_EP`` plus its log density
        (algorithms.md §5.8). None: ``log Z_EP`` alone.
    """

    ep_options: dict
    max_iter: int | None = 20
    learn_bias: bool = True
    learn_inducing: bool = True
    sweep_dtype: npt.DTypeLike = np.float32
    unit: float = 1.0
    n_restarts: int = 0
    random_state: Any = None
    ftol: float | None = None
    progress: str | None = None
    report: Callable[[str], None] | None = field(default=None, repr=False)
    amplitude_prior: float | None = None


def amplitude_log_prior(
    theta: np.ndarray, mask: np.ndarray, sd: float
) -> tuple[float, np.ndarray]:
    """``Σ_a log N(θ_a | 0, sd²)`` over the entries ``θ_a = log σ²_a`` of ``theta``
    that ``mask`` marks (constants dropped), and its gradient in ``theta``."""
    amplitudes = np.where(mask, theta, 0.0)
    return -0.5 * float(amplitudes @ amplitudes) / sd**2, -amplitudes / sd**2


def with_amplitude_prior(
    value: float, gradient: np.ndarray, kernel: Kernel, sd: float | None
) -> tuple[float, np.ndarray]:
    """``value`` and its gradient in ``kernel.theta`` plus :func:`amplitude_log_prior`
    over the kernel's amplitudes (unchanged for ``sd=None``)."""
    if sd is None:
        return value, gradient
    prior, grad_prior = amplitude_log_prior(kernel.theta, amplitude_mask(kernel), sd)
    return value + prior, gradient + grad_prior


@dataclass(frozen=True)
class EvidenceFit:
    """The outcome of :func:`maximize_evidence`: the fitted model's parts.

    Attributes
    ----------
    kernel, likelihood, points, predictor
        At the optimizer's point (``points``: the pseudo-inputs, or full EP's training
        inputs), the predictor from EP run to the final tolerance.
    log_evidence : float
    n_evaluations, n_sweeps : int
        Evidence evaluations of the optimizer, EP sweeps in all.
    optimizer_converged, ep_converged : bool
        Whether the optimizer stopped on its tolerance (not its iteration cap), and
        the final EP run on its own.
    final_sweeps : int
        Sweeps of the final EP run.
    leave_one_out : (ndarray, ndarray)
        Each training latent's cavity mean and variance in the final run
        (:func:`~sparsegp.approximations.ep.leave_one_out`).
    """

    kernel: Kernel
    likelihood: Any
    points: np.ndarray
    predictor: Predictor
    log_evidence: float
    n_evaluations: int
    n_sweeps: int
    optimizer_converged: bool
    ep_converged: bool
    final_sweeps: int
    leave_one_out: tuple[np.ndarray, np.ndarray]


def _sweep_dtype(settings: EvidenceSettings, ep: WarmStartedEP) -> np.dtype:
    """``settings.sweep_dtype``, or float64 where the evaluations' evidence tolerance
    is below float32's resolution (float32 sweeps ran to their sweep limit there)."""
    if ep.evidence_tol < np.finfo(np.float32).eps:
        return np.dtype(np.float64)
    return np.dtype(settings.sweep_dtype)


#: The bias's bounds: none, so that L-BFGS-B's first step has unit length
#: (:func:`~sparsegp._optimize.bias_block`; the evidence's gradient is a sum over n
#: points).
_UNBOUNDED_BIAS = (-np.inf, np.inf)


def _parameter_space(
    approximation: EvidenceApproximation,
    kernel: Kernel,
    Z0: np.ndarray,
    settings: EvidenceSettings,
) -> ParameterSpace:
    """The blocks the evidence is maximised over: kernel, bias and pseudo-inputs
    where ``settings`` learns them."""
    return ParameterSpace(
        [
            kernel_block(kernel),
            bias_block(_UNBOUNDED_BIAS, approximation.bias_shape)
            if settings.learn_bias
            else None,
            inputs_block(Z0, settings.unit) if settings.learn_inducing else None,
        ]
    )


def _maximize(
    evidence: Objective,
    x: np.ndarray,
    bounds: np.ndarray,
    settings: EvidenceSettings,
) -> OptimizationResult:
    """:func:`~sparsegp._optimize.maximize` as ``settings`` say."""
    assert settings.max_iter is not None
    return maximize(
        evidence,
        x,
        bounds,
        n_restarts=settings.n_restarts,
        random_state=settings.random_state,
        max_iter=settings.max_iter,
        ftol=settings.ftol,
        progress=settings.progress,
    )


def maximize_evidence(
    approximation: EvidenceApproximation,
    kernel: Kernel,
    Z0: np.ndarray,
    bias0: Any,
    settings: EvidenceSettings,
) -> EvidenceFit:
    """L-BFGS-B on ``log Z_EP`` (with ``settings.amplitude_prior``'s log density) over
    kernel, bias and pseudo-inputs from ``Z0``, then EP to the final tolerance at the
    optimizer's point (algorithms.md §5.8)."""
    ep = WarmStartedEP(approximation.labels, settings.ep_options)
    sweep_dtype = _sweep_dtype(settings, ep)
    space = _parameter_space(approximation, kernel, Z0, settings)
    initial = {"kernel": kernel, "bias": bias0, "inducing": Z0}

    def evidence(x: np.ndarray) -> tuple[float, np.ndarray]:
        values = initial | space.unpack(x)
        likelihood = approximation.likelihood(values["bias"])
        state = ep(
            lambda start: approximation.posterior(
                values["kernel"], values["inducing"], start, sweep_dtype
            ),
            likelihood,
            at=x,
        )
        grad_kernel, grad_bias, grad_Z = approximation.gradient(state, likelihood)
        _report(
            settings, f"  log Z_EP = {state.log_evidence:.4f} ({state.n_sweeps} sweeps)"
        )
        objective, grad_kernel = with_amplitude_prior(
            state.log_evidence, grad_kernel, values["kernel"], settings.amplitude_prior
        )
        gradient = {"kernel": grad_kernel, "bias": grad_bias, "inducing": grad_Z}
        return objective, space.pack_gradient(values, gradient)

    x = space.pack(initial)
    n_evaluations, converged = 0, True
    if settings.max_iter is not None and len(x) > 0:
        result = _maximize(evidence, x, space.bounds(), settings)
        x, n_evaluations, converged = result.x, result.n_evaluations, result.converged
    final = initial | space.unpack(x)
    kernel_x, Z = final["kernel"], final["inducing"]
    likelihood, state = _final_state(
        approximation, settings, ep, kernel_x, final["bias"], Z, x
    )
    return EvidenceFit(
        kernel=kernel_x,
        likelihood=likelihood,
        points=np.array(Z),
        predictor=approximation.predictor(state),
        log_evidence=state.log_evidence,
        n_evaluations=n_evaluations,
        n_sweeps=ep.n_sweeps,
        optimizer_converged=converged,
        ep_converged=state.converged,
        final_sweeps=state.n_sweeps,
        leave_one_out=leave_one_out(state),
    )


def _final_state(
    approximation: EvidenceApproximation,
    settings: EvidenceSettings,
    ep: WarmStartedEP,
    kernel: Kernel,
    bias: Any,
    Z: np.ndarray,
    at: np.ndarray,
) -> tuple[Any, EPState]:
    """The likelihood and EP state of the fitted model at ``kernel``, ``bias``, ``Z``
    (the optimizer's point ``at``): EP to the final tolerance in float64, from the
    nearest evaluation's sites — or, with no evaluation to start from, from a run in
    the sweeps' precision first, as an evaluation would converge."""
    likelihood = approximation.likelihood(bias)
    sweep_dtype = _sweep_dtype(settings, ep)
    if ep.n_runs == 0 and sweep_dtype != np.float64:
        ep(
            lambda start: approximation.posterior(kernel, Z, start, sweep_dtype),
            likelihood,
            at=at,
        )
    state = ep(
        lambda start: approximation.posterior(kernel, Z, start),
        likelihood,
        final=True,
        at=at,
    )
    _report(
        settings,
        f"  final EP: log Z_EP = {state.log_evidence:.4f} ({ep.n_sweeps} sweeps in all)",
    )
    return likelihood, state


def _report(settings: EvidenceSettings, line: str) -> None:
    if settings.report is not None:
        settings.report(line)
