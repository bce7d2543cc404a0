"""Sparse Gaussian-process classifiers and regressors with scikit-learn's API."""

from .ep import EPGPClassifier
from .ivm import IVMClassifier, IVMRegressor

__all__ = ["EPGPClassifier", "IVMClassifier", "IVMRegressor"]
__version__ = "0.1.0"
