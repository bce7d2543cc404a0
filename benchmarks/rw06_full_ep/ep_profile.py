"""Where a full EP fit spends its time: refreshes, sweeps and the floor per sweep.

    SPARSEGP_DATA=../shared/data python -m benchmarks run ep_profile --datasets splice image

One ``EPGPClassifier(random_state=0)`` fit per data set (IDA realization 0) under
``threadpool_limits(1)`` and cProfile: wall time, posterior refreshes and their time,
the Cholesky and triangular-inverse time inside them, and the floor of one refresh
(⅔n³ flops at the ``potrf`` rate measured in the same run).
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


def profile_fit(name):
    X, y, X_test, y_test = load_ida(name, 0)
    profile = cProfile.Profile()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        profile.enable()
        model = EPGPClassifier(random_state=0).fit(X, y)
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
    floor = (2 * n**3 / 3) / cholesky_rate(n)
    error = np.mean(model.predict(X_test) != y_test)
    print(
        f"| {name} | {n} | {seconds:.1f} | {refreshes} | {refresh_s:.1f} | "
        f"{1e3 * cholesky_s / refreshes:.0f} | {1e3 * inverse_s / refreshes:.0f} | "
        f"{1e3 * floor:.0f} | {100 * error:.2f} | "
        f"{model.log_marginal_likelihood_value_:.3f} |"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["splice", "image"])
    args = parser.parse_args()
    print(
        "| data set | n | fit s | refreshes | refresh s | Cholesky ms | L⁻¹ ms | "
        "floor ms per refresh | test error % | log Z |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with threadpool_limits(1):
        for name in args.datasets:
            profile_fit(name)


if __name__ == "__main__":
    main()
