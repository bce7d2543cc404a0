"""The classification tasks the benchmarks share: IDA-style splits, MNIST 4-vs-rest, a
noisy ``make_classification`` task of real size and a synthetic task generated on a
dask cluster."""

import resource

import numpy as np
from sklearn.datasets import make_classification

from sparsegp.benchmarking import save_run
from sparsegp.datasets import ida_info, load_crabs, load_ida, load_mnist, load_synth
from sparsegp.datasets._ida import IDA_NAMES

#: The digit of the MNIST 13×13 one-against-the-rest task (USPS-sized in [NGH07]).
DIGIT = 4


#: [SSK09] uses inputs 28-34 (1-based) of splice's 60.
SPLICE_002_INPUTS = slice(27, 34)


def load_task(dataset, realization):
    """``X_train, y_train, X_test, y_test`` of one realization of ``dataset``."""
    if dataset == "splice_002":
        X_train, y_train, X_test, y_test = load_ida("splice", realization)
        return (
            X_train[:, SPLICE_002_INPUTS],
            y_train,
            X_test[:, SPLICE_002_INPUTS],
            y_test,
        )
    if dataset == "synth":
        return load_synth()
    if dataset == "crabs":
        return load_crabs(realization)
    return load_ida(dataset, realization)


def add_ida_and_large_options(parser, large_tasks):
    """``--sets`` (IDA sets), ``--realizations``, ``--large`` (names of
    ``large_tasks``; alone: all of them) and ``--out``, as
    :func:`ida_and_large_runs` takes them."""
    parser.add_argument("--sets", nargs="*", default=list(IDA_NAMES))
    parser.add_argument("--realizations", type=int, default=3)
    parser.add_argument("--large", nargs="*", choices=list(large_tasks), default=None)
    parser.add_argument("--out", default=None)


def ida_and_large_runs(sets, realizations, large, large_tasks):
    """``(dataset, realization, load)`` for the first ``realizations`` splits of each
    IDA set in ``sets``, then split 0 of each of ``large`` (``[]``: all of
    ``large_tasks``; ``None``: none); ``load()`` gives ``X, y, X_test, y_test``."""
    runs = [
        (name, r, lambda name=name, r=r: load_ida(name, r)[:4])
        for name in sets
        for r in range(realizations)
    ]
    if large is not None:
        runs += [(name, 0, large_tasks[name]) for name in large or large_tasks]
    return runs


def scored_runs(runs, settings, score, describe, out=None):
    """The rows ``{dataset, realization} | score(setting, X, y, X_test, y_test)`` of
    each of :func:`ida_and_large_runs`' ``runs`` under each of ``settings``, each
    printed as ``describe(row)`` and all saved to ``out`` (if given) after every fit."""
    rows = []
    for dataset, realization, load in runs:
        data = load()
        for setting in settings:
            row = {"dataset": dataset, "realization": realization}
            rows.append(row | score(setting, *data))
            print(describe(rows[-1]), flush=True)
            if out:
                save_run(out, rows)
    return rows


def n_realizations(dataset, requested):
    """Realizations to run: synth has one fixed split."""
    return 1 if dataset == "synth" else requested


def is_reconstructed(dataset):
    """Per-realization reconstruction flags (synth and crabs are originals)."""
    if dataset in ("synth", "crabs"):
        return [False] * 10
    return ida_info(dataset.removesuffix("_002")).reconstructed.tolist()


def mnist_classes(n_train):
    """MNIST 13×13, all ten classes: a seeded random ``n_train``-image subset of the
    training images, and the 10 000 test images."""
    X, labels, X_test, labels_test = load_mnist(resolution=13)
    if n_train < len(X):
        subset = np.random.default_rng(0).choice(len(X), n_train, replace=False)
        X, labels = X[subset], labels[subset]
    return X, labels, X_test, labels_test


def mnist_task(n_train):
    """MNIST 13×13 ``DIGIT`` against the rest: :func:`mnist_classes`' images, ±1."""
    X, labels, X_test, labels_test = mnist_classes(n_train)
    y = np.where(labels == DIGIT, 1, -1)
    return X, y, X_test, np.where(labels_test == DIGIT, 1, -1)


#: Splice's bases in its columns' order (IDA codes A = 1, G = 2, C = 3, T = 4, then
#: standardised, which keeps their order).
_A, _G, _C, _T = range(4)


def splice_three_classes(seed, n_train=2000):
    """A three-class DNA task in the form of Statlog's DNA (2 000 training sequences,
    one binary indicator per base and position): IDA splice's 3 175 sequences, its
    two classes N and "EI or IE" split by the junction's motif, the donor's G T just
    after the junction (positions 31-32) on a stretch before it with under 70 %
    pyrimidines (C, T) for EI, the other sequences IE. The motif rule stands in for
    the UCI labels, which IDA's file merges; ``n_train`` sequences drawn by ``seed``
    to train on, the other 1 175 to test. Returns ``X, y, X_test, y_test``, labels
    ``"EI"``, ``"IE"``, ``"N"``."""
    X_train, y_train, X_test, y_test = load_ida("splice", 0)
    X, y = np.vstack([X_train, X_test]), np.concatenate([y_train, y_test])
    bases = np.column_stack([np.unique(c, return_inverse=True)[1] for c in X.T])
    donor = (bases[:, 30] == _G) & (bases[:, 31] == _T)
    pyrimidines = np.isin(bases[:, 14:28], [_C, _T]).mean(axis=1)
    labels = np.where(y == 1, "N", np.where(donor & (pyrimidines < 0.7), "EI", "IE"))
    indicators = np.zeros((len(X), 4 * X.shape[1]))
    indicators[np.arange(len(X))[:, None], 4 * np.arange(X.shape[1]) + bases] = 1.0
    order = np.random.default_rng(seed).permutation(len(X))
    train, test = order[:n_train], order[n_train:]
    return indicators[train], labels[train], indicators[test], labels[test]


def _first_50_000_to_train(**params):
    """``make_classification(n_samples=60_000, random_state=0, **params)``: the first
    50 000 points to train on, the last 10 000 to test."""
    X, y = make_classification(n_samples=60_000, random_state=0, **params)
    return X[:50_000], y[:50_000], X[50_000:], y[50_000:]


def imbalanced_task(weight):
    """``make_classification(n_samples=60_000, n_features=20, weights=[weight],
    flip_y=0.02, random_state=0)``: the first 50 000 points to train on, the last
    10 000 to test (issue 48's imbalanced sets)."""
    return _first_50_000_to_train(n_features=20, weights=[weight], flip_y=0.02)


def clean_nonlinear_task(weight):
    """``make_classification(n_samples=60_000, n_features=22, n_informative=12,
    n_redundant=4, n_clusters_per_class=6, weights=[weight], flip_y=0,
    random_state=0)``, split as :func:`imbalanced_task`; imbalanced like it, but with
    no flipped labels and each class six clusters: a boundary that needs many basis
    functions (a few per cent error is reachable)."""
    return _first_50_000_to_train(
        n_features=22,
        n_informative=12,
        n_redundant=4,
        n_clusters_per_class=6,
        weights=[weight],
        flip_y=0.0,
    )


#: Inputs of the synthetic cluster task.
D = 10


def sine_task(n_train, n_test=100_000):
    """The million-point task of issue 47, in memory: D standard-normal inputs, labels
    ``sign(sin 2x₀ + x₁x₂ + 0.5ε)`` (seed 0); the first ``n_train`` points to train
    on, the last ``n_test`` to test."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n_train + n_test, D))
    latent = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * rng.standard_normal(len(X))
    y = np.where(latent > 0, 1, -1)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def noisy_classification_task(n_train):
    """``make_classification(n_samples=n_train + 12_000, n_features=22,
    n_informative=10, flip_y=0.1, random_state=0)``: the first ``n_train`` points to
    train on, the last 12 000 to test (ten per cent of the labels drawn at random)."""
    X, y = make_classification(
        n_samples=n_train + 12_000,
        n_features=22,
        n_informative=10,
        flip_y=0.1,
        random_state=0,
    )
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def flipped_classification_task(n_train):
    """``make_classification(n_samples=n_train + 10_000, flip_y=0.05, random_state=0)``
    (20 features, scikit-learn's defaults otherwise): the first ``n_train`` points to
    train on, the last 10 000 to test."""
    X, y = make_classification(n_samples=n_train + 10_000, flip_y=0.05, random_state=0)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def peak_rss_mb():
    """Peak resident memory of this process (a worker's, when run by ``client.run``)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cluster_data(n, chunk_rows):
    """``X`` (a dask array generated on the workers) and labels in memory.

    D standard-normal inputs, labels ``sign(sin 2x₀ + x₁x₂ + 0.5ε)``.
    """
    import dask.array as da

    X = da.random.RandomState(0).standard_normal((n, D), chunks=(chunk_rows, D))
    noise = da.random.RandomState(1).standard_normal(n, chunks=chunk_rows)
    latent = da.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * noise
    return X, np.where(latent.compute() > 0, 1, -1)
