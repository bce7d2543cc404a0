"""Inputs in any units: shifted and rescaled before any kernel sees them.

A stationary kernel sees differences of inputs, through squared distances
``‖x‖² + ‖y‖² − 2 x·y`` (the fast form every engine uses). Two things defeat it:

- **magnitude**: values of 1e±160 over- or underflow the squares. ``fit`` divides
  ``X`` by a power of two (exact) that brings its largest value near 1
  (``input_scale_``);
- **offset**: a feature centred far from zero relative to its spread (a timestamp,
  a coordinate in metres from a distant origin) cancels catastrophically in that
  form — at an offset 10⁸ times the spread no digit of the difference is left. ``fit``
  subtracts such features' centres (``input_offset_``), which a stationary kernel
  does not see; where the offset already swallowed the data's digits (values that
  differ by a few units of float64's resolution), it refuses them by name.

Ordinary inputs are left untouched (no copy); predictions apply the same shift and
scale, and the points a model exposes (``inducing_points_``, ``basis_vectors_``,
``relevance_vectors_``) are given back in ``X``'s units, and so is the learnt
``kernel_``: its stationary length-scales and their bounds times ``input_scale_``
(an offset does not change a stationary kernel). Non-stationary kernels (a user's
``DotProduct``) are never shifted.
"""

from __future__ import annotations

import numpy as np

from .. import kernel_expression as expression
from ..exceptions import FeatureScaleWarning, warn_at_caller

__all__ = [
    "conditioned_dask_inputs",
    "conditioned_inputs",
    "in_input_units",
    "kernel_in_input_units",
]

#: Inputs whose largest magnitude lies outside this range are rescaled by a power of
#: two before any kernel sees them: squared distances of 1e±160 over- or underflow.
_INPUT_RANGE = (2.0**-40, 2.0**40)
#: Below this share of the largest magnitude, the typical input's square underflows
#: once the largest is brought near 1: the kernel could tell those points apart no more.
_SMALLEST_SHARE = 1e-150
#: A feature whose centre lies further from zero than this many times its range is
#: shifted to zero: the squared distances' cancellation then costs over 6 of float64's
#: 16 digits (FITC's fit fell to chance at 10⁸, the IVM's at 10¹², on xor).
_OFFSET_RATIO = 2.0**10
#: A shifted feature whose range spans fewer units of float64's resolution at its
#: centre than this has lost its digits before ``fit`` saw it.
_FEWEST_STEPS = 2.0**6


def conditioned_inputs(estimator, X, reset):
    """``(X − input_offset_) / input_scale_``, both set at fit (``reset``).

    ``input_offset_`` is 0 or the centres of the features far from zero (see the module
    docstring); ``input_scale_`` a power of two that brings inputs of extreme magnitude
    near 1 (1 otherwise). Models saved before either existed use 0 and 1.
    """
    if reset:
        high, low = (X.max(axis=0), X.min(axis=0)) if len(X) else (0.0, 0.0)
        _check_more_than_one_input(estimator, high, low, len(X))
        estimator.input_offset_ = _input_offset(estimator, high, low, len(X))
        shifted = _shifted(estimator, X)
        largest = float(np.max(np.abs(shifted), initial=0.0))
        estimator.input_scale_ = _input_scale(
            estimator, largest, lambda: _typical(shifted)
        )
    offset = getattr(estimator, "input_offset_", 0.0)
    if not np.isscalar(offset):
        X = X - offset
    scale = getattr(estimator, "input_scale_", 1.0)
    return X if _unscaled(scale) else X / scale


def _unscaled(scale):
    """Whether ``input_scale_`` (a power of two, or one per feature) leaves inputs as
    they are."""
    return np.isscalar(scale) and scale == 1.0


def conditioned_dask_inputs(estimator, X):
    """:func:`conditioned_inputs` at fit for a dask array ``X``: the features' extremes
    computed on the cluster (the typical magnitude from the first row chunk), the
    shift and scale applied lazily, the rows staying where they are."""
    import dask

    high, low = dask.compute(X.max(axis=0), X.min(axis=0))
    _check_more_than_one_input(estimator, high, low, X.shape[0])
    estimator.input_offset_ = _input_offset(estimator, high, low, X.shape[0])
    shifted = _shifted(estimator, X)
    largest = float(abs(shifted).max().compute())
    estimator.input_scale_ = _input_scale(
        estimator, largest, lambda: _typical(shifted.blocks[0].compute())
    )
    scale = estimator.input_scale_
    return shifted if scale == 1.0 else shifted / scale


def _shifted(estimator, X):
    """``X − input_offset_`` (``X`` itself where nothing is shifted)."""
    offset = estimator.input_offset_
    return X if np.isscalar(offset) else X - offset


def _typical(X):
    """The median magnitude of ``X``'s non-zero values (infinite where there are none,
    as in a dask array's first chunk of zeros: nothing to call an outlier by)."""
    values = np.abs(X[X != 0])
    return float(np.median(values)) if len(values) else np.inf


def in_input_units(estimator, points):
    """Points of a fitted model (pseudo-inputs, basis or relevance vectors), held in
    the units its kernel sees, back in ``X``'s: ``points · input_scale_ +
    input_offset_`` (a list of arrays for one-vs-rest, each converted)."""
    if isinstance(points, list):
        return [in_input_units(estimator, p) for p in points]
    offset = getattr(estimator, "input_offset_", 0.0)
    scale = getattr(estimator, "input_scale_", 1.0)
    if np.isscalar(offset) and offset == 0.0 and _unscaled(scale):
        return points
    return points * scale + offset


def kernel_in_input_units(estimator, kernel):
    """A fitted ``kernel``, learnt in the units its inputs were scaled to, in ``X``'s:
    the length-scales of its RBF and Matérn terms (and their bounds) times
    ``input_scale_`` (each kernel's of a ``CompoundKernel``), one per feature where
    the features were scaled apart; ``kernel`` itself where the inputs were not
    rescaled."""
    scale = getattr(estimator, "input_scale_", 1.0)
    if _unscaled(scale):
        return kernel
    if (parts := expression.compound_parts(kernel)) is not None:  # one per class
        return type(kernel)([kernel_in_input_units(estimator, k) for k in parts])
    params = kernel.get_params()
    per_feature = not np.isscalar(scale)
    scaled = {}
    for leaf in expression.parse(kernel).leaves():
        if isinstance(leaf, expression.Stationary):
            name = expression.parameter_prefix(leaf.path) + "length_scale"
            length_scale = leaf.length_scale * scale
            keep = leaf.anisotropic or per_feature
            scaled[name] = length_scale if keep else float(length_scale)
            bounds = params[name + "_bounds"]
            if not (isinstance(bounds, str) and bounds == "fixed"):
                bounds = np.asarray(bounds, dtype=float)
                scaled[name + "_bounds"] = (
                    bounds.reshape(-1, 2) * np.reshape(scale, (-1, 1))
                    if per_feature
                    else bounds * scale
                )
    return kernel.clone_with_theta(kernel.theta).set_params(**scaled)


def _input_offset(estimator, high, low, n):
    """The per-feature shift ``fit`` subtracts (0.0 where none is needed) for ``n``
    points whose features range over ``[low, high]``, or a ``ValueError`` for a
    feature whose digits the offset has already taken."""
    kernel = getattr(estimator, "kernel", None)
    if n < 2 or (kernel is not None and not kernel.is_stationary()):
        return 0.0  # one point (a first partial_fit chunk) has no spread to judge by
    high, low = np.asarray(high, dtype=float), np.asarray(low, dtype=float)
    centre, spread = 0.5 * high + 0.5 * low, high - low
    far = np.abs(centre) > _OFFSET_RATIO * spread
    if not np.any(far):
        return 0.0
    resolution = np.spacing(np.abs(centre))
    lost = far & (spread > 0) & (spread < _FEWEST_STEPS * resolution)
    if np.any(lost):
        j = int(np.flatnonzero(lost)[0])
        raise ValueError(
            f"{type(estimator).__name__}: feature {j} of X varies by {spread[j]:.3g} "
            f"around {centre[j]:.6g}, a few units of float64's resolution there: the "
            "offset has already rounded its values. Subtract the offset where the "
            "data are made (e.g. before writing them), then fit again."
        )
    return np.where(far, centre, 0.0)


def _check_more_than_one_input(estimator, high, low, n):
    """Refuse ``n`` rows of one input at values float64 cannot hold integers apart
    (an offset rounded them together; a stationary kernel only), else warn that all
    ``n`` rows are one input: nothing for a kernel to see."""
    if n < 2 or not np.array_equal(high, low):
        return
    largest = float(np.max(np.abs(np.asarray(high, dtype=float)), initial=0.0))
    kernel = getattr(estimator, "kernel", None)
    stationary = kernel is None or kernel.is_stationary()
    if stationary and np.spacing(largest) >= 1.0:
        raise ValueError(
            f"{type(estimator).__name__}: every feature of X is constant, at values "
            f"up to {largest:.3g}, where float64 cannot hold even the integers apart: "
            "an offset that large rounds inputs to one value. Subtract it where the "
            "data are made, then fit again."
        )
    warn_at_caller(
        f"{type(estimator).__name__}: all {n} rows of X are the same input, so the "
        "model can learn only what the targets hold on average (the class "
        "frequencies, the mean). If the inputs differ where they are made, an offset "
        "or a scale may have rounded them to one value: subtract or rescale it "
        "there, then fit again.",
        FeatureScaleWarning,
    )


def _input_scale(estimator, largest, typical):
    """The power of two ``fit`` divides inputs of largest magnitude ``largest`` by, or
    a ``ValueError`` for inputs no scale can make a kernel see (a value beside others
    10¹⁵⁰ times smaller; ``typical()`` gives their median magnitude, computed only
    then), or for a kernel given in units that overflow."""
    if largest == 0.0 or _INPUT_RANGE[0] <= largest <= _INPUT_RANGE[1]:
        return 1.0  # ordinary inputs: no copy of X beyond |X|'s maximum
    name = type(estimator).__name__
    typical = typical()
    if typical < _SMALLEST_SHARE * largest:
        raise ValueError(
            f"{name}: X holds values up to {largest:.3g} beside typical ones near "
            f"{typical:.3g}; no kernel on these inputs can tell the typical points "
            "apart. Remove or clip the outlying values, or transform the feature "
            "(e.g. a logarithm), then fit again."
        )
    if getattr(estimator, "kernel", None) is not None:
        raise ValueError(
            f"{name}: X's values reach {largest:.3g}, where a kernel's squared "
            "distances over- or underflow float64. Pass kernel=None (the default "
            "kernel follows X's scale, and X is then rescaled by a power of two "
            "internally) or standardise X."
        )
    return float(np.ldexp(1.0, int(np.frexp(largest)[1])))
