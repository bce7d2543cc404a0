"""What the IVM's MNIST fit cannot go below, per digit, beside 3× libsvm's speed.

    SPARSEGP_DATA=../shared/data python -m benchmarks run ivm_bound --digits 0 1 3 6 7 \
        --settings benchmarks/results/mnist_ivm_13_randomized_augmented.json \
        --out benchmarks/results/ivm_bound.json

Issue 20 asks the IVM ([LSH02]'s randomized greedy selection at the paper's d, the
kernel validated by ``mnist_ivm``) to be 3× faster than libsvm on every digit. This
script bounds the fit from below on this machine by the work that is left when every
piece of the selection index's bookkeeping is taken away:

- **start**: the paper's first 200 inclusions (2 random, 198 full greedy over all n
  points, and storing their rows of V back);
- **completion**: in the randomized phase, the kernel blocks, the products with the
  rows above and the triangular solves that complete the columns drawn into the index.

The first fit is timed plain; in a second one the start is timed and the shape of
every completion block recorded (wrappers around ``select_greedy`` and
``KernelBlocks.block``), and the blocks' BLAS work — the kernel block's product and
``exp``, the product with the rows above, the triangular solve — is replayed
afterwards on random arrays of the same shapes, precision and layouts, so that no
Python or call overhead of the fit counts as unavoidable.

``bound = start + kernel blocks + products + solves``, each at the rate this machine's
BLAS gives it at these shapes. The start is taken as it runs; beside it, its own floor:
the bytes each of its inclusions must stream (the n × (D + 2) augmented inputs for the
kernel row and the k rows of V held so far, in float32) at the rate of a matrix-vector
product over 94 MB measured in this run. Whatever else the fit spends is the index's
bookkeeping (scores, gathers, stores, inclusions, draws). The IVM and ``SVC`` are fitted
in this run with the validated kernel and ``C`` of a ``mnist_ivm`` run (``--settings``),
the same split and one BLAS thread.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from benchmarks.lsh02_ivm.mnist_ivm import ivm, validation_split
from sparsegp.approximations import adf_active_set
from sparsegp.approximations import ivm as ivm_selection
from sparsegp.benchmarking import save_run
from sparsegp.datasets import load_mnist
from sparsegp.kernels import KernelBlocks


class CompletionRecorder:
    """Times the start and records the shape of every completion block of a fit.

    While active, the full-greedy start (``select_greedy``) is timed, and each call of
    ``KernelBlocks.block`` with a ``row_scale`` (made only by the completion of stale
    columns, one per 128-row block) records ``(start, stop, lacking, k)``: rows
    ``start:stop`` of ``V`` completed for the first ``lacking`` columns of a buffer
    ``k`` wide (the gathered columns, current to the active set's size ``k``).
    """

    def __init__(self):
        self.start_seconds = 0.0
        self.blocks: list[tuple[int, int, int, int]] = []
        self.state = None

    def __enter__(self):
        recorder = self
        self._init = init = adf_active_set.ADFActiveSet.__init__
        self._block = block = KernelBlocks.block
        self._greedy = greedy = ivm_selection.select_greedy

        def timed_greedy(*args, **kwargs):
            start = time.perf_counter()
            greedy(*args, **kwargs)
            recorder.start_seconds += time.perf_counter() - start

        def kept_init(state, *args, **kwargs):
            init(state, *args, **kwargs)
            recorder.state = state

        def recorded_block(blocks, rows, columns, stop=None, row_scale=None):
            value = block(blocks, rows, columns, stop, row_scale)
            if row_scale is not None:
                state = recorder.state
                first = state.active.index(int(rows[0]))
                recorder.blocks.append(
                    (first, first + len(rows), value.shape[1], state.size)
                )
            return value

        adf_active_set.ADFActiveSet.__init__ = kept_init
        KernelBlocks.block = recorded_block
        ivm_selection.select_greedy = timed_greedy
        return self

    def __exit__(self, *exc):
        adf_active_set.ADFActiveSet.__init__ = self._init
        KernelBlocks.block = self._block
        ivm_selection.select_greedy = self._greedy


def replay_completion(blocks, d, n_inputs, dtype):
    """Seconds of the recorded completion blocks' BLAS work, replayed on random arrays
    laid out as the fit's: per block, the kernel block (one product of augmented
    inputs, ``n_inputs`` wide, and an ``exp``), the product with the rows above (a
    block row of the C-ordered d × d factor times the first rows of the transpose of a
    C-ordered buffer ``k`` wide) and the triangular solve (``solve_lower_in_place``).

    Returns
    -------
    kernel, product, solve : float
        Seconds.
    product_flops : float
    """
    rng = np.random.default_rng(0)
    # exponents of order one: no underflow, no denormals
    inputs = (0.1 * rng.standard_normal((d + 500, n_inputs))).astype(dtype)
    L = np.tril(0.01 * rng.standard_normal((d, d)) / np.sqrt(d)) + np.eye(d)
    L = L.astype(dtype)
    widest = max((lacking * k for _, _, lacking, k in blocks), default=0)
    values = rng.standard_normal(widest).astype(dtype)
    kernel = product = solve = flops = 0.0
    for start, stop, lacking, k in blocks:
        rows, columns = inputs[start:stop], inputs[d : d + lacking]
        begin = time.perf_counter()
        exponent = rows @ columns.T
        np.minimum(exponent, 0.0, out=exponent)
        rhs = np.exp(exponent, out=exponent)
        kernel += time.perf_counter() - begin
        if start:
            Vt = values[: lacking * k].reshape(lacking, k)
            begin = time.perf_counter()
            L[start:stop, :start] @ Vt.T[:start]
            product += time.perf_counter() - begin
            flops += 2.0 * (stop - start) * start * lacking
        begin = time.perf_counter()
        adf_active_set.solve_lower_in_place(L[start:stop, start:stop], rhs)
        solve += time.perf_counter() - begin
    return kernel, product, solve, flops


def streaming_rate(n, columns=400):
    """Bytes per second of a float32 matrix-vector product over an n × ``columns``
    column-major array (larger than the caches): the rate of the start's passes."""
    A = np.asfortranarray(
        np.random.default_rng(0).standard_normal((n, columns), dtype=np.float32)
    )
    x = np.ones(columns, np.float32)
    A @ x
    start = time.perf_counter()
    for _ in range(10):
        A @ x
    return 10 * A.nbytes / (time.perf_counter() - start)


def start_floor_seconds(n, n_features, rate, n_start=200):
    """The start's bytes at ``rate``: each inclusion streams the augmented inputs
    (``n_features + 2`` per point) and the rows of V held so far, in float32."""
    itemsize = np.dtype(np.float32).itemsize
    total = sum(n * (n_features + 2 + k) * itemsize for k in range(n_start))
    return total / rate


def bound_digit(digit, settings, X, labels, train, rate):
    """Fit the IVM (plain, then instrumented) and the SVC for one digit."""
    y = np.where(labels == digit, 1, -1)[train]
    Xtr = X[train]
    amplitude, l2, d = (
        settings["amplitude"],
        settings["length_scale_squared"],
        settings["d"],
    )
    start = time.perf_counter()
    ivm(amplitude, l2, d, 0, "randomized").fit(Xtr, y)
    fit_seconds = time.perf_counter() - start
    with CompletionRecorder() as recorder:
        ivm(amplitude, l2, d, 0, "randomized").fit(Xtr, y)
    kernel, product, solve, product_flops = replay_completion(
        recorder.blocks, d, X.shape[1] + 2, recorder.state.Vt.dtype
    )
    start = time.perf_counter()
    SVC(C=settings["svc_C"], gamma=1.0 / (2.0 * l2)).fit(Xtr, y)
    svc_seconds = time.perf_counter() - start
    bound = recorder.start_seconds + kernel + product + solve
    return {
        "digit": digit,
        "d": d,
        "ivm_seconds": fit_seconds,
        "start_seconds": recorder.start_seconds,
        "start_floor_seconds": start_floor_seconds(len(train), X.shape[1], rate),
        "kernel_block_seconds": kernel,
        "product_seconds": product,
        "product_gflops": product_flops / product / 1e9,
        "solve_seconds": solve,
        "bound_seconds": bound,
        "svc_seconds": svc_seconds,
        "target_seconds": svc_seconds / 3.0,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--digits", nargs="+", type=int, default=[0, 1, 3, 6, 7])
    parser.add_argument(
        "--settings",
        type=Path,
        required=True,
        help="a mnist_ivm results file (13×13): each digit's d, kernel and SVC C",
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    settings = {r["digit"]: r for r in json.loads(args.settings.read_text())["results"]}
    X, labels, _, _ = load_mnist(resolution=13)
    _, train = validation_split(len(labels), seed=0)
    print(
        "| digit | d | IVM fit s | start s (its floor) | kernel blocks s | products s (GFlop/s) | "
        "solves s | bound s | SVC s | SVC / 3 s | bound / (SVC / 3) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    with threadpool_limits(1):
        rate = streaming_rate(len(train))
        for digit in args.digits:
            r = bound_digit(digit, settings[digit], X, labels, train, rate)
            rows.append(r)
            print(
                f"| {digit} | {r['d']} | {r['ivm_seconds']:.2f} | "
                f"{r['start_seconds']:.2f} ({r['start_floor_seconds']:.2f}) | "
                f"{r['kernel_block_seconds']:.2f} | "
                f"{r['product_seconds']:.2f} ({r['product_gflops']:.0f}) | "
                f"{r['solve_seconds']:.2f} | {r['bound_seconds']:.2f} | "
                f"{r['svc_seconds']:.2f} | {r['target_seconds']:.2f} | "
                f"{r['bound_seconds'] / r['target_seconds']:.2f} |",
                flush=True,
            )
    print(f"streaming rate {rate / 1e9:.1f} GB/s")
    if args.out is not None:
        save_run(
            args.out,
            rows,
            settings=str(args.settings),
            streaming_gbytes_per_second=rate / 1e9,
        )


if __name__ == "__main__":
    main()
