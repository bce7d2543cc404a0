"""Whether float32 row blocks keep VFE's bound: its O(n·M²) sums in each precision.

    python -m benchmarks run sgpr_float32 --out benchmarks/results/sgpr_float32.json

Issue 89 asks for float32 blocks where they keep the answer. At the point a
``SparseGPRegressor(max_iter=60)`` fit reaches on a UCI set (split 0, inputs
standardised), the bound's O(n·M²) statistics — ``A·Aᵀ``, ``A·y`` and ``tr(A·Aᵀ)``
with ``A = L_u⁻¹K_uf``, summed over the blocks of 8 192 rows — are computed in float64
and in float32 (the rest in float64 both times), and the bound of each set beside
the optimizer's tolerance there (scipy's ``factr`` of 10⁷: 2.2·10⁻⁹ of the bound) and
the two passes' times (one BLAS thread; the peer here is float64 itself). The float64
replica is checked against the engine's bound.
"""

import argparse
import time
import warnings

import numpy as np
from scipy.linalg import cholesky, solve_triangular
from threadpoolctl import threadpool_limits

from sparsegp import SparseGPRegressor
from sparsegp.benchmarking import save_run
from sparsegp.datasets import load_uci

#: Rows per block, as the engine's in-memory blocks.
BLOCK = 8192
#: L-BFGS-B's relative tolerance at scipy's default ``factr`` of 10⁷.
TOLERANCE = 1e7 * np.finfo(float).eps


def statistics(kernel, Z, L, X, y, dtype):
    """``(A·Aᵀ, A·y, tr(A·Aᵀ), seconds)`` over the row blocks in ``dtype``."""
    start = time.perf_counter()
    M = len(Z)
    AAt, Ay, trace = np.zeros((M, M), dtype), np.zeros(M, dtype), 0.0
    L = L.astype(dtype)
    for first in range(0, len(X), BLOCK):
        rows = slice(first, first + BLOCK)
        A = solve_triangular(L, kernel(Z, X[rows]).astype(dtype), lower=True)
        AAt += A @ A.T
        Ay += A @ y[rows].astype(dtype)
        trace += float(np.einsum("ij,ij->", A, A, dtype=np.float64))
    return AAt.astype(float), Ay.astype(float), trace, time.perf_counter() - start


def vfe_bound(kernel, X, y, noise, AAt, Ay, trace):
    """Titsias's collapsed bound (algorithms.md §6.3) from the sums, in float64."""
    n, M = len(X), len(Ay)
    chol_B = cholesky(np.eye(M) + AAt / noise, lower=True)
    c = solve_triangular(chol_B, Ay, lower=True) / noise
    return float(
        -0.5 * n * np.log(2 * np.pi * noise)
        - np.sum(np.log(np.diag(chol_B)))
        - 0.5 * (y @ y) / noise
        + 0.5 * (c @ c)
        - 0.5 * (np.sum(kernel.diag(X)) - trace) / noise
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["pol", "elevators", "kin40k"])
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    rows = []
    for name in args.sets:
        X, y, _, _ = load_uci(name, 0)
        spread = X.std(0)
        X = (X - X.mean(0)) / np.where(spread > 0, spread, 1.0)
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the short fit stops at its cap
            model = SparseGPRegressor(max_iter=args.iterations, random_state=0)
            model.fit(X, y)
            y_fit = (y - model.y_mean_) / model.y_std_
            kernel, Z = model.model_.kernel, model.model_.points
            noise = model.model_.likelihood.noise
            K_uu = kernel(Z)
            jitter = 1e-6 * np.trace(K_uu) / len(Z)  # the engine's (ε_u · mean k)
            L = cholesky(K_uu + jitter * np.eye(len(Z)), lower=True)
            found = {}
            for dtype in (np.float64, np.float32):
                *sums, seconds = statistics(kernel, Z, L, X, y_fit, dtype)
                found[dtype] = (vfe_bound(kernel, X, y_fit, noise, *sums), seconds)
        engine = model.log_marginal_likelihood_value_
        bound64, seconds64 = found[np.float64]
        bound32, seconds32 = found[np.float32]
        assert abs(bound64 - engine) <= 1e-8 * abs(engine), (bound64, engine)
        rows.append(
            dict(
                set=name,
                n=len(X),
                M=len(Z),
                noise=noise,
                bound=bound64,
                float32_error=bound32 - bound64,
                tolerance=TOLERANCE * abs(bound64),
                seconds_float64=seconds64,
                seconds_float32=seconds32,
            )
        )
        print(
            f"{name}: bound {bound64:.3f}, float32 off by {bound32 - bound64:.3g} nats "
            f"(tolerance {TOLERANCE * abs(bound64):.2g}); sums {seconds64:.2f} s in "
            f"float64, {seconds32:.2f} s in float32",
            flush=True,
        )
    if args.out:
        save_run(args.out, rows)


if __name__ == "__main__":
    main()
