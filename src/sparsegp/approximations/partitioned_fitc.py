"""FITC-EP over row blocks of the training data: parallel EP where the rows live.

The decomposition is algorithms.md §5.9.

A parallel sweep on the FITC prior needs, beyond per-site work, only sums over the
training points of fixed small size (algorithms.md §5.3, §5.5):
``B = I + Σ_c V_c diag(G_c) V_cᵀ`` (M × M), ``Σ_c V_c (t_c ⊙ ν̃_c)`` (M) and the
evidence's site terms. Each block of rows keeps its inputs, labels, ``V_c = L_u⁻¹ K_uc``,
``d₀``, sites and marginals; a sweep moves O(M²) numbers per worker each way (a
worker sums its blocks': :meth:`~sparsegp.approximations.blocks.Blocks.map_sum`) and
the client factors the M × M matrix. A :class:`~sparsegp.approximations.blocks.Blocks`
runs the per-block work: in this thread, on a thread pool, or on a dask.distributed
cluster (:mod:`sparsegp.approximations.blocks`).

The arithmetic is :class:`~sparsegp.approximations.fitc_ep.FITCPosterior`'s and
:func:`~sparsegp.approximations.fitc_ep.fitc_ep_sensitivities`'s, summed by blocks;
the evidence gradient in the kernel, bias and pseudo-inputs takes two more rounds of
O(M² + M·D) per block. The sweeps are Anderson-mixed as in memory: each block keeps its
rows of the mixing's history and sends its share of the least squares (memory × memory
numbers), so the sweeps follow the in-memory ones. A sweep takes three gathering rounds
(docs/dask.md): the mixing's shares; the mixed step with the refresh sums at it; the
evidence terms with the site changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt
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
from .._memory import held_bytes
from ..kernels import CrossCovariance, is_input_differentiable
from ..likelihoods import Likelihood
from .blocks import Blocks
from .ep import (
    AndersonMixing,
    EPState,
    SiteUpdate,
    WarmStart,
    carried_sites,
    cavity_gradient_terms,
    parallel_site_update,
    posterior_of,
    site_change,
    site_evidence_terms,
)
from .fitc_ep import (
    InMemoryFITC,
    PointSensitivities,
    cross_sensitivity,
    fitc_marginal_moments,
    inducing_point_predictor,
    inducing_sensitivities,
    point_sensitivities,
    site_statistics,
)
from .predictor import Predictor

__all__ = [
    "FITCBlock",
    "PartitionedFITC",
    "PartitionedFITCPosterior",
    "new_block",
]


def _unset() -> np.ndarray:
    return np.zeros(0)


@dataclass(frozen=True)
class FITCBlock:
    """One block of training rows and its share of the FITC-EP state.

    ``V`` (M × rows), ``V_sweep`` (``V`` in the precision of the EP sweeps), ``d0``,
    the sites and marginals are set (empty until then) by the block functions below,
    which return a new block rather than change one — but for the memory of ``V``
    and ``V_sweep``, which a new prior overwrites (the block of the old prior is
    dropped then; fresh arrays of that size cost page faults at every evaluation).
    The refreshes work through ``V_sweep`` in cache-sized pieces
    (:func:`~sparsegp.approximations.fitc_ep.column_chunks`), each a temporary the
    allocator recycles: a workspace kept per block held 4 MiB a block for no speed
    (n = 4·10⁵, M = 200: peak 4.24 → 3.98 GB, fit time not longer).
    ``sensitivities`` holds the block's gradient factors between the two
    rounds of :meth:`PartitionedFITC.gradient`, ``cross`` its kernel block ``K_uc``
    with what its gradients reuse; ``updates`` and ``residuals`` its share of the
    Anderson mixing's history (:func:`_with_anderson_history`).
    """

    X: np.ndarray
    y: np.ndarray
    first: int = 0
    V: np.ndarray = field(default_factory=_unset)
    V_sweep: np.ndarray = field(default_factory=_unset)
    d0: np.ndarray = field(default_factory=_unset)
    tau: np.ndarray = field(default_factory=_unset)
    nu: np.ndarray = field(default_factory=_unset)
    mean: np.ndarray = field(default_factory=_unset)
    var: np.ndarray = field(default_factory=_unset)
    old_tau: np.ndarray = field(default_factory=_unset)
    old_nu: np.ndarray = field(default_factory=_unset)
    saved_tau: np.ndarray = field(default_factory=_unset)
    saved_nu: np.ndarray = field(default_factory=_unset)
    saved_mean: np.ndarray = field(default_factory=_unset)
    saved_var: np.ndarray = field(default_factory=_unset)
    updates: tuple[np.ndarray, ...] = ()
    residuals: tuple[np.ndarray, ...] = ()
    sensitivities: PointSensitivities | None = None
    cross: CrossCovariance | None = None

    def __sizeof__(self) -> int:
        return object.__sizeof__(self) + held_bytes(self)  # what dask moves


def new_block(X: np.ndarray, y: np.ndarray, first: int = 0) -> FITCBlock:
    """A block of inputs and ±1 labels (rows ``first, first + 1, …``), no prior yet."""
    return FITCBlock(np.asarray(X, dtype=float), np.asarray(y, dtype=float), first)


def _with_prior(
    block: FITCBlock,
    kernel: Kernel,
    Z: np.ndarray,
    chol_uu: np.ndarray,
    store_dtype: npt.DTypeLike,
    inverse_uu: np.ndarray | None = None,
) -> tuple[FITCBlock, tuple[float, int]]:
    """The block's ``V_c``, ``d₀`` ([NGH07] eqs. 1-3) and zero sites; the sweeps use
    ``V_c`` in ``store_dtype``. Also the block's sum of prior variances ``Σ k(x, x)``
    and its number of rows. A kernel FITC can differentiate is evaluated by
    :class:`~sparsegp.kernels.CrossCovariance`, kept for the gradient's second round
    (:func:`_cross_gradient`), as in memory. The old prior's ``V`` and ``V_sweep``
    receive the new ones (fewer page faults per prior, algorithms.md §0.6)."""
    shape = (len(Z), len(block.y))
    old_V = block.V if block.V.shape == shape else None
    old_sweep = block.V_sweep
    if is_input_differentiable(kernel):
        cross = CrossCovariance(kernel, Z, block.X)
        K = cross.value
    else:
        cross, K = None, kernel(Z, block.X)
    V = solve_lower_wide(chol_uu, K, inverse=inverse_uu, out=old_V)
    k_diag = kernel.diag(block.X)
    d0 = np.maximum(k_diag - np.einsum("ij,ij->j", V, V), 0.0)
    if np.dtype(store_dtype) == V.dtype:
        V_sweep = V
    elif (
        old_sweep.shape == shape
        and old_sweep.dtype == store_dtype
        and old_sweep is not V
    ):
        V_sweep = old_sweep
        np.copyto(V_sweep, V)
    else:
        V_sweep = V.astype(store_dtype)
    zeros = np.zeros(len(block.y))
    block = replace(
        block,
        cross=cross,
        V=V,
        V_sweep=V_sweep,
        d0=d0,
        tau=zeros,
        nu=zeros,
        old_tau=_unset(),
        old_nu=_unset(),
    )
    return block, (float(np.sum(k_diag)), len(k_diag))


def _save_sites(block: FITCBlock) -> FITCBlock:
    return replace(
        block,
        saved_tau=block.tau,
        saved_nu=block.nu,
        saved_mean=block.mean,
        saved_var=block.var,
    )


def _with_carried_sites(
    block: FITCBlock, likelihood: Likelihood, scale: float
) -> FITCBlock:
    """The saved sites carried to the new prior's scale and likelihood
    (:func:`~sparsegp.approximations.ep.carried_sites`)."""
    tau, nu = carried_sites(
        block.y,
        likelihood,
        block.saved_tau,
        block.saved_nu,
        block.saved_mean,
        block.saved_var,
        scale,
    )
    return replace(block, tau=tau, nu=nu)


def _refresh_statistics(block: FITCBlock) -> tuple[np.ndarray, np.ndarray, float]:
    """``V_c diag(G_c) V_cᵀ``, ``V_c (t_c ⊙ ν̃_c)`` and ``Σ log(1 + τ̃ d₀)`` of a block."""
    VGVt, V_t_nu = site_statistics(block.V_sweep, block.d0, block.tau, block.nu)
    return VGVt, V_t_nu, float(np.sum(np.log1p(block.tau * block.d0)))


def _with_marginals(
    block: FITCBlock, chol_B: np.ndarray, u: np.ndarray, inverse_B: np.ndarray
) -> FITCBlock:
    """Marginals from ``L_B`` (and its inverse) and ``u = L_B⁻¹ V (t ⊙ ν̃)``
    (algorithms.md §5.3)."""
    mean, var = fitc_marginal_moments(
        block.V_sweep, block.d0, block.tau, block.nu, chol_B, u, inverse_B
    )
    return replace(block, mean=mean, var=var)


def _with_marginals_and_evidence(
    block: FITCBlock,
    chol_B: np.ndarray,
    u: np.ndarray,
    inverse_B: np.ndarray,
    likelihood: Likelihood,
) -> tuple[FITCBlock, tuple[float, float]]:
    """:func:`_with_marginals`, then :func:`_evidence_and_change` at them: a sweep's
    refresh and its evidence in one round."""
    block = _with_marginals(block, chol_B, u, inverse_B)
    return block, _evidence_and_change(block, likelihood)


def _with_anderson_history(
    block: FITCBlock, likelihood: Likelihood, damping: float, memory: int, reset: bool
) -> tuple[FITCBlock, tuple[np.ndarray, np.ndarray]]:
    """The damped moment-matched sites (``g(s)``) and the block's share of
    :class:`~sparsegp.approximations.ep.AndersonMixing`'s least squares
    ``min ‖ΔF γ − f‖``: with ``ΔF_c = Q_c R_c`` (QR of the block's rows of the residual
    differences) and ``f_c`` its rows of the last residual, ``R_c`` and ``Q_cᵀ f_c``;
    the whole problem is the least squares of these stacked over blocks. The block
    remembers the sites the sweep started from (:func:`_evidence_and_change`)."""
    tau, nu = parallel_site_update(
        block.y, likelihood, block.tau, block.nu, block.mean, block.var, damping
    )
    update = np.concatenate([tau, nu])
    residual = AndersonMixing.residual(np.concatenate([block.tau, block.nu]), update)
    first = len(block.updates) if reset else max(0, len(block.updates) - memory)
    updates = (*block.updates[first:], update)
    residuals = (*block.residuals[first:], residual)
    Q, R = np.linalg.qr(np.diff(np.array(residuals), axis=0).T)
    block = replace(
        block,
        tau=tau,
        nu=nu,
        old_tau=block.tau,
        old_nu=block.nu,
        updates=updates,
        residuals=residuals,
    )
    return block, (R, matvec(Q.T, residuals[-1]))


def _with_mixed_sites(
    block: FITCBlock, gamma: np.ndarray
) -> tuple[FITCBlock, tuple[np.ndarray, np.ndarray, float] | None]:
    """Sites ``g(s_k) − ΔG γ`` (Anderson's mixed step) and the block's refresh
    statistics at them, in one round; None instead of the statistics where the step
    is not finite with non-negative precisions (the sweep then rejects it)."""
    n = len(block.y)
    mixed, proper = AndersonMixing.mixed(block.updates, gamma, n)
    block = replace(block, tau=mixed[:n], nu=mixed[n:])
    return block, _refresh_statistics(block) if proper else None


def _with_unmixed_sites(block: FITCBlock) -> FITCBlock:
    """``g(s_k)`` instead of a rejected mixed step; the history restarts from it."""
    update = block.updates[-1]
    n = len(block.y)
    return replace(
        block,
        tau=update[:n],
        nu=update[n:],
        updates=block.updates[-1:],
        residuals=block.residuals[-1:],
    )


def _evidence_and_change(
    block: FITCBlock, likelihood: Likelihood
) -> tuple[float, float]:
    """The block's evidence site terms and the change of its sites since the sweep
    began (infinite before the first sweep)."""
    terms = site_evidence_terms(
        block.tau, block.nu, block.mean, block.var, block.y, likelihood
    )
    if len(block.old_tau) == 0:
        return terms, np.inf
    return terms, site_change(block.tau, block.nu, block.old_tau, block.old_nu)


def _marginals(block: FITCBlock) -> tuple[np.ndarray, np.ndarray]:
    return block.mean, block.var


def _site_arrays(block: FITCBlock) -> tuple[np.ndarray, np.ndarray]:
    return block.tau, block.nu


def _gathered(
    parts: list[tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """The blocks' pairs of row arrays, each concatenated in row order."""
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


class PartitionedFITCPosterior:
    """The EP posterior on the FITC prior, its rows in :class:`Blocks` (parallel EP).

    Implements :class:`~sparsegp.approximations.ep.SitePosterior` for
    :func:`~sparsegp.approximations.ep.run_ep` with ``y=None`` and
    ``mode="parallel"``: the labels live in the blocks.

    Parameters
    ----------
    blocks : Blocks
        Blocks holding a prior and sites (:meth:`PartitionedFITC.posterior`).
    chol_uu : ndarray of shape (M, M)
        ``L_u``, the Cholesky factor of ``K_uu + ε_u I``.
    prior_variance : float
        The mean of ``k(x, x)`` over the blocks' rows.
    inverse_uu : ndarray of shape (M, M), optional
        ``L_u⁻¹`` if already computed (the blocks' priors used it).
    at : (kernel, ndarray of shape (M, D)), optional
        The kernel and pseudo-inputs of the blocks' priors, for the evidence gradient.
    """

    #: :meth:`checkpoint` saves the sites in the blocks: only the latest is kept.
    checkpoint_is_value = False

    def __init__(
        self,
        blocks: Blocks,
        chol_uu: np.ndarray,
        prior_variance: float,
        inverse_uu: np.ndarray | None = None,
        at: tuple[Kernel, np.ndarray] | None = None,
    ) -> None:
        self.blocks = blocks
        self.chol_uu = chol_uu
        self.inverse_uu = inverse_lower(chol_uu) if inverse_uu is None else inverse_uu
        self.prior_variance = prior_variance
        self.at = at
        self._mixing: AndersonMixing | None = None
        # Refresh statistics at the current sites, where the mixed step's round
        # already made them; the sites' change in the last sweep, from evidence().
        self._statistics: tuple | None = None
        self._change: float | None = None
        # The likelihood of the sweep under way, and the blocks' evidence terms and
        # changes its refresh gathered at it (evidence() then needs no round).
        self._likelihood: Likelihood | None = None
        self._evidence: tuple[Likelihood, list] | None = None
        self.refresh()

    def refresh(self) -> None:
        """Sum the blocks' M × M statistics, factor ``B``, send ``L_B`` back."""
        statistics = self._statistics or self.blocks.map_sum(_refresh_statistics)
        self._statistics, self._change = None, None
        VGVt, V_t_nu, log_det_sites = statistics
        self.chol_B = cholesky_jitter(
            np.eye(len(self.chol_uu)) + VGVt, what="I + V G Vᵀ"
        )
        self.u = solve_lower(self.chol_B, V_t_nu)
        self._log_det = log_det_sites + log_det_from_cholesky(self.chol_B)
        self.inverse_B = inverse_lower(self.chol_B)  # shared by the blocks' products
        arguments = (self.chol_B, self.u, self.inverse_B)
        likelihood, self._likelihood, self._evidence = self._likelihood, None, None
        if likelihood is None:
            self.blocks.update(_with_marginals, *arguments)
        else:  # a sweep's refresh: its evidence in the same round
            parts = self.blocks.update_and_map(
                _with_marginals_and_evidence, *arguments, likelihood
            )
            self._evidence = (likelihood, parts)

    def marginals(self) -> tuple[np.ndarray, np.ndarray]:
        """All blocks' marginals, gathered (O(n) numbers: once, at the end of EP)."""
        return _gathered(self.blocks.map(_marginals))

    def site_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """All blocks' sites, gathered (O(n) numbers)."""
        return _gathered(self.blocks.map(_site_arrays))

    def log_det(self) -> float:
        """``Σ log(1 + τ̃ d₀) + log|B|`` (algorithms.md §5.5)."""
        return self._log_det

    def sites(self) -> None:
        """Nothing to copy: each block remembers its sites as a sweep starts
        (:func:`_with_anderson_history`)."""

    def checkpoint(self) -> str:
        """Each block saves its sites and marginals; a warm
        :meth:`PartitionedFITC.posterior` starts from them."""
        self.blocks.update(_save_sites)
        return "saved in the blocks"

    def parallel_update(
        self,
        y: np.ndarray | None,
        likelihood: Likelihood,
        damping: float,
        anderson: AndersonMixing,
    ) -> None:
        """Damped moment matching in every block, then Anderson-mixed as
        :class:`~sparsegp.approximations.ep.AndersonMixing` mixes sites in memory
        (``anderson`` gives the memory; a new one restarts the history; ``y`` unused).

        The least squares ``ΔF γ ≈ f`` is solved from the blocks' stacked QR factors
        (:func:`_with_anderson_history`): a memory × memory message per block, and
        ``ΔF``'s conditioning is not squared as by normal equations.
        """
        reset = anderson is not self._mixing
        self._mixing = anderson
        self._likelihood, self._evidence = likelihood, None  # for the sweep's refresh
        shares = self.blocks.update_and_map(
            _with_anderson_history, likelihood, damping, anderson.memory, reset
        )
        if shares[0][0].shape[1] == 0:  # one residual so far: nothing to mix
            return
        gamma = np.linalg.lstsq(
            np.vstack([R for R, _ in shares]),
            np.concatenate([projected for _, projected in shares]),
            rcond=None,
        )[0]
        statistics = self.blocks.update_and_sum(_with_mixed_sites, gamma)
        if statistics is not None:
            self._statistics = statistics
        else:
            self.blocks.update(_with_unmixed_sites)

    def evidence(self, y: np.ndarray | None, likelihood: Likelihood) -> float:
        """The EP log evidence with the sites' change in the last sweep (for
        :meth:`change_since`; ``y`` unused): gathered by the sweep's refresh, or in a
        round of its own before the first sweep."""
        if self._evidence is not None and self._evidence[0] is likelihood:
            parts = self._evidence[1]
        else:
            parts = self.blocks.map(_evidence_and_change, likelihood)
        self._change = max(change for _, change in parts)
        return sum(terms for terms, _ in parts) - 0.5 * self._log_det

    def change_since(self, sites: object) -> float:
        """The sites' largest change in the last sweep, as :meth:`evidence` gathered
        it (``sites`` unused: the blocks remember theirs)."""
        assert self._change is not None, "evidence() after the refresh first"
        return self._change

    def sequential_sweep(self, order: np.ndarray, site_update: SiteUpdate) -> None:
        raise ValueError("FITC-EP over row blocks runs parallel sweeps only.")

    def predictor(self) -> Predictor:
        """The fitted predictor: ``ŵ = L_u⁻ᵀ L_B⁻ᵀ u`` ([NGH07] §3.1)."""
        weights = solve_lower_transpose(
            self.chol_uu, solve_lower_transpose(self.chol_B, self.u)
        )
        return inducing_point_predictor(self.chol_uu, self.chol_B, weights)


def _gradient_sums(
    block: FITCBlock,
    chol_B: np.ndarray,
    likelihood: Likelihood,
    inverse_B: np.ndarray | None = None,
) -> tuple[FITCBlock, tuple[np.ndarray, np.ndarray, float, float]]:
    """The block's gradient factors (kept in the block for :func:`_cross_gradient`),
    and its ``V ω``, ``V diag(c) Vᵀ``, ``Σ c`` and bias gradient."""
    parts = point_sensitivities(
        solve_lower_wide(chol_B, block.V, inverse=inverse_B),
        block.d0,
        block.tau,
        block.nu,
        block.mean,
    )
    bias = cavity_gradient_terms(
        block.tau, block.nu, block.mean, block.var, block.y, likelihood
    )
    sums = (
        matvec(block.V, parts.omega),
        weighted_gram(block.V, parts.c),
        float(np.sum(parts.c)),
        bias,
    )
    return replace(block, sensitivities=parts), sums


def _cross_gradient(
    block: FITCBlock,
    kernel: Kernel,
    Z: np.ndarray,
    chol_B: np.ndarray,
    chol_uu: np.ndarray,
    w_omega: np.ndarray,
    inverses: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[FITCBlock, tuple[np.ndarray, np.ndarray]]:
    """The block's ``∂ log Z`` through ``K_uc``, in θ and in the pseudo-inputs; the
    block's gradient factors are released."""
    assert block.sensitivities is not None, "_gradient_sums first"
    sensitivity = cross_sensitivity(
        block.V, block.sensitivities, chol_B, chol_uu, w_omega, inverses
    )
    cross = (
        block.cross if block.cross is not None else CrossCovariance(kernel, Z, block.X)
    )
    return replace(block, sensitivities=None), cross.gradients(sensitivity)


class PartitionedFITC:
    """FITC-EP's posterior, evidence gradient and predictor on row blocks.

    The counterpart of :class:`~sparsegp.approximations.fitc_ep.InMemoryFITC` for
    :class:`Blocks` built with :func:`new_block`: the same methods, the rows staying
    where the blocks live.
    """

    #: The labels live in the blocks (:func:`~sparsegp.approximations.ep.run_ep`).
    labels = None
    bias_shape: tuple[int, ...] = ()
    likelihood = staticmethod(InMemoryFITC.likelihood)

    def __init__(self, blocks: Blocks, jitter: float) -> None:
        self.blocks = blocks
        self.jitter = jitter
        #: The posterior whose priors the blocks hold (the only one with a gradient).
        self._latest: PartitionedFITCPosterior | None = None

    def close(self) -> None:
        """Free the blocks where they live (:meth:`Blocks.close`): the fit is done."""
        self.blocks.close()

    def posterior(
        self,
        kernel: Kernel,
        Z: np.ndarray,
        start: WarmStart | None,
        store_dtype: npt.DTypeLike = np.float64,
    ) -> PartitionedFITCPosterior:
        """The blocks primed at ``kernel``, ``Z``, from their saved sites carried to
        this prior and ``start``'s likelihood
        (:func:`~sparsegp.approximations.ep.carried_sites`) or from zero sites, their
        sweeps' products in ``store_dtype``
        (:class:`~sparsegp.approximations.fitc_ep.FITCPosterior`)."""
        K_uu = kernel(Z)
        chol_uu = cholesky_jitter(
            K_uu + self.jitter * np.eye(len(K_uu)), what="K_uu at the pseudo-inputs"
        )
        inverse_uu = inverse_lower(chol_uu)
        variance_sum, rows = self.blocks.update_and_sum(
            _with_prior, kernel, Z, chol_uu, store_dtype, inverse_uu
        )
        prior_variance = variance_sum / rows
        if start is not None:
            self.blocks.update(
                _with_carried_sites, start.likelihood, start.scale_to(prior_variance)
            )
        self._latest = PartitionedFITCPosterior(
            self.blocks, chol_uu, prior_variance, inverse_uu, (kernel, Z)
        )
        return self._latest

    def gradient(
        self, state: EPState, likelihood: Likelihood
    ) -> tuple[np.ndarray, float, np.ndarray]:
        """``∂ log Z_EP`` in ``(θ, b, X̄)`` (algorithms.md §5.6), in two rounds."""
        posterior = posterior_of(state, PartitionedFITCPosterior)
        if posterior is not self._latest or posterior.at is None:
            raise ValueError(
                "The blocks hold the priors of a newer posterior than this state's: "
                "the gradient is taken at the latest posterior only."
            )
        kernel, Z = posterior.at
        L_B, L_u = posterior.chol_B, posterior.chol_uu
        inverse_B, inverse_uu = posterior.inverse_B, posterior.inverse_uu
        V_omega, V_c_Vt, c_sum, bias = self.blocks.update_and_sum(
            _gradient_sums, L_B, likelihood, inverse_B
        )
        w_omega = solve_lower_transpose(L_u, V_omega)
        kernel_uu = inducing_sensitivities(L_B, L_u, w_omega, V_c_Vt)
        theta_uu, inducing_uu = CrossCovariance(kernel, Z).gradients(kernel_uu)
        theta_diag, _ = CrossCovariance(kernel, Z[:1]).gradients(np.array([[c_sum]]))
        theta_cross, inducing_cross = self.blocks.update_and_sum(
            _cross_gradient, kernel, Z, L_B, L_u, w_omega, (inverse_B, inverse_uu)
        )
        return (
            theta_cross - theta_uu + theta_diag,
            float(bias),
            inducing_cross - 2.0 * inducing_uu,
        )

    def predictor(self, state: EPState) -> Predictor:
        return posterior_of(state, PartitionedFITCPosterior).predictor()
