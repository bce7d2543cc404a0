"""C binary probit models read as one distribution over C classes (algorithms.md §7.5).

Class ``k``'s model gives ``Φ_k = Φ(z_k)`` that the label is ``k`` rather than another.
Normalising the ``Φ_k`` to sum to one treats them as a distribution already; reading
them as C independent yes/no answers of which exactly one is yes gives
``P(k) ∝ Φ_k ∏_{j≠k} (1 − Φ_j) ∝ Φ_k / (1 − Φ_k)``, the odds. The two are the ends of
one family,

    log P(k) = log Φ_k − w · log(1 − Φ_k) + const,   0 ≤ w ≤ 1,

whose every member keeps the order of the ``Φ_k`` (so the predicted class). Which end
is right depends on the data: on clean data each binary model leaves some mass on
every wrong class and the sum of the C − 1 small ``Φ_j`` makes the normalised
probabilities under-confident (the odds are better); on noisy data the ``Φ_k`` are
moderate and the odds over-confident. ``w`` is fitted by the leave-one-out
likelihood of the training labels, each binary model's latent at a training point
read from its EP cavity (:func:`~sparsegp.approximations.ep.leave_one_out`): one
convex scalar problem (``log P(y)`` is linear in ``w`` minus a log-sum-exp of
functions linear in ``w``).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import log_ndtr, logsumexp

__all__ = ["class_log_probabilities", "fit_odds_weight"]


def class_log_probabilities(scores: np.ndarray, odds_weight: float) -> np.ndarray:
    """``log P(k)`` of each row from the binary models' probit arguments.

    Parameters
    ----------
    scores : ndarray of shape (n, C)
        ``z_k`` with ``Φ_k = Φ(z_k)``.
    odds_weight : float
        ``w`` in [0, 1]: 0 normalises the ``Φ_k``, 1 the odds.

    Returns
    -------
    ndarray of shape (n, C)
        Normalised in log space (far from every class's data all ``Φ_k`` underflow).
    """
    log_p = log_ndtr(scores)
    if odds_weight:
        log_p -= odds_weight * log_ndtr(-scores)
    return log_p - logsumexp(log_p, axis=1, keepdims=True)


def fit_odds_weight(scores: np.ndarray, labels: np.ndarray) -> float:
    """The ``w`` in [0, 1] of largest ``Σ_i log P(y_i)``.

    Parameters
    ----------
    scores : ndarray of shape (n, C)
        The binary models' leave-one-out probit arguments at the training points.
    labels : ndarray of shape (n,)
        Class indices in ``0..C-1``.
    """
    rows = np.arange(len(labels))

    def loss(weight: float) -> float:
        return -float(np.sum(class_log_probabilities(scores, weight)[rows, labels]))

    result = minimize_scalar(loss, bounds=(0.0, 1.0), method="bounded")
    return float(result.x)
