"""One hyperparameter driver for every estimator: L-BFGS-B with random restarts.

Parameters live in one vector of named blocks (:class:`ParameterSpace`), each block
owning its transform and chain rule: the kernel (its ``theta``, log-space, as
scikit-learn's kernels store it), the probit bias, the slope (its log), pseudo-inputs
(in units of the inputs' spread). An :data:`Objective` returns ``(value, gradient)``
to be *maximised*: EP's evidence, warm-started from the last converged sites
(:func:`~sparsegp.approximations.evidence.maximize_evidence`), the Gaussian
likelihood's closed-form bound (:mod:`sparsegp.methods.sparse_regression`), the IVM's
``L_IVM`` and the NLP classifier's validation loss are its implementations, all driven
by :func:`maximize`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import Bounds, minimize
from sklearn.gaussian_process.kernels import Kernel
from sklearn.utils import check_random_state
from tqdm.auto import tqdm

from ._linalg import quiet_jitter
from .exceptions import NotPSDError

#: What :func:`maximize` climbs: the optimizer's vector to the value and its gradient.
Objective = Callable[[np.ndarray], tuple[float, np.ndarray]]

#: Value returned to the line search where the objective cannot be evaluated.
_FAILED_VALUE = -1e10


@dataclass(frozen=True)
class Block:
    """One named part of the optimizer's vector, holding its value as it is.

    Subclasses hold a value in another form (:class:`KernelBlock`,
    :class:`LogBlock`, :class:`ScaledBlock`): :meth:`encode`, :meth:`decode` and
    :meth:`chain` are the one place where a value's transform and its gradient's
    chain rule are written.

    Attributes
    ----------
    name : str
    shape : tuple of int
        ``()`` for a scalar.
    bounds : ndarray of shape (size, 2)
        In the vector's units.
    """

    name: str
    shape: tuple[int, ...]
    bounds: np.ndarray

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=int))

    def encode(self, value: Any) -> np.ndarray:
        """The value's entries in the vector."""
        return np.ravel(np.asarray(value, dtype=float))

    def decode(self, part: np.ndarray) -> Any:
        """The value of the vector's entries ``part``; a scalar block gives a float."""
        return float(part[0]) if self.shape == () else part.reshape(self.shape)

    def chain(self, value: Any, gradient: Any) -> np.ndarray:
        """The gradient in the vector's entries from ``gradient`` in the value's."""
        return np.ravel(np.asarray(gradient, dtype=float))


@dataclass(frozen=True)
class KernelBlock(Block):
    """A kernel's free hyperparameters: the vector holds ``θ`` (log-space, as
    scikit-learn keeps it), the value is the kernel; gradients are in ``θ``."""

    template: Kernel

    def encode(self, value: Any) -> np.ndarray:
        return np.asarray(value.theta, dtype=float)

    def decode(self, part: np.ndarray) -> Any:
        return self.template.clone_with_theta(part)


@dataclass(frozen=True)
class LogBlock(Block):
    """A positive scalar held as its log: ``∂/∂ log v = v ∂/∂v``."""

    def encode(self, value: Any) -> np.ndarray:
        return np.log(super().encode(value))

    def decode(self, part: np.ndarray) -> Any:
        return float(np.exp(part[0]))

    def chain(self, value: Any, gradient: Any) -> np.ndarray:
        return super().chain(value, gradient) * value


@dataclass(frozen=True)
class ScaledBlock(Block):
    """Values held in units of ``unit`` (the vector holds ``value / unit``), so that
    the optimizer's steps do not depend on the data's units: ``∂/∂(v/u) = u ∂/∂v``."""

    unit: float

    def encode(self, value: Any) -> np.ndarray:
        return super().encode(value) / self.unit

    def decode(self, part: np.ndarray) -> Any:
        return self.unit * super().decode(part)

    def chain(self, value: Any, gradient: Any) -> np.ndarray:
        return self.unit * super().chain(value, gradient)


def kernel_block(kernel: Kernel) -> KernelBlock:
    """The kernel's free hyperparameters ``θ`` (log-space, scikit-learn's bounds)."""
    bounds = (
        np.reshape(kernel.bounds, (-1, 2)) if len(kernel.theta) else np.zeros((0, 2))
    )
    return KernelBlock("kernel", (len(kernel.theta),), bounds, kernel)


def bias_block(bounds=(-1e3, 1e3), shape=()) -> Block:
    """The probit bias ``b`` (linear scale): a scalar, or one per class (``shape``).

    Where every variable is bounded, L-BFGS-B's first trial point is the start plus
    the whole gradient, clipped to the box (its ``boxed`` case): a short step for a
    loss averaged over points (the NLP classifier's), a step to the kernel's bounds
    for a log evidence summed over them, which passes ``bounds=(-inf, inf)``: with
    one free variable the first step has unit length.
    """
    size = int(np.prod(shape, dtype=int))
    return Block("bias", tuple(shape), np.tile(np.asarray(bounds, float), (size, 1)))


def slope_block(log_bounds) -> LogBlock:
    """The probit slope ``λ``, held as its log within ``log_bounds``."""
    return LogBlock("slope", (), np.array([log_bounds], dtype=float))


def inputs_block(Z, unit: float = 1.0) -> ScaledBlock:
    """Input locations such as pseudo-inputs, unbounded, held in units of ``unit``."""
    Z = np.asarray(Z)
    return ScaledBlock(
        "inducing", Z.shape, np.tile([-np.inf, np.inf], (Z.size, 1)), unit
    )


class ParameterSpace:
    """The optimizer's vector made of named blocks, in the order given.

    ``pack({"kernel": ..., "bias": ...})`` and ``unpack(x)["kernel"]`` convert between
    the vector and the blocks' values (each block's transform applied);
    :meth:`pack_gradient` lays out a gradient given in the values' terms, through
    each block's chain rule. ``None`` entries in ``blocks`` are skipped, so a block
    an estimator does not learn is simply left out.

    Parameters
    ----------
    blocks : sequence of Block or None
    """

    def __init__(self, blocks):
        self.blocks = tuple(block for block in blocks if block is not None)

    def __contains__(self, name) -> bool:
        return any(block.name == name for block in self.blocks)

    def __len__(self) -> int:
        return sum(block.size for block in self.blocks)

    def pack(self, values) -> np.ndarray:
        """The vector of ``values[name]`` for every block (other keys ignored)."""
        return self._join([b.encode(values[b.name]) for b in self.blocks])

    def pack_gradient(self, values, gradients) -> np.ndarray:
        """The vector's gradient from ``gradients[name]``, each in its value's terms,
        at ``values`` (:meth:`unpack`'s)."""
        return self._join(
            [b.chain(values[b.name], gradients[b.name]) for b in self.blocks]
        )

    def unpack(self, x) -> dict:
        """``{name: value}`` of vector ``x``; a scalar block gives a float."""
        values, start = {}, 0
        for block in self.blocks:
            part = np.asarray(x[start : start + block.size], dtype=float)
            values[block.name] = block.decode(part)
            start += block.size
        return values

    @staticmethod
    def _join(parts: list[np.ndarray]) -> np.ndarray:
        return np.concatenate(parts) if parts else np.zeros(0)

    def bounds(self) -> np.ndarray:
        """``(len(self), 2)`` array of bounds."""
        return np.vstack([block.bounds for block in self.blocks] + [np.zeros((0, 2))])


@dataclass(frozen=True)
class OptimizationResult:
    """Best point found by :func:`maximize` and what it cost."""

    x: np.ndarray
    value: float
    n_evaluations: int
    n_starts: int
    #: Whether the run that found ``x`` stopped on its own tolerance (not ``max_iter``).
    converged: bool = True
    #: The objective at the first start (``x0`` within the bounds), L-BFGS-B's first
    #: evaluation: ``value - start_value`` is what the optimisation gained.
    start_value: float = np.nan


class _Negated:
    """``objective`` negated for scipy's minimiser, counting its evaluations; points
    where it raises :class:`NotPSDError` or is not finite are reported as very poor,
    and the jitter its factorisations need is added without a warning."""

    def __init__(self, objective: Objective):
        self.objective = objective
        self.n_evaluations = 0
        self.first_value = np.nan  # the objective at the first point evaluated

    def __call__(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        negated = self._negated(x)
        if not self.n_evaluations:
            self.first_value = -float(negated[0])
        self.n_evaluations += 1
        return negated

    def _negated(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        try:
            with quiet_jitter():
                value, grad = self.objective(x)
        except NotPSDError:
            return -_FAILED_VALUE, np.zeros_like(x)
        if not np.isfinite(value) or not np.all(np.isfinite(grad)):
            return -_FAILED_VALUE, np.zeros_like(x)
        return -value, -np.asarray(grad, dtype=float)


def _starts(x0, bounds: np.ndarray, n_restarts: int, rng) -> list[np.ndarray]:
    """``x0`` clipped to ``bounds``, then ``n_restarts`` uniform draws inside them
    (an unbounded entry keeps ``x0``'s value)."""
    first = np.clip(np.asarray(x0, dtype=float), bounds[:, 0], bounds[:, 1])
    bounded = np.all(np.isfinite(bounds), axis=1)
    starts = [first]
    for _ in range(n_restarts):
        start = first.copy()
        start[bounded] = rng.uniform(bounds[bounded, 0], bounds[bounded, 1])
        starts.append(start)
    return starts


def maximize(
    objective: Objective,
    x0,
    bounds,
    *,
    n_restarts: int = 0,
    random_state=None,
    max_iter: int = 100,
    ftol: float | None = None,
    progress: str | None = None,
) -> OptimizationResult:
    """Maximise ``objective`` by L-BFGS-B from ``x0`` and ``n_restarts`` random starts.

    ``ftol`` stops a run when an iteration improves the objective by less than
    ``ftol · max(1, |value|)``: an objective computed to a relative accuracy (EP run
    to a tolerance) should pass that accuracy, so the optimizer does not chase changes
    below it (``None``: scipy's 2.2e-9). ``progress``, a label, shows a bar over the
    iterations with the best value so far. Random starts are uniform inside
    ``bounds`` (log-uniform for kernel hyperparameters), as in scikit-learn's GPR; an
    unbounded entry keeps its value in ``x0``.
    """
    bounds = np.asarray(bounds, dtype=float)
    negated = _Negated(objective)
    starts = _starts(x0, bounds, n_restarts, check_random_state(random_state))
    bar = tqdm(
        total=max_iter * len(starts),
        desc=progress,
        disable=progress is None,
        leave=False,
    )

    def report(intermediate_result):
        bar.update()
        bar.set_postfix(value=f"{-intermediate_result.fun:.4g}", refresh=False)

    options = {"maxiter": max_iter} | ({} if ftol is None else {"ftol": ftol})
    with bar:
        runs = [
            minimize(
                negated,
                start,
                jac=True,
                method="L-BFGS-B",
                bounds=Bounds(bounds[:, 0], bounds[:, 1]),  # a list costs O(p) Python
                callback=report,
                options=options,
            )
            for start in starts
        ]
    best = min(runs, key=lambda run: run.fun)  # the first of equals, as before
    return OptimizationResult(
        x=np.asarray(best.x),
        value=-float(best.fun),
        n_evaluations=negated.n_evaluations,
        n_starts=len(starts),
        converged=bool(best.status != 1),  # scipy's status 1: iteration limit
        start_value=negated.first_value,
    )
