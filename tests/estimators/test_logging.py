"""``verbose`` progress goes to the ``sparsegp`` logger when logging is configured,
and is printed when it is not."""

import logging

import numpy as np
import pytest
from sklearn.datasets import load_iris

from sparsegp import EPGPClassifier, FITCGPClassifier, RVMRegressor
from sparsegp.estimators import _base

X = np.random.default_rng(0).standard_normal((40, 2))
y = np.where(X[:, 0] > 0, 1, -1)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_with_logging_configured_progress_is_logged_not_printed(caplog, capsys):
    with caplog.at_level(logging.DEBUG, logger="sparsegp"):
        EPGPClassifier(verbose=2, random_state=0).fit(X, y)
    records = [r for r in caplog.records if r.name == "sparsegp"]
    assert any("EPGPClassifier: n=40" in r.message for r in records)
    assert {r.levelno for r in records} == {logging.INFO, logging.DEBUG}
    assert "EPGPClassifier: n=40" not in capsys.readouterr().out


def test_without_logging_configured_progress_is_printed(monkeypatch, capsys):
    bare = logging.Logger("sparsegp-unconfigured")  # no handlers, no parent
    monkeypatch.setattr(_base, "LOGGER", bare)
    RVMRegressor(verbose=1, random_state=0).fit(X, X[:, 0])
    assert "RVMRegressor:" in capsys.readouterr().out


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("verbose", [0, False])
def test_quiet_fits_report_nothing(verbose, caplog, capsys):
    with caplog.at_level(logging.DEBUG, logger="sparsegp"):
        EPGPClassifier(verbose=verbose, random_state=0).fit(X, y)
    assert not [r for r in caplog.records if r.name == "sparsegp"]
    assert capsys.readouterr().out == ""


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_one_vs_rest_progress_names_each_class(caplog):
    X, y = load_iris(return_X_y=True)
    species = np.array(["setosa", "versicolor", "virginica"])[y]
    options = dict(n_inducing=5, max_iter_optimizer=2, verbose=1, random_state=0)
    with caplog.at_level(logging.INFO, logger="sparsegp"):
        FITCGPClassifier(**options).fit(X, species)
    for name in ("setosa", "versicolor", "virginica"):
        assert f"(class '{name}' against the rest)" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="sparsegp"):
        FITCGPClassifier(**options).fit(X[y > 0], species[y > 0])  # one problem
    assert "FITCGPClassifier: n=100" in caplog.text
    assert "against the rest" not in caplog.text
