"""Figures: decision boundaries with the points a sparse model kept (needs matplotlib)."""

from __future__ import annotations

import numpy as np


def plot_decision_boundary(
    estimator, X, y, *, ax=None, kept=None, resolution=200, title=None
):
    """Draw ``P(y = classes_[1] | x)`` of a fitted 2-D classifier with the data.

    Parameters
    ----------
    estimator : fitted classifier with ``predict_proba``
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
    ax : matplotlib Axes, optional
    kept : ndarray of shape (n_kept, 2), optional
        Points the model keeps (active set, basis vectors, inducing points), circled.
    resolution : int
        Grid points per axis.
    title : str, optional

    Returns
    -------
    ax : matplotlib Axes
    """
    import matplotlib.pyplot as plt

    if ax is None:
        ax = plt.subplots(figsize=(5, 5))[1]
    margin = 0.1 * np.ptp(X, axis=0)
    lo, hi = X.min(axis=0) - margin, X.max(axis=0) + margin
    g0, g1 = np.meshgrid(
        np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution)
    )
    proba = estimator.predict_proba(np.column_stack([g0.ravel(), g1.ravel()]))[:, 1]
    proba = proba.reshape(g0.shape)
    ax.contourf(g0, g1, proba, levels=np.linspace(0, 1, 11), cmap="RdBu_r", alpha=0.6)
    ax.contour(g0, g1, proba, levels=[0.5], colors="k", linewidths=1.5)
    positive = y == estimator.classes_[1]
    ax.scatter(*X[positive].T, s=6, c="tab:red", label=str(estimator.classes_[1]))
    ax.scatter(*X[~positive].T, s=6, c="tab:blue", label=str(estimator.classes_[0]))
    if kept is not None:
        ax.scatter(
            *np.asarray(kept).T,
            s=60,
            facecolors="none",
            edgecolors="k",
            label=f"kept ({len(kept)})",
        )
    ax.set_title(title or type(estimator).__name__)
    ax.legend(loc="upper right", fontsize=7)
    return ax


def plot_rejection_curves(curves, *, ax=None):
    """Error against rejected fraction for several classifiers (000, Fig. 1).

    Parameters
    ----------
    curves : dict of name -> (fractions, errors)
        As returned by :func:`sparsegp.metrics.rejection_curve`.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        ax = plt.subplots(figsize=(5, 4))[1]
    for name, (fractions, errors) in curves.items():
        ax.plot(100 * fractions, 100 * errors, label=name)
    ax.set_xlabel("rejected %")
    ax.set_ylabel("test error % on kept points")
    ax.legend()
    return ax
