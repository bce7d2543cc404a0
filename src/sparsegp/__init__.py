"""Sparse Gaussian-process classifiers and regressors with scikit-learn's API."""

from . import estimators
from .estimators import *  # noqa: F403 (the ten estimators, listed in estimators.__all__)

__all__ = list(estimators.__all__)
__version__ = "0.1.0"
