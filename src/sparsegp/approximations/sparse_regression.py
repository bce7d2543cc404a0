"""Sparse GP regression with inducing inputs: the collapsed bound of VFE and FITC's evidence.

With ``Q = K_fu K_uu⁻¹ K_uf``, noise ``σ²`` and ``D = σ²I`` (VFE, [Tit09]) or
``D = σ²I + diag(K_ff − Q)`` (FITC, [SG06]), the objective is

    log N(y | 0, Q + D) − [VFE] tr(K_ff − Q) / (2σ²)

(algorithms.md §6.3). In the whitened form ``V = L_u⁻¹ K_uf``,
``B = I + V D⁻¹ Vᵀ = L_B L_Bᵀ`` and ``c = L_B⁻¹ V D⁻¹ y``, it costs O(n·M²) through
sums over row blocks, and so does its gradient: with ``C = Q + D``, ``α = C⁻¹ y``
and ``W = ½(ααᵀ − C⁻¹)``, ``d log p = tr(W̃ dQ) + Σ wᵢ dkᵢᵢ + g dσ²`` where
``W̃ = W + I/(2σ²)``, ``w = −1/(2σ²)``, ``g = tr W + tr(K_ff − Q)/(2σ⁴)`` for VFE and
``W̃ = W − diag W``, ``w = diag W``, ``g = tr W`` for FITC; ``tr(W̃ dQ)`` reaches
``K_uf`` and ``K_uu`` through ``R = K_uu⁻¹ K_uf``: ``2⟨R W̃, dK_uf⟩ − ⟨R W̃ Rᵀ, dK_uu⟩``,
and ``R W = L_u⁻ᵀ(½ (Vα) αᵀ − ½ L_B⁻ᵀ L_B⁻¹ V D⁻¹)`` by Woodbury, one block of
columns at a time. Every training row is seen twice per evaluation (once for ``B``
and ``c``, once for the gradient), by :class:`~.blocks.Blocks` on whichever executor
holds them: 8·n·M² flops for FITC, whose ``D`` differs row by row. Where
:func:`bound_and_gradient` is asked to ``keep`` them, each block holds its ``K_uf`` and
``V`` from the first pass to the second (3·n·M floats at most, freed by the second), so
the second neither evaluates the kernel nor whitens again: n·M² flops fewer.

VFE's ``D = σ²I`` needs 5·n·M² (4 with the blocks kept):
``2 R W̃ = G V + g αᵀ`` with ``G = L_u⁻ᵀ H``, ``g = L_u⁻ᵀ(Vα)`` (M × M and M, formed
once) and ``H = (I − B⁻¹)/σ²``, each block's ``V Vᵀ`` is divided by ``σ²``, not its ``V``,
and what the gradient sums of ``R W̃`` over the rows has a closed form,
``Σ P Vᵀ = ½ (Vα)(Vα)ᵀ + ½ (B + B⁻¹) − I`` and ``tr (Q + D)⁻¹ = (n − M + tr B⁻¹)/σ²``.
Each block whitens its own ``K_uf`` (``V = L_u⁻¹ K_uf``, whose columns' squared norms
are at most ``kᵢᵢ``): whitening a sum of ``K_uf K_fu`` instead squares ``K_uu``'s
condition number, which the long length-scales of irrelevant features make large
(algorithms.md §6.3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from scipy.linalg import blas
from sklearn.gaussian_process.kernels import Kernel

from .._linalg import (
    cholesky_jitter,
    inverse_lower,
    log_det_from_cholesky,
    solve_lower,
    solve_lower_transpose,
    solve_lower_wide,
)
from ..kernels import CrossCovariance, is_input_differentiable
from .blocks import Blocks
from .fitc_ep import inducing_point_predictor
from .predictor import Predictor

__all__ = [
    "Bound",
    "RegressionBlock",
    "bound_and_gradient",
    "evaluate_bound",
    "new_regression_block",
]

Approximation = Literal["vfe", "fitc"]

#: Jitter on ``K_uu``'s diagonal, relative to the kernel's variance (GPflow's default
#: is 10⁻⁶ absolute, on standardised targets the same).
JITTER = 1e-6

_LOG_2PI = math.log(2.0 * math.pi)


@dataclass(frozen=True)
class RegressionBlock:
    """A block of training rows and their targets; ``kept``, between the two passes
    of a :func:`bound_and_gradient` that keeps them, the first pass's ``K_uf`` (a
    :class:`~sparsegp.kernels.CrossCovariance`) and ``V = L_u⁻¹ K_uf``."""

    X: np.ndarray
    y: np.ndarray
    kept: tuple[CrossCovariance, np.ndarray] | None = None


def new_regression_block(
    X: np.ndarray, y: np.ndarray, first: int = 0
) -> RegressionBlock:
    """The block of rows ``X`` (starting at row ``first`` of the training set)."""
    return RegressionBlock(np.ascontiguousarray(X, dtype=float), np.asarray(y, float))


@dataclass(frozen=True)
class _Inducing:
    """What every block's work shares: the kernel, the pseudo-inputs, ``L_u`` and
    its inverse (the blocks' wide solves are products with it:
    :func:`~sparsegp._linalg.solve_lower_wide`), the noise and the approximation."""

    kernel: Kernel
    Z: np.ndarray
    chol_uu: np.ndarray
    inverse_uu: np.ndarray
    noise: float
    approximation: Approximation

    def whiten(self, cross: np.ndarray) -> np.ndarray:
        """``V = L_u⁻¹ K_uf`` of a block whose ``K_uf`` is ``cross``."""
        return solve_lower_wide(self.chol_uu, cross, inverse=self.inverse_uu)

    def whitened(
        self, block: RegressionBlock, cross: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``V = L_u⁻¹ K_uf``, the diagonal ``d`` of ``D`` and ``kᵢᵢ − Qᵢᵢ`` of a block
        whose ``K_uf`` is ``cross``."""
        V = self.whiten(cross)
        return (V, *self.diagonal(block, V))

    def diagonal(
        self, block: RegressionBlock, V: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The diagonal ``d`` of ``D`` and ``kᵢᵢ − Qᵢᵢ`` of a block whose
        ``L_u⁻¹ K_uf`` is ``V``."""
        residual = np.maximum(
            self.kernel.diag(block.X) - np.einsum("ij,ij->j", V, V), 0
        )
        d = (
            self.noise + residual
            if self.approximation == "fitc"
            else np.full(len(block.y), self.noise)
        )
        return d, residual


def _cross(kernel: Kernel, Z: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``K(Z, X)``: by :class:`~sparsegp.kernels.CrossCovariance` (one product, no
    distance matrix) where it can evaluate the kernel."""
    if is_input_differentiable(kernel):
        return CrossCovariance(kernel, Z, X).value
    return kernel(Z, X)


def _statistics(
    block: RegressionBlock, shared: _Inducing
) -> tuple[np.ndarray, np.ndarray, float, float, float, int]:
    """A block's ``(V D⁻¹ Vᵀ, V D⁻¹ y, Σ log d, Σ y²/d, Σ (kᵢᵢ − Qᵢᵢ), rows)``:
    O(b·M²)."""
    V, d, residual = shared.whitened(block, _cross(shared.kernel, shared.Z, block.X))
    return _block_sums(block, V, d, residual, shared.approximation)


def _statistics_kept(
    block: RegressionBlock, shared: _Inducing
) -> tuple[RegressionBlock, tuple[np.ndarray, np.ndarray, float, float, float, int]]:
    """:func:`_statistics`, the block returned holding its ``K_uf`` and ``V`` for the
    gradient pass that follows."""
    covariance = CrossCovariance(shared.kernel, shared.Z, block.X)
    V, d, residual = shared.whitened(block, covariance.value)
    sums = _block_sums(block, V, d, residual, shared.approximation)
    return replace(block, kept=(covariance, V)), sums


def _block_sums(
    block: RegressionBlock,
    V: np.ndarray,
    d: np.ndarray,
    residual: np.ndarray,
    approximation: Approximation,
) -> tuple[np.ndarray, np.ndarray, float, float, float, int]:
    """:func:`_statistics`' sums from the block's ``V``, ``d`` and ``kᵢᵢ − Qᵢᵢ``;
    VFE's ``d`` is ``σ²`` on every row, and its ``V Vᵀ`` and ``V y`` are divided by it
    afterwards (M × M numbers, not V's M × b)."""
    if approximation == "vfe":
        gram, projected = V @ V.T, V @ block.y
        gram /= d[0]
        projected /= d[0]
    else:
        scaled = V / np.sqrt(d)
        gram, projected = scaled @ scaled.T, V @ (block.y / d)
    return (
        gram,
        projected,
        float(np.sum(np.log(d))),
        float(np.sum(block.y**2 / d)),
        float(np.sum(residual)),
        len(block.y),
    )


def _covariance_and_whitened(
    block: RegressionBlock, shared: _Inducing
) -> tuple[CrossCovariance, np.ndarray]:
    """The block's ``K_uf`` and ``V = L_u⁻¹ K_uf``: those it keeps from the first pass
    (:func:`_statistics_kept`), or evaluated again."""
    if block.kept is not None:
        return block.kept
    covariance = CrossCovariance(shared.kernel, shared.Z, block.X)
    return covariance, shared.whiten(covariance.value)


@dataclass(frozen=True)
class Bound:
    """The objective at one point, and what its gradient and the predictor need.

    Attributes
    ----------
    value : float
        ``log N(y | 0, Q + D)`` (minus VFE's trace term).
    shared : _Inducing
    chol_B : ndarray of shape (M, M)
        ``L_B``.
    c : ndarray of shape (M,)
        ``L_B⁻¹ V D⁻¹ y``.
    inverse_B : ndarray of shape (M, M)
        ``L_B⁻¹``.
    u : ndarray of shape (M,)
        ``L_B⁻ᵀ c``.
    V_alpha : ndarray of shape (M,)
        ``V α`` with ``α = (Q + D)⁻¹ y``.
    trace : float
        ``tr(K_ff − Q)``.
    n : int
    """

    value: float
    shared: _Inducing
    chol_B: np.ndarray
    c: np.ndarray
    inverse_B: np.ndarray
    u: np.ndarray
    V_alpha: np.ndarray
    trace: float
    n: int

    def predictor(self) -> Predictor:
        """Mean ``k_uᵀ L_u⁻ᵀ L_B⁻ᵀ c`` and latent variance ``k** − ‖a‖² + ‖L_B⁻¹a‖²``
        with ``a = L_u⁻¹ k_u`` (algorithms.md §6.3)."""
        weights = solve_lower_transpose(
            self.shared.chol_uu, solve_lower_transpose(self.chol_B, self.c)
        )
        return inducing_point_predictor(self.shared.chol_uu, self.chol_B, weights)


def evaluate_bound(
    blocks: Blocks,
    kernel: Kernel,
    Z: np.ndarray,
    noise: float,
    approximation: Approximation,
    keep: bool = False,
) -> Bound:
    """The objective of ``approximation`` at ``kernel``, pseudo-inputs ``Z`` and noise
    variance ``noise``, one pass over the row ``blocks``; with ``keep``, the blocks
    hold their ``K_uf`` and ``V`` afterwards, for :func:`bound_and_gradient`'s second
    pass (the kernel must be one :class:`~sparsegp.kernels.CrossCovariance`
    differentiates)."""
    K_uu = kernel(Z)
    K_uu.flat[:: len(Z) + 1] += JITTER * max(float(np.mean(np.diag(K_uu))), 1e-300)
    chol_uu = cholesky_jitter(K_uu, what="K_uu of the pseudo-inputs")
    shared = _Inducing(
        kernel,
        np.asarray(Z, float),
        chol_uu,
        inverse_lower(chol_uu),
        float(noise),
        approximation,
    )
    if keep:
        sums = blocks.update_and_sum(_statistics_kept, shared)
    else:
        sums = blocks.map_sum(_statistics, shared)
    gram, projected, log_d, y_d_y, trace, n = sums
    B = gram
    B.flat[:: len(Z) + 1] += 1.0
    chol_B = cholesky_jitter(B, what="B = I + V D⁻¹ Vᵀ")
    c = solve_lower(chol_B, projected)
    value = -0.5 * (n * _LOG_2PI + log_d + log_det_from_cholesky(chol_B))
    value -= 0.5 * (y_d_y - float(c @ c))
    if approximation == "vfe":
        value -= 0.5 * trace / noise
    # V α = V D⁻¹ y − V D⁻¹ Vᵀ L_B⁻ᵀ c, and V D⁻¹ Vᵀ = B − I
    u = solve_lower_transpose(chol_B, c)
    V_alpha = projected - (gram @ u - u)
    inverse_B = inverse_lower(chol_B)
    return Bound(
        float(value), shared, chol_B, c, inverse_B, u, V_alpha, float(trace), n
    )


def _sensitivities(
    block: RegressionBlock, bound: Bound
) -> tuple[RegressionBlock, tuple[np.ndarray, np.ndarray, np.ndarray, float]]:
    """A block's share of FITC's gradient: ``(θ part of ⟨S_uf, dK_uf⟩, its Z part,
    P Vᵀ, Σ diag W)`` with ``S_uf = 2 R W̃`` (this block's columns) and
    ``R W̃ = L_u⁻ᵀ P``: 6·b·M² flops (7 where the block did not keep its ``V``); the
    block returned without what it kept."""
    shared = bound.shared
    covariance, V = _covariance_and_whitened(block, shared)
    d, _ = shared.diagonal(block, V)
    alpha = (block.y - V.T @ bound.u) / d
    E = solve_lower_wide(bound.chol_B, V, inverse=bound.inverse_B)
    diag_inverse = (1.0 - np.einsum("ij,ij->j", E, E) / d) / d  # diag (Q + D)⁻¹
    diag_W = 0.5 * (alpha**2 - diag_inverse)
    E = solve_lower_wide(bound.chol_B, E, trans=True, out=E, inverse=bound.inverse_B)
    P = 0.5 * np.outer(bound.V_alpha, alpha)
    P -= 0.5 * E / d
    P -= V * diag_W
    weights = solve_lower_wide(shared.chol_uu, P, trans=True, inverse=shared.inverse_uu)
    weights *= 2.0
    grad_theta, grad_Z = covariance.gradients(weights)
    result = grad_theta, grad_Z, P @ V.T, float(np.sum(diag_W))
    return replace(block, kept=None), result


@dataclass(frozen=True)
class _VFEGradientWeights:
    """What VFE's second pass needs beside the pseudo-inputs' factor: ``u = L_B⁻ᵀ c``,
    ``G = L_u⁻ᵀ H`` with ``H = (I − B⁻¹)/σ²`` and ``g = L_u⁻ᵀ(Vα)`` (module
    docstring)."""

    shared: _Inducing
    u: np.ndarray
    G: np.ndarray
    g: np.ndarray


def _vfe_sensitivities(
    block: RegressionBlock, weights: _VFEGradientWeights
) -> tuple[RegressionBlock, tuple[np.ndarray, np.ndarray, float]]:
    """A block's ``(θ part of ⟨S_uf, dK_uf⟩, its Z part, Σ αᵢ²)`` with
    ``S_uf = G V + g αᵀ`` and ``α = (y − Vᵀu)/σ²``: 2·b·M² flops (3 where the block
    did not keep its ``V``); the block returned without what it kept."""
    shared = weights.shared
    covariance, V = _covariance_and_whitened(block, shared)
    alpha = (block.y - V.T @ weights.u) / shared.noise
    S_uf = weights.G @ V
    blas.dger(1.0, alpha, weights.g, a=S_uf.T, overwrite_a=True)  # += g αᵀ
    grad_theta, grad_Z = covariance.gradients(S_uf)
    return replace(block, kept=None), (grad_theta, grad_Z, float(alpha @ alpha))


def _vfe_gradient_pass(
    blocks: Blocks, bound: Bound
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """VFE's ``(⟨S_uf, dK_uf⟩ in θ and Z, Σ P Vᵀ, tr W)``: one pass over the rows and
    the closed forms of the module docstring."""
    noise, M = bound.shared.noise, len(bound.shared.Z)
    B_inverse = bound.inverse_B.T @ bound.inverse_B
    H = (np.eye(M) - B_inverse) / noise
    inverse_uu = bound.shared.inverse_uu
    weights = _VFEGradientWeights(
        bound.shared, bound.u, inverse_uu.T @ H, inverse_uu.T @ bound.V_alpha
    )
    grad_theta, grad_Z, alpha_alpha = blocks.update_and_sum(_vfe_sensitivities, weights)
    # (I − B⁻¹) V Vᵀ / σ² = (I − B⁻¹)(B − I) = B + B⁻¹ − 2I
    B = bound.chol_B @ bound.chol_B.T
    P_Vt = 0.5 * (np.outer(bound.V_alpha, bound.V_alpha) + B + B_inverse) - np.eye(M)
    trace_inverse = (bound.n - M + float(np.trace(B_inverse))) / noise
    return grad_theta, grad_Z, P_Vt, 0.5 * (alpha_alpha - trace_inverse)


def bound_and_gradient(
    blocks: Blocks,
    kernel: Kernel,
    Z: np.ndarray,
    noise: float,
    approximation: Approximation,
    keep: bool = True,
) -> tuple[Bound, np.ndarray, float, np.ndarray]:
    """The objective (:func:`evaluate_bound`) and its gradient in the kernel's ``θ``
    (log-space, the order of ``kernel.theta``), the noise variance and ``Z``: two
    passes over the row ``blocks``, 5·n·M² flops for VFE and 8·n·M² for FITC (module
    docstring), a kernel evaluation and n·M² fewer where the blocks ``keep`` their
    ``K_uf`` and ``V`` between the passes (3·n·M floats held meanwhile).

    The kernel must be one :class:`~sparsegp.kernels.CrossCovariance` differentiates.
    """
    bound = evaluate_bound(blocks, kernel, Z, noise, approximation, keep=keep)
    shared = bound.shared
    if approximation == "fitc":
        grad_theta, grad_Z, P_Vt, trace_W = blocks.update_and_sum(_sensitivities, bound)
    else:
        grad_theta, grad_Z, P_Vt, trace_W = _vfe_gradient_pass(blocks, bound)
    # −⟨R W̃ Rᵀ, dK_uu⟩ with R W̃ Rᵀ = L_u⁻ᵀ P Vᵀ L_u⁻¹
    inner = solve_lower_transpose(shared.chol_uu, P_Vt)
    S_uu = -solve_lower_transpose(shared.chol_uu, inner.T)
    S_uu = 0.5 * (S_uu + S_uu.T)
    theta_uu, Z_uu = CrossCovariance(kernel, shared.Z).gradients(S_uu)
    if approximation == "fitc":
        diagonal_weight, grad_noise = trace_W, trace_W
    else:
        diagonal_weight = -0.5 * bound.n / noise
        grad_noise = trace_W + 0.5 * bound.trace / noise**2
    theta_diag, _ = CrossCovariance(kernel, shared.Z[:1]).gradients(
        np.array([[diagonal_weight]])
    )
    return bound, grad_theta + theta_uu + theta_diag, grad_noise, grad_Z + 2.0 * Z_uu
