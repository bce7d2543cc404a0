"""Warnings and errors raised by the numerical core."""


class NumericalWarning(UserWarning):
    """A factorisation needed jitter or an iteration did not converge."""


class NotPSDError(ValueError):
    """A matrix that should be positive definite could not be factorised."""
