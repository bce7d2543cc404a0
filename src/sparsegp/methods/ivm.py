"""The IVM's recipe: selection, the alternation with the evidence, ``selection="auto"``.

The engines (:mod:`sparsegp.approximations.ivm`,
:mod:`~sparsegp.approximations.adf_active_set`,
:mod:`~sparsegp.approximations.partitioned_ivm`) select an active set at a fixed
kernel; :class:`ActiveSetFitting` alternates that selection with L-BFGS-B on the
active set's evidence ([LSH02] §3; algorithms.md §1.8), keeps the round that predicts
the points outside best, and chooses between greedy and uniform selection for
``selection="auto"``. The task — probit classification or Gaussian regression — is
an :class:`IVMTask`; :class:`~sparsegp.IVMClassifier` and
:class:`~sparsegp.IVMRegressor` read their parameters into :class:`IVMSettings`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np
from scipy.stats import norm
from sklearn.gaussian_process.kernels import Kernel
from tqdm.auto import tqdm

from .._dask import DaskBlocks, current_client, is_dask_array, rows_of
from .._optimize import ParameterSpace, kernel_block, maximize
from ..approximations.adf_active_set import ADFActiveSet, active_set_log_evidence
from ..approximations.blocks import (
    CheckedProgress,
    GatedPool,
    StopSignal,
    run_together,
    run_together_with_head_start,
    thread_pool,
)
from ..approximations.evidence import with_amplitude_prior
from ..approximations.ivm import (
    grow_active_set,
    ivm_log_marginal_likelihood,
    select_active_set,
    subset_log_marginal_likelihood,
)
from ..approximations.partitioned_ivm import PartitionedActiveSet, new_adf_block
from ..exceptions import NumericalWarning, warn_at_caller
from ..kernels import KernelBlocks, gram_and_weighted_gradient, split_white_noise
from ..likelihoods import Gaussian, Probit
from .ard import ard_starts
from .fitted import FittedModel
from .kernel_defaults import feature_spreads

__all__ = [
    "ACTIVE_SET_PER_ROOT_N",
    "AUTO_SELECTION_ROWS",
    "DEFAULT_MAX_ACTIVE_SET",
    "SMALL_ACTIVE_SET",
    "ActiveSetFitting",
    "GaussianTask",
    "IVMSettings",
    "IVMTask",
    "ProbitTask",
    "default_active_set_size",
]

#: Size (in float64) above which ``store_dtype="auto"`` keeps the IVM's V in float32.
_SINGLE_PRECISION_BYTES = 80 * 2**20

#: The largest active set ``active_set_size=None`` picks (N/5 below it): selection
#: costs O(n·d²) time and O(n·d) memory, and N/5 of tens of thousands of points
#: takes hours and gigabytes. C one-vs-rest problems take 1/√C of it each, so that
#: together they cost about one binary fit (:func:`default_active_set_size`).
DEFAULT_MAX_ACTIVE_SET = 1000

#: Below the cap, ``active_set_size=None`` picks at most this many points per √n,
#: or ``SMALL_ACTIVE_SET`` where that is more: the selection's O(n·d²) then grows as
#: n², as an SVM's fit does, where N/5 would make it grow as n³, while sets of up to
#: 1 500 points keep their N/5 (algorithms.md §1.9).
ACTIVE_SET_PER_ROOT_N = 5.0
SMALL_ACTIVE_SET = 300

#: ``selection="auto"`` compares its two selections on a random subsample of this
#: many rows where the training set is larger (:meth:`ActiveSetFitting.fit`), and
#: then selects on every row with the strategy that predicted better there.
AUTO_SELECTION_ROWS = 2000
#: The two selections ``selection="auto"`` compares.
_AUTO_STRATEGIES = ("randomized", "random")

#: Training points outside the active set used to compare hyperparameter rounds.
_N_SCORE = 2000

#: Where a fit's progress messages go (nowhere unless the estimator is verbose).
Report = Callable[[str], None]
#: A fitted model and the kernel it was learnt with (the latent one and the noise).
Fit = tuple[FittedModel, Kernel]


def default_active_set_size(n: int, n_problems: int) -> float:
    """``active_set_size=None``'s share of the ``n`` points: N/5 up to the larger of
    ``ACTIVE_SET_PER_ROOT_N``·√n and ``SMALL_ACTIVE_SET``, and up to
    ``DEFAULT_MAX_ACTIVE_SET``/√C for C one-vs-rest problems (their fits cost
    O(C·n·d²) together)."""
    largest = DEFAULT_MAX_ACTIVE_SET / np.sqrt(n_problems)
    root = max(ACTIVE_SET_PER_ROOT_N * np.sqrt(n), SMALL_ACTIVE_SET)
    return float(min(0.2, largest / n, root / n))


class IVMTask(Protocol):
    """What the IVM's task adds to the recipe: its likelihood, its active set's
    evidence, its held-out error and the precision of its store."""

    name: str

    def likelihood(self, kernel: Kernel, y: np.ndarray) -> tuple[Kernel, Any]:
        """The latent kernel and the likelihood for ``kernel`` and targets ``y``."""

    def evidence(
        self, kernel: Kernel, X_I: np.ndarray, y_I: np.ndarray, sites: Any
    ) -> tuple[float, np.ndarray]:
        """The active set's evidence and its gradient in ``kernel.theta``."""

    def held_out_error(
        self, model: FittedModel, mean: np.ndarray, var: np.ndarray, y: np.ndarray
    ) -> float:
        """The error (lower is better) of latent predictions on held-out points."""

    def store_dtype(self, setting: str, n: int, d: int) -> np.dtype:
        """The precision of the n × d store for ``store_dtype=setting``."""


@dataclass(frozen=True)
class ProbitTask:
    """Probit classification ([LSH02]): the bias from the class ratio or given, the
    evidence ``L_IVM`` with ``amplitude_prior``'s log density, the held-out error
    rate; ``store_dtype="auto"`` is float32 beyond ``_SINGLE_PRECISION_BYTES``."""

    bias: str | float = "class_ratio"
    amplitude_prior: float | None = 3.0
    name: str = "IVMClassifier"

    def likelihood(self, kernel: Kernel, y: np.ndarray) -> tuple[Kernel, Probit]:
        if self.bias == "class_ratio":
            bias = float(norm.ppf(np.clip(np.mean(y > 0), 1e-6, 1 - 1e-6)))
        else:
            bias = float(self.bias)
        return kernel, Probit(bias)

    def evidence(
        self, kernel: Kernel, X_I: np.ndarray, y_I: np.ndarray, sites: Any
    ) -> tuple[float, np.ndarray]:
        """``L_IVM`` (algorithms.md §1.8), with ``amplitude_prior``'s log density."""
        value, gradient = ivm_log_marginal_likelihood(
            *gram_and_weighted_gradient(kernel, X_I), *sites
        )
        return with_amplitude_prior(value, gradient, kernel, self.amplitude_prior)

    def held_out_error(
        self, model: FittedModel, mean: np.ndarray, var: np.ndarray, y: np.ndarray
    ) -> float:
        predicted = np.where(model.likelihood.predictive_z(mean, var) > 0, 1, -1)
        return float(np.mean(predicted != y))

    def store_dtype(self, setting: str, n: int, d: int) -> np.dtype:
        if setting == "auto":
            single = 8 * n * d > _SINGLE_PRECISION_BYTES
            return np.dtype(np.float32 if single else np.float64)
        return np.dtype(setting)


@dataclass(frozen=True)
class GaussianTask:
    """Gaussian regression (algorithms.md §1.10): the noise from the kernel's
    ``WhiteKernel``, the subset's exact evidence, the held-out squared error;
    ``store_dtype="auto"`` is float64 (float32 rounds the posterior variances to
    about 10⁻⁷ of the prior's, no larger than the noise on nearly noise-free
    targets)."""

    name: str = "IVMRegressor"

    def likelihood(self, kernel: Kernel, y: np.ndarray) -> tuple[Kernel, Gaussian]:
        latent, noise = split_white_noise(kernel)
        return latent, Gaussian(noise)

    def evidence(
        self, kernel: Kernel, X_I: np.ndarray, y_I: np.ndarray, sites: Any
    ) -> tuple[float, np.ndarray]:
        K_I, K_I_gradient = kernel(X_I, eval_gradient=True)
        return subset_log_marginal_likelihood(K_I, K_I_gradient, y_I)

    def held_out_error(
        self, model: FittedModel, mean: np.ndarray, var: np.ndarray, y: np.ndarray
    ) -> float:
        return float(np.mean((mean - y) ** 2))

    def store_dtype(self, setting: str, n: int, d: int) -> np.dtype:
        return np.dtype(np.float64 if setting == "auto" else setting)


@dataclass(frozen=True)
class IVMSettings:
    """The estimators' parameters of the same names ([LSH02]; algorithms.md §1):
    ``active_set_size`` is ``d`` on all the rows, ``learn`` whether an optimizer
    runs, ``ard`` whether ``ard="auto"``'s round follows, ``threads`` the fit's row
    threads, ``progress`` whether bars show."""

    active_set_size: int
    selection: str = "randomized"
    selection_size: int = 500
    retain: float = 0.5
    n_random_start: int = 2
    n_full_greedy: int = 198
    store_dtype: str = "auto"
    learn: bool = True
    n_outer_iterations: int = 3
    max_iter_optimizer: int = 20
    ard: bool = False
    threads: int = 1
    progress: bool = False
    #: ``(strategy, kernel)``: what ``selection="auto"`` takes below
    #: ``AUTO_SELECTION_ROWS`` rows without comparing, its choice on another problem
    #: of the same rows and the kernel that problem's model ended with.
    auto_choice: tuple[str, Kernel] | None = None


class ActiveSetFitting:
    """One IVM fit's selection and hyperparameter alternation, for a task."""

    def __init__(self, settings: IVMSettings, task: IVMTask, report: Report) -> None:
        self.settings, self.task, self.report = settings, task, report

    def _select(
        self,
        X: Any,
        y: np.ndarray,
        kernel: Kernel,
        d: int,
        rng: np.random.RandomState,
        strategy: str,
        stop: StopSignal | None = None,
    ) -> tuple[Any, float]:
        """One selection of ``d`` points: the state and its wall time in seconds; it
        ends at the next inclusion once ``stop`` (a :class:`StopSignal`) is set."""
        latent, likelihood = self.task.likelihood(kernel, y)
        options: dict[str, Any] = dict(
            strategy=strategy,
            n_random_start=self.settings.n_random_start,
            n_full_greedy=self.settings.n_full_greedy,
            selection_size=self.settings.selection_size,
            retain=self.settings.retain,
        )
        start = time.perf_counter()
        with tqdm(
            total=d,
            desc="IVM selection",
            disable=not self.settings.progress,
            leave=False,
        ) as bar:
            progress = bar if stop is None else CheckedProgress(bar, stop)
            dtype = self.task.store_dtype(self.settings.store_dtype, len(y), d)
            state: PartitionedActiveSet | ADFActiveSet
            if is_dask_array(X):  # the rows stay on the cluster
                blocks = DaskBlocks.from_rows(
                    current_client(self.task.name),
                    X,
                    y,
                    new_adf_block,
                    latent,
                    d,
                    dtype,
                )
                state = PartitionedActiveSet(blocks, len(y), latent, likelihood, d)
                grow_active_set(state, d, rng, progress=progress, **options)
            else:
                state = select_active_set(
                    KernelBlocks(latent, X, dtype),
                    latent.diag(X),
                    y,
                    likelihood,
                    d,
                    rng,
                    progress=progress,
                    dtype=dtype,
                    **options,
                )
        return state, time.perf_counter() - start

    def fit(
        self,
        X: Any,
        y: np.ndarray,
        kernel: Kernel,
        rng: np.random.RandomState,
        then: Any = None,
    ) -> Fit:
        """``(FittedModel, kernel)`` by ``selection``, the model passed through
        ``then`` (an :class:`~sparsegp.methods.every_site.EverySitePass`) where given.

        ``"auto"`` fits with the randomized greedy selection and with a uniform one and
        keeps the model that predicts (up to ``_N_SCORE``) training points outside both
        active sets better: lower error (classification) or squared error
        (regression), then lower NLP, the greedy one on a tie. On noisy labels the
        entropy score favours the points on the wrong side of the boundary, whose sites
        then pull the posterior the wrong way; held-out predictions detect it. (The NLP
        alone would not do: on clean digits the uniform set predicts with a lower NLP
        and four times the error.) The two fits draw from streams of their own and
        run at once when the fit has two row threads (``n_jobs``), ``then`` started
        early (:meth:`_fit_both_with_head_start`): the model is the same either way.
        Beyond ``AUTO_SELECTION_ROWS`` rows the two fits compare on a random
        subsample of that many, each with the share of ``d`` the subsample's rows
        are of all, and the strategy that predicts better there selects on every
        row from the kernel its subsample fit learnt (:meth:`_strategy_by_subsample`):
        where ``then`` relearns the kernel on rows, once at that kernel (its rounds
        would only move the pseudo-inputs the relearning starts from), else with
        its ``n_outer_iterations`` rounds. With ``settings.auto_choice`` (the choice
        on another one-vs-rest problem of the same rows) ``"auto"`` below
        ``AUTO_SELECTION_ROWS`` rows fits that strategy only
        (:meth:`_fit_as_chosen`).
        """
        if self.settings.selection != "auto" or len(y) > AUTO_SELECTION_ROWS:
            strategy, rounds = self.settings.selection, None
            if strategy == "auto":
                strategy, kernel = self._strategy_by_subsample(X, y, kernel, rng)
                if then is not None and then.relearns(kernel):
                    rounds = 0
            model, kernel = self._fit_ivm(X, y, kernel, rng, strategy, rounds=rounds)
        else:
            strategies = _AUTO_STRATEGIES
            seeds = rng.randint(2**31 - 1, size=2)
            if self.settings.auto_choice is not None:
                return self._fit_as_chosen(X, y, kernel, seeds, then)
            stop = StopSignal()  # Ctrl-C, or an error in one fit, ends the other

            def fit(strategy: str, seed: int) -> Callable[[], Fit]:
                stream = np.random.RandomState(seed)
                return lambda: self._fit_ivm(X, y, kernel, stream, strategy, stop)

            calls = list(map(fit, strategies, seeds))
            if then is not None and self.settings.threads > 1:
                return self._fit_both_with_head_start(X, y, calls, stop, rng, then)
            with thread_pool(min(2, self.settings.threads)) as pool:
                fits = run_together(pool, calls, stop)
            model, kernel = fits[self._better_fit(X, y, fits, rng)]
        return (model if then is None else then(model)), kernel

    def _fit_as_chosen(
        self, X: Any, y: np.ndarray, kernel: Kernel, seeds: np.ndarray, then: Any
    ) -> Fit:
        """:meth:`fit` by ``settings.auto_choice``'s strategy, with the stream
        ``"auto"`` gives it. Where ``then`` relearns the kernel, one selection at the
        other problem's kernel, as :meth:`_strategy_by_subsample`'s: the relearning
        starts from its points, and the rounds would only move them."""
        assert self.settings.auto_choice is not None
        strategy, chosen_kernel = self.settings.auto_choice
        stream = np.random.RandomState(seeds[_AUTO_STRATEGIES.index(strategy)])
        rounds = None
        if then is not None and then.relearns(chosen_kernel):
            kernel, rounds = chosen_kernel, 0
        model, kernel = self._fit_ivm(X, y, kernel, stream, strategy, rounds=rounds)
        return (model if then is None else then(model)), kernel

    def _strategy_by_subsample(
        self, X: Any, y: np.ndarray, kernel: Kernel, rng: np.random.RandomState
    ) -> tuple[str, Kernel]:
        """``(strategy, kernel)``: the selection of the two ``"auto"`` compares that
        predicts better on a random subsample of ``AUTO_SELECTION_ROWS`` rows, each
        fitted there from ``kernel`` with ``d`` scaled to the subsample
        (:meth:`_better_fit`), and the kernel its fit learnt."""
        n, rows_n = len(y), AUTO_SELECTION_ROWS
        rows = np.sort(rng.choice(n, rows_n, replace=False))
        X_rows, y_rows = rows_of(X, rows), y[rows]
        d = max(1, int(round(self.settings.active_set_size * rows_n / n)))
        strategies = _AUTO_STRATEGIES
        fits = [
            self._fit_ivm(X_rows, y_rows, kernel, rng, strategy, d=d)
            for strategy in strategies
        ]
        index = self._better_fit(X_rows, y_rows, fits, rng)
        self.report(
            f"  IVM selection chosen on {rows_n} rows: {strategies[index]}, "
            f"kernel={fits[index][1]}",
        )
        return strategies[index], fits[index][1]

    def _fit_both_with_head_start(
        self,
        X: Any,
        y: np.ndarray,
        calls: list[Callable[[], Fit]],
        stop: StopSignal,
        rng: np.random.RandomState,
        then: Any,
    ) -> Fit:
        """:meth:`fit`'s two fits at once, and ``then``'s EP started on
        the model of the fit that ends first, on the thread it leaves, its row blocks
        on one thread fewer than the fit's (a :class:`GatedPool`: the core the other
        fit runs on stays its own). If that model is chosen its EP gets every thread
        and goes on; if not it is abandoned at its next block and the chosen model's
        starts. The work is the same either way, so is the model: a head start only
        uses the core the cheaper fit (most often the uniform one, 2-3× faster) leaves
        idle while the other runs."""
        threads, abandon = self.settings.threads, StopSignal()
        with (  # the fits' pool, holding the head start, ends before its blocks' pool
            GatedPool(threads, threads - 1, abandon) as rows,
            ThreadPoolExecutor(2) as pool,
        ):
            try:
                fits, started = run_together_with_head_start(
                    pool, calls, stop, lambda fitted: then.evidence(fitted[0], rows)
                )
                chosen = self._better_fit(X, y, fits, rng)
                model = fits[chosen][0]
                if started is not None and started.index == chosen:
                    rows.open()
                    fit = started.future.result()
                else:
                    abandon.set()
                    with thread_pool(threads) as own:
                        fit = then.evidence(model, own)
            except BaseException:
                abandon.set()
                raise
        return then.apply(model, fit), fits[chosen][1]

    def _better_fit(
        self, X: Any, y: np.ndarray, fits: list[Fit], rng: np.random.RandomState
    ) -> int:
        """The index of the fit of the two that predicts the points outside both
        active sets better (:meth:`fit`)."""
        outside = np.ones(len(y), dtype=bool)
        for model, _ in fits:
            outside[model.details["active_set"]] = False
        points = np.flatnonzero(outside)
        if len(points) == 0:
            return 0
        if len(points) > _N_SCORE:
            points = rng.choice(points, size=_N_SCORE, replace=False)
        scores = [
            self._held_out_scores(model, rows_of(X, points), y[points])
            for model, _ in fits
        ]
        self.report(
            "  IVM selection by held-out (error, NLP): randomized greedy "
            f"{scores[0]}, random {scores[1]}",
        )
        return min(range(len(fits)), key=scores.__getitem__)

    def _held_out_scores(
        self, model: FittedModel, X: np.ndarray, y: np.ndarray
    ) -> tuple[float, float]:
        """``(error, NLP)`` of ``model`` on held-out points; lower is better, in order."""
        mean, var = model.latent_mean_and_variance(X)
        nlp = float(-np.mean(model.likelihood.log_predictive(mean, var, y)))
        return float(self.task.held_out_error(model, mean, var, y)), nlp

    def _fit_ivm(
        self,
        X: Any,
        y: np.ndarray,
        kernel: Kernel,
        rng: np.random.RandomState,
        strategy: str,
        stop: StopSignal | None = None,
        d: int | None = None,
        rounds: int | None = None,
    ) -> Fit:
        """Alternate selection with L-BFGS-B on the active set's evidence (algorithms.md §1.8).

        ``L_IVM`` holds the sites fixed, so a round can move to a degenerate kernel
        ([NGH07] §4 criticises exactly this). Each round is
        therefore scored by the predictive NLP of up to ``_N_SCORE`` training points
        outside the active set (the O(n) criterion of [LSH02] §3), and the best round
        kept; with ``ard="auto"`` one more round may try a length-scale per feature
        (:meth:`_ard_round`). ``d`` (None: ``settings.active_set_size``) is the active set's size,
        ``rounds`` (None: ``n_outer_iterations``) the rounds' count.
        """
        start = time.perf_counter()
        d = self.settings.active_set_size if d is None else d
        space = ParameterSpace([kernel_block(kernel)])
        rounds = self.settings.n_outer_iterations if rounds is None else rounds
        rounds = rounds if self.settings.learn and len(space) else 0
        state, seconds = self._select(X, y, kernel, d, rng, strategy, stop)
        best = self._freeze(X, y, kernel, state, seconds, strategy)
        best_nlp = self._held_out_nlp(state, len(y), rng) if rounds else 0.0
        for outer in range(rounds):
            label = f"IVM round {outer + 1}: L_IVM"
            kernel = self._maximize_l_ivm(X, y, kernel, _sites(state), rng, label)[0]
            state.close()
            state, seconds = self._select(X, y, kernel, d, rng, strategy, stop)
            nlp = self._held_out_nlp(state, len(y), rng)
            if nlp < best_nlp:
                best = self._freeze(X, y, kernel, state, seconds, strategy)
                best_nlp = nlp
            self.report(
                f"  IVM round {outer + 1}/{rounds}: NLP outside I {nlp:.4f}, "
                f"kernel={kernel}",
            )
        state.close()
        if rounds and not np.isfinite(best_nlp):
            warn_at_caller(
                f"{self.task.name}: the held-out NLP of every hyperparameter "
                "round was not finite, so the starting kernel was kept; the selection "
                "lost its precision (try store_dtype='float64', or a larger noise "
                "or jitter term in the kernel).",
                NumericalWarning,
            )
        if rounds and self.settings.ard:
            best = self._ard_round(X, y, best, best_nlp, d, rng, strategy, stop)
            rounds += 1
        self.report(
            f"{self.task.name}: n={len(y)} d={d} kernel={best[1]} "
            f"({time.perf_counter() - start:.1f} s)",
        )
        return replace(best[0], n_iterations=rounds), best[1]

    def _l_ivm(self, X: Any, y: np.ndarray, kernel: Kernel, sites: tuple) -> float:
        """``L_IVM`` at ``kernel`` of the active set with its sites ``sites = (active,
        precisions, means)``."""
        active, *held = sites
        return self.task.evidence(kernel, rows_of(X, active), y[active], held)[0]

    def _maximize_l_ivm(
        self,
        X: Any,
        y: np.ndarray,
        kernel: Kernel,
        sites: tuple,
        rng: np.random.RandomState,
        label: str,
    ) -> tuple[Kernel, float]:
        """``(kernel, gain)``: L-BFGS-B on ``L_IVM`` of the active set with its sites
        ``sites = (active, precisions, means)`` held, from ``kernel``, and what it
        gained over ``kernel``'s."""
        active, *held = sites
        X_active, y_active = rows_of(X, active), y[active]
        space = ParameterSpace([kernel_block(kernel)])

        def evidence(x: np.ndarray) -> tuple[float, np.ndarray]:
            return self.task.evidence(
                space.unpack(x)["kernel"], X_active, y_active, held
            )

        result = maximize(
            evidence,
            space.pack({"kernel": kernel}),
            space.bounds(),
            max_iter=self.settings.max_iter_optimizer,
            random_state=rng,
            progress=label if self.settings.progress else None,
        )
        return space.unpack(result.x)["kernel"], result.value - result.start_value

    def _ard_round(
        self,
        X: Any,
        y: np.ndarray,
        best: Fit,
        best_nlp: float,
        d: int,
        rng: np.random.RandomState,
        strategy: str,
        stop: StopSignal | None,
    ) -> Fit:
        """``ard="auto"``'s round: on the best round's active set and sites, the
        isotropic kernel's optimum of ``L_IVM`` and from it the same kernel with a
        length-scale per feature (the same function to start, and on standardised
        features too where ``L_IVM`` is higher there, :func:`~sparsegp.methods.ard.ard_starts`: the
        gain is what the length-scales add, algorithms.md §1.8). Only where it exceeds the ``D − 1``
        length-scales added (Akaike's penalty, as for FITC's ``ard="auto"``) is the
        set reselected with the ARD kernel, and that round is kept if it predicts
        the training points outside the active set better, the rounds' own
        criterion: on d points ``L_IVM`` over-fits the length-scales."""
        model, kernel = best
        sites = (model.details["active_set"], *model.details["active_sites"])
        iso = self._maximize_l_ivm(X, y, kernel, sites, rng, "IVM: L_IVM")[0]
        starts = ard_starts(
            iso, feature_spreads(X), lambda k: self._l_ivm(X, y, k, sites)
        )
        fits = []
        for start, excess in starts:
            fitted, gain = self._maximize_l_ivm(X, y, start, sites, rng, "IVM: ARD")
            fits.append((fitted, gain + excess))  # the gain over the isotropic optimum
        ard, gain = max(fits, key=lambda fit: fit[1])
        nlp = None
        if gain > X.shape[1] - 1:
            state, seconds = self._select(X, y, ard, d, rng, strategy, stop)
            nlp = self._held_out_nlp(state, len(y), rng)
            if nlp < best_nlp:
                best = self._freeze(X, y, ard, state, seconds, strategy)
            state.close()
        self.report(
            f"  IVM ARD round: L_IVM gain {gain:.1f} (penalty "
            f"{X.shape[1] - 1}), NLP outside I {nlp} against {best_nlp:.4f}",
        )
        chosen = best[0]
        details = chosen.details | {
            "ard_evidence_gain": float(gain),
            "ard": best[1] is ard,
        }
        return replace(chosen, details=details), best[1]

    def _freeze(
        self,
        X: Any,
        y: np.ndarray,
        kernel: Kernel,
        state: Any,
        seconds: float,
        strategy: str,
    ) -> Fit:
        """``(FittedModel, kernel)`` from a selection state; the O(n·d) state is dropped."""
        active = np.asarray(state.active)
        X_active = rows_of(X, active)
        value = active_set_log_evidence(state.L, state.c, state.p[active])
        model = FittedModel(
            kernel=self.task.likelihood(kernel, y)[0],
            likelihood=state.likelihood,
            points=X_active,
            predictor=state.predictor(),
            log_marginal_likelihood=value,
            details=dict(
                active_set=active,
                active_sites=(state.p[active], state.m[active]),
                selection_seconds=seconds,
                selection=strategy,
            ),
        )
        return model, kernel

    @staticmethod
    def _held_out_nlp(state: Any, n: int, rng: np.random.RandomState) -> float:
        """Mean predictive NLP of (a sample of) the ``n`` training points outside I."""
        outside = np.setdiff1d(np.arange(n), state.active)
        if len(outside) == 0:
            return 0.0
        if len(outside) > _N_SCORE:
            outside = rng.choice(outside, size=_N_SCORE, replace=False)
        return state.held_out_nlp(outside)


def _sites(state: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(active, precisions, means)``: a selection state's active set and its sites."""
    active = state.active
    return active, state.p[active], state.m[active]
