"""Saved models load back and predict exactly as the fitted ones; skops is refused
types outside the package, scikit-learn's kernels and skops' defaults."""

import numpy as np
import pytest
import skops.io

from sparsegp import (
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
from sparsegp.datasets import make_xor_clusters
from sparsegp.persistence import load_model, save_model

ESTIMATORS = [
    EPGPClassifier(random_state=0),
    FITCGPClassifier(n_inducing=5, random_state=0),
    IVMClassifier(active_set_size=20, posterior="fitc", random_state=0),
    NLPSparseGPClassifier(max_basis_vectors=15, random_state=0),
    SparseOnlineGPClassifier(max_basis_vectors=20, random_state=0),
    RVMClassifier(random_state=0),
    IVMRegressor(active_set_size=20, random_state=0),
    SparseOnlineGPRegressor(max_basis_vectors=20, random_state=0),
    RVMRegressor(random_state=0),
]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("suffix", [".skops", ".joblib"])
def test_round_trip_predicts_identically(tmp_path, estimator, suffix):
    X, y = make_xor_clusters(80, random_state=0)
    X_test, _ = make_xor_clusters(40, random_state=1)
    regression = "Regressor" in type(estimator).__name__
    fitted = estimator.fit(X, X[:, 0] * X[:, 1] if regression else y)
    save_model(fitted, tmp_path / f"model{suffix}")
    loaded = load_model(tmp_path / f"model{suffix}")
    if regression:
        np.testing.assert_array_equal(
            loaded.predict(X_test, return_std=True),
            fitted.predict(X_test, return_std=True),
        )
    else:
        np.testing.assert_array_equal(
            loaded.predict_proba(X_test), fitted.predict_proba(X_test)
        )


class Untrusted:
    pass


def test_skops_file_with_a_foreign_type_is_refused(tmp_path):
    skops.io.dump({"payload": Untrusted()}, tmp_path / "other.skops")
    with pytest.raises(ValueError, match="does not trust: .*Untrusted"):
        load_model(tmp_path / "other.skops")


def test_unknown_extensions_and_missing_files_get_clear_errors(tmp_path):
    with pytest.raises(ValueError, match=r"use \.skops"):
        save_model(EPGPClassifier(), tmp_path / "model.txt")
    with pytest.raises(FileNotFoundError, match="No model file"):
        load_model(tmp_path / "absent.skops")
