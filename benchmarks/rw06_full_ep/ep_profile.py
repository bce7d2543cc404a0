"""Where a full EP fit spends its time: refreshes, sweeps and the floor per sweep.

    SPARSEGP_DATA=../shared/data python -m benchmarks run ep_profile --datasets splice image
    SPARSEGP_DATA=../shared/data python -m benchmarks run ep_profile --datasets \
        --mnist 1000 2000 --project-to 7291

One ``EPGPClassifier(random_state=0)`` fit per data set (IDA realization 0; with
``--mnist``, MNIST 13×13 4 against the rest on that many seeded training images) under
``threadpool_limits(1)`` and cProfile: wall time, posterior refreshes and their time,
the Cholesky and triangular-inverse time inside them, the floor of one refresh (⅔n³
flops at the ``potrf`` rate measured in the same run), and the fit in units of one
``n × n`` Cholesky factor. ``--project-to N`` times one factor at ``N`` (the fit's
cost grows as n³ once the factors dominate), to bound a fit there without running it.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
import warnings

import numpy as np
from scipy.linalg import cholesky
from threadpoolctl import threadpool_limits

from benchmarks._lib.tasks import mnist_task
from sparsegp import EPGPClassifier
from sparsegp.datasets import load_ida


def cholesky_rate(n):
    """Flops per second of one-thread ``potrf`` on an n × n SPD matrix."""
    A = np.random.default_rng(0).standard_normal((n, n))
    A = A @ A.T + n * np.eye(n)
    start = time.perf_counter()
    for _ in range(5):
        cholesky(A, lower=True)
    return 5 * n**3 / 3 / (time.perf_counter() - start)


def profile_fit(name, X, y, X_test, y_test):
    profile = cProfile.Profile()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        profile.enable()
        model = EPGPClassifier(ard=False, random_state=0).fit(X, y)
        profile.disable()
        seconds = time.perf_counter() - start
    stats = pstats.Stats(profile).stats

    def cumulative(function):
        found = [v for k, v in stats.items() if k[2] == function]
        return sum(v[3] for v in found), sum(v[1] for v in found)

    refresh_s, refreshes = cumulative("refresh")
    # the refresh factors in place; cholesky_jitter only where that fails
    cholesky_s = cumulative("cholesky_in_place")[0] + cumulative("cholesky_jitter")[0]
    inverse_s, _ = cumulative("inverse_lower")
    n = len(y)
    rate = cholesky_rate(n)
    floor = (2 * n**3 / 3) / rate
    error = np.mean(model.predict(X_test) != y_test)
    print(
        f"| {name} | {n} | {seconds:.1f} | {refreshes} | {refresh_s:.1f} | "
        f"{1e3 * cholesky_s / refreshes:.0f} | {1e3 * inverse_s / refreshes:.0f} | "
        f"{1e3 * floor:.0f} | {seconds / (n**3 / 3 / rate):.0f} | "
        f"{model.n_iter_} | {100 * error:.2f} | "
        f"{model.log_marginal_likelihood_value_:.3f} |"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=["splice", "image"])
    parser.add_argument("--mnist", type=int, nargs="*", default=[])
    parser.add_argument("--project-to", type=int, default=None)
    args = parser.parse_args()
    print(
        "| data set | n | fit s | refreshes | refresh s | Cholesky ms | L⁻¹ ms | "
        "floor ms per refresh | fit in factors | evaluations | test error % | log Z |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with threadpool_limits(1):
        for name in args.datasets:
            profile_fit(name, *load_ida(name, 0))
        for n in args.mnist:
            profile_fit("MNIST 4 vs rest", *mnist_task(n))
        if args.project_to:
            n = args.project_to
            print(
                f"one Cholesky factor at n = {n}: {n**3 / 3 / cholesky_rate(n):.2f} s"
            )


if __name__ == "__main__":
    main()
