"""[NGH07] §6's pass: EP over every training site on the FITC prior whose
pseudo-inputs are a sparse model's points.

The IVM (its active set) and the NLP classifier (its basis) predict from sites on d
points only ([LSH02] eq. 5): the other n − d labels inform the hyperparameters at most,
and the probabilities are under-confident on clean data and poor where the d points
miss a rare class. This pass keeps the points and puts a site on every training point
(algorithms.md §1.9), optionally relearning the kernel and bias by a few L-BFGS-B steps
on FITC's evidence, over every row or over a random subset of them; O(n·d²) per sweep.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.gaussian_process.kernels import Kernel
from sklearn.utils import check_random_state

from .._dask import is_dask_array, rows_of
from ..approximations.blocks import thread_pool
from ..approximations.evidence import EvidenceFit, EvidenceSettings, maximize_evidence
from ..approximations.fitc_ep import InMemoryFITC
from ..exceptions import warn_at_caller
from ..kernels import is_input_differentiable
from .fitc_ep import fitc_approximation, require_fitc_memory
from .fitted import FittedModel

__all__ = [
    "EverySitePass",
    "PassCaller",
    "every_site_if_it_fits",
    "pass_fits_in_memory",
    "relearning",
]

#: L-BFGS-B iterations of a relearning pass: the sparse model's kernel is a good
#: start, and more iterations cost time without improving the test NLP.
FITC_ITERATIONS = 5

#: A pass relearns the kernel on this many random training rows per point of the
#: sparse model, and on at least ``LEARN_ROWS_LEAST`` (every row where there are
#: fewer): the relearning then costs O(d³) per evaluation, a share of the
#: selection's O(n·d²) that falls as n grows, where relearning on every row cost
#: several times the selection; below a few thousand rows every row costs little and
#: a smaller sample lost NLP (algorithms.md §1.9).
LEARN_ROWS_PER_POINT = 2
LEARN_ROWS_LEAST = 2000

#: The NLP classifier's pass relearns on every row while its one-vs-rest problems
#: together have C·n·d² up to this, beyond on ``RELEARN_SIZE / (C·d²)`` random rows
#: (``LEARN_ROWS_LEAST`` at least): its selection scores κ candidates on s validation
#: points for each basis vector, so that relearning stays a small share of its fit,
#: where 2 000 rows lost MAGIC's test NLP (algorithms.md §2.6).
RELEARN_SIZE = 5e9

#: ``posterior="auto"`` runs the pass only while the fit's one-vs-rest problems
#: together have C·n·d² up to this: each of its EP sweeps costs about two n·d²
#: products, so beyond it the pass would cost more than the selection it follows
#: (the paper's MNIST runs, d = 2 400 on 60 000 images), and eq. 5 is kept.
PASS_SIZE = 5e10

#: Rows of a relearning's row block (``learn_rows``): at the in-memory fit's block
#: size (``block_rows``) its few thousand rows make one block, which one thread works
#: on however many the fit has, while blocks of a few dozen rows spend a sweep on
#: numpy's per-call overhead; blocks of this many rows keep both in check.
LEARN_BLOCK_ROWS = 512

#: The pass's EP: ``FITCGPClassifier``'s defaults (parallel sweeps, damping 0.8,
#: ``tol`` 10⁻³, 100 sweeps, ``ε_u`` 10⁻⁶).
_DAMPING, _TOL, _MAX_SWEEPS, _JITTER = 0.8, 1e-3, 100, 1e-6


@dataclass(frozen=True)
class PassCaller:
    """What the pass needs of the estimator it runs for: its name (for messages),
    its row threads, whether to show a progress bar, where progress lines go
    (``report(line, level)``: 1 the pass's result, 2 each EP evaluation), and what to
    do where the posterior's EP did not converge (``not_converged(sweeps, tol)``)."""

    name: str
    n_threads: int = 1
    progress: bool = False
    report: Callable[[str, int], None] | None = None
    not_converged: Callable[[int, float], None] | None = None


def pass_fits_in_memory(
    caller: PassCaller, X: Any, n_points: int, n: int, kept: str
) -> bool:
    """Whether the pass's M × n blocks of ``n_points`` pseudo-inputs fit in memory (on
    a cluster they stay on the workers, row block by row block); a warning naming
    ``kept``, the posterior kept instead, where they do not."""
    try:
        if not is_dask_array(X):
            require_fitc_memory(n_points, n)
    except MemoryError as error:
        warn_at_caller(
            f"{caller.name}: kept {kept}; the pass over every training point does "
            f"not fit: {error}",
            UserWarning,
        )
        return False
    return True


def relearning(
    optimizer: str | None, d: int, n: int, n_problems: int = 1, budget: float = 0.0
) -> tuple[str | None, int | None] | None:
    """The pass's ``(optimizer, learn_rows)`` for a sparse model of ``d`` points on
    ``n`` rows in one of ``n_problems`` one-vs-rest problems, or None where the pass
    costs more than :data:`PASS_SIZE` allows: ``LEARN_ROWS_PER_POINT·d`` rows, at
    least ``LEARN_ROWS_LEAST`` and ``budget / (C·d²)`` (the NLP classifier's
    :data:`RELEARN_SIZE`), to relearn the kernel on (every row where there are
    fewer)."""
    if n_problems * n * d**2 > PASS_SIZE:
        return None
    learn_rows = max(
        LEARN_ROWS_PER_POINT * d, LEARN_ROWS_LEAST, int(budget // (n_problems * d**2))
    )
    return optimizer, (learn_rows if learn_rows < n else None)


def every_site_if_it_fits(
    caller: PassCaller,
    X: Any,
    y: np.ndarray,
    model: FittedModel,
    random_state: Any,
    optimizer: str | None,
    kept: str,
    start: tuple[Kernel, float] | None = None,
    amplitude_prior: float | None = None,
    learn_rows: int | None = None,
) -> FittedModel:
    """``model`` with the FITC posterior over every site, its points as pseudo-inputs
    (:class:`EverySitePass`), or unchanged with a warning (naming ``kept``, the
    posterior it keeps) where the pass's M × n blocks would not fit in memory."""
    if not pass_fits_in_memory(caller, X, len(model.points), len(y), kept):
        return model
    return EverySitePass(
        caller, X, y, random_state, optimizer, amplitude_prior, start, learn_rows
    )(model)


@dataclass(frozen=True)
class EverySitePass:
    """The pass over every site of the training data ``(X, y)`` of ``caller``, in two
    steps: the EP work (:meth:`evidence`, which warns of nothing, so that it may run in
    another thread before its model is chosen and be abandoned) and the model from it
    (:meth:`apply`). Calling it does both.

    ``start``: the ``(kernel, bias)`` the pass starts from where they are not the
    model's own (the NLP classifier's slope folded in). With ``optimizer``, kernel and
    bias relearnt by ``FITC_ITERATIONS`` steps on FITC's evidence
    (:func:`~sparsegp.approximations.evidence.maximize_evidence`, with
    ``amplitude_prior``'s prior on the log amplitudes where given); kernels FITC
    cannot differentiate keep the model's. With ``learn_rows``, the relearning runs on
    that many training rows drawn at random, and the posterior over every row then
    keeps its kernel and bias: the relearning's cost bounded where n·d² is large.
    Where the parallel sweeps over every row do not converge, sequential EP on the
    rows in memory takes their place (:meth:`_sequential`).
    """

    caller: PassCaller
    X: Any
    y: np.ndarray
    random_state: Any
    optimizer: str | None
    amplitude_prior: float | None = None
    start: tuple[Kernel, float] | None = None
    learn_rows: int | None = None

    def __call__(self, model: FittedModel) -> FittedModel:
        """The model with the pass's posterior, its row blocks on the caller's row
        threads (``n_jobs``)."""
        with thread_pool(self.caller.n_threads) as pool:
            fit = self.evidence(model, pool)
        return self.apply(model, fit)

    def relearns(self, kernel: Kernel) -> bool:
        """Whether the pass relearns ``kernel`` (FITC can differentiate it)."""
        return self.optimizer is not None and is_input_differentiable(kernel)

    def evidence(self, model: FittedModel, pool: Executor | None = None) -> EvidenceFit:
        """The pass's EP and evidence, its row blocks on the thread ``pool`` (in this
        thread without)."""
        kernel, bias = model.kernel, model.likelihood.bias
        if self.start is not None:
            kernel, bias = self.start
        learn = self.relearns(kernel)
        X, y = self.X, self.y
        if learn and self.learn_rows is not None and self.learn_rows < len(y):
            rng = check_random_state(self.random_state)
            rows = np.sort(rng.choice(len(y), self.learn_rows, replace=False))
            fit = self._maximize(
                rows_of(X, rows),
                rows_of(y, rows),
                kernel,
                model,
                bias,
                pool,
                largest_block=LEARN_BLOCK_ROWS,
            )
            kernel, bias, learn = fit.kernel, fit.likelihood.bias, False
        fit = self._maximize(X, y, kernel, model, bias, pool, learn)
        if fit.ep_converged or is_dask_array(X):
            return fit
        return self._sequential(X, y, model, fit)

    def _sequential(
        self, X: Any, y: np.ndarray, model: FittedModel, parallel: EvidenceFit
    ) -> EvidenceFit:
        """[NGH07]'s sequential EP at the kernel and bias of the ``parallel`` fit,
        whose sweeps did not converge: with about as many pseudo-inputs as sites (the
        online GP keeps 397 basis vectors of 398 breast-cancer points) parallel EP can
        cycle, its Anderson-mixed steps two sweeps apart at the smallest damping,
        where sequential EP converged in 8 sweeps (algorithms.md §3.7). The counts
        are both runs'."""
        settings = self._settings("sequential", 1.0, learn=False)
        approximation = InMemoryFITC(X, y, _JITTER, differentiable=False)
        fit = maximize_evidence(
            approximation,
            parallel.kernel,
            model.points,
            parallel.likelihood.bias,
            settings,
        )
        return replace(
            fit,
            n_evaluations=parallel.n_evaluations,
            n_sweeps=parallel.n_sweeps + fit.n_sweeps,
            optimizer_converged=parallel.optimizer_converged,
        )

    def _maximize(
        self,
        X: Any,
        y: np.ndarray,
        kernel: Kernel,
        model: FittedModel,
        bias: float,
        pool: Executor | None,
        learn: bool = True,
        largest_block: int | None = None,
    ) -> EvidenceFit:
        """FITC's EP on ``(X, y)`` with ``model``'s points as pseudo-inputs, from
        ``kernel`` and ``bias``, relearnt by ``FITC_ITERATIONS`` steps if ``learn``;
        row blocks of at most ``largest_block`` rows (None: FITC's own). The
        relearning's evaluations sweep in float64: from float32 sweeps (FITC's
        default) their rounding, 10⁻⁷, reached the probabilities at 10⁻⁶–10⁻⁵ across
        input units and at 5·10⁻³ across a float32 and a float64 store."""
        settings = self._settings("parallel", _DAMPING, learn)
        approximation = fitc_approximation(
            X, y, _JITTER, self.caller.name, pool, largest_block
        )
        try:
            return maximize_evidence(
                approximation, kernel, model.points, bias, settings
            )
        finally:
            approximation.close()

    def _settings(self, mode: str, damping: float, learn: bool) -> EvidenceSettings:
        """The pass's EP (``mode``, ``damping``; the other options
        ``FITCGPClassifier``'s defaults), ``FITC_ITERATIONS`` relearning steps if
        ``learn`` (their sweeps in float64, :meth:`_maximize`), progress as the
        caller asks."""
        name, report = self.caller.name, self.caller.report
        return EvidenceSettings(
            ep_options=dict(
                mode=mode,
                damping=damping,
                tol=_TOL,
                max_sweeps=_MAX_SWEEPS,
                random_state=self.random_state,
            ),
            max_iter=FITC_ITERATIONS if learn else None,
            learn_inducing=False,
            sweep_dtype=np.float64 if learn else np.float32,
            amplitude_prior=self.amplitude_prior,
            progress=f"{name}: FITC evidence" if self.caller.progress else None,
            report=None if report is None else lambda line: report(line, 2),
        )

    def apply(self, model: FittedModel, fit: EvidenceFit) -> FittedModel:
        """``model`` with :meth:`evidence`'s ``fit`` as its posterior; warns if its EP
        did not converge."""
        if not fit.ep_converged and self.caller.not_converged is not None:
            self.caller.not_converged(fit.final_sweeps, _TOL)
        if self.caller.report is not None:
            self.caller.report(
                f"{self.caller.name}: FITC posterior over {len(self.y)} points, "
                f"log Z_EP={fit.log_evidence:.3f} kernel={fit.kernel} "
                f"({fit.n_evaluations} evaluations, {fit.n_sweeps} sweeps)",
                1,
            )
        return replace(
            model,
            kernel=fit.kernel,
            likelihood=fit.likelihood,
            predictor=fit.predictor,
            log_marginal_likelihood=fit.log_evidence,
            leave_one_out=fit.leave_one_out,
            details=dict(
                model.details,
                n_sweeps=fit.n_sweeps,
                fitc_evaluations=fit.n_evaluations,
            ),
        )
