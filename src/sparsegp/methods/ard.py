"""A length-scale per feature where it pays (``ard="auto"``): a screen, then a fit.

The isotropic model is fitted first; the ARD kernel starts from its optimum, a short
screen on a subsample decides whether the evidence can gain more than Akaike's
penalty for the length-scales added, and only then is the ARD model fitted on every
row (algorithms.md §5.8). Any method whose fit returns a
:class:`~sparsegp.methods.fitted.FittedModel` with a log evidence can use it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
from sklearn.gaussian_process.kernels import Kernel

from ..exceptions import NotPSDError
from ..kernels import with_length_scale_per_feature, with_length_scales_by_spread
from .fitted import FittedModel

__all__ = [
    "ARD_SCREEN_ITERATIONS",
    "ARD_SCREEN_ROWS",
    "ard_if_it_pays",
    "ard_starts",
    "screen_rows",
]


#: L-BFGS-B iterations of the screen by which ``ard="auto"`` decides: the ARD kernel
#: from the isotropic optimum, pseudo-inputs held (algorithms.md §5.8).
ARD_SCREEN_ITERATIONS = 5


def ard_starts(
    kernel: Kernel,
    spreads: np.ndarray,
    criterion: Callable[[Kernel], float],
    value: float | None = None,
) -> list[tuple[Kernel, float]]:
    """Where a length-scale per feature starts from the isotropic optimum ``kernel``
    (algorithms.md §5.8), each start with its criterion's excess over ``value``.

    :func:`~sparsegp.kernels.with_length_scale_per_feature`'s start (the same
    function, whose ``criterion`` is ``value``: evaluated there if not given, and
    only where a second start is in question), and before it
    :func:`~sparsegp.kernels.with_length_scales_by_spread`'s (the kernel on
    standardised features, for the features' standard deviations ``spreads``) where
    ``criterion(kernel)``, the quantity the fit maximises, is higher there: the fit
    then runs from both and keeps the higher end. From the isotropic optimum a
    feature far narrower than the others has a length-scale so much longer than its
    spread that the criterion's gradient in it vanishes; the other start can land
    in a poorer optimum than the first (a list of ``(start, excess)`` pairs).
    """
    same = (with_length_scale_per_feature(kernel, len(spreads)), 0.0)
    by_spread = with_length_scales_by_spread(kernel, spreads)
    if by_spread is None:
        return [same]
    if value is None:
        value = criterion(same[0])
    try:
        excess = float(criterion(by_spread)) - value
    except NotPSDError:  # a start the criterion cannot evaluate is no start
        return [same]
    return [(by_spread, excess), same] if excess > 0 else [same]


#: Most training rows ``ard="auto"``'s screen sees (a random subsample beyond): its
#: few iterations then cost a bounded share of the isotropic fit however large the
#: training set, and on a subsample the evidence's gain must be larger still to
#: pass the same penalty (algorithms.md §5.8).
ARD_SCREEN_ROWS = 1000


def screen_rows(n: int, rng: np.random.RandomState) -> np.ndarray:
    """The sorted rows of ``n`` that ``ard="auto"``'s screen sees: all of them up to
    :data:`ARD_SCREEN_ROWS`, else that many drawn by ``rng``."""
    if n <= ARD_SCREEN_ROWS:
        return np.arange(n)
    return np.sort(rng.choice(n, ARD_SCREEN_ROWS, replace=False))


def ard_if_it_pays(
    isotropic: FittedModel,
    screen: Callable[..., FittedModel],
    whole_ard_fit: Callable[[FittedModel], FittedModel],
    spreads: np.ndarray,
    n_kernels: int = 1,
    subsample: bool = True,
) -> tuple[FittedModel, list[FittedModel]]:
    """``ard="auto"``: the ARD model if its log evidence exceeds the fitted isotropic
    model's by more than the ``D − 1`` length-scales it adds to each of its
    ``n_kernels`` kernels (Akaike's penalty, [Aka74]; algorithms.md §5.8), else the
    isotropic model; ``spreads`` are the ``D`` features' standard deviations.

    A screen decides first: ``screen(kernel, start, stage)`` fits the ARD kernel on
    the screen's rows (:func:`screen_rows`; ``subsample`` False where those are
    every row, the fitted model's evidence then the baseline) from the fitted model
    ``start``'s other parameters, ``"evaluate"`` none (the evidence at ``kernel``)
    and ``"screen"`` :data:`ARD_SCREEN_ITERATIONS` iterations with the
    pseudo-inputs held, from the isotropic optimum made ARD (the same function, the
    same evidence) and also on standardised features where the evidence is higher
    there (:func:`ard_starts`); the isotropic kernel's evidence on the same rows is
    the baseline. Only where a screen gains more than the penalty does
    ``whole_ard_fit(screen)`` fit the ARD model on every row from the best screen's
    kernel (FITC from its own initial pseudo-inputs: from the isotropic optimum's
    its whole fit took several times as long). Returns the chosen model, its
    ``details`` holding the gain and the choice, and the list of fits made.
    """
    penalty = n_kernels * (len(spreads) - 1)
    baseline = isotropic
    if subsample:
        baseline = screen(isotropic.kernel, isotropic, "evaluate")
    starts = ard_starts(
        isotropic.kernel,
        spreads,
        lambda kernel: screen(kernel, isotropic, "evaluate").log_marginal_likelihood,
        baseline.log_marginal_likelihood,
    )
    screens = [screen(kernel, isotropic, "screen") for kernel, _ in starts]
    best = max(screens, key=lambda fit: fit.log_marginal_likelihood)
    gain = best.log_marginal_likelihood - baseline.log_marginal_likelihood
    made = [baseline, *screens] if subsample else screens
    chosen = isotropic
    if gain > penalty:
        ard = whole_ard_fit(best)
        made.append(ard)
        gain = ard.log_marginal_likelihood - isotropic.log_marginal_likelihood
        chosen = ard if gain > penalty else isotropic
    chosen = replace(
        chosen,
        details=chosen.details
        | {"ard_evidence_gain": float(gain), "ard": chosen is not isotropic},
    )
    return chosen, made
