"""Sparse Gaussian-process classifiers and regressors with scikit-learn's API."""

from .ep import EPGPClassifier

__all__ = ["EPGPClassifier"]
__version__ = "0.1.0"
