"""SparseGPRegressor on the UCI sets beside GPy's SGPR, an exact GP and the other regressors.

    SPARSEGP_DATA=../shared/data python -m benchmarks run uci_regression \
        --out benchmarks/results/uci_regression.json

Issue 89's comparison, one BLAS thread, every peer in the same run, on the published
90/10 splits (``--splits``) of each set (``--sets``; inputs standardised on the
training part, targets as published): test RMSE and mean negative log predictive
density (NLPD, nats, the targets' units) and fit time of

- ``SparseGPRegressor()`` (VFE) and ``SparseGPRegressor(approximation="fitc")``,
  with the learnt noise variance of each;
- ``--peers``: GPy's ``SparseGPRegression`` (VFE) from the same start (the same
  k-means pseudo-inputs, kernel and noise, M and L-BFGS iterations), scikit-learn's
  exact ``GaussianProcessRegressor`` on a random 3 000-point subset (its noise the
  reference the sparse ones' are read against), and the library's three other
  regressors with their defaults.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
from threadpoolctl import threadpool_limits

from sparsegp import (
    IVMRegressor,
    RVMRegressor,
    SparseGPRegressor,
    SparseOnlineGPRegressor,
)
from sparsegp.benchmarking import save_run
from sparsegp.datasets import UCI_NAMES, load_uci
from sparsegp.estimators._base import default_length_scale
from sparsegp.estimators.sparse_gp_regressor import DEFAULT_MAX_INDUCING
from sparsegp.methods.pseudo_inputs import kmeans_centres

#: Points of the exact GP's random subset.
EXACT_SUBSET = 3000


def _standardised(X, X_test):
    mean, spread = X.mean(axis=0), X.std(axis=0)
    spread[spread == 0] = 1.0
    return (X - mean) / spread, (X_test - mean) / spread


def scores(mean, std, y_test):
    """``(RMSE, NLPD)`` of Gaussian predictions."""
    rmse = float(np.sqrt(np.mean((mean - y_test) ** 2)))
    nlpd = np.mean(
        0.5 * np.log(2 * np.pi * std**2) + 0.5 * (y_test - mean) ** 2 / std**2
    )
    return rmse, float(nlpd)


def _ours(approximation, ard=False):
    def fit(X, y, X_test):
        model = SparseGPRegressor(approximation=approximation, ard=ard, random_state=0)
        model.fit(X, y)
        return model.predict(X_test, return_std=True), model.noise_variance_

    return fit


def _gpy(ard):
    return lambda X, y, X_test: _gpy_fit(X, y, X_test, ard)


def _gpy_fit(X, y, X_test, ard):
    """GPy's VFE from the start SparseGPRegressor(ard=ard) takes: its k-means centres
    (the same draw), ``1·RBF(ℓ₀)``, noise 0.1 of the normalised targets, M and 200
    L-BFGS iterations."""
    import GPy

    M = min(len(X) // 5, DEFAULT_MAX_INDUCING)
    Z = kmeans_centres(X, np.arange(len(X)), M, np.random.RandomState(0))
    y_mean, y_std = y.mean(), y.std()
    length_scale = np.full(X.shape[1] if ard else 1, default_length_scale(X))
    kernel = GPy.kern.RBF(X.shape[1], variance=1.0, lengthscale=length_scale, ARD=ard)
    model = GPy.models.SparseGPRegression(
        X, ((y - y_mean) / y_std)[:, None], kernel=kernel, Z=Z.copy()
    )
    model.likelihood.variance = 0.1
    model.optimize("lbfgsb", max_iters=200)
    mean, var = model.predict(X_test)
    noise = float(model.likelihood.variance[0]) * y_std**2
    return (y_mean + y_std * mean[:, 0], y_std * np.sqrt(var[:, 0])), noise


def _exact(X, y, X_test):
    rows = np.random.default_rng(0).choice(
        len(X), min(EXACT_SUBSET, len(X)), replace=False
    )
    kernel = ConstantKernel() * RBF(default_length_scale(X)) + WhiteKernel(0.1)
    model = GaussianProcessRegressor(kernel, normalize_y=True).fit(X[rows], y[rows])
    return model.predict(X_test, return_std=True), model.kernel_.k2.noise_level * y[
        rows
    ].std() ** 2


def _default(estimator):
    def fit(X, y, X_test):
        return estimator().fit(X, y).predict(X_test, return_std=True), np.nan

    return fit


MODELS = {
    "vfe": _ours("vfe"),
    "vfe_ard": _ours("vfe", ard=True),
    "fitc": _ours("fitc"),
    "fitc_ard": _ours("fitc", ard=True),
    "gpy_vfe": _gpy(ard=False),
    "gpy_vfe_ard": _gpy(ard=True),
    "exact_3000": _exact,
    "ivm": _default(lambda: IVMRegressor(random_state=0)),
    "online": _default(lambda: SparseOnlineGPRegressor(random_state=0)),
    "rvm": _default(lambda: RVMRegressor()),
}


def run(sets, splits, models):
    rows = []
    for name in sets:
        for split in splits:
            X, y, X_test, y_test = load_uci(name, split)
            X, X_test = _standardised(X, X_test)
            for model in models:
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    (mean, std), noise = MODELS[model](X, y, X_test)
                seconds = time.perf_counter() - start
                rmse, nlpd = scores(mean, std, y_test)
                rows.append(
                    dict(
                        set=name,
                        split=split,
                        model=model,
                        rmse=rmse,
                        nlpd=nlpd,
                        seconds=seconds,
                        noise=float(noise),
                        n=len(y),
                    )
                )
                print(
                    f"{name} {split} {model:10s} RMSE {rmse:.4g} NLPD {nlpd:.4f} "
                    f"noise {noise:.4g} {seconds:.1f} s",
                    flush=True,
                )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=list(UCI_NAMES))
    parser.add_argument("--splits", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument(
        "--models", nargs="+", default=list(MODELS), choices=list(MODELS)
    )
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    with threadpool_limits(1):
        rows = run(args.sets, args.splits, args.models)
    if args.out:
        save_run(args.out, rows)


if __name__ == "__main__":
    main()
