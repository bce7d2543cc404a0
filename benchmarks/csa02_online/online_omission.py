"""How often the cheap deletion score (eq. 85) picks another BV than the exact one (eq. 83).

    python -m benchmarks run online_omission --repetitions 100

[Csa02]'s Fig. 3.4: Friedman #1 with n examples (raw targets, as [Csa02]), likelihood
noise σ₀² = 0.02, kernel ``exp(-‖x - x′‖²/(2·2))`` (σ_K² = 2), BV set capped at 90 % of
n or at 50. The online pass runs with the exact score; at every deletion the element
eq. 85 would have removed is compared with the one eq. 83 removes. Printed: the
fraction of deletions where they differ, over all repetitions.
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.datasets import make_friedman1
from sklearn.gaussian_process.kernels import RBF

from sparsegp.approximations.online import SparseOnlineGP
from sparsegp.likelihoods import Gaussian

KERNEL = RBF(np.sqrt(2.0))
NOISE = 0.02


class ComparingScores(SparseOnlineGP):
    """Exact-score online GP that counts deletions where eq. 85 disagrees."""

    deletions = 0
    disagreements = 0

    def scores(self):
        exact = super().scores()
        approximate = self.alpha**2 / (np.diag(self.Q) + np.diag(self.C))
        self.deletions += 1
        self.disagreements += int(np.argmin(exact) != np.argmin(approximate))
        return exact


def omission_rate(n, cap, repetitions):
    deletions = disagreements = 0
    for seed in range(repetitions):
        X, y = make_friedman1(n_samples=n, noise=1.0, random_state=seed)
        state = ComparingScores(KERNEL, Gaussian(NOISE), cap, 1e-6, "exact")
        state.update(X, y)
        deletions += state.deletions
        disagreements += state.disagreements
    return disagreements / max(deletions, 1), deletions


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[75, 150, 300])
    parser.add_argument("--repetitions", type=int, default=100)
    args = parser.parse_args(argv)
    print("| n | BV cap | deletions | eq. 85 ≠ eq. 83 |")
    print("|---:|---:|---:|---:|")
    for n in args.sizes:
        for cap in (int(0.9 * n), 50):
            rate, deletions = omission_rate(n, cap, args.repetitions)
            print(f"| {n} | {cap} | {deletions} | {100 * rate:.1f} % |", flush=True)


if __name__ == "__main__":
    main()
