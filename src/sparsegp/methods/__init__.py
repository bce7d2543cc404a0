"""Methods: one per family, between the estimators and the engines.

A method is a frozen settings object with a ``fit`` over arrays that returns a
:class:`~sparsegp.methods.fitted.FittedModel`; the estimators are scikit-learn shells
around one call to it (CONTRIBUTING.md, "Layers").
"""

from .fitted import FittedModel, Predictor
from .sparse_regression import SparseRegression

__all__ = ["FittedModel", "Predictor", "SparseRegression"]
