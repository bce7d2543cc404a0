"""Sparse Gaussian-process classifiers and regressors with scikit-learn's API."""

from .ep import EPGPClassifier
from .fitc import FITCGPClassifier
from .ivm import IVMClassifier, IVMRegressor
from .nlp import NLPSparseGPClassifier
from .online import SparseOnlineGPClassifier, SparseOnlineGPRegressor
from .rvm import RVMClassifier, RVMRegressor

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
