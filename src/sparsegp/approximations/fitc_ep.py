"""EP on the FITC prior with M pseudo-inputs ([NGH07]; algorithms.md §5).

Pure numerics: kernel blocks ``K_uu``, ``K_uf``, ``diag K_ff`` and labels in; the
posterior EP runs on (:class:`FITCPosterior`, driven by
:func:`~sparsegp.approximations.ep.run_ep`), the evidence gradient and predictions out,
all in O(n·M²) time and O(n·M) memory. The prior is ``K_FITC = VᵀV + diag(d₀)`` with
``V = L_u⁻¹ K_uf``.

A parallel sweep refreshes the posterior by BLAS-3 products. A sequential sweep ([NGH07]'s
EP) keeps [NGH07]'s structured form ``A = D + P F Fᵀ Pᵀ``, ``h = ν_D + P γ``, written in
the whitened coordinates of ``V`` so that after a rebuild ``F = L_B⁻ᵀ`` with
``L_B L_Bᵀ = I + V diag(G) Vᵀ``. [NGH07] keeps ``F`` lower-triangular and changes it by a
Cholesky rank-one update/downdate; any square root will do (algorithms.md §5.2), and
here a site update multiplies ``F`` by a symmetric rank-one square root,
``F ← F (I − β a aᵀ)``: one BLAS ``dger``, O(M²), positive definite by construction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
from scipy.linalg import blas
from sklearn.gaussian_process.kernels import Kernel

from .._linalg import (
    cholesky_jitter,
    inverse_lower,
    log_det_from_cholesky,
    matvec,
    solve_lower,
    solve_lower_transpose,
    solve_lower_wide,
    weighted_gram,
)
from ..kernels import CrossCovariance
from ..likelihoods import Likelihood, Probit
from .ep import (
    ArraySites,
    EPState,
    SiteUpdate,
    WarmStart,
    cavity_gradient,
    posterior_of,
    warm_sites,
)
from .predictor import Predictor
from .sweep_kernels import marginal_moments_into

__all__ = [
    "EvidenceSensitivities",
    "FITCKernelBlocks",
    "FITCPosterior",
    "FITCPrior",
    "InMemoryFITC",
    "PointSensitivities",
    "StructuredFITCPosterior",
    "chunk_workspace",
    "fitc_predictor",
    "fitc_weights",
    "inducing_point_predictor",
    "column_chunks",
    "cross_sensitivity",
    "fitc_ep_gradient",
    "fitc_ep_sensitivities",
    "fitc_marginal_moments",
    "fitc_marginals",
    "inducing_sensitivities",
    "point_sensitivities",
    "posterior_sensitivities",
    "site_statistics",
]


@dataclass(frozen=True)
class FITCPrior:
    """The FITC prior ``K_FITC = VᵀV + diag(d₀)`` ([NGH07] eqs. 1-3).

    Attributes
    ----------
    chol_uu : ndarray of shape (M, M)
        ``L_u = chol(K_uu + ε_u I)``.
    V : ndarray of shape (M, n)
        ``L_u⁻¹ K_uf``.
    d0 : ndarray of shape (n,)
        ``diag K_ff − diag Q_ff``, clipped at zero.
    prior_variance : float
        ``mean diag K_ff``, the mean prior variance (FITC keeps the diagonal).
    derivatives : FITCKernelBlocks or None
        The kernel blocks the prior was built from, for the evidence gradient (None:
        built from the kernel's own evaluation, no gradient).
    """

    chol_uu: np.ndarray
    V: np.ndarray
    d0: np.ndarray
    prior_variance: float
    derivatives: FITCKernelBlocks | None = None

    @classmethod
    def from_kernel(
        cls,
        K_uu: np.ndarray,
        K_uf: np.ndarray,
        k_diag: np.ndarray,
        jitter: float = 1e-6,
    ) -> FITCPrior:
        """Build the prior from kernel blocks; ``jitter`` is ``ε_u`` ([NGH07] fn. 3)."""
        K_uu = np.asarray(K_uu, dtype=float)
        chol_uu = cholesky_jitter(
            K_uu + jitter * np.eye(len(K_uu)), what="K_uu at the pseudo-inputs"
        )
        V = solve_lower_wide(chol_uu, np.asarray(K_uf, dtype=float))
        k_diag = np.asarray(k_diag, dtype=float)
        d0 = np.maximum(k_diag - np.einsum("ij,ij->j", V, V), 0)
        return cls(chol_uu=chol_uu, V=V, d0=d0, prior_variance=float(np.mean(k_diag)))

    @property
    def n_inducing(self) -> int:
        return self.V.shape[0]


#: Bytes of ``V``'s columns a refresh works through at once (:func:`column_chunks`):
#: they stay in cache between the products that read them (a row block's whole ``V``
#: went through memory five times a sweep otherwise). Few pieces per block: each
#: numpy call holds the interpreter's lock a while, which row threads share, and
#: larger pieces hold it less of a sweep at no cost in speed (algorithms.md §0.6).
CHUNK_BYTES = 1 << 22


def column_chunks(V: np.ndarray) -> list[slice]:
    """Consecutive column ranges of ``V`` (M × n) of :data:`CHUNK_BYTES`, and of at
    least 2·M columns (and 64): the pieces :func:`site_statistics` and
    :func:`fitc_marginal_moments` work through, in this order. Each piece adds an
    M × M product to the sum, which costs as much as the piece's own products when
    it has few columns more than M (the IVM's FITC pass at M = 1 000 ran 1.2× slower
    on pieces of 131 columns)."""
    M = V.shape[0]
    width = max(64, 2 * M, CHUNK_BYTES // max(M * V.itemsize, 1))
    return [slice(j, min(j + width, V.shape[1])) for j in range(0, V.shape[1], width)]


def chunk_workspace(V: np.ndarray) -> np.ndarray:
    """A flat array of ``V``'s dtype that holds one of its :func:`column_chunks`."""
    chunks = column_chunks(V)
    width = chunks[0].stop - chunks[0].start if chunks else 0
    return np.empty(V.shape[0] * width, dtype=V.dtype)


def _chunk_of(workspace: np.ndarray | None, V: np.ndarray, chunk: slice) -> np.ndarray:
    """A C-contiguous M × (chunk's width) view of ``workspace`` (new if None)."""
    shape = (V.shape[0], chunk.stop - chunk.start)
    if workspace is None:
        return np.empty(shape, dtype=V.dtype)
    return workspace[: shape[0] * shape[1]].reshape(shape)


def site_statistics(
    V: np.ndarray,
    d0: np.ndarray,
    tau: np.ndarray,
    nu: np.ndarray,
    workspace: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``V diag(G) Vᵀ`` (``syrk``s, n·M² flops) and ``V (t ⊙ ν̃)`` of some points
    (algorithms.md §5.3), in float64 from ``V`` in its own precision; sums over
    points, so row blocks add theirs. Summed over ``V``'s :func:`column_chunks`, each
    scaled in ``workspace`` (:func:`chunk_workspace`; a new one if None) and read
    while it is in cache."""
    t = 1.0 / (1.0 + tau * d0)
    root_G = np.sqrt(tau * t).astype(V.dtype)
    weights = (t * nu).astype(V.dtype)
    VGVt = np.zeros((len(V), len(V)))
    for chunk in column_chunks(V):
        scaled = np.multiply(
            V[:, chunk], root_G[chunk], out=_chunk_of(workspace, V, chunk)
        )
        VGVt += scaled @ scaled.T  # numpy's syrk
    return VGVt, matvec(V, weights).astype(float)


def fitc_marginal_moments(
    V: np.ndarray,
    d0: np.ndarray,
    tau: np.ndarray,
    nu: np.ndarray,
    chol_B: np.ndarray,
    u: np.ndarray,
    inverse_B: np.ndarray | None = None,
    workspace: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The posterior means and variances of :func:`fitc_marginals`, without keeping
    ``E = L_B⁻¹ V``: each of ``V``'s :func:`column_chunks` is multiplied by the
    triangle in ``workspace`` (:func:`chunk_workspace`) and read there, in cache, by
    one compiled loop
    (:func:`~sparsegp.approximations.sweep_kernels.marginal_moments_into`)."""
    inverse = inverse_lower(chol_B) if inverse_B is None else inverse_B
    inverse = np.asfortranarray(inverse, dtype=V.dtype)
    u = u.astype(V.dtype)
    d0, tau, nu = (np.ascontiguousarray(a, dtype=float) for a in (d0, tau, nu))
    mean, var = np.empty(V.shape[1]), np.empty(V.shape[1])
    for chunk in column_chunks(V):
        E = solve_lower_wide(
            chol_B, V[:, chunk], out=_chunk_of(workspace, V, chunk), inverse=inverse
        )
        marginal_moments_into(
            E, u, d0[chunk], tau[chunk], nu[chunk], mean[chunk], var[chunk]
        )
    return mean, var


def fitc_marginals(
    V: np.ndarray,
    d0: np.ndarray,
    tau: np.ndarray,
    nu: np.ndarray,
    chol_B: np.ndarray,
    u: np.ndarray,
    out: np.ndarray | None = None,
    inverse_B: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``E = L_B⁻¹ V`` (``trmm``, n·M² flops, ``V``'s precision; into ``out`` if
    given) and the posterior means and variances of the points of ``V``
    (algorithms.md §5.3).

    ``u = L_B⁻¹ V (t ⊙ ν̃)`` over all points. ``Σ_ii = d₀t + t²‖E_i‖²`` and
    ``h_i = t(d₀ν̃_i + E_iᵀu)`` add non-negative or independent terms: no
    cancellation amplifies float32 rounding.
    """
    E = solve_lower_wide(chol_B, V, out=out, inverse=inverse_B)
    norms = np.einsum("ij,ij->j", E, E).astype(float)
    mean, var = _moments(d0, tau, nu, norms, matvec(E.T, u.astype(E.dtype)))
    return E, mean, var


def _moments(
    d0: np.ndarray,
    tau: np.ndarray,
    nu: np.ndarray,
    norms: np.ndarray,
    projections: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``h_i = t(d₀ν̃_i + E_iᵀu)`` and ``Σ_ii = d₀t + t²‖E_i‖²`` from ``‖E_i‖²`` and
    ``E_iᵀu`` (:func:`fitc_marginals`), in float64."""
    t = 1.0 / (1.0 + tau * d0)
    projections = np.asarray(projections, dtype=float)
    return t * (d0 * nu + projections), d0 * t + t**2 * norms


class FITCPosterior(ArraySites):
    """The EP posterior ``N(h, A)`` on the FITC prior, refreshed by BLAS-3 products.

    With ``t = 1/(1 + τ̃ d₀)``, ``G = τ̃ t`` and ``L_B L_Bᵀ = I + V diag(G) Vᵀ``,
    ``A = diag(d₀ t) + diag(t) Eᵀ E diag(t)`` and ``h = d₀ t ν̃ + t ⊙ Eᵀ E (t ν̃)``
    with ``E = L_B⁻¹ V`` (algorithms.md §5.3): a refresh is one ``syrk`` and one
    product of ``V`` with the M×M triangle ``L_B⁻¹`` (``trmm``), 2·n·M² flops. A
    sequential sweep works on [NGH07]'s structured form
    (:class:`StructuredFITCPosterior`).

    Parameters
    ----------
    prior : FITCPrior
    tau, nu : ndarray of shape (n,)
        Site natural parameters.
    store_dtype : numpy dtype, default=float64
        Precision of the two n × M products of a refresh (``V diag(G) Vᵀ`` and
        ``E``) and of the evidence gradient's (:func:`fitc_ep_sensitivities`).
        float32 halves their time; ``L_B``, the sites and the marginals stay
        float64, and a variance is a sum of non-negative terms, so no cancellation
        amplifies the rounding (tests: variances within ~1e-5 relative, means within
        ~1e-4 of their spread, at amplitudes 1 and 1e4). Enough for an optimizer's
        evidence evaluations; a fitted model's final EP run should use float64.
    stored_V : ndarray of shape (M, n), optional
        The prior's ``V`` already in ``store_dtype``, for posteriors that share one
        prior (the multi-class model's classes); by default cast here.

    Attributes
    ----------
    stored_V : ndarray of shape (M, n)
        The prior's ``V`` in ``store_dtype``.
    """

    def __init__(
        self,
        prior: FITCPrior,
        tau: np.ndarray,
        nu: np.ndarray,
        store_dtype: npt.DTypeLike = np.float64,
        stored_V: np.ndarray | None = None,
    ) -> None:
        self.prior = prior
        self.prior_variance = prior.prior_variance
        self.tau = np.array(tau, dtype=float)
        self.nu = np.array(nu, dtype=float)
        if stored_V is None:
            stored_V = prior.V.astype(store_dtype, copy=False)
        self.stored_V = stored_V
        # reused by every refresh: fresh n × M arrays cost page faults each time
        self._workspace = chunk_workspace(self.stored_V)
        self.E = np.empty_like(self.stored_V)
        self.refresh()

    @property
    def G(self) -> np.ndarray:
        """``τ̃ / (1 + τ̃ d₀)``: the site precisions seen through the FITC residual."""
        return self.tau / (1.0 + self.tau * self.prior.d0)

    def refresh(self) -> None:
        prior, V = self.prior, self.stored_V
        M = len(V)
        VGVt, V_t_nu = site_statistics(V, prior.d0, self.tau, self.nu, self._workspace)
        self.chol_B = cholesky_jitter(np.eye(M) + VGVt, what="I + V G Vᵀ")
        u = solve_lower(self.chol_B, V_t_nu)
        self.E, self._mean, self._var = fitc_marginals(
            V, prior.d0, self.tau, self.nu, self.chol_B, u, self.E
        )

    def marginals(self) -> tuple[np.ndarray, np.ndarray]:
        return self._mean, self._var

    def log_det(self) -> float:
        """``log|I + K_FITC T̃| = Σ log(1 + τ̃ d₀) + log|B|`` (algorithms.md §5.5)."""
        return float(np.sum(np.log1p(self.tau * self.prior.d0))) + (
            log_det_from_cholesky(self.chol_B)
        )

    def sequential_sweep(self, order: np.ndarray, site_update: SiteUpdate) -> None:
        """[NGH07]'s EP: each site an O(M²) update of the structured posterior."""
        structured = StructuredFITCPosterior(self.prior, self.tau, self.nu)
        for i in order:
            structured.visit_site(i, site_update)
        self.tau, self.nu = structured.tau, structured.nu


class StructuredFITCPosterior:
    """[NGH07]'s structured form ``A = D + P F Fᵀ Pᵀ``, ``h = ν_D + P γ`` (algorithms.md §5.2).

    Written in the whitened coordinates of ``V`` (``P = diag(t) Vᵀ``), so that after
    a rebuild ``F = L_B⁻ᵀ``. The marginal of one point and a site update cost O(M²).

    Parameters
    ----------
    prior : FITCPrior
    tau, nu : ndarray of shape (n,)
    """

    def __init__(self, prior: FITCPrior, tau: np.ndarray, nu: np.ndarray) -> None:
        self.prior = prior
        self.tau = np.array(tau, dtype=float)
        self.nu = np.array(nu, dtype=float)
        self.rebuild()

    def rebuild(self) -> None:
        """Recompute the structure from the sites (algorithms.md §5.3), O(n·M²)."""
        posterior = FITCPosterior(self.prior, self.tau, self.nu)
        t = 1.0 / (1.0 + self.tau * self.prior.d0)
        self.d = self.prior.d0 * t
        self.P = np.asfortranarray(t[:, None] * self.prior.V.T)
        eye = np.eye(self.prior.n_inducing)
        self.F = np.asfortranarray(solve_lower_transpose(posterior.chol_B, eye))
        self.nu_D = self.d * self.nu
        self.gamma = self.F @ (posterior.E @ (t * self.nu))

    def visit_site(self, i: int, site_update: SiteUpdate) -> None:
        """Replace site ``i`` by ``site_update(i, mean_i, var_i, tau_i, nu_i)``, O(M²).

        The marginal handed to ``site_update`` and the update share one product
        ``Fᵀ p_i``: sequential EP's inner step.
        """
        p = self.P[i]
        a = self.F.T @ p
        mean_i = float(self.nu_D[i] + p @ self.gamma)
        var_i = float(self.d[i] + a @ a)
        tau_i, nu_i = site_update(
            i, mean_i, var_i, float(self.tau[i]), float(self.nu[i])
        )
        self._apply_site(i, a, mean_i, tau_i, nu_i)

    def update_site(self, i: int, tau_i: float, nu_i: float) -> None:
        """Set site ``i`` to ``(tau_i, nu_i)`` and update the structure in O(M²)."""
        mean_i = float(self.nu_D[i] + self.P[i] @ self.gamma)
        self._apply_site(i, self.F.T @ self.P[i], mean_i, tau_i, nu_i)

    def _apply_site(
        self, i: int, a: np.ndarray, h_i: float, tau_i: float, nu_i: float
    ) -> None:
        """algorithms.md §5.4 with [NGH07]'s ``ν`` typo fixed; ``a = Fᵀ p_i``, ``h_i``.

        ``F Fᵀ − c x xᵀ`` with ``x = F a`` equals ``F (I − c a aᵀ) Fᵀ``, and
        ``I − c a aᵀ = (I − β a aᵀ)²`` for ``β = c / (1 + √(1 − c‖a‖²))``. Falls back
        to a full rebuild if round-off makes a denominator non-positive.
        """
        x = self.F @ a
        s = float(a @ a)
        d_i = float(self.d[i])
        pi, delta = tau_i - float(self.tau[i]), nu_i - float(self.nu[i])
        self.tau[i], self.nu[i] = tau_i, nu_i
        precision_ratio = 1.0 + pi * (d_i + s)
        tau_1 = 1.0 + pi * d_i
        c = pi / precision_ratio
        shrink = 1.0 - c * s
        if precision_ratio <= 0.0 or tau_1 <= 0.0 or shrink <= 0.0:
            self.rebuild()
            return
        beta = c / (1.0 + math.sqrt(shrink))
        self.F = blas.dger(-beta, x, a, a=self.F, overwrite_a=True)
        self.gamma += ((delta - pi * h_i) / tau_1 * shrink) * x
        self.d[i] = d_i / tau_1
        self.P[i] /= tau_1
        self.nu_D[i] = d_i / tau_1 * nu_i


@dataclass(frozen=True)
class EvidenceSensitivities:
    """``log Z_EP`` as a linear function of the kernel blocks' perturbations.

    At the EP fixed point, ``d log Z_EP = ⟨dK_uf, kernel_uf⟩ − ⟨dK_uu, kernel_uu⟩
    + ⟨d diag K_ff, kernel_diag⟩`` (algorithms.md §5.6, ``F′``, ``H′``, ``c``), and
    ``∂ log Z_EP/∂b = bias``.
    """

    kernel_uf: np.ndarray
    kernel_uu: np.ndarray
    kernel_diag: np.ndarray
    bias: float


@dataclass(frozen=True)
class PointSensitivities:
    """The per-point factors of the evidence gradient (algorithms.md §5.6).

    For a set of training points (all of them, or a block of rows): ``G``,
    ``E = L_B⁻¹ V`` (as the posterior holds it), ``ω = ν̃ − τ̃ ⊙ μ`` and ``c``.
    """

    G: np.ndarray
    E: np.ndarray
    omega: np.ndarray
    c: np.ndarray


def point_sensitivities(
    E: np.ndarray,
    d0: np.ndarray,
    tau: np.ndarray,
    nu: np.ndarray,
    mean: np.ndarray,
) -> PointSensitivities:
    """:class:`PointSensitivities` of points with ``E = L_B⁻¹ V``, ``d₀``, sites and
    posterior means: O(n·M). ``diag B = G − G²‖E_i‖²`` (algorithms.md §5.6)."""
    G = tau / (1.0 + tau * d0)
    omega = nu - tau * mean
    E_norms = np.einsum("ij,ij->j", E, E, dtype=float)
    c = 0.5 * (omega**2 - G + G**2 * E_norms)
    return PointSensitivities(G, E, omega, c)


def inducing_sensitivities(
    chol_B: np.ndarray,
    chol_uu: np.ndarray,
    w_omega: np.ndarray,
    V_c_Vt: np.ndarray,
) -> np.ndarray:
    """The sensitivity ``H′`` to ``K_uu`` (algorithms.md §5.6).

    M × M work from ``L_B``, ``L_u``, ``w_ω`` and ``V diag(c) Vᵀ`` (sums over the
    training points): ``V diag(G) Vᵀ = L_B L_Bᵀ − I`` and, with
    ``E_G = L_B⁻¹ V diag(G)``, ``V E_Gᵀ = L_B − L_B⁻ᵀ``.
    """
    M = len(chol_B)
    WE = solve_lower_transpose(
        chol_uu, chol_B - solve_lower_transpose(chol_B, np.eye(M))
    )
    inner_uu = 0.5 * (chol_B @ chol_B.T - np.eye(M)) + V_c_Vt
    kernel_uu = (
        0.5 * np.outer(w_omega, w_omega)
        - solve_lower_transpose(chol_uu, solve_lower_transpose(chol_uu, inner_uu.T).T)
        + 0.5 * (WE @ WE.T)
    )
    return 0.5 * (kernel_uu + kernel_uu.T)


def cross_sensitivity(
    V: np.ndarray,
    parts: PointSensitivities,
    chol_B: np.ndarray,
    chol_uu: np.ndarray,
    w_omega: np.ndarray,
    inverses: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """The sensitivity ``F′ = w_ω ωᵀ − L_u⁻ᵀ (L_B⁻ᵀ E diag(G) + 2 V diag(c))`` to
    ``K_uf`` of the points of ``V`` and ``parts`` (M × points, float64; algorithms.md
    §5.6).

    Two triangular products, 2·n·M² flops, in the precision of ``E`` and ``V`` (float32
    inside the optimizer, whose rounding is far below the error the evaluation's EP
    tolerance leaves in the gradient); ``inverses``, ``(L_B⁻¹, L_u⁻¹)`` if already
    computed (row blocks share them).
    """
    inverse_B, inverse_uu = (None, None) if inverses is None else inverses
    inner = solve_lower_wide(chol_B, parts.E, trans=True, inverse=inverse_B)
    inner *= parts.G.astype(inner.dtype)
    inner += V * (2.0 * parts.c).astype(V.dtype)
    product = solve_lower_wide(
        chol_uu, inner, trans=True, out=inner, inverse=inverse_uu
    )
    kernel_uf = np.outer(w_omega, parts.omega)
    kernel_uf -= product
    return kernel_uf


def fitc_ep_sensitivities(
    state: EPState, y: np.ndarray, likelihood: Likelihood
) -> EvidenceSensitivities:
    """The matrices ``F′``, ``H′`` and ``c`` of algorithms.md §5.6, in O(n·M²), and
    the bias's gradient (:func:`posterior_sensitivities` of the state's posterior)."""
    posterior = posterior_of(state, FITCPosterior)
    kernel_uf, kernel_uu, kernel_diag = posterior_sensitivities(posterior, state.mean)
    return EvidenceSensitivities(
        kernel_uf=kernel_uf,
        kernel_uu=kernel_uu,
        kernel_diag=kernel_diag,
        bias=cavity_gradient(state, y, likelihood),
    )


def posterior_sensitivities(
    posterior: FITCPosterior, mean: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``F′``, ``H′`` and ``c`` (algorithms.md §5.6) of a posterior at its sites,
    whose means are ``mean``: the log evidence's sensitivities to the kernel blocks.

    Generic form ``∂log Z = ½ ωᵀ ∂K ω − ½ tr(B ∂K)`` ([RW06] eq. 5.27) with
    ``K = K_FITC``, ``ω = ν̃ − T̃ h``, ``B = (K_FITC + T̃⁻¹)⁻¹``, pushed through
    ``K_FITC = Wᵀ K_uf + diag(k − diag Q_ff)``-style chain rules with
    ``W = K_uu⁻¹ K_uf = L_u⁻ᵀ V``. The sites are held fixed (EP fixed point).
    With ``E = L_B⁻¹ V`` from the posterior, ``W B = L_u⁻ᵀ L_B⁻ᵀ E diag(G)``: only
    ``V diag(c) Vᵀ`` (:func:`~sparsegp._linalg.weighted_gram`, n·M² flops and a
    little: ``c < 0`` at most points) and the two triangular products of
    :func:`cross_sensitivity` (2·n·M²) touch all points, in the precision of the
    posterior's refresh (:class:`FITCPosterior`'s ``store_dtype``).
    """
    prior = posterior.prior
    parts = point_sensitivities(
        posterior.E, prior.d0, posterior.tau, posterior.nu, mean
    )
    w_omega = solve_lower_transpose(prior.chol_uu, prior.V @ parts.omega)
    kernel_uu = inducing_sensitivities(
        posterior.chol_B,
        prior.chol_uu,
        w_omega,
        weighted_gram(posterior.stored_V, parts.c),
    )
    kernel_uf = cross_sensitivity(
        posterior.stored_V, parts, posterior.chol_B, prior.chol_uu, w_omega
    )
    return kernel_uf, kernel_uu, parts.c


@dataclass(frozen=True)
class FITCKernelBlocks:
    """``K_uu``, ``K_uf`` and ``k(x, x)`` of a stationary kernel, kept for the gradient.

    Attributes
    ----------
    inducing : CrossCovariance
        ``K(X̄, X̄)``.
    cross : CrossCovariance
        ``K(X̄, X)``.
    diagonal : CrossCovariance
        ``k(x, x)`` (one value: the kernel is stationary).
    n : int
        Number of training inputs.
    """

    inducing: CrossCovariance
    cross: CrossCovariance
    diagonal: CrossCovariance
    n: int

    @classmethod
    def from_kernel(
        cls, kernel: Kernel, Z: np.ndarray, X: np.ndarray
    ) -> FITCKernelBlocks:
        """Evaluate the blocks at pseudo-inputs ``Z`` and training inputs ``X``."""
        return cls(
            inducing=CrossCovariance(kernel, Z),
            cross=CrossCovariance(kernel, Z, X),
            diagonal=CrossCovariance(kernel, X[:1]),
            n=len(X),
        )

    def prior(self, jitter: float, latent_noise: float = 0.0) -> FITCPrior:
        """The FITC prior of these blocks with ``ε_u = jitter``, a variance
        ``latent_noise`` added to every training latent's."""
        k_diag = np.full(self.n, self.diagonal.value[0, 0] + latent_noise)
        prior = FITCPrior.from_kernel(
            self.inducing.value, self.cross.value, k_diag, jitter
        )
        return replace(prior, derivatives=self)

    def gradient(
        self, kernel_uf: np.ndarray, kernel_uu: np.ndarray, kernel_diag: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The sensitivities ``F′``, ``H′``, ``c`` (algorithms.md §5.6) contracted with
        these blocks' derivatives: the gradient in ``θ`` and in ``X̄`` (M, D),
        O(n·M·D), no ``(n, M, D)`` array."""
        theta_uf, inducing_uf = self.cross.gradients(kernel_uf)
        theta_uu, inducing_uu = self.inducing.gradients(kernel_uu)
        theta_diag, _ = self.diagonal.gradients(np.array([[np.sum(kernel_diag)]]))
        return theta_uf - theta_uu + theta_diag, inducing_uf - 2.0 * inducing_uu


def prior_derivatives(prior: FITCPrior) -> FITCKernelBlocks:
    """The kernel blocks ``prior`` was built from, or a ``ValueError`` where it was
    built without them (an engine made with ``differentiable=False``)."""
    if prior.derivatives is None:
        raise ValueError(
            "This posterior's prior was built without kernel derivatives: make the "
            "engine with differentiable=True to take the evidence gradient."
        )
    return prior.derivatives


def fitc_ep_gradient(
    state: EPState, y: np.ndarray, likelihood: Likelihood, blocks: FITCKernelBlocks
) -> tuple[np.ndarray, float, np.ndarray]:
    """Gradient of the FITC-EP ``log Z`` in ``(θ, b, X̄)`` (algorithms.md §5.6).

    Returns
    -------
    grad_theta : ndarray of shape (len(kernel.theta),)
    grad_bias : float
    grad_inducing : ndarray of shape (M, D)
    """
    sens = fitc_ep_sensitivities(state, y, likelihood)
    grad_theta, grad_inducing = blocks.gradient(
        sens.kernel_uf, sens.kernel_uu, sens.kernel_diag
    )
    return grad_theta, sens.bias, grad_inducing


def inducing_point_predictor(
    chol_uu: np.ndarray, chol_B: np.ndarray, weights: np.ndarray
) -> Predictor:
    """FITC's (and VFE's) predictor, O(M²) memory ([NGH07] §3.1; algorithms.md §5.7).

    Mean ``k_uᵀŵ``; variance ``k** − ‖a‖² + ‖L_B⁻¹a‖²`` with ``a = L_u⁻¹k_u``, that is
    ``W = B⁻¹ − I`` whitened by ``L_u`` (entries in [−1, 0]).
    """
    inverse = inverse_lower(chol_B)
    inner = inverse.T @ inverse
    inner[np.diag_indices_from(inner)] -= 1.0
    return Predictor(weights=weights, chol=chol_uu, inner=inner)


def fitc_weights(posterior: FITCPosterior) -> np.ndarray:
    """``ŵ = L_u⁻ᵀ L_B⁻ᵀ L_B⁻¹ V (ν̃ ⊙ t)`` of a refreshed posterior: the predictive
    mean is ``k_u(x)ᵀŵ``."""
    t = 1.0 / (1.0 + posterior.tau * posterior.prior.d0)
    inner = posterior.E @ (posterior.nu * t)
    return solve_lower_transpose(
        posterior.prior.chol_uu, solve_lower_transpose(posterior.chol_B, inner)
    )


def fitc_predictor(state: EPState) -> Predictor:
    """The predictor of an EP state on a :class:`FITCPosterior`."""
    posterior = posterior_of(state, FITCPosterior)
    return inducing_point_predictor(
        posterior.prior.chol_uu, posterior.chol_B, fitc_weights(posterior)
    )


class InMemoryFITC:
    """FITC-EP's posterior, evidence gradient and predictor on data held in memory.

    What :class:`~sparsegp.estimators.FITCGPClassifier` needs of its training data
    for a kernel and pseudo-inputs; a
    :class:`~sparsegp.approximations.partitioned_fitc.PartitionedFITC` offers the same
    on row blocks kept elsewhere.

    Parameters
    ----------
    X : ndarray of shape (n, D)
    y : ndarray of shape (n,)
        Labels in ``{-1, +1}``.
    jitter : float
        ``ε_u`` ([NGH07] fn. 3).
    differentiable : bool
        Whether gradients will be asked for: the prior is then built from
        :class:`FITCKernelBlocks` (sums and products of constants and RBFs only),
        otherwise from the kernel's own evaluation (any kernel).
    """

    def __init__(
        self, X: np.ndarray, y: np.ndarray, jitter: float, differentiable: bool
    ) -> None:
        self.X = X
        #: The labels, for :func:`~sparsegp.approximations.ep.run_ep`.
        self.labels = y
        self.jitter = jitter
        self.differentiable = differentiable

    def posterior(
        self,
        kernel: Kernel,
        Z: np.ndarray,
        start: WarmStart | None,
        store_dtype: npt.DTypeLike = np.float64,
    ) -> FITCPosterior:
        """The posterior at ``kernel`` and ``Z`` from the sites of ``start`` (None: zero
        sites), its refresh products in ``store_dtype`` (:class:`FITCPosterior`)."""
        prior = self.prior(kernel, Z)
        return FITCPosterior(
            prior,
            *warm_sites(start, len(self.labels), prior.prior_variance),
            store_dtype,
        )

    #: The shape of the likelihood's bias (:meth:`likelihood`): one probit bias.
    bias_shape: tuple[int, ...] = ()

    @staticmethod
    def likelihood(bias: float) -> Likelihood:
        """The likelihood at bias ``b``: the probit ``Φ(y (f + b))``."""
        return Probit(bias)

    def prior(
        self, kernel: Kernel, Z: np.ndarray, latent_noise: float = 0.0
    ) -> FITCPrior:
        """The FITC prior at ``kernel`` and ``Z``, ``latent_noise`` added to the
        training latents' variances; with its kernel blocks' derivatives
        (:attr:`FITCPrior.derivatives`) when differentiable."""
        if self.differentiable:
            blocks = FITCKernelBlocks.from_kernel(kernel, Z, self.X)
            return blocks.prior(self.jitter, latent_noise)
        k_diag = kernel.diag(self.X) + latent_noise
        return FITCPrior.from_kernel(kernel(Z), kernel(Z, self.X), k_diag, self.jitter)

    def gradient(
        self, state: EPState, likelihood: Likelihood
    ) -> tuple[np.ndarray, float, np.ndarray]:
        """:func:`fitc_ep_gradient` at the kernel and ``Z`` of ``state``'s posterior."""
        blocks = prior_derivatives(posterior_of(state, FITCPosterior).prior)
        return fitc_ep_gradient(state, self.labels, likelihood, blocks)

    def predictor(self, state: EPState) -> Predictor:
        return fitc_predictor(state)
