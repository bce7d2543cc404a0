"""FITC-EP's recipe: its row blocks, its initial pseudo-inputs, its memory, a fit.

:class:`~sparsegp.FITCGPClassifier` fits with these; so do the passes over every site
of the IVM, the NLP classifier and the online GP (the FITC posterior on their basis)
and the RVM's basis widths (a FITC model's kernel, algorithms.md §4.5): one recipe,
its defaults in one place.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.gaussian_process.kernels import Kernel
from sklearn.utils import check_random_state

from .._dask import DaskBlocks, current_client, is_dask_array
from .._memory import require_memory
from ..approximations.blocks import LocalBlocks, ThreadBlocks, balanced_row_ranges
from ..approximations.evidence import EvidenceSettings, maximize_evidence
from ..approximations.ivm import select_active_set
from ..approximations.partitioned_fitc import PartitionedFITC, new_block
from ..kernels import KernelBlocks, KernelPerClass, with_length_scale_per_feature
from ..likelihoods import Probit
from .ard import ARD_SCREEN_ITERATIONS, ard_if_it_pays
from .fitted import FittedModel, fitted_model
from .kernel_defaults import default_length_scale, feature_spreads
from .pseudo_inputs import class_shares, kmeans_centres

__all__ = [
    "BLOCK_ROWS",
    "DEFAULT_MAX_INDUCING",
    "FITCRecipe",
    "LEARNT_FITC_DEFAULTS",
    "block_rows",
    "fit_fitc_ep",
    "fitc_approximation",
    "ivm_pseudo_inputs",
    "kmeans_pseudo_inputs",
    "learnt_fitc_model",
    "require_fitc_memory",
    "screened_ard",
]


#: M × N float64 arrays alive at once in a fit with learnt hyperparameters: the cross
#: covariance, V and L_B⁻¹V of the posterior, and the gradient's weights and products.
_MN_ARRAYS = 6

#: M × N float64 arrays per class in a multi-class fit: each class's L_B⁻¹V and the
#: refresh's scaled V (the shared arrays are counted by ``_MN_ARRAYS``).
_MN_ARRAYS_PER_CLASS = 2


#: M × N float64 arrays per further set of pseudo-inputs (a multinomial model with a
#: set per class): its cross covariance and V, kept for the gradient.
_MN_ARRAYS_PER_SET = 2


#: The most rows of a block of an in-memory fit up to ``BLOCK_COUNT · BLOCK_ROWS`` rows:
#: the blocks, and so the model, do not depend on ``n_jobs``, which only sets how many
#: of them are worked on at once.
BLOCK_ROWS = 8192

#: Beyond ``BLOCK_COUNT · BLOCK_ROWS`` rows the blocks grow to keep ``BLOCK_COUNT`` of
#: them, up to ``LARGEST_BLOCK_ROWS`` rows each (:func:`block_rows`): each block's
#: share of a sweep holds the interpreter's lock for its few hundred numpy calls,
#: so fewer blocks let more threads work at once, while the prior's and gradient's
#: M × rows temporaries leave the cache as blocks grow (the ``fitc_workers``
#: benchmark's ``--block-rows`` measures both on many cores; algorithms.md §5.9).
BLOCK_COUNT = 64
LARGEST_BLOCK_ROWS = 32768


def block_rows(n: int) -> int:
    """The most rows of a block of ``n`` rows: :data:`BLOCK_ROWS`, or ``n`` over
    :data:`BLOCK_COUNT` up to :data:`LARGEST_BLOCK_ROWS` where that is more."""
    return min(LARGEST_BLOCK_ROWS, max(BLOCK_ROWS, -(-n // BLOCK_COUNT)))


def fitc_approximation(
    X: Any,
    y: np.ndarray,
    jitter: float,
    owner: str = "FITCGPClassifier",
    pool: Executor | None = None,
    largest: int | None = None,
) -> PartitionedFITC:
    """FITC-EP's :class:`~sparsegp.approximations.evidence.EvidenceApproximation` of
    ±1 labels ``y`` over row blocks of at most ``largest`` rows (default
    :func:`block_rows`; benchmarks measure others), a power of two
    of them (:func:`~sparsegp.approximations.blocks.balanced_row_ranges`): of ``X`` in
    memory, worked on by the thread ``pool`` (one after another without), or of a
    dask array ``X``, rechunked to the same blocks and kept on the workers (``owner``
    names the estimator in the error without a client). The same blocks make the same
    arithmetic, summed in the same order
    (:meth:`~sparsegp.approximations.blocks.Blocks.map_sum`), so a fit on a cluster is
    the in-memory fit bit for bit, and a worker's blocks are as cache-sized as the
    in-memory ones whatever ``X``'s chunks."""
    ranges = balanced_row_ranges(len(y), largest or block_rows(len(y)))
    if not is_dask_array(X):
        blocks = [
            new_block(X[start:stop], y[start:stop], start) for start, stop in ranges
        ]
        executor = LocalBlocks(blocks) if pool is None else ThreadBlocks(blocks, pool)
        return PartitionedFITC(executor, jitter)
    client = current_client(owner)
    X = X.rechunk({0: tuple(stop - start for start, stop in ranges), 1: -1})
    return PartitionedFITC(DaskBlocks.from_rows(client, X, y, new_block), jitter)


def kmeans_pseudo_inputs(
    X: Any, y: np.ndarray, M: int, rng: np.random.RandomState
) -> np.ndarray:
    """``M`` k-means centres of each class of ``y``, the ``M`` shared between the
    classes equally (:func:`~sparsegp.methods.pseudo_inputs.class_shares`): one
    against the rest of ten classes leaves a tenth of the points positive, and
    k-means on all of them would start the positive side with about a tenth of the
    pseudo-inputs (algorithms.md §5.8). k-means on all of ``X`` where a class has
    fewer distinct inputs than its share; fewer than ``M`` centres (every distinct
    input) where ``X`` has fewer."""
    parts = [kmeans_centres(X, rows, k, rng) for rows, k in class_shares(y, M) if k > 0]
    centres = np.concatenate(parts)
    if len(np.unique(centres, axis=0)) == M:  # no class short of distinct inputs
        return centres
    return kmeans_centres(X, np.arange(len(X)), M, rng)


def ivm_pseudo_inputs(
    X: np.ndarray,
    y: np.ndarray,
    kernel: Kernel,
    bias: float,
    M: int,
    rng: np.random.RandomState,
) -> np.ndarray:
    """``M`` initial pseudo-inputs of a binary problem: the active set that greedy
    IVM selection ([LSH02] eqs. 1-4) picks at ``kernel`` and the probit ``bias``."""
    active_set = select_active_set(
        KernelBlocks(kernel, X),
        kernel.diag(X),
        y,
        Probit(bias),
        M,
        rng,
        strategy="greedy",
    )
    return X[active_set.active].copy()


#: The largest ``M`` that ``n_inducing=None`` picks (N/5 below it). A fit costs
#: O(N·M²) per EP sweep and per evidence evaluation; beyond 200 the test error of
#: data sets of 10⁴–10⁵ points barely moves while the time grows as M².
DEFAULT_MAX_INDUCING = 200


def require_fitc_memory(
    n_inducing: int,
    n_samples: int,
    n_latent: int = 1,
    n_sets: int = 1,
    remedy: str | None = None,
) -> None:
    """``MemoryError`` before a FITC fit whose M × n blocks would not fit in memory
    (``n_latent`` latent functions, one per class, on ``n_sets`` sets of ``M``
    pseudo-inputs: one shared, or one per class); ``remedy`` replaces the advice."""
    arrays = _MN_ARRAYS + (_MN_ARRAYS_PER_CLASS * n_latent if n_latent > 1 else 0)
    arrays += _MN_ARRAYS_PER_SET * (n_sets - 1)
    require_memory(
        arrays * 8.0 * n_inducing * n_samples,
        f"FITC's M × n blocks (about {arrays} float64 arrays of {n_inducing} × "
        f"{n_samples})",
        remedy
        or "lower n_inducing (active_set_size for IVMClassifier(posterior='fitc')), "
        "or fit on a subsample",
    )


def screened_ard(
    model: FittedModel,
    fit_start: Callable[..., FittedModel],
    whole_ard_fit: Callable[[FittedModel], FittedModel],
    settings: EvidenceSettings,
    spreads: np.ndarray,
    n_kernels: int = 1,
    screen_start: Callable[..., FittedModel] | None = None,
) -> tuple[FittedModel, list[FittedModel]]:
    """:func:`~sparsegp.methods.ard.ard_if_it_pays` for the FITC-EP ``model`` of inputs whose
    features have standard deviations ``spreads``: the start's evidence at the
    model's pseudo-inputs and the screen's ``ARD_SCREEN_ITERATIONS`` with them held
    (``settings`` otherwise), by ``screen_start(kernel, Z, bias, settings, warn)``
    on the screen's rows (None: ``fit_start``, every row), then where the screen
    pays ``whole_ard_fit(screen)``. Returns the chosen model and the fits made."""
    held = replace(settings, max_iter=ARD_SCREEN_ITERATIONS, learn_inducing=False)
    stages = {"evaluate": replace(held, max_iter=None), "screen": held}
    on_rows = fit_start if screen_start is None else screen_start

    def screen(ard_kernel: Kernel, start: FittedModel, stage: str) -> FittedModel:
        return on_rows(
            ard_kernel, start.points, start.likelihood.bias, stages[stage], False
        )

    return ard_if_it_pays(
        model, screen, whole_ard_fit, spreads, n_kernels, screen_start is not None
    )


@dataclass(frozen=True)
class FITCRecipe:
    """How a FITC-EP fit runs besides its data and starts: the evidence's
    ``settings``, the probit ``bias`` it starts from, ``n_sets`` sets of
    pseudo-inputs (a kernel per class where more than one), whether ``ard="auto"``
    decides (from the features' standard deviations ``spreads``), and
    ``not_converged(n_sweeps)``, called for a whole fit whose EP did not converge."""

    settings: EvidenceSettings
    bias: float = 0.0
    n_sets: int = 1
    ard: bool = False
    spreads: np.ndarray | None = None
    not_converged: Callable[[int], None] | None = None


def fit_fitc_ep(
    data: Any,
    kernel: Kernel,
    starts: list[np.ndarray],
    recipe: FITCRecipe,
    screen_data: Any = None,
) -> FittedModel:
    """FITC-EP ([NGH07]) on ``data`` (an
    :class:`~sparsegp.approximations.evidence.EvidenceApproximation`): L-BFGS-B on the
    EP evidence from ``kernel`` and each of the initial pseudo-inputs ``starts``, the
    best kept; with ``recipe.ard``, the ARD model where :func:`screened_ard` keeps it,
    screened on ``screen_data`` (a subsample's approximation; None: ``data``). The
    model's iterations and sweeps count every fit made."""

    def fit_start(
        on: Any,
        kernel: Kernel,
        Z: np.ndarray,
        bias: Any,
        settings: EvidenceSettings,
        warn: bool = True,
    ) -> FittedModel:
        if recipe.n_sets > 1 and not isinstance(kernel, KernelPerClass):
            kernel = KernelPerClass(  # each class's latent function its own
                [kernel.clone_with_theta(kernel.theta) for _ in range(recipe.n_sets)]
            )
        bias = recipe.bias if bias is None else bias
        bias = np.broadcast_to(np.asarray(bias, dtype=float), on.bias_shape)
        fit = maximize_evidence(on, kernel, Z, bias.copy(), settings)
        if warn and not fit.ep_converged and recipe.not_converged is not None:
            recipe.not_converged(fit.final_sweeps)
        return fitted_model(fit)

    def best_of(kernel: Kernel) -> FittedModel:
        fits = [fit_start(data, kernel, Z, None, recipe.settings) for Z in starts]
        return max(fits, key=lambda model: model.log_marginal_likelihood)

    fits = [fit_start(data, kernel, Z, None, recipe.settings) for Z in starts]
    best = max(fits, key=lambda model: model.log_marginal_likelihood)
    if recipe.ard:  # screened from the isotropic optimum
        assert recipe.spreads is not None  # the recipe's ARD needs the features'
        best, ard_fits = screened_ard(
            best,
            functools.partial(fit_start, data),
            lambda screen: best_of(screen.kernel),
            recipe.settings,
            recipe.spreads,
            recipe.n_sets,
            None if screen_data is None else functools.partial(fit_start, screen_data),
        )
        fits += ard_fits
    return replace(
        best,
        n_iterations=sum(model.n_iterations for model in fits),
        details=best.details
        | {"n_sweeps": sum(model.details["n_sweeps"] for model in fits)},
    )


#: ``FITCGPClassifier``'s defaults for :func:`learnt_fitc_model` (a test holds them to
#: the estimator's): parallel EP's damping, its tolerance and sweeps, the jitter and
#: the amplitude's prior.
LEARNT_FITC_DEFAULTS = dict(
    damping=0.8, tol=1e-3, max_sweeps=100, jitter=1e-6, amplitude_prior=3.0
)


def _learnt_fitc_settings(
    X: np.ndarray, random_state: int, progress: str | None
) -> EvidenceSettings:
    """:data:`LEARNT_FITC_DEFAULTS` as the evidence's settings, the pseudo-inputs
    moved in units of the inputs' spread."""
    options = {
        key: LEARNT_FITC_DEFAULTS[key] for key in ("damping", "tol", "max_sweeps")
    }
    return EvidenceSettings(
        ep_options=dict(mode="parallel", random_state=random_state, **options),
        unit=default_length_scale(X) / np.sqrt(X.shape[1]),
        amplitude_prior=LEARNT_FITC_DEFAULTS["amplitude_prior"],
        progress=progress,
    )


def learnt_fitc_model(
    X: np.ndarray,
    y: np.ndarray,
    kernel: Kernel,
    n_inducing: int,
    random_state: int,
    pool: Executor | None = None,
    ard: bool | str = "auto",
    progress: str | None = None,
    not_converged: Callable[[int], None] | None = None,
) -> FittedModel:
    """FITC-EP of ±1 labels ``y`` fitted as ``FITCGPClassifier(kernel, ard=ard,
    n_inducing=n_inducing)`` fits a binary problem from the seed ``random_state``
    (the one it draws for the problem), with its other defaults: from
    ``kernel`` (a length-scale per feature for ``ard=True``; for ``"auto"`` the ARD
    model where :func:`screened_ard` keeps it, its record in ``details``), k-means
    pseudo-inputs, the kernel, the bias and the pseudo-inputs learnt by the EP
    evidence (:func:`fit_fitc_ep`), row blocks on the thread ``pool``; ``progress``
    labels a bar over the optimizer's iterations, ``not_converged(n_sweeps)`` is
    called for a whole fit whose EP did not converge. For a method that takes its
    kernel from a GP's evidence (the RVM's basis, algorithms.md §4.5), which checks
    its memory first (:func:`require_fitc_memory`)."""
    n_features = X.shape[1]
    auto = isinstance(ard, str)
    if not auto and ard:
        kernel = with_length_scale_per_feature(kernel, n_features)
    M = min(n_inducing, len(X))
    recipe = FITCRecipe(
        _learnt_fitc_settings(X, random_state, progress),
        ard=auto and n_features > 1,
        spreads=feature_spreads(X),
        not_converged=not_converged,
    )
    data = fitc_approximation(X, y, LEARNT_FITC_DEFAULTS["jitter"], pool=pool)
    Z0 = kmeans_pseudo_inputs(X, y, M, check_random_state(random_state))
    return fit_fitc_ep(data, kernel, [Z0], recipe)
