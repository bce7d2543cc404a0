"""RVM classifier on MNIST ones against the rest, 16 PCA components (001 §5).

    SPARSEGP_DATA=../shared/data python benchmarks/rvm_mnist.py --methods ssem batch

Training set as 001: the 6 742 ones and 6 742 other digits drawn at random (13 484);
test: the 10 000 test digits. PCA to 16 components fitted on the training images. Basis:
a dictionary of 800 Gaussian basis functions centred on random training inputs plus a
bias, width by the median heuristic (001 does not give it), adaptive-TAP mean field,
MacKay updates. sklearn-rvm's ``EMRVC`` (batch EM, Laplace, one basis function per
training point) cannot hold 13 484 basis functions; with ``--peer-size m`` it is fitted
on m training points drawn from the same set, and so is our SSEM for comparison. One
BLAS thread, fit times in CPU seconds.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.spatial.distance import pdist
from sklearn.decomposition import PCA
from sklearn.gaussian_process.kernels import RBF
from threadpoolctl import threadpool_limits

from sparsegp import RVMClassifier
from sparsegp.datasets import load_mnist

N_BASIS = 800


def ones_against_the_rest(rng):
    X, labels, X_test, labels_test = load_mnist()
    ones = np.flatnonzero(labels == 1)
    others = rng.choice(np.flatnonzero(labels != 1), size=len(ones), replace=False)
    train = np.concatenate([ones, others])
    pca = PCA(16, random_state=0).fit(X[train])
    y = np.where(labels[train] == 1, 1, -1)
    y_test = np.where(labels_test == 1, 1, -1)
    return pca.transform(X[train]), y, pca.transform(X_test), y_test


def report(name, model, X, y, X_test, y_test):
    start = time.process_time()
    model.fit(X, y)
    seconds = time.process_time() - start
    error = np.mean(model.predict(X_test) != y_test)
    print(
        f"| {name} | {len(y)} | {100 * error:.2f} | {len(model.relevance_vectors_)} "
        f"| {seconds:.1f} |",
        flush=True,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=["ssem", "batch"])
    parser.add_argument("--peer-size", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    X, y, X_test, y_test = ones_against_the_rest(rng)
    sample = X[rng.choice(len(X), size=1000, replace=False)]
    width = float(np.sqrt(np.median(pdist(sample, "sqeuclidean"))))
    print(f"basis width (median distance) {width:.3f}\n")
    print("| model | training points | test error % | relevance vectors | CPU s |")
    print("|---|---:|---:|---:|---:|")
    with threadpool_limits(1):
        for method in args.methods:
            model = RVMClassifier(
                RBF(width), method=method, n_basis=N_BASIS, random_state=0
            )
            report(f"RVMClassifier {method}, 800 basis", model, X, y, X_test, y_test)
        if args.peer_size:
            from sklearn_rvm import EMRVC

            subset = rng.choice(len(X), size=args.peer_size, replace=False)
            Xs, ys = X[subset], y[subset]
            ours = RVMClassifier(RBF(width), random_state=0)
            report(
                "RVMClassifier ssem, all points as basis", ours, Xs, ys, X_test, y_test
            )
            peer = EMRVC(kernel="rbf", gamma=1 / (2 * width**2))
            report("sklearn-rvm EMRVC", peer, Xs, ys, X_test, y_test)


if __name__ == "__main__":
    main()
