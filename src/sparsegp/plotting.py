"""Figures (needs matplotlib): decision boundaries, uncertainty maps, reliability
diagrams and rejection curves."""

from __future__ import annotations

import numpy as np
from sklearn.base import is_classifier

from .metrics import expected_calibration_error


def _axes(ax, size=(5, 5)):
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=size)[1] if ax is None else ax


def _grid(X, resolution):
    """A ``resolution²`` grid over the range of the 2-D ``X`` with a 10 % margin."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(
            f"These maps need inputs with exactly two features; X has shape {X.shape}. "
            "Plot two features (or a 2-D projection) instead."
        )
    margin = 0.1 * np.ptp(X, axis=0)
    lo, hi = X.min(axis=0) - margin, X.max(axis=0) + margin
    g0, g1 = np.meshgrid(
        np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution)
    )
    return g0, g1, np.column_stack([g0.ravel(), g1.ravel()])


def _scatter(ax, X, y, classes, kept):
    colours = [f"C{k}" for k in range(len(classes))]
    if len(classes) == 2:
        colours = ["tab:blue", "tab:red"]
    for label, colour in zip(classes, colours, strict=True):
        ax.scatter(*np.asarray(X)[y == label].T, s=6, c=colour, label=str(label))
    if kept is not None:
        ax.scatter(
            *np.asarray(kept).T,
            s=60,
            facecolors="none",
            edgecolors="k",
            label=f"kept ({len(kept)})",
        )


def plot_decision_boundary(
    estimator, X, y, *, ax=None, kept=None, resolution=200, title=None
):
    """Draw the class probabilities of a fitted classifier on 2-D inputs, with the data.

    Two classes: ``P(y = classes_[1] | x)`` shaded from blue to red, the ½ contour in
    black. More classes: each region in its class's colour, shaded by the largest
    probability (pale where the classifier is unsure), with the boundaries in black.

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
    from matplotlib.colors import to_rgb

    g0, g1, grid = _grid(X, resolution)
    ax = _axes(ax)
    classes = estimator.classes_
    proba = estimator.predict_proba(grid)
    if len(classes) == 2:
        p1 = proba[:, 1].reshape(g0.shape)
        ax.contourf(g0, g1, p1, levels=np.linspace(0, 1, 11), cmap="RdBu_r", alpha=0.6)
        ax.contour(g0, g1, p1, levels=[0.5], colors="k", linewidths=1.5)
    else:
        winner = proba.argmax(axis=1)
        confidence = (proba.max(axis=1) - 1 / len(classes)) / (1 - 1 / len(classes))
        colours = np.array([to_rgb(f"C{k}") for k in range(len(classes))])
        image = 1 - confidence[:, None] * (1 - colours[winner])  # pale when unsure
        ax.imshow(
            image.reshape(*g0.shape, 3),
            origin="lower",
            extent=(g0.min(), g0.max(), g1.min(), g1.max()),
            aspect="auto",
            alpha=0.7,
        )
        ax.contour(
            g0,
            g1,
            winner.reshape(g0.shape),
            levels=np.arange(len(classes)) + 0.5,
            colors="k",
            linewidths=1.0,
        )
    _scatter(ax, X, np.asarray(y), classes, kept)
    ax.set_title(title or type(estimator).__name__)
    ax.legend(loc="upper right", fontsize=7)
    return ax


def plot_uncertainty(estimator, X, y=None, *, ax=None, kept=None, resolution=150):
    """Map the model's error bars over 2-D inputs.

    Classifiers: the standard deviation of the latent function (of the one-vs-rest
    problem of the predicted class beyond two classes) — large far from the data and
    between the points a sparse model kept. Regressors: the predictive standard
    deviation of a new target.

    Parameters
    ----------
    estimator : fitted sparsegp estimator
    X : ndarray of shape (n_samples, 2)
        Training inputs (set the extent; drawn).
    y : ndarray of shape (n_samples,), optional
        Labels, to colour the points (classifiers).
    ax : matplotlib Axes, optional
    kept : ndarray of shape (n_kept, 2), optional
    resolution : int

    Returns
    -------
    ax : matplotlib Axes
    """
    g0, g1, grid = _grid(X, resolution)
    ax = _axes(ax)
    if is_classifier(estimator):
        _, var = estimator.latent_mean_and_variance(grid)
        if var.ndim == 2:
            var = var[
                np.arange(len(grid)), estimator.predict_proba(grid).argmax(axis=1)
            ]
        std, label = np.sqrt(var), "latent standard deviation"
    else:
        std, label = estimator.predict(grid, return_std=True)[1], "predictive std"
    filled = ax.contourf(g0, g1, std.reshape(g0.shape), levels=12, cmap="viridis")
    ax.figure.colorbar(filled, ax=ax, label=label)
    if y is not None and is_classifier(estimator):
        _scatter(ax, X, np.asarray(y), estimator.classes_, kept)
        ax.legend(loc="upper right", fontsize=7)
    else:
        ax.scatter(*np.asarray(X).T, s=4, c="w")
    ax.set_title(f"{type(estimator).__name__}: {label}")
    return ax


def plot_reliability_diagram(y_true, probabilities, *, ax=None, n_bins=15):
    """Reliability diagrams of binary probabilities, one curve per model, with ECE.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary outcomes (booleans or 0/1: is the point of the positive class).
    probabilities : dict of name -> ndarray of shape (n,)
        Predicted probabilities of the positive class.
    ax : matplotlib Axes, optional
    n_bins : int, default=15
        Equal-width bins (scikit-learn's ``CalibrationDisplay``, which draws them).

    Returns
    -------
    ax : matplotlib Axes
    """
    from sklearn.calibration import CalibrationDisplay

    ax = _axes(ax)
    for name, proba in probabilities.items():
        ece = expected_calibration_error(y_true, proba, n_bins=n_bins)
        CalibrationDisplay.from_predictions(
            y_true, proba, n_bins=n_bins, name=f"{name} (ECE {ece:.3f})", ax=ax
        )
    ax.legend(loc="upper left", fontsize=7)
    return ax


def plot_rejection_curves(curves, *, ax=None):
    """Error against rejected fraction for several classifiers ([LSH02], Fig. 1).

    Parameters
    ----------
    curves : dict of name -> (fractions, errors)
        As returned by :func:`sparsegp.metrics.rejection_curve` (any number of
        classes).
    ax : matplotlib Axes, optional

    Returns
    -------
    ax : matplotlib Axes
    """
    ax = _axes(ax, size=(5, 4))
    for name, (fractions, errors) in curves.items():
        ax.plot(100 * fractions, 100 * errors, label=name)
    ax.set_xlabel("rejected %")
    ax.set_ylabel("test error % on kept points")
    ax.legend()
    return ax
