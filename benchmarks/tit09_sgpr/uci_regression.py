"""SparseGPRegressor on the UCI sets beside GPy's SGPR, an exact GP and the other regressors.

    SPARSEGP_DATA=../shared/data python -m benchmarks run uci_regression \
        --out benchmarks/results/uci_regression.json

Issue 89's comparison, one BLAS thread, every peer in the same run, on the published
90/10 splits (``--splits``) of each set (``--sets``; inputs standardised on the
training part, targets as published): test RMSE and mean negative log predictive
density (NLPD, nats, the targets' units) and fit time of

- ``SparseGPRegressor()`` (VFE, ARD), ``SparseGPRegressor(approximation="fitc")``
  and ``SparseGPRegressor(ard=False)``, with the learnt noise variance of each;
- GPy's ``SparseGPRegression`` (VFE, ARD RBF), and its L-BFGS evaluations beside
  ours, from the point where our run over every
  row starts (the same k-means pseudo-inputs, kernel and noise, M and at most 200
  L-BFGS iterations), scikit-learn's exact ``GaussianProcessRegressor`` (ARD RBF) on a
  random 3 000-point subset (its noise the reference the sparse ones' are read
  against), and the library's three other regressors with their defaults
  (``--models`` picks);
- ``evaluation_time``: one evaluation of the objective and its gradient over every
  row, ours and GPy's, at the same point.
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
from sparsegp._memory import heap_kept
from sparsegp.approximations.sparse_regression import bound_and_gradient
from sparsegp.benchmarking import save_run
from sparsegp.datasets import UCI_NAMES, load_uci
from sparsegp.estimators.sparse_gp_regressor import DEFAULT_MAX_INDUCING
from sparsegp.methods.kernel_defaults import default_length_scale
from sparsegp.methods.pseudo_inputs import kmeans_centres
from sparsegp.methods.sparse_regression import (
    SparseRegression,
    kept_bytes,
    row_blocks,
)

#: Points of the exact GP's random subset.
EXACT_SUBSET = 3000
#: Evaluations of the objective and its gradient timed per approximation
#: (``evaluation_time``).
EVALUATIONS_TIMED = 5


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


def _ours(approximation, ard=True, max_iter=200):
    def fit(X, y, X_test):
        model = SparseGPRegressor(
            approximation=approximation, ard=ard, max_iter=max_iter, random_state=0
        )
        model.fit(X, y)
        prediction = model.predict(X_test, return_std=True)
        return prediction, model.noise_variance_, {"evaluations": model.n_iter_}

    return fit


def _gpy(X, y, X_test):
    """GPy's VFE from the point where ``SparseGPRegressor()``'s L-BFGS-B run over every
    row starts (the same draws): the kernel and noise its subsample screen ends at,
    its k-means pseudo-inputs, M and at most 200 L-BFGS iterations. The screen is
    not timed."""
    import GPy

    y_mean, y_std = y.mean(), y.std()
    kernel, noise, Z = _our_start(X, (y - y_mean) / y_std)
    start = time.perf_counter()
    gpy_kernel = GPy.kern.RBF(
        X.shape[1],
        variance=float(kernel.k1.constant_value),
        lengthscale=np.array(kernel.k2.length_scale, dtype=float),
        ARD=True,
    )
    model = GPy.models.SparseGPRegression(
        X, ((y - y_mean) / y_std)[:, None], kernel=gpy_kernel, Z=Z.copy()
    )
    model.likelihood.variance = noise
    model.optimize("lbfgsb", max_iters=200)
    mean, var = model.predict(X_test)
    noise = float(model.likelihood.variance[0]) * y_std**2
    seconds = time.perf_counter() - start
    prediction = (y_mean + y_std * mean[:, 0], y_std * np.sqrt(var[:, 0]))
    evaluations = model.optimization_runs[-1].funct_eval
    return prediction, noise, {"seconds": seconds, "evaluations": evaluations}


def _evaluation_seconds(X, y, X_test):
    """Seconds of one evaluation of the objective and its gradient over every row,
    ours and GPy's, at the point our run over every row starts (the mean of
    ``EVALUATIONS_TIMED``): the ratio a fit of equal evaluations would have. No
    prediction."""
    import GPy

    y = (y - y.mean()) / y.std()
    kernel, noise, Z = _our_start(X, y)
    blocks = row_blocks(X, y)
    kept = kept_bytes(len(X), len(Z))
    with heap_kept(kept):  # as the fit evaluates
        start = time.perf_counter()
        for _ in range(EVALUATIONS_TIMED):
            bound_and_gradient(blocks, kernel, Z, noise, "vfe", keep=kept > 0)
        ours = (time.perf_counter() - start) / EVALUATIONS_TIMED
    gpy_kernel = GPy.kern.RBF(
        X.shape[1],
        variance=float(kernel.k1.constant_value),
        lengthscale=np.array(kernel.k2.length_scale, dtype=float),
        ARD=True,
    )
    model = GPy.models.SparseGPRegression(X, y[:, None], kernel=gpy_kernel, Z=Z)
    model.likelihood.variance = noise
    x = model.optimizer_array.copy()
    start = time.perf_counter()
    for _ in range(EVALUATIONS_TIMED):
        model._objective_grads(x)
    gpy = (time.perf_counter() - start) / EVALUATIONS_TIMED
    return None, np.nan, {"seconds": ours, "gpy_seconds": gpy}


def _our_start(X, y_normalised):
    """``(kernel, noise, Z)`` where ``SparseGPRegressor(random_state=0)`` starts its
    run over every row: its screen's end, then its k-means centres."""
    estimator = SparseGPRegressor()
    M = min(len(X) // 5, DEFAULT_MAX_INDUCING)
    rng = np.random.RandomState(0)
    starts = estimator._starts(X)  # (kernel, noise) pairs
    kernel, noise = SparseRegression(n_inducing=M)._best_start(
        X, y_normalised, starts, rng
    )
    return kernel, noise, kmeans_centres(X, np.arange(len(X)), M, rng)


def _exact(X, y, X_test):
    rows = np.random.default_rng(0).choice(
        len(X), min(EXACT_SUBSET, len(X)), replace=False
    )
    kernel = ConstantKernel() * RBF(default_length_scale(X)) + WhiteKernel(0.1)
    model = GaussianProcessRegressor(kernel, normalize_y=True).fit(X[rows], y[rows])
    noise = model.kernel_.k2.noise_level * y[rows].std() ** 2
    return model.predict(X_test, return_std=True), noise, {}


def _default(estimator):
    def fit(X, y, X_test):
        return estimator().fit(X, y).predict(X_test, return_std=True), np.nan, {}

    return fit


MODELS = {
    "vfe": _ours("vfe"),
    "vfe_isotropic": _ours("vfe", ard=False),
    "vfe_1000": _ours("vfe", max_iter=1000),
    "fitc": _ours("fitc"),
    "gpy_vfe": _gpy,
    "evaluation_time": _evaluation_seconds,
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
                    prediction, noise, extra = MODELS[model](X, y, X_test)
                row = dict(set=name, split=split, model=model, n=len(y))
                row |= {"seconds": time.perf_counter() - start, "noise": float(noise)}
                if prediction is not None:
                    row["rmse"], row["nlpd"] = scores(*prediction, y_test)
                rows.append(row | extra)
                print(name, split, model, row | extra, flush=True)
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
