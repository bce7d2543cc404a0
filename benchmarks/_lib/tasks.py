"""The classification tasks the benchmarks share: IDA-style splits and MNIST 4-vs-rest."""

import numpy as np

from sparsegp.datasets import ida_info, load_crabs, load_ida, load_mnist, load_synth

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


def n_realizations(dataset, requested):
    """Realizations to run: synth has one fixed split."""
    return 1 if dataset == "synth" else requested


def is_reconstructed(dataset):
    """Per-realization reconstruction flags (synth and crabs are originals)."""
    if dataset in ("synth", "crabs"):
        return [False] * 10
    return ida_info(dataset.removesuffix("_002")).reconstructed.tolist()


def mnist_task(n_train):
    """MNIST 13×13 ``DIGIT`` against the rest: a random ``n_train``-image subset, ±1."""
    X, labels, X_test, labels_test = load_mnist(resolution=13)
    if n_train < len(X):
        subset = np.random.default_rng(0).choice(len(X), n_train, replace=False)
        X, labels = X[subset], labels[subset]
    y = np.where(labels == DIGIT, 1, -1)
    return X, y, X_test, np.where(labels_test == DIGIT, 1, -1)
