"""Warnings and errors raised by the numerical core and the estimators' defaults, and
how the package warns (:func:`warn_at_caller`)."""

import sys
import warnings
from types import FrameType

__all__ = ["FeatureScaleWarning", "NotPSDError", "NumericalWarning"]

#: The package whose frames a warning's location skips.
_PACKAGE = __name__.rpartition(".")[0]


class NumericalWarning(UserWarning):
    """A factorisation needed jitter or an iteration did not converge."""


class FeatureScaleWarning(UserWarning):
    """``X``'s features differ so much in spread that an isotropic default kernel sees
    only a few of them and the fit keeps their units (a stream, or an estimator whose
    evidence preferred them, algorithms.md §0.5): standardise ``X`` if they are in
    different units; or none of them has any spread (every row the same input)."""


class NotPSDError(ValueError):
    """A matrix that should be positive definite could not be factorised."""


def warn_at_caller(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` attributed to the first frame outside this package: the
    user's line that called ``fit`` (or the library's that did, scikit-learn's
    cross-validation for one), however deep in the package the warning arises,
    rather than a line of the package a user cannot act on."""
    frame: FrameType | None = sys._getframe(1)
    level = 2
    while frame is not None and _in_package(frame):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def _in_package(frame: FrameType) -> bool:
    name = frame.f_globals.get("__name__", "")
    return name == _PACKAGE or name.startswith(_PACKAGE + ".")
