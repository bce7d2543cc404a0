"""``ard="auto"``'s held-out comparison of the two kernels, where Akaike's penalty is
too strict (algorithms.md §5.8).

The penalty counts ``D − 1`` nats for the length-scales ARD adds. Where most features
are irrelevant, ARD sends their length-scales long instead of fitting them, the
evidence gains less than a nat for each, and the penalty misses ARD where it halves
the test error (one-hot DNA sequences, 500 features of which 8 inform). There, both
kernels are fitted on four fifths of at most :data:`HELD_OUT_MAX_ROWS` training rows
and compared on the last fifth; on fewer than :data:`HELD_OUT_MIN_ROWS` rows, or fewer
than :data:`HELD_OUT_MIN_PER_LABEL` of either label, that fifth is too small to tell
them apart (on 140-170 points it chose ARD where the test set did not; on
scikit-learn's digits, 125 of each class in 1 257 rows, it agreed with the test set on
6 of 10 one-vs-rest problems) and the penalty alone decides.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import train_test_split

from ..kernels import with_length_scale_per_feature

__all__ = [
    "HELD_OUT_MAX_ROWS",
    "HELD_OUT_MIN_PER_LABEL",
    "HELD_OUT_MIN_ROWS",
    "held_out_prefers_ard",
]

#: Fewest training rows on which the comparison is made: a fifth of them, 200 points,
#: scores the two kernels.
HELD_OUT_MIN_ROWS = 1_000

#: Fewest training rows of either label on which the comparison is made. With fewer
#: of the rarer label the scored fifth's mean loss is carried by a few of its points:
#: on scikit-learn's digits (125 rows of each class) it kept ARD where the test set
#: did not on three of five splits (algorithms.md §5.8).
HELD_OUT_MIN_PER_LABEL = 250

#: Most rows the comparison of a binary problem fits and scores (a random subset
#: beyond), so that its two fits cost a bounded time whatever n.
HELD_OUT_MAX_ROWS = 5_000

#: The share of the compared rows held out.
HELD_OUT_SHARE = 0.2

#: Fewest rows of either label among the compared ones (a rare class's problem keeps
#: the penalty's choice).
_LEAST_PER_LABEL = 10


def held_out_prefers_ard(X, y, kernel, fit_on_rows, rng, n_problems=1) -> bool | None:
    """Whether the ARD form of the isotropic ``kernel`` predicts held-out rows better.

    ``n_problems`` one-vs-rest problems share the rows as the other default sizes
    share their budgets (docs/guide.md, "Default sizes"): each compares on at most
    :data:`HELD_OUT_MAX_ROWS`/√C of them, and at least :data:`HELD_OUT_MIN_ROWS`.

    ``fit_on_rows(X_rows, y_rows, start)`` fits the sparse model from the kernel
    ``start`` on those rows alone; both kernels start from ``kernel``'s
    hyperparameters, not from the whole set's optimum, so that the held-out rows
    inform neither. ARD is preferred where its mean held-out negative log
    predictive probability is lower than the isotropic kernel's by more than one
    standard error of the rows' paired differences (the one-standard-error rule,
    [BFOS84] §3.4.3). None (no comparison made) on fewer than
    :data:`HELD_OUT_MIN_ROWS` rows or :data:`HELD_OUT_MIN_PER_LABEL` of either
    label, or where a label has fewer than ten of the rows compared.
    """
    n = len(y)
    if n < HELD_OUT_MIN_ROWS:
        return None
    if _fewest_of_a_label(y) < HELD_OUT_MIN_PER_LABEL:
        return None
    rows = np.arange(n)
    largest = max(HELD_OUT_MIN_ROWS, round(HELD_OUT_MAX_ROWS / np.sqrt(n_problems)))
    if n > largest:
        rows = np.sort(rng.choice(n, largest, replace=False))
    if _fewest_of_a_label(y[rows]) < _LEAST_PER_LABEL:
        return None
    fit, scored = train_test_split(
        rows,
        test_size=HELD_OUT_SHARE,
        stratify=y[rows],
        random_state=rng.randint(np.iinfo(np.int32).max),
    )
    losses = []
    for start in (kernel, with_length_scale_per_feature(kernel, X.shape[1])):
        model = fit_on_rows(X[fit], y[fit], start)
        mean, var = model.latent_mean_and_variance(X[scored])
        losses.append(-model.likelihood.log_predictive(mean, var, y[scored]))
    return lower_by_a_standard_error(losses[1] - losses[0])


def _fewest_of_a_label(labels) -> int:
    """How many ``labels`` the rarest of them has."""
    return int(np.min(np.unique(labels, return_counts=True)[1]))


def lower_by_a_standard_error(difference) -> bool:
    """Whether paired differences of losses (ARD's less the isotropic kernel's) have
    a mean below minus their standard error."""
    return bool(np.mean(difference) < -np.std(difference) / np.sqrt(len(difference)))
