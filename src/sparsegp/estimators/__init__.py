"""The scikit-learn estimators: validation, options and fitted attributes.

Each module wraps the engines of :mod:`sparsegp.approximations` for one method; the
estimators hold no linear algebra. ``_base`` holds what they share (one-vs-rest,
prediction from a fitted problem's latent posterior, progress, warnings). All classes
are re-exported from :mod:`sparsegp`.
"""

from .ep_classifier import EPGPClassifier
from .fitc_classifier import FITCGPClassifier
from .informative_vector_machine import IVMClassifier, IVMRegressor
from .nlp_classifier import NLPSparseGPClassifier
from .relevance_vector_machine import RVMClassifier, RVMRegressor
from .sparse_gp_regressor import SparseGPRegressor
from .sparse_online_gp import SparseOnlineGPClassifier, SparseOnlineGPRegressor

__all__ = [
    "EPGPClassifier",
    "FITCGPClassifier",
    "IVMClassifier",
    "IVMRegressor",
    "NLPSparseGPClassifier",
    "RVMClassifier",
    "RVMRegressor",
    "SparseGPRegressor",
    "SparseOnlineGPClassifier",
    "SparseOnlineGPRegressor",
]
