"""The Informative Vector Machine: IVMClassifier and IVMRegressor."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.stats import norm
from sklearn.gaussian_process.kernels import ConstantKernel, Kernel, WhiteKernel
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from tqdm.auto import tqdm

from .._dask import DaskBlocks, current_client, is_dask_array, rows_of
from .._optimize import ParameterSpace, kernel_block, maximize
from .._threads import one_blas_thread
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
from ..kernels import (
    KernelBlocks,
    gram_and_weighted_gradient,
    split_white_noise,
)
from ..likelihoods import Gaussian, Probit
from ..methods.ard import ard_starts
from ..methods.every_site import EverySitePass, pass_fits_in_memory, relearning
from ..methods.fitc_ep import require_fitc_memory
from ..methods.fitted import FittedModel
from ..methods.kernel_defaults import default_kernel, feature_spreads
from ._base import (
    AMPLITUDE_PRIOR_CONSTRAINT,
    ARD_CONSTRAINT,
    GPClassifierMixin,
    GPRegressorMixin,
    chooses_ard,
    pass_caller,
    per_problem,
    report_progress,
    restore_on_failure,
    starting_kernel,
    warn_at_bounds,
)
from ._input_units import kernel_in_input_units

#: Size (in float64) above which ``store_dtype="auto"`` keeps the IVM's V in float32.
_SINGLE_PRECISION_BYTES = 80 * 2**20

#: The largest active set ``active_set_size=None`` picks (N/5 below it): selection
#: costs O(n·d²) time and O(n·d) memory, and N/5 of tens of thousands of points
#: takes hours and gigabytes. C one-vs-rest problems take 1/√C of it each, so that
#: together they cost about one binary fit (:meth:`_IVMFitting._active_set_size`).
DEFAULT_MAX_ACTIVE_SET = 1000

#: Below the cap, ``active_set_size=None`` picks at most this many points per √n,
#: or ``SMALL_ACTIVE_SET`` where that is more: the selection's O(n·d²) then grows as
#: n², as an SVM's fit does, where N/5 would make it grow as n³, while sets of up to
#: 1 500 points keep their N/5 (algorithms.md §1.9).
ACTIVE_SET_PER_ROOT_N = 5.0
SMALL_ACTIVE_SET = 300

#: ``selection="auto"`` compares its two selections on a random subsample of this
#: many rows where the training set is larger (:meth:`_IVMFitting._fit_active_set`),
#: and then selects on every row with the strategy that predicted better there.
AUTO_SELECTION_ROWS = 2000

#: Training points outside the active set used to compare hyperparameter rounds.
_N_SCORE = 2000

_SHARED_CONSTRAINTS: dict = {
    "kernel": [None, Kernel],
    "active_set_size": [
        None,
        Interval(Integral, 1, None, closed="left"),
        Interval(Real, 0, 1, closed="right"),
    ],
    "selection": [StrOptions({"auto", "randomized", "greedy", "random"})],
    "selection_size": [Interval(Integral, 1, None, closed="left")],
    "retain": [Interval(Real, 0, 1, closed="both")],
    "n_random_start": [Interval(Integral, 1, None, closed="left")],
    "store_dtype": [StrOptions({"auto", "float32", "float64"})],
    "n_full_greedy": [Interval(Integral, 0, None, closed="left")],
    "optimizer": [StrOptions({"fmin_l_bfgs_b"}), None],
    "n_outer_iterations": [Interval(Integral, 1, None, closed="left")],
    "max_iter_optimizer": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}


class _IVMFitting:
    """Selection, hyperparameter alternation and size checks shared by both IVMs.

    Subclasses provide ``_likelihood(kernel, y)`` (returning the latent kernel and the
    likelihood) and ``_evidence(kernel, X_I, y_I, state_sites)``.
    """

    #: Threads the fit may use (set per problem by ``_fit_problems``).
    _n_row_threads = 1

    # The estimators' parameters and their task's hooks, which the shared steps read.
    active_set_size: int | float | None
    selection: str
    selection_size: int
    retain: float
    n_random_start: int
    n_full_greedy: int
    store_dtype: str
    optimizer: str | None
    n_outer_iterations: int
    max_iter_optimizer: int
    verbose: int
    _n_binary_problems: Callable[[], int]
    _likelihood: Callable[..., Any]
    _evidence: Callable[..., Any]
    _held_out_error: Callable[..., float]

    def _active_set_size(self, n):
        """``d``: ``active_set_size``, or for ``None`` N/5 up to the larger of
        ``ACTIVE_SET_PER_ROOT_N``·√n and ``SMALL_ACTIVE_SET``, and up to
        ``DEFAULT_MAX_ACTIVE_SET``/√C for C one-vs-rest problems (their fits cost
        O(C·n·d²) together)."""
        d = self.active_set_size
        if d is None:
            largest = DEFAULT_MAX_ACTIVE_SET / np.sqrt(self._n_binary_problems())
            root = max(ACTIVE_SET_PER_ROOT_N * np.sqrt(n), SMALL_ACTIVE_SET)
            d = min(0.2, largest / n, root / n)
        d = max(1, int(round(d * n))) if isinstance(d, float) else int(d)
        if d > n:
            raise ValueError(
                f"active_set_size={self.active_set_size} exceeds the {n} training points."
            )
        return d

    def _store_dtype(self, n, d):
        if self.store_dtype == "auto":
            return np.float32 if 8 * n * d > _SINGLE_PRECISION_BYTES else np.float64
        return np.dtype(self.store_dtype)

    def _select(self, X, y, kernel, d, rng, strategy, stop=None):
        """One selection of ``d`` points: the state and its wall time in seconds; it
        ends at the next inclusion once ``stop`` (a :class:`StopSignal`) is set."""
        latent, likelihood = self._likelihood(kernel, y)
        options = dict(
            strategy=strategy,
            n_random_start=self.n_random_start,
            n_full_greedy=self.n_full_greedy,
            selection_size=self.selection_size,
            retain=self.retain,
        )
        start = time.perf_counter()
        with tqdm(
            total=d, desc="IVM selection", disable=not self.verbose, leave=False
        ) as bar:
            progress = bar if stop is None else CheckedProgress(bar, stop)
            dtype = self._store_dtype(len(y), d)
            state: PartitionedActiveSet | ADFActiveSet
            if is_dask_array(X):  # the rows stay on the cluster
                blocks = DaskBlocks.from_rows(
                    current_client(type(self).__name__),
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

    def _fit_active_set(self, X, y, kernel, rng, then=None):
        """``(FittedModel, kernel)`` by ``self.selection``, the model passed through
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
        its ``n_outer_iterations`` rounds.
        """
        if self.selection != "auto" or len(y) > AUTO_SELECTION_ROWS:
            strategy, rounds = self.selection, None
            if strategy == "auto":
                strategy, kernel = self._strategy_by_subsample(X, y, kernel, rng)
                if then is not None and then.relearns(kernel):
                    rounds = 0
            model, kernel = self._fit_ivm(X, y, kernel, rng, strategy, rounds=rounds)
        else:
            strategies = ("randomized", "random")
            seeds = rng.randint(2**31 - 1, size=2)
            stop = StopSignal()  # Ctrl-C, or an error in one fit, ends the other

            def fit(strategy, seed):
                stream = np.random.RandomState(seed)
                return lambda: self._fit_ivm(X, y, kernel, stream, strategy, stop)

            calls = list(map(fit, strategies, seeds))
            if then is not None and self._n_row_threads > 1:
                return self._fit_both_with_head_start(X, y, calls, stop, rng, then)
            with thread_pool(min(2, self._n_row_threads)) as pool:
                fits = run_together(pool, calls, stop)
            model, kernel = fits[self._better_fit(X, y, fits, rng)]
        return (model if then is None else then(model)), kernel

    def _strategy_by_subsample(self, X, y, kernel, rng):
        """``(strategy, kernel)``: the selection of the two ``"auto"`` compares that
        predicts better on a random subsample of ``AUTO_SELECTION_ROWS`` rows, each
        fitted there from ``kernel`` with ``d`` scaled to the subsample
        (:meth:`_better_fit`), and the kernel its fit learnt."""
        n, rows_n = len(y), AUTO_SELECTION_ROWS
        rows = np.sort(rng.choice(n, rows_n, replace=False))
        X_rows, y_rows = rows_of(X, rows), y[rows]
        d = max(1, int(round(self._active_set_size(n) * rows_n / n)))
        strategies = ("randomized", "random")
        fits = [
            self._fit_ivm(X_rows, y_rows, kernel, rng, strategy, d=d)
            for strategy in strategies
        ]
        index = self._better_fit(X_rows, y_rows, fits, rng)
        report_progress(
            self,
            message=f"  IVM selection chosen on {rows_n} rows: {strategies[index]}, "
            f"kernel={fits[index][1]}",
        )
        return strategies[index], fits[index][1]

    def _fit_both_with_head_start(self, X, y, calls, stop, rng, then):
        """:meth:`_fit_active_set`'s two fits at once, and ``then``'s EP started on
        the model of the fit that ends first, on the thread it leaves, its row blocks
        on one thread fewer than the fit's (a :class:`GatedPool`: the core the other
        fit runs on stays its own). If that model is chosen its EP gets every thread
        and goes on; if not it is abandoned at its next block and the chosen model's
        starts. The work is the same either way, so is the model: a head start only
        uses the core the cheaper fit (most often the uniform one, 2-3× faster) leaves
        idle while the other runs."""
        threads, abandon = self._n_row_threads, StopSignal()
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

    def _better_fit(self, X, y, fits, rng):
        """The index of the fit of the two that predicts the points outside both
        active sets better (:meth:`_fit_active_set`)."""
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
        report_progress(
            self,
            message="  IVM selection by held-out (error, NLP): randomized greedy "
            f"{scores[0]}, random {scores[1]}",
        )
        return min(range(len(fits)), key=scores.__getitem__)

    def _held_out_scores(self, model, X, y):
        """``(error, NLP)`` of ``model`` on held-out points; lower is better, in order."""
        mean, var = model.latent_mean_and_variance(X)
        nlp = float(-np.mean(model.likelihood.log_predictive(mean, var, y)))
        return float(self._held_out_error(model, mean, var, y)), nlp

    def _fit_ivm(self, X, y, kernel, rng, strategy, stop=None, d=None, rounds=None):
        """Alternate selection with L-BFGS-B on the active set's evidence (algorithms.md §1.8).

        ``L_IVM`` holds the sites fixed, so a round can move to a degenerate kernel
        ([NGH07] §4 criticises exactly this). Each round is
        therefore scored by the predictive NLP of up to ``_N_SCORE`` training points
        outside the active set (the O(n) criterion of [LSH02] §3), and the best round
        kept; with ``ard="auto"`` one more round may try a length-scale per feature
        (:meth:`_ard_round`). ``d`` (None: the estimator's) is the active set's size,
        ``rounds`` (None: ``n_outer_iterations``) the rounds' count.
        """
        start = time.perf_counter()
        d = self._active_set_size(len(y)) if d is None else d
        space = ParameterSpace([kernel_block(kernel)])
        rounds = self.n_outer_iterations if rounds is None else rounds
        rounds = rounds if self.optimizer and len(space) else 0
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
            report_progress(
                self,
                message=f"  IVM round {outer + 1}/{rounds}: NLP outside I {nlp:.4f}, "
                f"kernel={kernel}",
            )
        state.close()
        if rounds and not np.isfinite(best_nlp):
            warn_at_caller(
                f"{type(self).__name__}: the held-out NLP of every hyperparameter "
                "round was not finite, so the starting kernel was kept; the selection "
                "lost its precision (try store_dtype='float64', or a larger noise "
                "or jitter term in the kernel).",
                NumericalWarning,
            )
        if rounds and self._chooses_ard(X):
            best = self._ard_round(X, y, best, best_nlp, d, rng, strategy, stop)
            rounds += 1
        report_progress(
            self,
            message=f"{type(self).__name__}: n={len(y)} d={d} kernel={best[1]} "
            f"({time.perf_counter() - start:.1f} s)",
        )
        return replace(best[0], n_iterations=rounds), best[1]

    def _chooses_ard(self, X):
        """Whether a fit tries a length-scale per feature (``ard="auto"``)."""
        return False

    def _l_ivm(self, X, y, kernel, sites):
        """``L_IVM`` at ``kernel`` of the active set with its sites ``sites = (active,
        precisions, means)``."""
        active, *held = sites
        return self._evidence(kernel, rows_of(X, active), y[active], held)[0]

    def _maximize_l_ivm(self, X, y, kernel, sites, rng, label):
        """``(kernel, gain)``: L-BFGS-B on ``L_IVM`` of the active set with its sites
        ``sites = (active, precisions, means)`` held, from ``kernel``, and what it
        gained over ``kernel``'s."""
        active, *held = sites
        X_active, y_active = rows_of(X, active), y[active]
        space = ParameterSpace([kernel_block(kernel)])

        def evidence(x):
            return self._evidence(space.unpack(x)["kernel"], X_active, y_active, held)

        result = maximize(
            evidence,
            space.pack({"kernel": kernel}),
            space.bounds(),
            max_iter=self.max_iter_optimizer,
            random_state=rng,
            progress=label if self.verbose else None,
        )
        return space.unpack(result.x)["kernel"], result.value - result.start_value

    def _ard_round(self, X, y, best, best_nlp, d, rng, strategy, stop):
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
        report_progress(
            self,
            message=f"  IVM ARD round: L_IVM gain {gain:.1f} (penalty "
            f"{X.shape[1] - 1}), NLP outside I {nlp} against {best_nlp:.4f}",
        )
        chosen = best[0]
        details = chosen.details | {
            "ard_evidence_gain": float(gain),
            "ard": best[1] is ard,
        }
        return replace(chosen, details=details), best[1]

    def _freeze(self, X, y, kernel, state, seconds, strategy):
        """``(FittedModel, kernel)`` from a selection state; the O(n·d) state is dropped."""
        active = np.asarray(state.active)
        X_active = rows_of(X, active)
        value = active_set_log_evidence(state.L, state.c, state.p[active])
        model = FittedModel(
            kernel=self._likelihood(kernel, y)[0],
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
    def _held_out_nlp(state, n, rng):
        """Mean predictive NLP of (a sample of) the ``n`` training points outside I."""
        outside = np.setdiff1d(np.arange(n), state.active)
        if len(outside) == 0:
            return 0.0
        if len(outside) > _N_SCORE:
            outside = rng.choice(outside, size=_N_SCORE, replace=False)
        return state.held_out_nlp(outside)


def _sites(state):
    """``(active, precisions, means)``: a selection state's active set and its sites."""
    active = state.active
    return active, state.p[active], state.m[active]


class IVMClassifier(_IVMFitting, GPClassifierMixin):
    """Informative Vector Machine: sparse GP classification by greedy ADF selection.

    A probit GP classifier whose posterior keeps sites on an active set of ``d`` points
    only, chosen greedily by the reduction of posterior entropy they bring (Lawrence,
    Seeger & Herbrich 2002, eqs. 1-4); O(n·d²) time, O(n·d) memory, predictions in
    O(d) (mean) and O(d²) (variance) per point (eq. 5).

    Parameters
    ----------
    kernel : sklearn kernel, default=None
        ``None`` means ``ConstantKernel(1.0) * RBF(ℓ₀) + ConstantKernel(1.0)`` with
        ``ℓ₀ = √(Σ_d var x_d)`` (``√D`` for standardised inputs) and a learnt prior
        variance of a random offset (the paper fixes it at 0.1). Without
        it, greedy selection on ringnorm picks mostly points of the broad class and the
        model predicts one class; started at 0.1, the first L_IVM step collapses the
        length-scale there, started at 1.0 it does not.
    ard : bool or "auto", default=False
        One length-scale per feature (automatic relevance determination) in the
        default kernel; ``False`` is the paper's isotropic kernel. ``"auto"`` (not
        the default: it did not pass the defaults gate, algorithms.md
        §5.8): after the rounds one more, on the best round's
        active set and sites, from the isotropic optimum of ``L_IVM``; where its
        ``L_IVM`` rises by more than the ``D − 1`` length-scales it adds (Akaike's
        penalty, as for :class:`FITCGPClassifier`) the set is reselected with it, and
        kept if it predicts the training points outside the active set better
        (algorithms.md §1.8). ``True`` learns ARD length-scales from the start.
        With a given ``kernel``, ``"auto"`` keeps it; without an optimizer there is
        nothing to choose.
    active_set_size : int, float in (0, 1] or None, default=None
        ``d``, or a fraction of the training set. ``None``: N/5 (the size of [SSK09]'s
        IVM columns), at most 5√n (``ACTIVE_SET_PER_ROOT_N``; 300 where that is more:
        the selection's O(n·d²) then grows as n², as an SVM's fit does) and
        ``DEFAULT_MAX_ACTIVE_SET`` (1 000): selection costs O(n·d²) time and O(n·d)
        memory. With C > 2 classes
        each one-vs-rest problem takes at most 1 000/√C, so that the C fits cost
        about one binary fit.
    selection : {"auto", "randomized", "greedy", "random"}, default="auto"
        ``"randomized"``: the paper's randomized greedy schedule (``n_random_start``
        random, then ``n_full_greedy`` full greedy, then a selection index of
        ``selection_size`` points, ``retain`` of which survive each step);
        ``"greedy"``: full greedy; ``"random"``: uniform (the paper's baseline).
        ``"auto"`` fits with randomized greedy and with uniform selection and keeps
        the model with the lower error on training points outside both active sets
        (then the lower NLP; greedy on a tie). The entropy score favours points on
        the wrong side of the boundary, so on noisy labels greedy selection fills the
        active set with label noise (on noisy data far worse than uniform selection);
        on clean digits it is several times more accurate than uniform. Beyond
        ``AUTO_SELECTION_ROWS`` (2 000) rows the two compare on a random subsample
        of that many, with ``d`` scaled to it, and the better strategy alone then
        selects on every row.
    selection_size, retain, n_random_start, n_full_greedy : default 500, 0.5, 2, 198
        The randomized greedy schedule of [LSH02] §3.
    store_dtype : {"auto", "float32", "float64"}, default="auto"
        Precision of the selection's O(n·d) store ``V`` (and in memory of its kernel
        blocks), on a dask cluster too (each row block's share of ``V``).
        ``float32`` halves its memory and runs the selection about 1.8× faster; the
        marginals, sites and the fitted posterior stay in float64; both precisions
        give the same test error and most of the same active set.
        ``"auto"``: float32 when the store exceeds ``_SINGLE_PRECISION_BYTES`` (80 MB)
        in float64, else float64.
    posterior : {"auto", "active_set", "fitc"}, default="auto"
        ``"auto"``: ``"fitc"``'s pass over every site, its kernel and bias relearnt
        on max(``every_site.LEARN_ROWS_PER_POINT``·d, ``LEARN_ROWS_LEAST``) rows
        drawn at random (every row where there are fewer), so that the pass costs
        about the selection's time (algorithms.md §1.9); eq. 5 where C·n·d² exceeds
        ``every_site.PASS_SIZE`` (5·10¹⁰: the pass's EP would cost more than the
        selection) or where the pass would not fit in memory (with a warning).
        Eq. 5's probabilities are under-confident on clean data and predict from d
        labels alone on noisy data; the pass calibrates both.
        ``"active_set"``: the paper's eq. 5, sites on the active set only.
        ``"fitc"``: Naish-Guzman & Holden's compromise ([NGH07] §6): after selection, EP
        over all n sites on the FITC prior whose pseudo-inputs are the active set,
        its kernel and bias relearnt from the IVM's by five (``every_site.FITC_ITERATIONS``)
        L-BFGS-B steps on the FITC EP evidence (kept fixed with ``optimizer=None``).
        Every training point then informs the posterior, which mends the IVM's
        under-confident probabilities (eq. 5 keeps large variances away from the
        active set, pulling them toward ½). Costs O(n·d²) per EP sweep and evidence
        gradient on top of the selection. Other kernels than sums and products of
        ``ConstantKernel``, ``RBF`` and ``Matern`` (``nu`` 1.5, 2.5) keep the IVM's
        kernel and bias in this pass.
    bias : "class_ratio" or float, default="class_ratio"
        Probit bias ``b``; ``"class_ratio"`` is the paper's ``Φ⁻¹(r)`` with ``r`` the
        fraction of positive training points.
    bias_variance : float or None, default=None
        If set, a *fixed* ``ConstantKernel(bias_variance)`` is added to the kernel, as
        in the paper's MNIST runs (0.1) where hyperparameters were not learnt.
    optimizer : "fmin_l_bfgs_b" or None, default="fmin_l_bfgs_b"
        Hyperparameters alternate between selection and maximising the approximate
        marginal likelihood of the active set with its sites fixed (algorithms.md §1.8); ``None``
        keeps the kernel fixed.
    n_outer_iterations : int, default=3
        Alternations of optimisation and reselection.
    max_iter_optimizer : int, default=20
        L-BFGS-B iterations per alternation.
    amplitude_prior : float or None, default=3.0
        As for :class:`EPGPClassifier`: the prior on the log amplitude, here on
        ``L_IVM`` in the hyperparameter rounds and on the FITC evidence of the pass
        that relearns the kernel.
    n_jobs, random_state, verbose
        One-vs-rest processes (and for a binary problem ``selection="auto"``'s two
        fits on a thread each, its FITC posterior on ``n_jobs`` threads over row
        blocks, started on the first fit to end; the model does not depend on it),
        reproducibility (selection and restarts), progress.

    Attributes
    ----------
    odds_weight_ : float
        How the one-vs-rest probabilities of more than two classes combine: ``P(k) ∝ Φ_k
        (1 − Φ_k)^(−w)``, fitted in [0, 1] by the leave-one-out likelihood of the
        training labels from the binary models' EP cavities (algorithms.md §7.5); 0 (the
        ``Φ_k`` normalised) for two classes or without the FITC pass
        (``posterior="active_set"``).
    n_iter_ : int or ndarray
        Alternations of hyperparameter steps and reselection run on every row
        (``n_outer_iterations``, and one more for ``ard="auto"``'s round; 0 without
        an optimizer, and 0 where ``selection="auto"`` learnt the kernel on a
        subsample and the pass over every site relearns it).
    converged_ : bool
        Always True: the schedule is fixed.
    active_set_ : ndarray of shape (d,), or list of them (one per class beyond two)
        Training indices of the active set, in inclusion order.
    selection_used_ : str, or list of them (one per class beyond two)
        The selection that chose the kept active set (``"randomized"`` or
        ``"random"`` under ``selection="auto"``).
    selection_time_ : float, or list of them (one per class beyond two)
        Wall-clock seconds of the selection that chose the kept active set (the
        O(n·d²) part of the fit; hyperparameter rounds reselect).
    kernel_, bias_, log_marginal_likelihood_value_, classes_, estimators_
        As for :class:`EPGPClassifier`; the evidence is ``L_IVM`` of the active set
        (the FITC EP evidence with ``posterior="fitc"``).

    References
    ----------
    [LSH02] Lawrence, N., Seeger, M. and Herbrich, R. (2003). Fast sparse Gaussian
    process methods: the informative vector machine. NIPS 15.
    [NGH07] Naish-Guzman, A. and Holden, S. (2008). The generalized FITC
    approximation. NIPS 20.
    [SSK09] Sundararajan, S., Shevade, S. and Keerthi, S. S. (2009). Validation-based
    sparse Gaussian process classifier design. Neural Computation 21(7).
    The mathematics: docs/algorithms.md §1; [NGH07] for ``posterior="fitc"``.

    Examples
    --------
    >>> from sparsegp import IVMClassifier
    >>> from sparsegp.datasets import make_xor_clusters
    >>> X, y = make_xor_clusters(200, random_state=0)
    >>> clf = IVMClassifier(active_set_size=30, random_state=0).fit(X, y)
    >>> clf.active_set_.shape
    (30,)
    """

    _parameter_constraints: dict = {
        **_SHARED_CONSTRAINTS,
        "posterior": [StrOptions({"auto", "active_set", "fitc"})],
        "bias": [StrOptions({"class_ratio"}), Real],
        "bias_variance": [None, Interval(Real, 0, None, closed="neither")],
        "amplitude_prior": AMPLITUDE_PRIOR_CONSTRAINT,
        "ard": ARD_CONSTRAINT,
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        kernel=None,
        *,
        ard=False,
        active_set_size=None,
        selection="auto",
        selection_size=500,
        retain=0.5,
        n_random_start=2,
        n_full_greedy=198,
        store_dtype="auto",
        posterior="auto",
        bias="class_ratio",
        bias_variance=None,
        optimizer="fmin_l_bfgs_b",
        n_outer_iterations=3,
        max_iter_optimizer=20,
        amplitude_prior=3.0,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.active_set_size = active_set_size
        self.selection = selection
        self.selection_size = selection_size
        self.retain = retain
        self.n_random_start = n_random_start
        self.n_full_greedy = n_full_greedy
        self.store_dtype = store_dtype
        self.posterior = posterior
        self.bias = bias
        self.bias_variance = bias_variance
        self.optimizer = optimizer
        self.n_outer_iterations = n_outer_iterations
        self.max_iter_optimizer = max_iter_optimizer
        self.amplitude_prior = amplitude_prior
        self.ard = ard
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _check_training_size(self, X):
        d = self._active_set_size(len(X))
        if self.posterior == "fitc":
            require_fitc_memory(d, len(X))

    @staticmethod
    def _held_out_error(model, mean, var, y):
        predicted = np.where(model.likelihood.predictive_z(mean, var) > 0, 1, -1)
        return np.mean(predicted != y)

    def _likelihood(self, kernel, y):
        if self.bias == "class_ratio":
            bias = float(norm.ppf(np.clip(np.mean(y > 0), 1e-6, 1 - 1e-6)))
        else:
            bias = float(self.bias)
        return kernel, Probit(bias)

    def _evidence(self, kernel, X_I, y_I, sites):
        """``L_IVM`` (algorithms.md §1.8), with ``amplitude_prior``'s log density."""
        value, gradient = ivm_log_marginal_likelihood(
            *gram_and_weighted_gradient(kernel, X_I), *sites
        )
        return with_amplitude_prior(value, gradient, kernel, self.amplitude_prior)

    def _chooses_ard(self, X):
        return chooses_ard(self, X)

    def _kernel_for(self, X):
        kernel = starting_kernel(self, X, lambda: default_kernel(X, constant=1.0))
        if self.bias_variance is not None:
            kernel = kernel + ConstantKernel(self.bias_variance, "fixed")
        return kernel

    def _fit_binary(self, X, y, random_state):
        kernel = self._kernel_for(X)
        then = self._posterior_pass(X, y, random_state)
        rng = check_random_state(random_state)
        return self._fit_active_set(X, y, kernel, rng, then)[0]

    def _posterior_pass(self, X, y, random_state):
        """The pass over every site that ``posterior`` asks for, or None (eq. 5's
        posterior): ``"auto"``'s relearns the kernel on max(2·d, 2 000) rows and is
        left out where it would cost more than the selection
        (:func:`~sparsegp.methods.every_site.relearning`), and with a warning where it would not fit
        in memory."""
        optimizer, learn_rows, caller = self.optimizer, None, pass_caller(self)
        if self.posterior == "active_set":
            return None
        if self.posterior == "auto":
            d = self._active_set_size(len(y))
            budget = relearning(self.optimizer, d, len(y), self._n_binary_problems())
            if budget is None:
                return None
            kept = "eq. 5's posterior"
            if not pass_fits_in_memory(caller, X, d, len(y), kept):
                return None
            optimizer, learn_rows = budget
        return EverySitePass(
            caller,
            X,
            y,
            random_state,
            optimizer,
            self.amplitude_prior,
            learn_rows=learn_rows,
        )

    def _fit_binary_distributed(self, X, y, random_state):
        """:meth:`_fit_binary` with the rows of the dask array ``X`` on the cluster."""
        return self._fit_binary(X, y, random_state)

    def _set_fitted_summaries(self):
        super()._set_fitted_summaries()
        models = self.estimators_
        self.active_set_ = per_problem(m.details["active_set"] for m in models)
        self.selection_time_ = per_problem(
            m.details["selection_seconds"] for m in models
        )
        self.selection_used_ = per_problem(m.details["selection"] for m in models)


class IVMRegressor(_IVMFitting, GPRegressorMixin):
    """Informative Vector Machine for regression: greedy subset of the data.

    With a Gaussian likelihood the ADF sites are exact, and the entropy score picks the
    point of largest current posterior variance; prediction is exact GP regression
    on the active subset (algorithms.md §1.10). The noise is the kernel's
    ``WhiteKernel`` term, as in ``GaussianProcessRegressor``.

    Parameters
    ----------
    kernel : sklearn kernel with a WhiteKernel summand, default=None
        ``None`` means ``ConstantKernel(1.0) * RBF(ℓ₀) + WhiteKernel(0.1)``.
    ard : bool, default=False
        Give the default kernel a length-scale per feature, learnt with the others
        (``True`` applies to ``kernel=None`` only). Where features differ in
        relevance it pays (algorithms.md §1.10); the evidence then has ``D`` more
        hyperparameters to learn on the active set.
    active_set_size, selection_size, retain, n_random_start, n_full_greedy
        As for :class:`IVMClassifier`.
    store_dtype : {"auto", "float32", "float64"}, default="auto"
        As for :class:`IVMClassifier`, but ``"auto"`` is float64 whatever the store's
        size: a point's posterior variance ``k(x, x) − ‖v‖²`` is the difference of
        the store's entries, which float32 rounds to about 10⁻⁷ of the prior
        variance, and on nearly noise-free targets the noise variance is no larger
        (the selection's variances then go negative, every round's evidence is NaN
        and the start kernel is kept: worse than a linear model).
    selection : {"randomized", "auto", "greedy", "random"}, default="randomized"
        As for :class:`IVMClassifier` (``"auto"`` compares held-out squared errors).
        With a Gaussian likelihood the greedy score is the posterior variance, which
        label noise does not mislead, so the paper's randomized greedy is the default;
        it does spend the set on isolated inputs first (largest variance), where
        ``"auto"`` helps.
    optimizer, n_outer_iterations, max_iter_optimizer, random_state, verbose
        As for :class:`IVMClassifier`; the evidence is the exact GP regression evidence
        of the active subset, noise level included.
    normalize_y : bool, default=True
        Centre and scale the targets by their mean and standard deviation, as
        ``GaussianProcessRegressor(normalize_y=True)``; ``kernel_`` is then in those
        units. Without it a zero-mean GP on targets far from zero (Friedman #1, mean
        14) explains them as noise.

    Attributes
    ----------
    n_iter_ : int or ndarray
        Alternations of hyperparameter steps and reselection run.
    converged_ : bool
        Always True: the schedule is fixed.
    active_set_ : ndarray of shape (d,)
    selection_used_ : str
        The selection that chose the kept active set.
    selection_time_ : float
        Wall-clock seconds of the selection that chose the kept active set.
    kernel_ : Kernel
        Learnt kernel, ``WhiteKernel`` term included (in normalised units).
    log_marginal_likelihood_value_ : float
    y_mean_, y_std_ : float
        The target normalisation (0 and 1 without ``normalize_y``).

    References
    ----------
    [LSH02] Lawrence, N., Seeger, M. and Herbrich, R. (2003). Fast sparse Gaussian
    process methods: the informative vector machine. NIPS 15.
    The mathematics: docs/algorithms.md §1.10.
    """

    _parameter_constraints: dict = {
        **_SHARED_CONSTRAINTS,
        "ard": ["boolean"],
        "normalize_y": ["boolean"],
    }

    def _n_binary_problems(self):
        """One fit has the default size's budget (:meth:`_active_set_size`)."""
        return 1

    def __init__(
        self,
        kernel=None,
        *,
        ard=False,
        active_set_size=None,
        selection="randomized",
        selection_size=500,
        retain=0.5,
        n_random_start=2,
        n_full_greedy=198,
        store_dtype="auto",
        optimizer="fmin_l_bfgs_b",
        n_outer_iterations=3,
        max_iter_optimizer=20,
        normalize_y=True,
        random_state=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.ard = ard
        self.active_set_size = active_set_size
        self.selection = selection
        self.selection_size = selection_size
        self.retain = retain
        self.n_random_start = n_random_start
        self.n_full_greedy = n_full_greedy
        self.store_dtype = store_dtype
        self.optimizer = optimizer
        self.n_outer_iterations = n_outer_iterations
        self.max_iter_optimizer = max_iter_optimizer
        self.normalize_y = normalize_y
        self.random_state = random_state
        self.verbose = verbose

    def _store_dtype(self, n, d):
        return np.dtype(np.float64 if self.store_dtype == "auto" else self.store_dtype)

    @staticmethod
    def _held_out_error(model, mean, var, y):
        return np.mean((mean - y) ** 2)

    def _likelihood(self, kernel, y):
        latent, noise = split_white_noise(kernel)
        return latent, Gaussian(noise)

    def _evidence(self, kernel, X_I, y_I, sites):
        K_I, K_I_gradient = kernel(X_I, eval_gradient=True)
        return subset_log_marginal_likelihood(K_I, K_I_gradient, y_I)

    @restore_on_failure
    @one_blas_thread
    def fit(self, X, y):
        """Select the active set (and learn the kernel) from ``X``, ``y``."""
        X, y = self._training_data(X, y)
        kernel = starting_kernel(self, X, lambda: default_kernel(X) + WhiteKernel(0.1))
        self._likelihood(kernel, y)  # validates the noise term before any work
        self.model_, kernel = self._fit_active_set(
            X, y, kernel, check_random_state(self.random_state)
        )
        if self.optimizer is not None:
            warn_at_bounds(kernel, self)
        self.kernel_ = kernel_in_input_units(self, kernel)
        self.active_set_ = self.model_.details["active_set"]
        self.selection_time_ = self.model_.details["selection_seconds"]
        self.selection_used_ = self.model_.details["selection"]
        self.log_marginal_likelihood_value_ = self.model_.log_marginal_likelihood
        self.n_iter_, self.converged_ = self.model_.n_iterations, self.model_.converged
        return self

    def _latent_and_noise(self, X):
        mean, var = self.model_.latent_mean_and_variance(X)
        return mean, var, self.model_.likelihood.noise
