"""The sparse online GP on a stream of a million examples, fixed hyperparameters.

    python -m benchmarks run online_stream --out benchmarks/results/online_stream.json

Regression: Friedman #1 (noise 1), the kernel a ``GaussianProcessRegressor`` learns on
1 000 points (ARD, amplitude ≈ 135², noise ≈ 0.93: the setting where Csató's α, C, Q
recursions gave NaN before 10⁴ examples), ``max_basis_vectors=100``,
``optimizer=None``; test MSE against the noise-free function on 2 000 points after
5 000 … 10⁶ examples. Classification: two interleaved half moons with 10 % of the labels
flipped, a fixed ``C·RBF(0.3)``, d = 100; test error and NLP on 5 000 clean points.
Speed with a full basis: the regressor with a short length-scale (``RBF(0.3)``, every
example a candidate for the basis), examples per second once d = 100 are in use.
One BLAS thread (the online update is single-threaded by design).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import make_friedman1, make_moons
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
from threadpoolctl import threadpool_limits

from sparsegp import SparseOnlineGPClassifier, SparseOnlineGPRegressor
from sparsegp.benchmarking import save_run

CHECKPOINTS = (5_000, 20_000, 100_000, 300_000, 1_000_000)


def stream(model, make_chunk, n_total, evaluate, fit_kwargs=None):
    """Feed ``n_total`` examples in chunks; evaluate at each checkpoint."""
    rows, done, seconds, seed = [], 0, 0.0, 0
    for checkpoint in (c for c in CHECKPOINTS if c <= n_total):
        while done < checkpoint:
            size = min(50_000, checkpoint - done)
            X, y = make_chunk(size, seed)
            seed += 1
            start = time.perf_counter()
            model.partial_fit(X, y, **(fit_kwargs or {}))
            seconds += time.perf_counter() - start
            done += size
        rows.append(dict(examples=done, seconds=seconds, **evaluate(model)))
        print(rows[-1], flush=True)
    return rows


def regression(n_total):
    X0, y0 = make_friedman1(1000, noise=1.0, random_state=0)
    kernel = ConstantKernel() * RBF(np.ones(10)) + WhiteKernel()
    kernel = GaussianProcessRegressor(kernel, random_state=0).fit(X0, y0).kernel_
    X_test, y_test = make_friedman1(2000, noise=0.0, random_state=10**6)
    model = SparseOnlineGPRegressor(kernel, max_basis_vectors=100, optimizer=None)

    def evaluate(model):
        prediction = model.predict(X_test)
        return dict(
            finite=bool(np.all(np.isfinite(prediction))),
            mse=float(np.mean((prediction - y_test) ** 2)),
            basis=int(model.model_.details["online_state"].size),
        )

    def chunk(size, seed):
        return make_friedman1(size, noise=1.0, random_state=seed + 1)

    return stream(model, chunk, n_total, evaluate), str(kernel)


def classification(n_total):
    X_test, y_test = make_moons(5000, noise=0.2, random_state=10**6)
    model = SparseOnlineGPClassifier(
        ConstantKernel(4.0) * RBF(0.3), max_basis_vectors=100, optimizer=None
    )

    def evaluate(model):
        proba = model.predict_proba(X_test)[:, 1]
        p_true = np.clip(np.where(y_test == 1, proba, 1 - proba), 1e-12, 1)
        return dict(
            finite=bool(np.all(np.isfinite(proba))),
            error=float(np.mean((proba > 0.5) != (y_test == 1))),
            nlp=float(-np.mean(np.log(p_true))),
        )

    def chunk(size, seed):
        X, y = make_moons(size, noise=0.2, random_state=seed + 1)
        flip = np.random.default_rng(seed).random(size) < 0.1
        return X, np.where(flip, 1 - y, y)

    return stream(model, chunk, n_total, evaluate, {"classes": [0, 1]})


def full_basis_speed(n_examples=50_000):
    X, y = make_friedman1(n_examples + 2000, noise=1.0, random_state=3)
    model = SparseOnlineGPRegressor(
        ConstantKernel() * RBF(0.3) + WhiteKernel(0.1),
        max_basis_vectors=100,
        optimizer=None,
    )
    model.partial_fit(X[:2000], y[:2000])
    start = time.perf_counter()
    model.partial_fit(X[2000:], y[2000:])
    seconds = time.perf_counter() - start
    state = model.model_.details["online_state"]
    return dict(
        examples_per_second=n_examples / seconds,
        basis=int(state.size),
        deleted=int(state.n_deleted),
        projected=int(state.n_projected),
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # the GPR's bound warnings
    with threadpool_limits(1):
        regression_rows, kernel = regression(args.examples)
        classification_rows = classification(args.examples)
        speed = full_basis_speed()
    print("full basis:", speed)
    if args.out is not None:
        save_run(
            args.out,
            [],
            regression=regression_rows,
            regression_kernel=kernel,
            classification=classification_rows,
            full_basis=speed,
        )


if __name__ == "__main__":
    main()
