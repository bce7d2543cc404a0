"""Sparse Gaussian-process classifiers and regressors with scikit-learn's API."""

from .estimators import (
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    IVMRegressor,
    NLPSparseGPClassifier,
    RVMClassifier,
    RVMRegressor,
    SparseOnlineGPClassifier,
    SparseOnlineGPRegressor,
)

__all__ = [
    "EPGPClassifier",
    "FITCGPClassifier",
    "IVMClassifier",
    "IVMRegressor",
    "NLPSparseGPClassifier",
    "RVMClassifier",
    "RVMRegressor",
    "SparseOnlineGPClassifier",
    "SparseOnlineGPRegressor",
]
__version__ = "0.1.0"
