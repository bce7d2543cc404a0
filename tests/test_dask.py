"""Predictions on dask arrays run on a cluster, block by block, and equal the
in-memory predictions; the data are never gathered into the client."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from sklearn.datasets import make_blobs, make_friedman1  # noqa: E402

from sparsegp import (  # noqa: E402
    FITCGPClassifier,
    IVMClassifier,
    RVMRegressor,
    SparseOnlineGPRegressor,
)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def blocks_of(X, rows=5000):
    return da.from_array(X, chunks=(rows, X.shape[1]))


@pytest.mark.parametrize(
    "classifier, n_classes",
    [
        (IVMClassifier(active_set_size=100, random_state=0), 2),
        (FITCGPClassifier(n_inducing=20, max_iter_optimizer=5, random_state=0), 3),
    ],
    ids=["IVM binary", "FITC three classes"],
)
def test_classifier_predictions_on_a_dask_array_equal_in_memory(
    client, classifier, n_classes
):
    X, y = make_blobs(20_000, centers=n_classes, cluster_std=3.0, random_state=0)
    classifier.fit(X[:1000], y[:1000])
    X_dask = blocks_of(X)
    proba = classifier.predict_proba(X_dask)
    labels = classifier.predict(X_dask)
    mean, var = classifier.latent_mean_and_variance(X_dask)
    assert all(isinstance(a, da.Array) for a in (proba, labels, mean, var))
    assert proba.numblocks[0] == 4  # one task per row block of X
    computed = client.compute([proba, labels, mean, var], sync=True)
    expected = (
        classifier.predict_proba(X),
        classifier.predict(X),
        *classifier.latent_mean_and_variance(X),
    )
    for got, want in zip(computed, expected, strict=True):
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
        else:
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "regressor",
    [
        RVMRegressor(n_basis=200, random_state=0),
        SparseOnlineGPRegressor(max_basis_vectors=50, random_state=0),
    ],
    ids=lambda r: type(r).__name__,
)
def test_regressor_predictions_on_a_dask_array_equal_in_memory(client, regressor):
    X, y = make_friedman1(20_000, random_state=0)
    regressor.fit(X[:800], y[:800])
    mean, std = regressor.predict(blocks_of(X), return_std=True)
    got_mean, got_std = client.compute([mean, std], sync=True)
    want_mean, want_std = regressor.predict(X, return_std=True)
    np.testing.assert_allclose(got_mean, want_mean, rtol=1e-10)
    np.testing.assert_allclose(got_std, want_std, rtol=1e-10)


def test_wrong_width_is_refused_before_any_task_runs():
    X, y = make_blobs(200, centers=2, random_state=0)
    model = IVMClassifier(active_set_size=20, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="fitted on 2 features"):
        model.predict_proba(da.zeros((100, 3), chunks=50))


def test_one_vs_rest_fits_on_the_cluster_through_joblibs_dask_backend(client):
    import joblib

    X, y = make_blobs(600, centers=3, cluster_std=3.0, random_state=0)
    with joblib.parallel_backend("dask"):
        on_cluster = IVMClassifier(active_set_size=50, n_jobs=2, random_state=0)
        on_cluster.fit(X, y)
    local = IVMClassifier(active_set_size=50, random_state=0).fit(X, y)
    np.testing.assert_array_equal(on_cluster.predict_proba(X), local.predict_proba(X))
