"""Warnings and errors raised by the numerical core and the estimators' defaults."""


class NumericalWarning(UserWarning):
    """A factorisation needed jitter or an iteration did not converge."""


class FeatureScaleWarning(UserWarning):
    """``X``'s features differ so much in spread that an isotropic default kernel sees
    only a few of them (features in different units): standardise ``X``; or none of
    them has any spread (every row the same input)."""


class NotPSDError(ValueError):
    """A matrix that should be positive definite could not be factorised."""
