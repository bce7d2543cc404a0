"""Loaders on small files made here, generators, and the shipped banana data."""

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file
from sklearn.utils import Bunch

import sparsegp.datasets._mnist as mnist_module
from sparsegp.datasets import (
    downsample_13,
    ida_info,
    load_banana,
    load_crabs,
    load_file,
    load_ida,
    load_magic,
    load_mnist,
    load_synth,
    mackey_glass_regression,
    make_mackey_glass,
    make_xor_clusters,
)


@pytest.fixture
def data_home(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((10, 3))
    y = np.array([1, -1] * 5, dtype=np.int8)
    train = np.array([[0, 1, 2, 3, 4, 5], [4, 5, 6, 7, 8, 9]], dtype=np.int16)
    test = np.array([[6, 7, 8, 9], [0, 1, 2, 3]], dtype=np.int16)
    np.savez_compressed(
        tmp_path / "ida_thyroid.npz",
        X=X,
        y=y,
        train_idx=train,
        test_idx=test,
        realizations=np.array([1, 2], np.int16),
        reconstructed=np.array([False, True]),
        label_definition=np.array("made up"),
    )
    np.savez_compressed(
        tmp_path / "magic.npz", X=X, y=y, train_idx=train, test_idx=test
    )
    images = rng.integers(0, 256, size=(4, 28, 28), dtype=np.uint8)
    np.savez_compressed(
        tmp_path / "mnist.npz",
        X_train=images,
        y_train=np.arange(4, dtype=np.int8),
        X_test=images[:2],
        y_test=np.arange(2, dtype=np.int8),
    )
    np.savez_compressed(
        tmp_path / "synth.npz",
        X_train=X[:6, :2],
        y_train=y[:6],
        X_test=X[6:, :2],
        y_test=y[6:],
    )
    crabs_X = rng.uniform(5.0, 50.0, size=(200, 5))
    np.savez_compressed(
        tmp_path / "crabs.npz",
        X=crabs_X,
        y_species=np.repeat([-1, 1], 100).astype(np.int8),
        y_sex=np.tile(np.repeat([1, -1], 50), 2).astype(np.int8),
    )
    return tmp_path


def test_load_ida_returns_the_indexed_realization(data_home):
    X_train, y_train, X_test, y_test = load_ida(
        "thyroid", realization=1, data_home=data_home
    )
    full = np.load(data_home / "ida_thyroid.npz")
    np.testing.assert_array_equal(X_train, full["X"][4:10])
    np.testing.assert_array_equal(y_test, full["y"][:4])
    info = ida_info("thyroid", data_home=data_home)
    np.testing.assert_array_equal(info.reconstructed, [False, True])
    assert info.label_definition == "made up"


def test_load_ida_reads_the_environment_variable(data_home, monkeypatch):
    monkeypatch.setenv("SPARSEGP_DATA", str(data_home))
    assert load_ida("thyroid")[0].shape == (6, 3)


def test_missing_data_names_the_environment_variable(monkeypatch, tmp_path):
    monkeypatch.delenv("SPARSEGP_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match="SPARSEGP_DATA"):
        load_ida("ringnorm")
    with pytest.raises(FileNotFoundError, match="ida_heart.npz"):  # lists the shipped
        load_ida("twonorm", data_home=tmp_path)


#: IDA's (n_train, n_test, n_features) of the shipped sets (the data README's sizes).
SHIPPED_IDA = {
    "banana": (400, 4900, 2),
    "breast_cancer": (200, 77, 9),
    "diabetis": (468, 300, 8),
    "flare_solar": (666, 400, 9),
    "german": (700, 300, 20),
    "heart": (170, 100, 13),
    "image": (1300, 1010, 18),
    "splice": (1000, 2175, 60),
    "thyroid": (140, 75, 5),
    "titanic": (150, 2051, 3),
}


@pytest.mark.parametrize("name", sorted(SHIPPED_IDA))
def test_small_ida_sets_load_without_a_data_folder(name, monkeypatch):
    monkeypatch.delenv("SPARSEGP_DATA", raising=False)
    n_train, n_test, n_features = SHIPPED_IDA[name]
    X_train, y_train, X_test, y_test = load_ida(name, realization=9)
    assert X_train.shape == (n_train, n_features) and X_test.shape[0] == n_test
    assert set(np.unique(np.concatenate([y_train, y_test]))) == {-1, 1}
    reconstructed = name in ("diabetis", "flare_solar", "splice", "thyroid")
    assert ida_info(name).reconstructed.all() == reconstructed


def test_ripley_sets_load_without_a_data_folder(monkeypatch):
    monkeypatch.delenv("SPARSEGP_DATA", raising=False)
    assert load_synth()[2].shape == (1000, 2)
    assert load_crabs(0)[0].shape == (80, 5)


def test_mnist_is_fetched_from_openml_once_and_saved_in_the_loaders_layout(
    tmp_path, monkeypatch
):
    calls = []
    rng = np.random.default_rng(1)
    pixels = rng.integers(0, 256, size=(7, 784)).astype(float)  # OpenML: float pixels
    digits = np.array(list("3141592"), dtype=object)  # and string targets

    def fake_fetch_openml(name, **options):
        calls.append(name)
        return Bunch(data=pixels, target=digits)

    monkeypatch.setattr(mnist_module, "fetch_openml", fake_fetch_openml)
    monkeypatch.setattr(mnist_module, "_N_TRAIN", 5)
    with pytest.raises(FileNotFoundError, match="download=True"):
        load_mnist(data_home=tmp_path)
    X_train, y_train, X_test, y_test = load_mnist(data_home=tmp_path, download=True)
    assert calls == ["mnist_784"]
    np.testing.assert_array_equal(y_train, [3, 1, 4, 1, 5])
    np.testing.assert_array_equal(y_test, [9, 2])
    np.testing.assert_allclose(X_test * 255, pixels[5:])
    again = load_mnist(data_home=tmp_path, download=True, resolution=13)
    assert calls == ["mnist_784"] and again[0].shape == (5, 169)


def test_bad_names_and_realizations(data_home):
    with pytest.raises(ValueError, match="Unknown IDA"):
        load_ida("bananas", data_home=data_home)
    with pytest.raises(ValueError, match="realization"):
        load_ida("thyroid", realization=2, data_home=data_home)


def test_load_magic_returns_the_indexed_split(data_home):
    X_train, y_train, X_test, y_test = load_magic(realization=1, data_home=data_home)
    full = np.load(data_home / "magic.npz")
    np.testing.assert_array_equal(X_train, full["X"][4:10])
    np.testing.assert_array_equal(y_test, full["y"][:4])
    with pytest.raises(ValueError, match="realization"):
        load_magic(realization=10, data_home=data_home)


def test_load_mnist_scales_and_downsamples(data_home):
    X_train, y_train, X_test, _ = load_mnist(data_home=data_home)
    assert X_train.shape == (4, 784) and 0 <= X_train.min() and X_train.max() <= 1
    X13 = load_mnist(data_home=data_home, resolution=13)[0]
    raw = np.load(data_home / "mnist.npz")["X_train"].astype(float) / 255
    assert X13.shape == (4, 169)
    np.testing.assert_allclose(X13[0, 0], raw[0, 1:3, 1:3].mean())
    np.testing.assert_allclose(X13[2, 168], raw[2, 25:27, 25:27].mean())
    with pytest.raises(ValueError, match="resolution"):
        load_mnist(data_home=data_home, resolution=14)


def test_downsample_averages_blocks():
    images = np.arange(2 * 28 * 28, dtype=float).reshape(2, 28, 28)
    out = downsample_13(images)
    assert out.shape == (2, 13, 13)
    np.testing.assert_allclose(out[1, 4, 7], images[1, 9:11, 15:17].mean())


def test_shipped_banana():
    X_train, y_train, X_test, y_test = load_banana()
    assert X_train.shape == (400, 2) and X_test.shape == (4900, 2)
    assert set(np.unique(y_train)) == {-1, 1}


def test_xor_clusters_have_xor_labels():
    X, y = make_xor_clusters(4000, random_state=0)
    agree = np.mean(np.sign(X[:, 0] * X[:, 1]) == y)
    assert 0.8 < agree < 0.9  # Bayes error of the problem is about 13 %
    np.testing.assert_array_equal(
        make_xor_clusters(5, random_state=3)[0], make_xor_clusters(5, random_state=3)[0]
    )


def test_mackey_glass_is_chaotic_but_bounded_and_embeds():
    z = make_mackey_glass(600)
    assert z.shape == (600,) and 0.2 < z.min() and z.max() < 1.5 and z.std() > 0.1
    X, t = mackey_glass_regression(z, n_lags=16, spacing=6, horizon=6)
    assert X.shape == (600 - 96, 16)
    np.testing.assert_array_equal(X[0], z[90::-6][:16])
    assert t[0] == z[96]


def test_load_synth_keeps_the_fixed_split(data_home):
    X_train, y_train, X_test, y_test = load_synth(data_home)
    assert X_train.shape == (6, 2) and X_test.shape == (4, 2)
    np.testing.assert_array_equal(np.concatenate([y_train, y_test]), [1, -1] * 5)


def test_load_crabs_splits_groups_evenly_and_standardises(data_home):
    X_train, y_train, X_test, y_test = load_crabs(realization=2, data_home=data_home)
    assert X_train.shape == (80, 5) and X_test.shape == (120, 5)
    assert np.sum(y_train == 1) == 40 and np.sum(y_test == 1) == 60
    np.testing.assert_allclose(X_train.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(X_train.std(axis=0), 1.0)
    again = load_crabs(realization=2, data_home=data_home)[0]
    other = load_crabs(realization=3, data_home=data_home)[0]
    np.testing.assert_array_equal(X_train, again)
    assert not np.allclose(X_train, other)


def test_load_file_reads_csv_libsvm_and_npz(tmp_path):
    (tmp_path / "d.csv").write_text("x1,x2,label\n1,2,a\n3,4.5,b\n\n")
    data = load_file(tmp_path / "d.csv")
    np.testing.assert_array_equal(data.X, [[1, 2], [3, 4.5]])
    assert list(data.y) == ["a", "b"] and data.feature_names == ["x1", "x2"]
    (tmp_path / "g.csv").write_text("x1,x2,x3\n1,2,3\n4,5,6.5\n")
    by_name = load_file(tmp_path / "g.csv", target="x1")
    assert list(by_name.y) == [1, 4] and by_name.y.dtype.kind == "i"
    np.testing.assert_array_equal(by_name.X, [[2, 3], [5, 6.5]])
    (tmp_path / "f.csv").write_text("x1,x2\n1,2\n3,4\n")
    features_only = load_file(tmp_path / "f.csv", n_features=2)
    assert features_only.y is None and features_only.X.shape == (2, 2)
    dump_svmlight_file(np.eye(3), [0.5, 1.5, 2.5], str(tmp_path / "d.svm"))
    sparse = load_file(tmp_path / "d.svm")
    assert sparse.X.shape == (3, 3) and list(sparse.y) == [0.5, 1.5, 2.5]
    # a test file whose last feature is zero everywhere still has the model's width
    assert load_file(tmp_path / "d.svm", n_features=5).X.shape == (3, 5)
    np.savez(tmp_path / "d.npz", X=np.ones((4, 2)))
    assert load_file(tmp_path / "d.npz").y is None


def test_load_file_errors_name_the_problem(tmp_path):
    (tmp_path / "d.csv").write_text("x1,x2,label\n1,2\n")
    with pytest.raises(ValueError, match="line 2: 2 fields, the header has 3"):
        load_file(tmp_path / "d.csv")
    (tmp_path / "d.xlsx").write_text("")
    with pytest.raises(ValueError, match="Cannot read d.xlsx"):
        load_file(tmp_path / "d.xlsx")
    with pytest.raises(FileNotFoundError):
        load_file(tmp_path / "absent.csv")
