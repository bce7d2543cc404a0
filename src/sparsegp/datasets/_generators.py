"""Synthetic problems of the seed papers: xor clusters ([NGH07]), Mackey-Glass series ([QW03])."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state


def make_xor_clusters(n_samples=200, *, offset=1.5, random_state=None):
    """Four unit-variance Gaussian clusters at ``(±offset, ±offset)`` in xor labelling.

    The toy problem of Naish-Guzman & Holden (2007), Fig. 1:
    clusters at ``(+, +)`` and ``(−, −)`` are class +1, the other two class −1.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,), labels in {-1, +1}
    """
    rng = check_random_state(random_state)
    signs = rng.choice([-1.0, 1.0], size=(n_samples, 2))
    X = offset * signs + rng.standard_normal((n_samples, 2))
    return X, (signs[:, 0] * signs[:, 1]).astype(int)


def make_mackey_glass(
    n_samples, *, tau=17, a=0.2, b=0.1, power=10, dt=0.1, initial=1.2, discard=500
):
    """Mackey-Glass series ``dz/dt = a z(t−τ)/(1 + z(t−τ)^p) − b z(t)`` at unit steps.

    Integrated by fourth-order Runge-Kutta with step ``dt`` (delayed values linearly
    interpolated on the grid), after ``discard`` transient time units.
    """
    steps = int(round(1.0 / dt))
    lag = int(round(tau / dt))
    total = (n_samples + discard) * steps
    z = np.full(total + lag + 1, initial)

    def rate(current, delayed):
        return a * delayed / (1.0 + delayed**power) - b * current

    for t in range(lag, lag + total):
        d0, d1 = z[t - lag], z[t - lag + 1]
        dmid = 0.5 * (d0 + d1)
        k1 = rate(z[t], d0)
        k2 = rate(z[t] + 0.5 * dt * k1, dmid)
        k3 = rate(z[t] + 0.5 * dt * k2, dmid)
        k4 = rate(z[t] + dt * k3, d1)
        z[t + 1] = z[t] + dt * (k1 + 2 * k2 + 2 * k3 + k4) / 6.0
    return z[lag + discard * steps :: steps][:n_samples]


def mackey_glass_regression(series, *, n_lags=16, spacing=6, horizon=6):
    """Embed a series as in Quiñonero-Candela & Winther (2003): lags → future value.

    Row k holds ``z(k−horizon), z(k−horizon−spacing), …`` (``n_lags`` values); the
    target is ``z(k)``.
    """
    series = np.asarray(series, dtype=float)
    first = horizon + spacing * (n_lags - 1)
    targets = np.arange(first, len(series))
    lags = horizon + spacing * np.arange(n_lags)
    return series[targets[:, None] - lags[None, :]], series[targets]
