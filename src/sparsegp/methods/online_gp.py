"""Csató's sparse online GP's recipe: default sizes, the passes, the hyperparameters.

The engine (:class:`~sparsegp.approximations.online.SparseOnlineGP`) absorbs one
example at a time; this module runs its passes over a data set, sizes its BV set and
its hyperparameter subsample, and learns the classifier's hyperparameters by full EP
on that subsample, with ``ard="auto"``'s prequential choice (algorithms.md §3.6).
:class:`~sparsegp.SparseOnlineGPRegressor` and
:class:`~sparsegp.SparseOnlineGPClassifier` read their parameters into
:class:`OnlinePasses` and call these functions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.gaussian_process.kernels import Kernel
from tqdm.auto import tqdm

from ..approximations.evidence import EvidenceFit, EvidenceSettings
from ..approximations.ivm import maximize_regression_evidence
from ..approximations.online import SparseOnlineGP
from ..likelihoods import Likelihood
from .ard import ard_starts
from .fitted import FittedModel, fitted_model
from .full_ep import ard_refit, fit_full_ep
from .kernel_defaults import feature_spreads

__all__ = [
    "DEFAULT_HYPERPARAMETER_SAMPLES",
    "DEFAULT_MAX_BASIS_VECTORS",
    "MIN_DEFAULT_BASIS_VECTORS",
    "MIN_DEFAULT_HYPERPARAMETER_SAMPLES",
    "MIN_RARER_CLASS_EXAMPLES",
    "SIZED_FOR_EXAMPLES",
    "OnlinePasses",
    "absorb",
    "ard_candidates",
    "classifier_model",
    "default_basis_size",
    "default_hyperparameter_samples",
    "hyperparameter_sample_size",
    "online_model",
    "prequential_choice",
    "regressor_hyperparameters",
    "run_passes",
]

#: Examples per progress-bar step of a pass.
_PROGRESS_CHUNK = 10_000
#: Examples of the rarer class the classifier's hyperparameter subsample should hold
#: (in expectation). With fewer, full EP's evidence can prefer a kernel under which
#: the examples are independent and the base rate explains the labels (at 2.5 %
#: positives, 300 examples hold about 8 positive ones).
MIN_RARER_CLASS_EXAMPLES = 30
#: The subsample grows to at most this multiple of ``n_hyperparameter_samples``.
_MAX_SUBSAMPLE_GROWTH = 4

#: The default sizes (``None``): one binary problem keeps up to
#: ``DEFAULT_MAX_BASIS_VECTORS`` basis vectors, whose pass over
#: ``SIZED_FOR_EXAMPLES`` examples (O(n·d²)) is the time budget of one fit, and learns
#: its hyperparameters on ``DEFAULT_HYPERPARAMETER_SAMPLES`` examples (full EP, O(s³),
#: about the same); C one-vs-rest problems, or more examples, share those budgets
#: down to the ``MIN_`` sizes (docs/guide.md, "Default sizes", gives the times).
DEFAULT_MAX_BASIS_VECTORS = 600
MIN_DEFAULT_BASIS_VECTORS = 300
SIZED_FOR_EXAMPLES = 50_000
DEFAULT_HYPERPARAMETER_SAMPLES = 1000
MIN_DEFAULT_HYPERPARAMETER_SAMPLES = 300

#: A kernel and a likelihood to run the passes with.
Candidate = tuple[Kernel, Likelihood]


def default_basis_size(n: int | None, n_problems: int) -> int:
    """``max_basis_vectors=None``: the ``d`` at which ``n_problems`` passes over ``n``
    examples (O(C·n·d²)) cost one pass of ``DEFAULT_MAX_BASIS_VECTORS`` over
    ``SIZED_FOR_EXAMPLES`` examples, between ``MIN_DEFAULT_BASIS_VECTORS`` and
    ``DEFAULT_MAX_BASIS_VECTORS``; ``n=None`` (a stream) counts
    ``SIZED_FOR_EXAMPLES``."""
    n = SIZED_FOR_EXAMPLES if n is None else n
    d = DEFAULT_MAX_BASIS_VECTORS * np.sqrt(SIZED_FOR_EXAMPLES / (n_problems * n))
    return int(np.clip(round(d), MIN_DEFAULT_BASIS_VECTORS, DEFAULT_MAX_BASIS_VECTORS))


def default_hyperparameter_samples(n_problems: int) -> int:
    """``n_hyperparameter_samples=None``: the ``s`` at which ``n_problems`` full-EP
    fits (O(C·s³)) cost one of ``DEFAULT_HYPERPARAMETER_SAMPLES`` examples, at least
    ``MIN_DEFAULT_HYPERPARAMETER_SAMPLES``."""
    s = DEFAULT_HYPERPARAMETER_SAMPLES / np.cbrt(n_problems)
    return int(max(MIN_DEFAULT_HYPERPARAMETER_SAMPLES, round(s)))


def hyperparameter_sample_size(y: np.ndarray, n_samples: int) -> int:
    """Examples for the classifier's hyperparameters: ``n_samples``, grown (up to
    ``_MAX_SUBSAMPLE_GROWTH`` times) until it holds :data:`MIN_RARER_CLASS_EXAMPLES` of
    the rarer of the ±1 labels ``y`` in expectation; never more than ``len(y)``."""
    rarer_share = min(np.mean(y == 1), np.mean(y != 1))
    if rarer_share * n_samples < MIN_RARER_CLASS_EXAMPLES and rarer_share > 0:
        n_samples = min(
            int(np.ceil(MIN_RARER_CLASS_EXAMPLES / rarer_share)),
            _MAX_SUBSAMPLE_GROWTH * n_samples,
        )
    return min(n_samples, len(y))


@dataclass(frozen=True)
class OnlinePasses:
    """How the passes run (the estimators' parameters of the same names; ``basis_size``
    is the cap ``d`` on the BV set, ``progress`` shows a bar per pass)."""

    basis_size: int
    tol: float = 1e-6
    deletion_score: str = "approximate"
    n_passes: int = 1
    shuffle: bool = True
    progress: bool = False

    def new_state(self, kernel: Kernel, likelihood: Likelihood) -> SparseOnlineGP:
        """An empty online state of these settings."""
        return SparseOnlineGP(
            kernel, likelihood, self.basis_size, self.tol, self.deletion_score
        )


def run_passes(
    X: np.ndarray,
    y: np.ndarray,
    kernel: Kernel,
    likelihood: Likelihood,
    passes: OnlinePasses,
    rng: np.random.RandomState,
) -> tuple[SparseOnlineGP, np.ndarray]:
    """The state after ``n_passes`` passes, and each example's latent mean and
    variance before the first pass absorbed it (rows in ``X``'s order; the
    prediction of a model that had not seen it).

    A first pass starts from an empty BV set and chooses the basis. A second pass
    restarts from that basis, held fixed (``α = 0``, ``C = 0``, [Csa02] §3.6), and
    projects every example onto it by eq. 88: each likelihood term enters once, and the
    examples seen early meet the final basis rather than the smaller one of their
    time (for regression this is exactly the DTC posterior on the basis). Passes
    beyond the second only change the order of presentation.
    """
    state = passes.new_state(kernel, likelihood)
    predictive = np.empty((len(y), 2))
    for n_pass in range(passes.n_passes):
        if n_pass:
            state = SparseOnlineGP.with_basis(
                kernel,
                likelihood,
                state.basis_vectors,
                passes.basis_size,
                passes.tol,
                passes.deletion_score,
            )
        order = rng.permutation(len(y)) if passes.shuffle else np.arange(len(y))
        seen = absorb(
            state, X[order], y[order], f"online pass {n_pass + 1}", passes.progress
        )
        if not n_pass:
            predictive[order] = seen
    return state, predictive


def absorb(
    state: SparseOnlineGP,
    X: np.ndarray,
    y: np.ndarray,
    description: str,
    progress: bool,
) -> np.ndarray:
    """``state.update`` in chunks of ``_PROGRESS_CHUNK`` examples, with a progress
    bar where asked (chunked updates equal one update: the pass is sequential).
    Returns each example's latent mean and variance before its update (n × 2).
    """
    predictive = np.empty((len(y), 2))
    with tqdm(total=len(y), desc=description, disable=not progress, leave=False) as bar:
        for start in range(0, len(y), _PROGRESS_CHUNK):
            stop = start + _PROGRESS_CHUNK
            state.update(X[start:stop], y[start:stop], predictive[start:stop])
            bar.update(min(_PROGRESS_CHUNK, len(y) - start))
    return predictive


def online_model(state: SparseOnlineGP, details: dict | None = None) -> FittedModel:
    """The fitted model of an online state as it stands: its predictor is the state's
    posterior ([Csa02] §3.6), its iterations the examples absorbed; a single pass has
    nothing to converge. ``details`` keep the state (``"online_state"``) for
    ``partial_fit`` also where a later EP replaces the predictor (§3.7). Rebuilt
    after each ``partial_fit``."""
    return FittedModel(
        kernel=state.kernel,
        likelihood=state.likelihood,
        points=state.basis_vectors,
        predictor=state.predictor(),
        n_iterations=state.n_seen,
        details={**(details or {}), "online_state": state},
    )


def prequential_choice(
    candidates: list[Candidate],
    runs: list[tuple[SparseOnlineGP, np.ndarray]],
    y: np.ndarray,
    outside: np.ndarray,
) -> tuple[int, dict[str, Any], str]:
    """``ard="auto"``'s choice between the isotropic and the ARD model (the index,
    the details recording it, and a line saying so): ARD where its prequential NLP
    (each example predicted before the first pass absorbed it, [Daw84]) over the
    examples ``outside`` the hyperparameters' subsample is lower than the isotropic
    model's by more than one standard error of their paired difference."""
    losses = [
        -likelihood.log_predictive(seen[outside, 0], seen[outside, 1], y[outside])
        for (_, likelihood), (_, seen) in zip(candidates, runs, strict=True)
    ]
    difference = losses[1] - losses[0]
    standard_error = np.std(difference) / np.sqrt(len(difference))
    ard = bool(np.mean(difference) < -standard_error)
    message = (
        f"  prequential NLP: isotropic {np.mean(losses[0]):.4f}, ARD "
        f"{np.mean(losses[1]):.4f} ± {standard_error:.4f}: "
        f"{'ARD' if ard else 'isotropic'} kept"
    )
    details = {"ard": ard, "prequential_nlp": tuple(map(np.mean, losses))}
    return int(ard), details, message


def classifier_model(
    X_sub: np.ndarray,
    y_sub: np.ndarray,
    kernel: Kernel,
    bias: float,
    settings: EvidenceSettings,
    warn: Callable[[EvidenceFit], None],
) -> FittedModel:
    """The classifier's kernel and probit bias, learnt by full EP's evidence on the
    subsample ``X_sub``, ``y_sub`` from ``kernel`` (algorithms.md §3.6); ``warn`` sees
    the fit."""
    fit = fit_full_ep(X_sub, y_sub, kernel, bias, settings)
    warn(fit)
    return fitted_model(fit)


def ard_candidates(
    X_sub: np.ndarray,
    y_sub: np.ndarray,
    model: FittedModel,
    settings: EvidenceSettings,
    warn: Callable[[EvidenceFit], None],
) -> list[Candidate]:
    """``ard="auto"``'s two candidates for :func:`prequential_choice`: the isotropic
    ``model`` and the ARD model fitted from it on the same subsample (from each of
    :func:`~sparsegp.methods.ard.ard_starts`, the higher evidence kept); ``warn`` sees
    every full-EP fit."""
    refit = ard_refit(X_sub, y_sub, settings, warn)
    starts = ard_starts(
        model.kernel,
        feature_spreads(X_sub),
        lambda kernel: refit(kernel, model, "evaluate").log_marginal_likelihood,
        model.log_marginal_likelihood,
    )
    with_ard = max(
        (refit(kernel, model) for kernel, _ in starts),
        key=lambda fit: fit.log_marginal_likelihood,
    )
    return [(m.kernel, m.likelihood) for m in (model, with_ard)]


def regressor_hyperparameters(
    X_sub: np.ndarray,
    y_sub: np.ndarray,
    kernel: Kernel,
    n_restarts: int,
    rng: np.random.RandomState,
) -> Kernel:
    """The regressor's kernel, its ``WhiteKernel`` noise included, by the exact GP
    regression evidence of the subsample ``X_sub``, ``y_sub`` (algorithms.md §3.6),
    from ``kernel`` and ``n_restarts`` random starts."""
    learnt, _ = maximize_regression_evidence(
        kernel, X_sub, y_sub, n_restarts=n_restarts, random_state=rng
    )
    return learnt
