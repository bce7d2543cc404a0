"""The one fitted-model type every method returns, and how it predicts.

A method (:mod:`sparsegp.methods`) fits arrays and returns a :class:`FittedModel`;
an estimator keeps it and predicts through it. Every engine's predictor sees a test
point only through ``k(points, x)`` and ``k(x, x)`` (:class:`Predictor`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.gaussian_process.kernels import Kernel

from .. import kernel_expression as expression
from ..approximations.evidence import EvidenceFit
from ..approximations.predictor import Predictor
from ..kernels import KernelBlocks

__all__ = [
    "FittedModel",
    "Predictor",
    "batched_latent",
    "fitted_model",
    "latent_from_kernel",
]

#: Kernel entries evaluated at once when predicting in batches (256 MB of float64).
_BATCH_ENTRIES = 2**25


@dataclass(frozen=True)
class FittedModel:
    """A fitted model, whatever the method: the one type every estimator returns.

    Attributes
    ----------
    kernel : Kernel
        The latent kernel (a regressor's noise is in ``likelihood``).
    likelihood : Probit, MultinomialProbit or Gaussian
    points : ndarray of shape (m, n_features)
        The inputs the predictor sees a test point through: the training inputs (full
        EP), the pseudo-inputs (FITC), the active set (IVM, NLP classifier), the basis
        vectors (online GP), the relevance vectors (RVM).
    predictor : Predictor
    log_marginal_likelihood : float
        The method's evidence (NaN where it has none).
    n_iterations : int
        The method's outer iterations (optimizer evaluations, EM steps, examples
        absorbed, …).
    converged : bool
        Whether every iterative part stopped on its tolerance, not on its cap.
    leave_one_out : (ndarray, ndarray) or None
        The latent mean and variance of each training point held out of its own
        posterior (EP's cavities, the online GP's predictions before absorbing it):
        what one-vs-rest's odds weight and the multinomial variance scale are fitted
        to (:mod:`~sparsegp.methods.multiclass`); O(n), dropped after ``fit``.
    details : dict
        What one method alone reports (the active set's training indices, the
        selection's seconds, EP sweeps, the RVM's ``α``, …).
    """

    kernel: Kernel
    likelihood: Any
    points: np.ndarray
    predictor: Predictor
    log_marginal_likelihood: float = np.nan
    n_iterations: int = 0
    converged: bool = True
    leave_one_out: tuple[np.ndarray, np.ndarray] | None = None
    details: dict = field(default_factory=dict)

    def latent_mean_and_variance(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Latent predictive mean and variance at ``X``, in row blocks."""
        return latent_from_kernel(self.kernel, self.points, self.predictor, X)

    def latent_covariance(self, X: np.ndarray) -> np.ndarray:
        """The latent posterior covariance of the points ``X`` (m × m, so for
        moderate m)."""
        K_cross = KernelBlocks(self.kernel, self.points).cross(X)
        return self.predictor.latent_covariance(K_cross, self.kernel(X))


def batched_latent(
    predict: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    X: np.ndarray,
    n_train: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Apply ``predict(X_batch) -> (mean, var)`` over row blocks of ``X``.

    The block size keeps each train-by-test kernel block near 256 MB.
    """
    size = max(1, _BATCH_ENTRIES // max(n_train, 1))
    parts = [predict(X[start : start + size]) for start in range(0, len(X), size)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def latent_from_kernel(
    kernel: Kernel, points: np.ndarray, predictor: Predictor, X: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Latent mean and variance at ``X`` of a posterior that sees a test point only
    through ``k(points, x)`` and ``k(x, x)``.

    ``predictor.latent_mean_and_variance(K_cross, k_diag)`` is the posterior's
    prediction (full EP, FITC, the IVM's active set, the online GP's BV set); it is
    applied over row blocks of ``X`` (:func:`batched_latent`), each block of
    ``k(points, x)`` by :meth:`~sparsegp.kernels.KernelBlocks.cross`. A
    ``CompoundKernel`` (a multi-class model's kernel per class) sees its own equal
    share of ``points``, in order: ``K_cross`` stacks its kernels' blocks and
    ``k_diag`` has a column per kernel.
    """
    kernels = expression.compound_parts(kernel) or [kernel]
    blocks = [
        KernelBlocks(k, share)
        for k, share in zip(kernels, np.split(points, len(kernels)), strict=True)
    ]

    def predict(X_batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        crosses = [block.cross(X_batch) for block in blocks]
        return predictor.latent_mean_and_variance(
            crosses[0] if len(crosses) == 1 else np.vstack(crosses),
            kernel.diag(X_batch),
        )

    return batched_latent(predict, X, max(len(points), 1))


def fitted_model(fit: EvidenceFit) -> FittedModel:
    """The :class:`FittedModel` of an
    :class:`~sparsegp.approximations.evidence.EvidenceFit` (FITC, full EP), its EP
    sweeps in all in ``details["n_sweeps"]``."""
    return FittedModel(
        kernel=fit.kernel,
        likelihood=fit.likelihood,
        points=fit.points,
        predictor=fit.predictor,
        log_marginal_likelihood=fit.log_evidence,
        n_iterations=fit.n_evaluations,
        converged=fit.optimizer_converged and fit.ep_converged,
        leave_one_out=fit.leave_one_out,
        details={"n_sweeps": fit.n_sweeps},
    )
