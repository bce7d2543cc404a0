"""FITC-EP cost against N and M: the O(N·M²) law of [NGH07].

    SPARSEGP_DATA=../shared/data python -m benchmarks run fitc_scaling

MNIST 13×13, digit 4 against the rest, fixed kernel, pseudo-inputs at random training
images, one BLAS thread. For each (N, M): seconds per sequential EP sweep (O(M²) site
updates plus the O(N·M²) refresh; three sweeps timed), seconds per parallel sweep, and
seconds for the evidence gradient in θ, b and all M×169 pseudo-input coordinates
(kernel blocks, prior and sensitivities included, EP itself excluded).
Rows: N ∈ {5 000, 10 000, 20 000, 40 000} at M = 200, M ∈ {100, 200, 400, 800} at
N = 10 000.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from threadpoolctl import threadpool_limits

from sparsegp.approximations.ep import run_ep
from sparsegp.approximations.fitc_ep import (
    FITCKernelBlocks,
    FITCPosterior,
    fitc_ep_gradient,
)
from sparsegp.datasets import load_mnist
from sparsegp.likelihoods import Probit

#: Sweeps timed per mode (the tolerance is set so that none converges earlier).
_SWEEPS = 3


def fitc_ep(prior, y, likelihood, **options):
    zeros = np.zeros(len(y))
    return run_ep(FITCPosterior(prior, zeros, zeros), y, likelihood, **options)


def seconds_per_sweep(prior, y, likelihood, mode):
    start = time.perf_counter()
    fitc_ep(
        prior,
        y,
        likelihood,
        mode=mode,
        damping=0.5 if mode == "parallel" else 1.0,
        tol=1e-300,
        max_sweeps=_SWEEPS,
        random_state=0,
    )
    return (time.perf_counter() - start) / _SWEEPS


def main():
    X, labels = load_mnist(resolution=13)[:2]
    y = np.where(labels == 4, 1.0, -1.0)
    order = np.random.default_rng(0).permutation(len(y))
    kernel = ConstantKernel(10.0) * RBF(np.sqrt(10.0))
    likelihood = Probit(-1.0)
    print("| N | M | sequential sweep s | parallel sweep s | gradient s |")
    print("|---:|---:|---:|---:|---:|")
    runs = [(n, 200) for n in (5000, 10000, 20000, 40000)]
    runs += [(10000, m) for m in (100, 400, 800)]
    with threadpool_limits(1):
        for n, m in runs:
            X_n, y_n = X[order[:n]], y[order[:n]]
            Z = X_n[:m]
            prior = FITCKernelBlocks.from_kernel(kernel, Z, X_n).prior(1e-6)
            sequential = seconds_per_sweep(prior, y_n, likelihood, "sequential")
            parallel = seconds_per_sweep(prior, y_n, likelihood, "parallel")
            state = fitc_ep(prior, y_n, likelihood, max_sweeps=2)
            start = time.perf_counter()
            blocks = FITCKernelBlocks.from_kernel(kernel, Z, X_n)
            blocks.prior(1e-6)
            fitc_ep_gradient(state, y_n, likelihood, blocks)
            gradient = time.perf_counter() - start
            print(
                f"| {n} | {m} | {sequential:.3f} | {parallel:.3f} | {gradient:.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
