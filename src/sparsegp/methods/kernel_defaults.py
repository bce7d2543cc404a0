"""The kernel a fit starts from: its length-scale from the inputs' spread, in any units.

Every method starts from ``ConstantKernel(1) * RBF(ℓ₀)`` with ``ℓ₀`` from the data
(:func:`default_kernel`), and warns where an isotropic kernel would see only a few of
the features (algorithms.md §0.5).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Kernel

from .._dask import column_variances, is_dask_array
from ..exceptions import FeatureScaleWarning, warn_at_caller

__all__ = [
    "default_kernel",
    "default_length_scale",
    "default_rbf",
    "feature_spreads",
    "few_features_seen",
    "warn_if_few_features_count",
]


def default_length_scale(X: Any) -> float:
    """``ℓ₀ = √(Σ_d var x_d)``: ``√D`` for standardised inputs, in the inputs' units.

    Two inputs lie ``√2·ℓ₀`` apart on average. A length-scale started far from that
    (inputs in units of 10⁻³ or 10³ with ``√D``) gives a kernel matrix of all ones or
    the identity, whose evidence gradient vanishes: the fit never leaves the start.
    """
    return _length_scale_of(_feature_variances(X))


def _feature_variances(X: Any) -> np.ndarray:
    """The variances of ``X``'s columns, in memory (a dask array's on its cluster, to
    the same bits: :func:`~sparsegp._dask.column_variances`)."""
    if is_dask_array(X):
        return column_variances(X)
    return np.asarray(np.var(X, axis=0), dtype=float)


def _length_scale_of(variances: np.ndarray) -> float:
    total = float(np.sum(variances))
    return float(np.sqrt(total)) if total > 0 else 1.0


#: :func:`warn_if_few_features_count` warns below this share of the features.
_FEW_FEATURES = 0.2


def feature_spreads(X: Any) -> np.ndarray:
    """The standard deviations of ``X``'s columns, each computed on the column divided
    by its largest magnitude: no square over- or underflows, so a feature 10²⁰⁰ times
    narrower than another keeps a positive spread (a dask array's, on its cluster)."""
    largest = np.max(np.abs(X), axis=0)
    if is_dask_array(largest):
        largest = largest.compute()
    largest = np.asarray(largest, dtype=float)
    relative = np.sqrt(_feature_variances(X / np.where(largest > 0, largest, 1.0)))
    return largest * relative


def few_features_seen(spreads: Any) -> tuple[float, int, float] | None:
    """``(seen, count, widest)`` where an isotropic kernel on features of standard
    deviations ``spreads`` sees only a few of their ``count`` non-constant ones (see
    :func:`warn_if_few_features_count`), ``widest`` the largest feature's share of
    the variance; None where it sees enough of them."""
    spreads = np.asarray(spreads, dtype=float)
    spreads = spreads[spreads > 0.0]  # constant features are not in question
    if len(spreads) < 2 or not np.all(np.isfinite(spreads)):
        return None
    variances = (spreads / spreads.max()) ** 2  # in [0, 1]: tiny ones underflow to 0
    total = float(np.sum(variances))
    seen = total**2 / float(np.sum(variances**2))
    widest = float(np.max(variances)) / total
    if seen < _FEW_FEATURES * len(variances) or widest > 0.99:
        return seen, len(variances), widest
    return None


def warn_if_few_features_count(spreads: Any) -> None:
    """Warn (:class:`~sparsegp.exceptions.FeatureScaleWarning`) when an isotropic
    kernel on inputs whose features have standard deviations ``spreads``
    (:func:`feature_spreads`) sees only a few features.

    Squared distances weigh feature ``d`` by ``v_d``, so the kernel sees about
    ``(Σ v)²/Σ v²`` features (their participation ratio): ``D`` for standardised
    inputs, 86 of MNIST's 169 pixels, 4.1 of MAGIC's 10 raw features. Below a fifth of
    ``D`` (raw breast cancer: 1.7 of 30; scikit-learn's wine: 1.0 of 13), or where one
    feature holds 99 % of the variance, the widest features decide alone — features
    in different units, whose fit can fall to chance. Constant features are left out
    of ``D``; the variances are taken relative to the widest feature's, so features
    hundreds of decades apart count as the one they are to the kernel.
    """
    few = few_features_seen(spreads)
    if few is not None:
        seen, count, widest = few
        warn_at_caller(
            "X's features differ so much in spread that the default isotropic "
            f"kernel sees about {seen:.1f} of its {count} non-constant ones "
            f"(the widest holds {widest:.0%} of the variance): if they are in "
            "different units, "
            "standardise X (sklearn.preprocessing.StandardScaler; --standardize on "
            "the command line) or pass a kernel with a length-scale per feature.",
            FeatureScaleWarning,
        )


def default_rbf(X: Any, factor: float = 1.0) -> RBF:
    """``RBF(factor·ℓ₀)``, ``ℓ₀`` from :func:`default_length_scale`, bounds
    ``ℓ₀·(10⁻⁵, 10⁵)``.

    scikit-learn's default range, moved to the data's scale: inputs in any units get
    the same search range. Warns if the kernel would see few of ``X``'s features
    (:func:`warn_if_few_features_count`).
    """
    warn_if_few_features_count(feature_spreads(X))
    length_scale = _length_scale_of(_feature_variances(X))
    return RBF(
        factor * length_scale,
        length_scale_bounds=(1e-5 * length_scale, 1e5 * length_scale),
    )


def default_kernel(
    X: Any, constant: float | None = None, factor: float = 1.0
) -> Kernel:
    """``ConstantKernel(1) * RBF(factor·ℓ₀)`` with the RBF of :func:`default_rbf`.

    With ``constant``, a learnable ``ConstantKernel(constant)`` summand is added: the
    prior variance of a random offset of the latent function.
    """
    kernel = ConstantKernel(1.0) * default_rbf(X, factor)
    return kernel if constant is None else kernel + ConstantKernel(constant)
