"""What scikit-learn's kernels lack here.

The noise term apart, fast kernel rows, and the cross-covariance and input gradients
pseudo-input methods need (scikit-learn differentiates ``K(X, X)`` only).
"""

from __future__ import annotations

import numpy as np
from sklearn.gaussian_process.kernels import (
    RBF,
    ConstantKernel,
    Product,
    Sum,
    WhiteKernel,
)


def split_white_noise(kernel):
    """Split ``kernel`` into its latent part and the level of its ``WhiteKernel`` term.

    Regressors follow ``GaussianProcessRegressor``: the Gaussian noise is a
    ``WhiteKernel`` summand, so a fitted ``GaussianProcessRegressor().kernel_`` can be
    passed as is.

    Returns
    -------
    latent : Kernel
        ``kernel`` without the ``WhiteKernel`` summand.
    noise_level : float

    Raises
    ------
    ValueError
        If there is no ``WhiteKernel`` summand, nothing but one, or its level is not
        positive.
    """
    latent, noise = _split_white_noise(kernel)
    if noise <= 0:
        raise ValueError(f"The WhiteKernel noise level must be positive; got {noise}.")
    return latent, noise


def _split_white_noise(kernel):
    if isinstance(kernel, Sum):
        if isinstance(kernel.k2, WhiteKernel):
            return kernel.k1, float(kernel.k2.noise_level)
        if isinstance(kernel.k1, WhiteKernel):
            return kernel.k2, float(kernel.k1.noise_level)
        for index, part in enumerate((kernel.k1, kernel.k2)):
            try:
                latent, noise = _split_white_noise(part)
            except ValueError:
                continue
            other = kernel.k2 if index == 0 else kernel.k1
            return Sum(latent, other), noise
    raise ValueError(
        f"The kernel {kernel} needs a WhiteKernel summand for the observation noise, "
        "e.g. ConstantKernel() * RBF() + WhiteKernel(0.1), besides a latent part."
    )


class KernelBlocks:
    """Blocks ``K(X[rows], X[cols])`` of a kernel on fixed inputs ``X``, fast.

    Active-set methods need one kernel row against all n training points per
    inclusion. scikit-learn's ``RBF.__call__`` rescales and copies all of ``X`` on
    every call; here the scaled inputs and their squared norms are computed once, so
    a row costs one matrix-vector product and an ``exp``. Sums and products of
    ``ConstantKernel``, ``RBF`` (isotropic or ARD) and ``WhiteKernel`` are evaluated
    this way; any other kernel falls back to its own ``__call__``.

    Parameters
    ----------
    kernel : sklearn kernel
    X : ndarray of shape (n, n_features)
    """

    def __init__(self, kernel, X):
        self.kernel = kernel
        self.X = X
        self._scaled = {}

    def __call__(self, rows, cols=None):
        """``K(X[rows], X[cols])``; ``cols=None`` means all training points."""
        return self._block(self.kernel, np.asarray(rows), cols)

    def _block(self, node, rows, cols):
        n_cols = len(self.X) if cols is None else len(cols)
        if isinstance(node, Sum):
            return self._block(node.k1, rows, cols) + self._block(node.k2, rows, cols)
        if isinstance(node, Product):
            return self._block(node.k1, rows, cols) * self._block(node.k2, rows, cols)
        if isinstance(node, ConstantKernel):
            return np.full((len(rows), n_cols), node.constant_value)
        if isinstance(
            node, WhiteKernel
        ):  # zero between distinct evaluations, as sklearn
            return np.zeros((len(rows), n_cols))
        if type(node) is RBF:
            Z, norms = self._scaled_inputs(node)
            Zc, nc = (Z, norms) if cols is None else (Z[cols], norms[cols])
            sq = norms[rows][:, None] + nc[None, :] - 2.0 * (Z[rows] @ Zc.T)
            return np.exp(-0.5 * np.maximum(sq, 0.0))
        return node(self.X[rows], self.X if cols is None else self.X[cols])

    def _scaled_inputs(self, rbf):
        key = id(rbf)
        if key not in self._scaled:
            Z = self.X / np.asarray(rbf.length_scale, dtype=float)
            self._scaled[key] = (Z, np.einsum("ij,ij->i", Z, Z))
        return self._scaled[key]


def check_input_differentiable(kernel):
    """Raise ``ValueError`` unless ``kernel`` is built from what FITC can differentiate.

    Supported: sums and products of ``ConstantKernel`` and ``RBF`` (isotropic or ARD).
    These are stationary, so ``k(x, x)`` does not depend on ``x``.
    """
    if isinstance(kernel, Sum | Product):
        check_input_differentiable(kernel.k1)
        check_input_differentiable(kernel.k2)
    elif not (isinstance(kernel, ConstantKernel) or type(kernel) is RBF):
        raise ValueError(
            f"Learning pseudo-inputs or hyperparameters of a sparse GP needs gradients "
            f"of k(x, z) in x and theta; they are implemented for sums and products of "
            f"ConstantKernel and RBF only, not {type(kernel).__name__}. Pass such a "
            f"kernel, or optimizer=None to keep the hyperparameters fixed."
        )


def hyperparameter_gradient(kernel, X, Y, weights):
    """``Σ_ij W_ij ∂k(x_i, y_j)/∂θ`` for the free hyperparameters ``θ`` (log-space).

    Cross-covariance version of scikit-learn's ``eval_gradient``, contracted with a
    weight matrix so that no ``(n, m, p)`` array is formed: O(n·m·D) for an RBF.

    Parameters
    ----------
    kernel : Kernel
        Accepted by :func:`check_input_differentiable`.
    X, Y : ndarray of shape (n, D) and (m, D)
    weights : ndarray of shape (n, m)

    Returns
    -------
    ndarray of shape (len(kernel.theta),)
        In the order of ``kernel.theta``.
    """
    if isinstance(kernel, Sum):
        return np.concatenate(
            [
                hyperparameter_gradient(kernel.k1, X, Y, weights),
                hyperparameter_gradient(kernel.k2, X, Y, weights),
            ]
        )
    if isinstance(kernel, Product):
        return np.concatenate(
            [
                hyperparameter_gradient(kernel.k1, X, Y, weights * kernel.k2(X, Y)),
                hyperparameter_gradient(kernel.k2, X, Y, weights * kernel.k1(X, Y)),
            ]
        )
    if len(kernel.theta) == 0:
        return np.zeros(0)
    if isinstance(kernel, ConstantKernel):
        return np.array([kernel.constant_value * np.sum(weights)])
    WK = weights * kernel(X, Y)
    squared_distance = (
        WK.sum(axis=1) @ X**2
        + WK.sum(axis=0) @ Y**2
        - 2.0 * np.sum((WK @ Y) * X, axis=0)
    )
    per_dimension = squared_distance / np.asarray(kernel.length_scale, dtype=float) ** 2
    return per_dimension if kernel.anisotropic else np.array([per_dimension.sum()])


def input_gradient(kernel, X, Y, weights):
    """``G_id = Σ_j W_ij ∂k(x_i, y_j)/∂x_id``: the gradient in the first argument.

    Parameters
    ----------
    kernel : Kernel
        Accepted by :func:`check_input_differentiable`.
    X, Y : ndarray of shape (n, D) and (m, D)
    weights : ndarray of shape (n, m)

    Returns
    -------
    ndarray of shape (n, D)
    """
    if isinstance(kernel, Sum):
        return input_gradient(kernel.k1, X, Y, weights) + input_gradient(
            kernel.k2, X, Y, weights
        )
    if isinstance(kernel, Product):
        return input_gradient(kernel.k1, X, Y, weights * kernel.k2(X, Y)) + (
            input_gradient(kernel.k2, X, Y, weights * kernel.k1(X, Y))
        )
    if isinstance(kernel, ConstantKernel):
        return np.zeros_like(X)
    WK = weights * kernel(X, Y)
    length_scale = np.asarray(kernel.length_scale, dtype=float)
    return (WK @ Y - WK.sum(axis=1)[:, None] * X) / length_scale**2
