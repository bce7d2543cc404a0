"""Full EP's evidence over all n training points, as an evidence approximation
(algorithms.md §6.1).

:class:`DenseEP` offers what :func:`~sparsegp.approximations.evidence.maximize_evidence`
needs of full EP: the :class:`~sparsegp.approximations.ep.DensePosterior` at a kernel,
the evidence gradient in the kernel and the probit bias, the predictor. The training
inputs stand where FITC's pseudo-inputs do and are never learnt. The full EP
classifier fits through it, and so does any method that takes its hyperparameters
from full EP on a subsample (the online GP, algorithms.md §3.6).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from sklearn.gaussian_process.kernels import Kernel

from ..kernels import gram_and_weighted_gradient
from ..likelihoods import Probit
from .ep import (
    DensePosterior,
    EPState,
    WarmStart,
    cavity_gradient,
    dense_predictor,
    ep_log_evidence_weights,
    posterior_of,
)
from .predictor import Predictor

__all__ = ["DenseEP"]


class DenseEP:
    """Full EP on the probit likelihood: posterior, evidence gradient and predictor.

    Parameters
    ----------
    X : ndarray of shape (n, D)
    y : ndarray of shape (n,)
        Labels in ``{-1, +1}``.
    differentiable : bool
        Whether gradients will be asked for: the posterior's kernel matrix then comes
        with its weighted gradient (:func:`~sparsegp.kernels.gram_and_weighted_gradient`),
        otherwise from the kernel's own evaluation.
    """

    #: The shape of the likelihood's bias (:meth:`likelihood`): one probit bias.
    bias_shape: tuple[int, ...] = ()

    def __init__(self, X: np.ndarray, y: np.ndarray, differentiable: bool) -> None:
        self.X = X
        #: The labels, for :func:`~sparsegp.approximations.ep.run_ep`.
        self.labels = y
        self.differentiable = differentiable

    @staticmethod
    def likelihood(bias: float) -> Probit:
        """The probit ``Φ(y (f + b))`` at bias ``b``."""
        return Probit(bias)

    def posterior(
        self,
        kernel: Kernel,
        Z: np.ndarray,
        start: WarmStart | None,
        store_dtype: npt.DTypeLike = np.float64,
    ) -> DensePosterior:
        """The posterior on ``K(X, X)`` from ``start``'s sites; ``Z`` is ``X`` and
        every product is float64."""
        if not self.differentiable:
            return DensePosterior.starting_from(kernel(self.X), start)
        K, weighted_gradient = gram_and_weighted_gradient(kernel, self.X)
        return DensePosterior.starting_from(K, start, weighted_gradient)

    def gradient(
        self, state: EPState, likelihood: Probit
    ) -> tuple[np.ndarray, float, np.ndarray]:
        """``∂ log Z_EP`` in ``(θ, b)`` ([RW06] eq. 5.27 and ``Σ g_i``), and zero in
        the inputs, at the kernel of ``state``'s posterior."""
        weighted_gradient = posterior_of(state, DensePosterior).weighted_gradient
        if weighted_gradient is None:
            raise ValueError(
                "This posterior was built without kernel derivatives: make the "
                "engine with differentiable=True to take the evidence gradient."
            )
        kernel_gradient = weighted_gradient(ep_log_evidence_weights(state))
        bias_gradient = cavity_gradient(state, self.labels, likelihood)
        return kernel_gradient, bias_gradient, np.zeros_like(self.X)

    def predictor(self, state: EPState) -> Predictor:
        return dense_predictor(state)
