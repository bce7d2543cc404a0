"""Sparse GP regression with learnt pseudo-inputs: VFE ([Tit09]) or FITC ([SG06]).

The method over :mod:`~sparsegp.approximations.sparse_regression`'s closed-form
objective: pseudo-inputs started at k-means centres, then kernel, noise and
pseudo-inputs learnt together by L-BFGS-B on the objective and its analytic gradient
(algorithms.md §6.3), the training rows in blocks on threads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.gaussian_process.kernels import Kernel

from .._dask import DaskBlocks, current_client, is_dask_array, rows_of
from .._memory import available_memory, heap_kept
from .._optimize import (
    LogBlock,
    OptimizationResult,
    ParameterSpace,
    inputs_block,
    kernel_block,
    maximize,
)
from ..approximations.blocks import (
    Blocks,
    LocalBlocks,
    ThreadBlocks,
    balanced_row_ranges,
    thread_pool,
)
from ..approximations.sparse_regression import (
    Approximation,
    Bound,
    bound_and_gradient,
    evaluate_bound,
    new_regression_block,
)
from ..kernels import with_length_scale_per_feature
from ..likelihoods import Gaussian
from .fitted import FittedModel
from .kernel_defaults import default_kernel, feature_spreads
from .pseudo_inputs import kmeans_centres

__all__ = ["SparseRegression", "row_blocks"]

#: Rows, pseudo-inputs and L-BFGS-B iterations of the fits that choose among starts
#: (:meth:`SparseRegression._best_start`): they rank the starts' length-scales, and
#: their pseudo-inputs are not kept.
START_ROWS = 3000
START_INDUCING = 100
START_ITERATIONS = 30

#: Rows of a block: its M × rows arrays stay in cache-sized pieces, and two threads
#: get equal shares (:func:`~sparsegp.approximations.blocks.balanced_row_ranges`).
BLOCK_ROWS = 2048

#: The most the row blocks keep between an evaluation's passes (:func:`kept_bytes`):
#: gigabytes of kept blocks made evaluations slower than evaluating them again
#: (algorithms.md §6.3).
KEPT_BYTES = 256 * 2**20

#: The default kernel's starting length-scales, in units of ``default_length_scale``.
START_LENGTH_SCALES = (1.0, 0.5, 0.25)
#: The noise variance every default start has (of targets standardised to unit
#: variance).
START_NOISE = 0.1


def default_starts(X: Any, ard: bool) -> list[tuple[Kernel, float]]:
    """``(kernel, noise)`` starts of the default kernel
    (:func:`~.kernel_defaults.default_kernel`; a length-scale per feature with
    ``ard``) at ``ℓ₀``, ``ℓ₀/2`` and ``ℓ₀/4`` (``START_LENGTH_SCALES``): the method
    goes on from the end of the start that fits a subsample best
    (:meth:`SparseRegression.fit`)."""
    kernels = [default_kernel(X, factor=f) for f in START_LENGTH_SCALES]
    if ard:
        kernels = [with_length_scale_per_feature(k, X.shape[1]) for k in kernels]
    return [(kernel, START_NOISE) for kernel in kernels]


def input_spread(X: Any) -> float:
    """The mean standard deviation of ``X``'s features (1 where all are constant):
    the unit the optimizer moves pseudo-inputs in. The rows' spread, not the k-means
    centres': centres average their clusters, so theirs shrinks with ``M`` and with
    the features, and steps measured in it make the pseudo-inputs move too slowly
    beside the kernel (algorithms.md §6.3)."""
    return float(np.mean(feature_spreads(X))) or 1.0


def row_blocks(
    X: Any,
    y: np.ndarray,
    pool: Executor | None = None,
    largest: int = BLOCK_ROWS,
) -> Blocks:
    """The training rows in blocks of at most ``largest`` rows: of ``X`` in memory,
    worked on by the thread ``pool`` (in this thread without), or of a dask array
    ``X``, rechunked to the same blocks and kept on the cluster's workers (the same
    blocks make the same arithmetic: the fit is the in-memory one to rounding)."""
    ranges = balanced_row_ranges(len(y), largest)
    if is_dask_array(X):
        X = X.rechunk({0: tuple(stop - start for start, stop in ranges), 1: -1})
        client = current_client("SparseGPRegressor")
        return DaskBlocks.from_rows(client, X, y, new_regression_block)
    blocks = [new_regression_block(X[a:b], y[a:b], a) for a, b in ranges]
    return LocalBlocks(blocks) if pool is None else ThreadBlocks(blocks, pool)


def kept_bytes(n: int, M: int, X: Any = None) -> int:
    """What the row blocks of ``X`` hold between an evaluation's two passes where they
    keep their ``K_uf`` and ``V``
    (:func:`~sparsegp.approximations.sparse_regression.bound_and_gradient`): 3·n·M
    floats where that is at most ``KEPT_BYTES`` and a quarter of the memory
    available here, else nothing (0: they evaluate them again); nothing for blocks
    on a dask cluster, whose workers' memory is not this machine's."""
    n_bytes = 3 * 8 * n * M
    available = available_memory()
    fits = n_bytes <= KEPT_BYTES and (available is None or n_bytes <= available / 4)
    return n_bytes if fits and not is_dask_array(X) else 0


@dataclass(frozen=True)
class _Learnt:
    """A fit's end: kernel, noise, pseudo-inputs, the objective there and the
    optimizer's result (None where nothing was learnt)."""

    kernel: Kernel
    noise: float
    Z: np.ndarray
    bound: Bound
    result: OptimizationResult | None


@dataclass(frozen=True)
class SparseRegression:
    """Settings of a sparse GP regression fit, and the fit (:meth:`fit`).

    Attributes
    ----------
    approximation : {"vfe", "fitc"}
        Titsias's collapsed bound, or FITC's evidence.
    n_inducing : int
        Pseudo-inputs ``M``.
    max_iter : int or None
        L-BFGS-B iterations over kernel, noise and pseudo-inputs; None keeps the
        kernel, the noise and the k-means pseudo-inputs.
    learn_inducing : bool
        Whether the pseudo-inputs move with the hyperparameters.
    noise_bounds : tuple of float or None
        Bounds on the noise variance (the targets' units squared); None holds it.
    n_threads : int
        Threads the row blocks run on.
    progress : str or None
        A label for the optimizer's progress bar (None: no bar).
    """

    approximation: Approximation = "vfe"
    n_inducing: int = 200
    max_iter: int | None = 200
    learn_inducing: bool = True
    noise_bounds: tuple[float, float] | None = (1e-5, 1e5)
    n_threads: int = 1
    progress: str | None = None

    def fit(
        self,
        X: Any,
        y: np.ndarray,
        starts: Sequence[tuple[Kernel, float]],
        rng: np.random.RandomState,
        report: Callable[[str], None] | None = None,
    ) -> FittedModel:
        """The fitted model of targets ``y`` at inputs ``X`` from the best of
        ``starts``, ``(kernel without noise, noise variance)`` pairs
        (:meth:`_best_start`); ``report`` receives a line at the end."""
        kernel, noise = self._best_start(X, y, starts, rng)
        fit = self._fit_from(X, y, kernel, noise, rng)
        if report is not None:
            report(
                f"{self.approximation.upper()}: M={len(fit.Z)}, objective "
                f"{fit.bound.value:.4f}, noise {fit.noise:.4g}, kernel={fit.kernel}"
            )
        result = fit.result
        return FittedModel(
            kernel=fit.kernel,
            likelihood=Gaussian(fit.noise),
            points=np.asarray(fit.Z),
            predictor=fit.bound.predictor(),
            log_marginal_likelihood=fit.bound.value,
            n_iterations=0 if result is None else result.n_evaluations,
            converged=True if result is None else result.converged,
            details={"approximation": self.approximation},
        )

    def _fit_from(
        self,
        X: Any,
        y: np.ndarray,
        kernel: Kernel,
        noise: float,
        rng: np.random.RandomState,
    ) -> _Learnt:
        """k-means pseudo-inputs, then :meth:`_learn` from ``kernel`` and ``noise``
        over every row."""
        n = len(y)
        Z = kmeans_centres(X, np.arange(n), min(self.n_inducing, n), rng)
        unit = input_spread(X)
        keep = kept_bytes(n, len(Z), X)
        # every evaluation allocates and frees the same temporaries (algorithms.md §6.3)
        with heap_kept(keep), thread_pool(self.n_threads) as pool:
            blocks = row_blocks(X, y, pool)
            try:
                kernel, noise, Z, result = self._learn(
                    blocks, kernel, noise, Z, unit, keep > 0, rng
                )
                bound = evaluate_bound(blocks, kernel, Z, noise, self.approximation)
            finally:
                blocks.close()
        return _Learnt(kernel, noise, Z, bound, result)

    def _best_start(
        self,
        X: Any,
        y: np.ndarray,
        starts: Sequence[tuple[Kernel, float]],
        rng: np.random.RandomState,
    ) -> tuple[Kernel, float]:
        """The end ``(kernel, noise)`` of the start whose fit of
        ``START_ITERATIONS`` steps on ``START_ROWS`` random rows (``M`` at most
        ``START_INDUCING`` and a fifth of them), the noise held at its start, ends
        highest (algorithms.md
        §6.3): with the noise free, the objective can climb to the model that calls
        every target noise (the amplitude on its lower bound, where the length-scales'
        gradient vanishes) and stay there, and from a start far from the optimum the
        first step over every row can land there too. Without learning, or with one
        start, the first start."""
        if self.max_iter is None or len(starts) == 1:
            return starts[0]
        rows = rng.choice(len(y), min(START_ROWS, len(y)), replace=False)
        screen = replace(
            self,
            n_inducing=min(self.n_inducing, START_INDUCING, len(rows) // 5 or 1),
            max_iter=START_ITERATIONS,
            noise_bounds=None,
        )
        ends = [
            screen._fit_from(rows_of(X, rows), y[rows], kernel, noise, rng)
            for kernel, noise in starts
        ]
        best = max(ends, key=lambda end: end.bound.value)
        return best.kernel, best.noise

    def _learn(
        self,
        blocks: Blocks,
        kernel: Kernel,
        noise: float,
        Z: np.ndarray,
        unit: float,
        keep: bool,
        rng: np.random.RandomState,
    ) -> tuple[Kernel, float, np.ndarray, OptimizationResult | None]:
        """``(kernel, noise, Z, result)`` after L-BFGS-B on the objective, the
        pseudo-inputs moved in units of ``unit`` and the blocks keeping their
        ``K_uf`` between an evaluation's passes where ``keep`` says
        (:func:`kept_bytes`); the start and None without ``max_iter``."""
        space = self._space(kernel, Z, unit)
        if self.max_iter is None or len(space) == 0:
            return kernel, noise, Z, None
        start = {"kernel": kernel, "noise": noise, "inducing": Z}

        def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
            values = start | space.unpack(x)
            bound, grad_theta, grad_noise, grad_Z = bound_and_gradient(
                blocks,
                values["kernel"],
                values["inducing"],
                values["noise"],
                self.approximation,
                keep=keep,
            )
            gradient = {"kernel": grad_theta, "noise": grad_noise, "inducing": grad_Z}
            return bound.value, space.pack_gradient(values, gradient)

        result = maximize(
            objective,
            space.pack(start),
            space.bounds(),
            random_state=rng,
            max_iter=self.max_iter,
            progress=self.progress,
        )
        end = start | space.unpack(result.x)
        return end["kernel"], end["noise"], end["inducing"], result

    def _space(self, kernel: Kernel, Z: np.ndarray, unit: float) -> ParameterSpace:
        """Kernel ``θ``, the noise's log and, where they are learnt, the pseudo-inputs
        in units of ``unit``."""
        return ParameterSpace(
            [
                kernel_block(kernel),
                None
                if self.noise_bounds is None
                else LogBlock("noise", (), np.log([self.noise_bounds])),
                inputs_block(Z, unit) if self.learn_inducing else None,
            ]
        )
