"""The figures draw for binary, multi-class and regression models, and refuse inputs
that are not 2-D."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402

from sparsegp import FITCGPClassifier, IVMClassifier, IVMRegressor  # noqa: E402
from sparsegp.datasets import make_xor_clusters  # noqa: E402
from sparsegp.metrics import rejection_curve  # noqa: E402
from sparsegp.plotting import (  # noqa: E402
    plot_decision_boundary,
    plot_rejection_curves,
    plot_reliability_diagram,
    plot_uncertainty,
)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_binary_and_multiclass_decision_boundaries_and_uncertainty():
    X, y = make_xor_clusters(80, random_state=0)
    binary = IVMClassifier(active_set_size=20, random_state=0).fit(X, y)
    blobs, labels = make_blobs(90, centers=3, random_state=0)
    multi = FITCGPClassifier(n_inducing=4, random_state=0).fit(blobs, labels)
    ax = plot_decision_boundary(binary, X, y, kept=X[binary.active_set_], resolution=30)
    assert ax.get_legend() is not None and "kept (20)" in [
        t.get_text() for t in ax.get_legend().get_texts()
    ]
    ax = plot_decision_boundary(multi, blobs, labels, resolution=30)
    assert len(ax.get_images()) == 1  # the class-coloured map
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["0", "1", "2"]
    for model, data, target in [(binary, X, y), (multi, blobs, labels)]:
        ax = plot_uncertainty(model, data, target, resolution=25)
        assert "latent standard deviation" in ax.get_title()


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_regressor_uncertainty_is_the_predictive_std():
    X = np.random.default_rng(0).uniform(-2, 2, (60, 2))
    model = IVMRegressor(active_set_size=15, random_state=0).fit(X, X[:, 0])
    assert "predictive std" in plot_uncertainty(model, X, resolution=20).get_title()


def test_maps_need_two_features():
    X, y = make_blobs(40, n_features=3, centers=2, random_state=0)
    model = IVMClassifier(active_set_size=10, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="exactly two features"):
        plot_decision_boundary(model, X, y)


def test_reliability_diagram_and_rejection_curves():
    rng = np.random.default_rng(0)
    p = rng.random(500)
    ax = plot_reliability_diagram(rng.random(500) < p, {"calibrated": p}, n_bins=10)
    assert "ECE" in ax.get_legend().get_texts()[1].get_text()
    y = rng.integers(0, 3, 200)
    proba = rng.dirichlet(np.ones(3), size=200)
    ax = plot_rejection_curves({"random": rejection_curve(y, proba, np.arange(3))})
    assert len(ax.get_lines()) == 1
