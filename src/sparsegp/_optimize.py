"""One hyperparameter driver for every estimator: L-BFGS-B with random restarts.

Parameters live in one vector: the kernel's ``theta`` (log-space, as scikit-learn's
kernels store it) followed by the likelihood parameters an estimator learns (the probit
bias, on a linear scale). Objectives return ``(value, gradient)`` to be *maximised*.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from sklearn.utils import check_random_state

from .exceptions import NotPSDError, NumericalWarning

#: Value returned to the line search where the objective cannot be evaluated.
_FAILED_VALUE = -1e10


@dataclass(frozen=True)
class ParameterSpace:
    """Packs a scikit-learn kernel and an optional probit bias into one vector.

    Parameters
    ----------
    kernel : sklearn.gaussian_process.kernels.Kernel
        Its free hyperparameters (``kernel.theta``, log-space) come first.
    learn_bias : bool
        Whether the bias is a free parameter (appended last).
    bias_bounds : tuple of float
        Bounds of the bias.
    """

    kernel: object
    learn_bias: bool = True
    bias_bounds: tuple[float, float] = (-1e3, 1e3)

    @property
    def n_kernel(self) -> int:
        """Number of free kernel hyperparameters."""
        return len(self.kernel.theta)

    def pack(self, kernel, bias: float) -> np.ndarray:
        """Vector of the free parameters of ``kernel`` and ``bias``."""
        tail = [bias] if self.learn_bias else []
        return np.concatenate([kernel.theta, tail])

    def pack_gradient(self, grad_kernel, grad_bias: float) -> np.ndarray:
        """Gradient vector in the layout of :meth:`pack`."""
        tail = [grad_bias] if self.learn_bias else []
        return np.concatenate([np.asarray(grad_kernel, dtype=float), tail])

    def unpack(self, x, bias: float):
        """``(kernel, bias)`` at parameter vector ``x`` (``bias`` used if not learnt)."""
        kernel = self.kernel.clone_with_theta(np.asarray(x[: self.n_kernel]))
        return kernel, (float(x[self.n_kernel]) if self.learn_bias else bias)

    def bounds(self) -> np.ndarray:
        """``(n_params, 2)`` array of bounds, log-space for the kernel part."""
        rows = [np.reshape(self.kernel.bounds, (-1, 2))]
        if self.learn_bias:
            rows.append(np.array([self.bias_bounds], dtype=float))
        return np.vstack(rows)


@dataclass(frozen=True)
class OptimizationResult:
    """Best point found by :func:`maximize` and what it cost."""

    x: np.ndarray
    value: float
    n_evaluations: int
    n_starts: int


def maximize(
    objective: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x0,
    bounds,
    *,
    n_restarts: int = 0,
    random_state=None,
    max_iter: int = 100,
    ftol: float | None = None,
) -> OptimizationResult:
    """Maximise ``objective`` by L-BFGS-B from ``x0`` and ``n_restarts`` random starts.

    ``ftol`` stops a run when an iteration improves the objective by less than
    ``ftol · max(1, |value|)``: an objective computed to a relative accuracy (EP run
    to a tolerance) should pass that accuracy here, so that the optimizer does not
    chase changes below it. ``None`` keeps scipy's default (2.2e-9).

    Random starts are drawn uniformly inside ``bounds`` (log-uniformly for kernel
    hyperparameters, since their bounds are in log-space), as scikit-learn's
    ``GaussianProcessRegressor`` does. Points where the objective raises
    :class:`NotPSDError` are reported to the line search as very poor.
    """
    bounds = np.asarray(bounds, dtype=float)
    rng = check_random_state(random_state)
    n_evals = 0

    def negated(x):
        nonlocal n_evals
        n_evals += 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", NumericalWarning)
                value, grad = objective(x)
        except NotPSDError:
            return -_FAILED_VALUE, np.zeros_like(x)
        if not np.isfinite(value) or not np.all(np.isfinite(grad)):
            return -_FAILED_VALUE, np.zeros_like(x)
        return -value, -np.asarray(grad, dtype=float)

    starts = [np.clip(np.asarray(x0, dtype=float), bounds[:, 0], bounds[:, 1])]
    for _ in range(n_restarts):
        starts.append(rng.uniform(bounds[:, 0], bounds[:, 1]))
    best = None
    for start in starts:
        res = minimize(
            negated,
            start,
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": max_iter} | ({} if ftol is None else {"ftol": ftol}),
        )
        if best is None or res.fun < best.fun:
            best = res
    return OptimizationResult(
        x=np.asarray(best.x),
        value=-float(best.fun),
        n_evaluations=n_evals,
        n_starts=len(starts),
    )
