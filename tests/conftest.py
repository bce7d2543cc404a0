"""Shared fixtures: seeded random numbers and tiny problems generated on the fly."""

import numpy as np
import pytest
from hypothesis import settings
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

from sparsegp.approximations.ep import DensePosterior, run_ep
from sparsegp.approximations.fitc_ep import FITCPosterior
from sparsegp.kernels import KernelColumns


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def small_problem(n=30, n_features=2, seed=0):
    """A noisy nonlinear ±1 problem, its kernel matrix gradient included."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, n_features))
    y = np.where(np.sin(2 * X[:, 0]) + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    kernel = ConstantKernel(2.0) * RBF(0.9)
    return X, y, kernel


#: Kernel and noise level of the sparse online GP's regression tests.
def relevant_and_irrelevant_features(n, seed):
    """Labels from the first two of eight features; the other six are noise of the
    same spread (where ``ard="auto"`` should keep a length-scale per feature)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 8))
    latent = np.sin(2.0 * X[:, 0]) + X[:, 1]
    return X, np.where(latent + 0.3 * rng.standard_normal(n) > 0, 1, -1)


def features_that_count_alike(n, seed):
    """Labels from the sum of eight features (where ``ard="auto"`` should keep the
    isotropic kernel)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 8))
    return X, np.where(X.sum(axis=1) + 0.5 * rng.standard_normal(n) > 0, 1, -1)


ONLINE_KERNEL = ConstantKernel(1.5) * RBF(0.8)
ONLINE_NOISE = 0.1


def regression_data(n=25, seed=0):
    """Noisy ``sin`` of the first of two standard-normal inputs."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, np.sin(X[:, 0]) + 0.3 * rng.normal(size=n)


def rvm_classification_problem(n=40, r=7, seed=0):
    """A ±1 problem on an n×r design, and positive precisions α for its r weights."""
    rng = np.random.default_rng(seed)
    Psi = rng.standard_normal((n, r))
    t = np.where(
        Psi @ rng.standard_normal(r) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0
    )
    return Psi, t, rng.uniform(0.5, 2.0, r)


class DenseBlocks:
    """:class:`~sparsegp.kernels.KernelBlocks`' interface over a precomputed matrix."""

    def __init__(self, K):
        self.K = K

    def columns(self, points=None, layout="C"):
        return KernelColumns(
            [np.arange(len(self.K)) if points is None else np.asarray(points)]
        )

    def block(self, rows, columns, stop=None, row_scale=None):
        block = self.K[np.ix_(np.asarray(rows), columns.parts[0][:stop])]
        return block if row_scale is None else row_scale[:, None] * block

    def __call__(self, rows, cols=None):
        return self.block(rows, self.columns(cols))


def block_of(K):
    """Kernel blocks of a dense kernel matrix."""
    return DenseBlocks(K)


def dense_ep(K, y, likelihood, **options):
    """EP from zero sites on the full prior ``N(0, K)`` (parallel, damping ½ unless told)."""
    n = len(y)
    return run_ep(DensePosterior(K, np.zeros(n), np.zeros(n)), y, likelihood, **options)


def fitc_ep(prior, y, likelihood, **options):
    """EP from zero sites on a FITC prior ([NGH07]'s sequential EP unless told)."""
    n = prior.V.shape[1]
    options = dict(mode="sequential", damping=1.0) | options
    return run_ep(
        FITCPosterior(prior, np.zeros(n), np.zeros(n)), y, likelihood, **options
    )


# The reliability battery's profiles (tests/estimators/test_battery.py): CI replays a fixed sample.
settings.register_profile("ci", max_examples=25, derandomize=True, database=None)
settings.register_profile("explore", max_examples=300)
settings.load_profile("ci")
