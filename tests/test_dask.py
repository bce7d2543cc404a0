"""Predictions on dask arrays run on a cluster, block by block, and equal the
in-memory predictions; the data are never gathered into the client."""

import itertools
import sys
import types

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from sklearn.datasets import make_blobs, make_friedman1  # noqa: E402

from sparsegp import (  # noqa: E402
    FITCGPClassifier,
    IVMClassifier,
    NLPSparseGPClassifier,
    RVMRegressor,
    SparseGPRegressor,
    SparseOnlineGPRegressor,
)
from sparsegp._dask import is_dask_array  # noqa: E402
from sparsegp.testing import assert_latent_close  # noqa: E402


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


def record_block_arguments(monkeypatch):
    """The arguments after ``make_block`` of every :meth:`DaskBlocks.from_rows`."""
    from sparsegp._dask import DaskBlocks

    made = []
    original = DaskBlocks.from_rows.__func__

    def recorded(cls, client, X, y, make_block, *arguments):
        made.append(arguments)
        return original(cls, client, X, y, make_block, *arguments)

    monkeypatch.setattr(DaskBlocks, "from_rows", classmethod(recorded))
    return made


def record_rounds(monkeypatch):
    """The rounds of the fits' :class:`DaskBlocks` from now on, as they happen:
    (block function, workers called, actors called, blocks)."""
    from sparsegp._dask import DaskBlocks

    rounds = []
    original = DaskBlocks._call

    def recorded(self, method, function, arguments):
        workers = {actor._address for actor in self.actors}
        blocks = sum(len(indices) for indices in self.indices)
        rounds.append((function.__name__, len(workers), len(self.actors), blocks))
        return original(self, method, function, arguments)

    monkeypatch.setattr(DaskBlocks, "_call", recorded)
    return rounds


def one_call_per_worker(rounds, name, n_blocks):
    """The rounds of ``name``, checked to call each worker's actor once, the
    ``n_blocks`` blocks spread over the cluster's two workers."""
    named = [r for r in rounds if r[0] == name]
    assert all(r[1] == r[2] <= 2 and r[3] == n_blocks for r in named)
    return named


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


# a few iterations, for speed: the cap warns
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("approximation", ["vfe", "fitc"])
def test_sparse_regressor_fits_a_dask_array_as_in_memory(client, approximation):
    """The rows stay on the workers in the in-memory fit's blocks, which add their
    sums in the same order: the learnt fit — start screens, kernel, noise and
    pseudo-inputs after L-BFGS-B — is the in-memory one bit for bit, on rows that a
    message left unaligned too (as ``X.compute()`` can)."""
    X, y = make_friedman1(5000, noise=1.0, random_state=0)
    settings = dict(
        approximation=approximation, n_inducing=20, max_iter=15, random_state=0
    )
    on_cluster = SparseGPRegressor(**settings).fit(blocks_of(X, 1000), y)
    for rows in (X, unaligned_copy(X)):
        in_memory = SparseGPRegressor(**settings).fit(rows, y)
        assert (
            on_cluster.log_marginal_likelihood_value_
            == in_memory.log_marginal_likelihood_value_
        )
        np.testing.assert_array_equal(
            on_cluster.inducing_points_, in_memory.inducing_points_
        )
        np.testing.assert_array_equal(
            on_cluster.predict(X[:200]), in_memory.predict(X[:200])
        )


def unaligned_copy(X):
    """A copy of ``X`` starting 3 bytes past an 8-byte boundary."""
    buffer = bytearray(X.nbytes + 3)
    rows = np.frombuffer(memoryview(buffer)[3:], dtype=float).reshape(X.shape)
    rows[...] = X
    assert not rows.flags.aligned
    return rows


def test_a_half_imported_dask_array_module_holds_no_array(monkeypatch):
    """A worker's first task can run while another thread imports ``dask.array``:
    the module is in ``sys.modules`` without ``Array`` yet, and no input is its
    array (a regressor's first prediction task failed with AttributeError so)."""
    monkeypatch.setitem(sys.modules, "dask.array", types.ModuleType("dask.array"))
    assert not is_dask_array(np.zeros((3, 2)))


def test_wrong_width_is_refused_before_any_task_runs():
    X, y = make_blobs(200, centers=2, random_state=0)
    model = IVMClassifier(active_set_size=20, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="fitted on 2 features"):
        model.predict_proba(da.zeros((100, 3), chunks=50))


def test_rows_of_unknown_count_are_counted_before_the_fit(client):
    """A dask array whose chunks' row counts are unknown (a dataframe's
    ``to_dask_array()``, a boolean mask) fits as the same rows with known chunks."""
    X, y = make_noisy_problem(3_000)
    X_dask = blocks_of(X, 1_000)
    unknown = X_dask[da.ones(len(X), chunks=1_000, dtype=bool)]
    assert np.isnan(unknown.shape[0])
    options = dict(n_inducing=20, optimizer=None, random_state=0)
    known = FITCGPClassifier(**options).fit(X_dask, y)
    counted = FITCGPClassifier(**options).fit(unknown, y)
    np.testing.assert_array_equal(counted.predict_proba(X), known.predict_proba(X))


def test_one_vs_rest_fits_on_the_cluster_through_joblibs_dask_backend(client):
    import joblib

    X, y = make_blobs(600, centers=3, cluster_std=3.0, random_state=0)
    with joblib.parallel_backend("dask"):
        on_cluster = IVMClassifier(active_set_size=50, n_jobs=2, random_state=0)
        on_cluster.fit(X, y)
    local = IVMClassifier(active_set_size=50, random_state=0).fit(X, y)
    np.testing.assert_array_equal(on_cluster.predict_proba(X), local.predict_proba(X))


def make_noisy_problem(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    latent = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2]
    return X, np.where(latent + 0.5 * rng.standard_normal(n) > 0, 1, -1)


def fitc_on_given_hyperparameters(**options):
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel

    return FITCGPClassifier(
        ConstantKernel(2.0) * RBF(1.5),
        n_inducing=50,
        optimizer=None,
        bias=0.1,
        tol=1e-8,
        random_state=0,
        **options,
    )


def test_fitc_ep_fits_on_the_cluster_and_equals_the_in_memory_fit(client, monkeypatch):
    """20 000 points in four chunks of 5 000, rechunked on the cluster to the
    in-memory fit's four blocks (at most 8 192 rows, a power of two of them): the
    in-memory fit's predictions, one call to each worker's blocks for every sweep, X
    never turned into an array in the client."""
    X, y = make_noisy_problem(20_000)
    X_test, _ = make_noisy_problem(2_000, seed=1)
    local = fitc_on_given_hyperparameters().fit(X, y)

    def gathered(self, *args, **kwargs):
        raise AssertionError("X was converted to a numpy array in the client")

    X_dask = blocks_of(X)
    monkeypatch.setattr(da.Array, "__array__", gathered)
    rounds = record_rounds(monkeypatch)
    on_cluster = fitc_on_given_hyperparameters().fit(X_dask, y)
    monkeypatch.undo()
    sweeps = on_cluster.estimators_[0].details["n_sweeps"]
    site_rounds = one_call_per_worker(rounds, "_with_anderson_history", 4)
    assert sweeps >= 5 and len(site_rounds) == sweeps
    np.testing.assert_allclose(
        on_cluster.inducing_points_, local.inducing_points_, atol=1e-12
    )  # k-means on the same rows (its threads may sum in another order)
    assert_latent_close(on_cluster, local, X_test, atol=0)
    np.testing.assert_allclose(
        on_cluster.predict_proba(X_test), local.predict_proba(X_test), atol=0
    )
    np.testing.assert_allclose(
        on_cluster.log_marginal_likelihood_value_,
        local.log_marginal_likelihood_value_,
        rtol=1e-14,
    )


def test_blocks_tell_dask_the_bytes_of_their_arrays():
    """dask's scheduler weighs moving a task's inputs by their ``sizeof``; for an
    object that is ``sys.getsizeof``, a few dozen bytes, and FITC blocks of 100 MB
    travelled to the worker holding ``L_B`` each sweep (the fitc_dask benchmark: 7.4 s
    of transfers in a 13.8-s fit at 10⁶ rows)."""
    from dask.sizeof import sizeof
    from sklearn.gaussian_process.kernels import RBF

    from sparsegp.approximations.partitioned_fitc import _with_prior, new_block
    from sparsegp.approximations.partitioned_ivm import new_adf_block

    X, y = make_noisy_problem(2_000)
    Z = X[:30]
    block, _ = _with_prior(new_block(X, y), RBF(1.0), Z, np.eye(30), np.float32)
    arrays = (block.X, block.y, block.V, block.V_sweep, block.d0, block.tau, block.nu)
    assert sizeof(block) >= sum(a.nbytes for a in arrays)
    adf_block = new_adf_block(X, y, 0, RBF(1.0), 40)
    assert sizeof(adf_block) >= adf_block.Vt.nbytes + adf_block.X.nbytes > 0


def test_fitc_learns_its_kernel_bias_and_pseudo_inputs_on_the_cluster(client):
    """L-BFGS-B on the evidence and its gradient summed over row blocks: on the same
    blocks as in memory (the chunks of 5 000 rechunked), summed in the same order, the
    same arithmetic bit for bit, so the same optimizer path, hyperparameters and
    predictions, with float32 sweeps and the default tolerances (whose stopping tests
    carried a difference of 1e-13 in the sums to 1e-5 in five steps while the workers
    added them in another order)."""
    X, y = make_noisy_problem(20_000, seed=2)
    X_test, _ = make_noisy_problem(1_000, seed=3)
    options = dict(
        n_inducing=50, max_iter_optimizer=5, n_restarts_optimizer=0, random_state=0
    )
    local = FITCGPClassifier(**options).fit(X, y)
    on_cluster = FITCGPClassifier(**options).fit(blocks_of(X), y)
    assert on_cluster.n_iter_ == local.n_iter_ > 1
    np.testing.assert_array_equal(on_cluster.kernel_.theta, local.kernel_.theta)
    np.testing.assert_array_equal(on_cluster.inducing_points_, local.inducing_points_)
    np.testing.assert_array_equal(
        on_cluster.predict_proba(X_test), local.predict_proba(X_test)
    )


def test_fitting_on_a_dask_array_says_what_is_not_supported(client):
    X, y = make_noisy_problem(400)
    X_dask = blocks_of(X, rows=100)
    with pytest.raises(ValueError, match="parallel"):
        FITCGPClassifier(n_inducing=10, ep_mode="sequential").fit(X_dask, y)
    for in_memory in (
        NLPSparseGPClassifier(max_basis_vectors=10),
        RVMRegressor(n_basis=10),
        SparseOnlineGPRegressor(max_basis_vectors=10),
    ):
        with pytest.raises(TypeError, match="fits in memory only"):
            in_memory.fit(X_dask, y)
    with pytest.raises(ValueError, match="NaN"):
        fitc_on_given_hyperparameters().fit(blocks_of(np.full((400, 4), np.nan)), y)
    with pytest.raises(ValueError, match="at least two classes"):
        fitc_on_given_hyperparameters().fit(X_dask, np.ones(400))
    with pytest.raises(ValueError, match="rows and y 399 labels"):
        fitc_on_given_hyperparameters().fit(X_dask, y[:-1])
    with pytest.raises(ValueError, match="exceeds the 400 training points"):
        IVMClassifier(active_set_size=401, optimizer=None).fit(X_dask, y)
    with pytest.raises(ValueError, match="2-D"):
        fitc_on_given_hyperparameters().fit(da.zeros((400, 4, 2), chunks=100), y)


@pytest.mark.parametrize(
    "selection, store_dtype",
    [("greedy", "float64"), ("random", "float64"), ("greedy", "float32")],
)
def test_ivm_selects_on_the_cluster_and_equals_the_in_memory_fit(
    client, monkeypatch, selection, store_dtype
):
    """d = 200 of 20 000 points in four row blocks: the same active set and
    predictions within 1e-6, one call to each worker's blocks for every inclusion, X
    never turned into an array in the client; the blocks keep ``V`` in the in-memory
    store's precision."""
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel

    X, y = make_noisy_problem(20_000, seed=4)
    X_test, _ = make_noisy_problem(1_000, seed=5)
    options = dict(
        kernel=ConstantKernel(2.0) * RBF(1.5),
        active_set_size=200,
        selection=selection,
        optimizer=None,
        store_dtype=store_dtype,
        random_state=0,
    )
    local = IVMClassifier(**options).fit(X, y)

    def gathered(self, *args, **kwargs):
        raise AssertionError("X was converted to a numpy array in the client")

    X_dask = blocks_of(X)
    monkeypatch.setattr(da.Array, "__array__", gathered)
    rounds = record_rounds(monkeypatch)
    made = record_block_arguments(monkeypatch)
    on_cluster = IVMClassifier(**options).fit(X_dask, y)
    monkeypatch.undo()
    assert np.dtype(made[0][-1]) == np.dtype(store_dtype)  # the blocks' V
    includes = one_call_per_worker(rounds, "_include", 4)
    includes += one_call_per_worker(rounds, "_include_and_best", 4)
    assert len(includes) == 200
    np.testing.assert_array_equal(on_cluster.active_set_, local.active_set_)
    assert_latent_close(on_cluster, local, X_test, atol=1e-6)
    np.testing.assert_allclose(
        on_cluster.predict_proba(X_test), local.predict_proba(X_test), atol=1e-6
    )


def test_ivm_learns_its_kernel_on_the_cluster(client):
    """Hyperparameter rounds scored by held-out NLP, all on the cluster: the same
    active set, kernel and predictions as in memory."""
    X, y = make_noisy_problem(6_000, seed=6)
    X_test, _ = make_noisy_problem(500, seed=7)
    options = dict(
        active_set_size=60,
        selection="greedy",
        n_outer_iterations=2,
        max_iter_optimizer=5,
        store_dtype="float64",
        posterior="active_set",  # the selection's rounds alone, to rounding
        random_state=0,
    )
    local = IVMClassifier(**options).fit(X, y)
    on_cluster = IVMClassifier(**options).fit(blocks_of(X, rows=1500), y)
    np.testing.assert_array_equal(on_cluster.active_set_, local.active_set_)
    np.testing.assert_allclose(on_cluster.kernel_.theta, local.kernel_.theta, atol=1e-8)
    np.testing.assert_allclose(
        on_cluster.predict_proba(X_test), local.predict_proba(X_test), atol=1e-8
    )
    # [NGH07] §6's FITC pass runs on the cluster too, its sums in one process's
    # order: the same path bit for bit (1.4e-3 apart while the workers added their
    # sums in another order, which the evaluations' EP tolerance amplified)
    fitc_pass = dict(options, posterior="fitc")
    local = IVMClassifier(**fitc_pass).fit(X, y)
    on_cluster = IVMClassifier(**fitc_pass).fit(blocks_of(X, rows=1500), y)
    np.testing.assert_array_equal(on_cluster.active_set_, local.active_set_)
    np.testing.assert_array_equal(
        on_cluster.predict_proba(X_test), local.predict_proba(X_test)
    )


def test_ivm_with_its_defaults_fits_on_the_cluster(client):
    """selection="auto" (randomized greedy against uniform, by held-out points) and the
    hyperparameter rounds: the randomized index is drawn per block, so the active set
    differs from the in-memory one, the accuracy does not."""
    X, y = make_noisy_problem(4_000, seed=8)
    X_test, y_test = make_noisy_problem(2_000, seed=9)
    options = dict(
        active_set_size=120, n_full_greedy=40, selection_size=100, n_outer_iterations=1
    )
    local = IVMClassifier(random_state=0, **options).fit(X, y)
    on_cluster = IVMClassifier(random_state=0, **options).fit(
        blocks_of(X, rows=1000), y
    )
    assert on_cluster.selection_used_ in ("randomized", "random")
    errors = [np.mean(m.predict(X_test) != y_test) for m in (on_cluster, local)]
    assert errors[0] <= errors[1] + 0.02


def test_a_verbose_selection_on_the_cluster_shows_its_progress(client, capsys):
    X, y = make_noisy_problem(2_000, seed=10)
    IVMClassifier(
        active_set_size=20, selection="greedy", optimizer=None, verbose=1
    ).fit(blocks_of(X, rows=500), y)
    assert "IVM selection" in capsys.readouterr().err


@pytest.mark.parametrize(
    "units", [(1e9, 1.0), (0.0, 1e150)], ids=["offset 1e9", "scale 1e150"]
)
def test_inputs_far_from_zero_or_of_extreme_magnitude_fit_on_the_cluster(client, units):
    """The shift and scale of in-memory inputs, computed on the cluster: the same
    model as in memory, where without them the kernel's distances lose every digit
    (offset) or overflow (scale)."""
    offset, scale = units
    X, y = make_noisy_problem(3_000)
    X, X_test = offset + scale * X, offset + scale * make_noisy_problem(500, 1)[0]
    local = FITCGPClassifier(n_inducing=20, max_iter_optimizer=3, random_state=0)
    on_cluster = FITCGPClassifier(n_inducing=20, max_iter_optimizer=3, random_state=0)
    local.fit(X, y)
    on_cluster.fit(blocks_of(X, rows=1000), y)
    np.testing.assert_array_equal(on_cluster.input_offset_, local.input_offset_)
    assert on_cluster.input_scale_ == local.input_scale_
    assert not np.isscalar(local.input_offset_) or local.input_scale_ != 1.0
    np.testing.assert_allclose(  # learnt: the blocks' sums in another order
        on_cluster.predict_proba(X_test), local.predict_proba(X_test), atol=1e-4
    )
    assert np.mean(local.predict(X_test) == make_noisy_problem(500, 1)[1]) > 0.7


@pytest.fixture
def cycle_collector_off():
    """The cycle collector held off (after a collection: what earlier tests left is
    gone), so that only what a fit frees itself is freed."""
    import gc

    gc.collect()
    gc.disable()
    yield
    gc.enable()


def actors_on_workers(client, wait=5.0):
    """The actors on the workers, once none are left or after ``wait`` seconds (the
    scheduler removes a cancelled actor after the call that cancelled it returns)."""
    import time

    deadline = time.monotonic() + wait
    while True:
        counts = client.run(lambda dask_worker: len(dask_worker.state.actors))
        if sum(counts.values()) == 0 or time.monotonic() > deadline:
            return sum(counts.values())
        time.sleep(0.05)


@pytest.mark.parametrize(
    "classifier",
    [
        FITCGPClassifier(n_inducing=20, max_iter_optimizer=2, random_state=0),
        IVMClassifier(active_set_size=60, n_outer_iterations=1, random_state=0),
    ],
    ids=["FITC", "IVM with its FITC pass"],
)
def test_a_fit_frees_its_blocks_on_the_workers(client, cycle_collector_off, classifier):
    """Every DaskBlocks a fit makes is closed by it: distributed's actor handles sit
    in reference cycles, and blocks left to the cycle collector held a worker's
    memory through the next fits (n = 10⁶: 700 MB a worker more each fit)."""
    X, y = make_noisy_problem(3_000, seed=4)
    assert actors_on_workers(client) == 0
    classifier.fit(blocks_of(X, rows=1000), y)
    assert actors_on_workers(client) == 0


@pytest.mark.parametrize(
    "holders, workers",
    [
        (["a"] * 40 + ["b"] * 24, ["a", "b"]),
        (["b"] * 7, ["a", "b", "c"]),
        (["a", "b", "a", "a", "c", "a"], ["a", "b", "c", "d"]),
        (["a"], ["a", "b"]),
        (["a", "b"] * 8, ["a", "b"]),
    ],
)
def test_balanced_placement_gives_each_worker_its_share(holders, workers):
    """Every block placed once; counts within one of each other over the workers (no
    worker without a block while another has two); each worker a run of consecutive
    blocks, the runs given to the workers so that as many blocks as any assignment
    of them keeps stay where they are."""
    from sparsegp._dask import balanced_placement

    placed = balanced_placement(holders, workers)
    assert sorted(i for indices in placed.values() for i in indices) == list(
        range(len(holders))
    )
    counts = [len(placed.get(worker, [])) for worker in workers]
    assert max(counts) - min(counts) <= 1
    for indices in placed.values():
        assert indices == list(range(indices[0], indices[0] + len(indices)))
    runs = list(placed.values())
    names = list(dict.fromkeys([*workers, *holders]))

    def kept(assignment):
        return sum(holders[i] == w for w, run in assignment for i in run)

    best = max(
        kept(zip(order, runs, strict=False))
        for order in itertools.permutations(names, len(runs))
    )
    assert kept(placed.items()) == best


def test_blocks_made_on_one_worker_are_shared_by_both(client):
    """X computed on one worker (its chunks all there): the blocks go to both workers'
    actors, eight each, so that a round does not wait for one worker doing all of it;
    a round's results still come in row order."""
    from sparsegp._dask import DaskBlocks
    from sparsegp.approximations.partitioned_fitc import new_block

    X, y = make_noisy_problem(4_000, seed=5)
    first = sorted(client.scheduler_info()["workers"])[0]
    X_dask = client.persist(blocks_of(X, rows=250), workers=[first])
    distributed.wait(X_dask)
    blocks = DaskBlocks.from_rows(client, X_dask, y, new_block)
    try:
        assert sorted(len(indices) for indices in blocks.indices) == [8, 8]
        assert {actor._address for actor in blocks.actors} == set(
            client.scheduler_info()["workers"]
        )
        firsts = blocks.map(lambda block: block.first)
        assert firsts == list(range(0, 4_000, 250))
    finally:
        blocks.close()


def test_a_sum_over_blocks_comes_back_as_one_reply_from_each_worker(client):
    """``map_sum``: each worker keeps its blocks' results and adds them to the sum of
    the blocks before its own, which the worker before it sent: one reply from each
    worker (two for 16 blocks on two workers), and the sum in one process bit for
    bit."""
    from sparsegp._dask import DaskBlocks
    from sparsegp.approximations.blocks import LocalBlocks
    from sparsegp.approximations.partitioned_fitc import new_block

    X, y = make_noisy_problem(4_000, seed=6)
    blocks = DaskBlocks.from_rows(client, blocks_of(X, rows=250), y, new_block)
    replies = []

    class Recorded:
        def __init__(self, actor):
            self.actor = actor

        def __getattr__(self, name):
            replies.append(name)
            return getattr(self.actor, name)

    blocks.actors = [Recorded(actor) for actor in blocks.actors]

    def gram(block):
        return block.X.T @ block.X, len(block.y)

    try:
        on_cluster = blocks.map_sum(gram)
    finally:
        blocks.close()
    assert replies.count("kept_sum") == 2 and on_cluster[1] == 4_000
    local = [new_block(X[a : a + 250], y[a : a + 250], a) for a in range(0, 4_000, 250)]
    np.testing.assert_array_equal(on_cluster[0], LocalBlocks(local).map_sum(gram)[0])


def test_column_variances_of_a_dask_array_are_numpys_bit_for_bit():
    """Chunks of uneven sizes, values spread over ten decades: the chain of per-chunk
    sums gives ``np.var(X, axis=0)`` to the last bit, where dask's own tree of chunk
    sums does not."""
    from sparsegp._dask import column_variances

    rng = np.random.default_rng(7)
    X = rng.standard_normal((10_007, 5)) * 10.0 ** rng.uniform(-5, 5, (10_007, 1))
    chunked = da.from_array(X, chunks=((3_001, 4_000, 1, 3_005), (5,)))
    np.testing.assert_array_equal(column_variances(chunked), np.var(X, axis=0))
    assert not np.array_equal(chunked.var(axis=0).compute(), np.var(X, axis=0))
