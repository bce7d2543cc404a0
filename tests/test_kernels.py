"""Kernel helpers against scikit-learn's own evaluation."""

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import (
    RBF,
    ConstantKernel,
    DotProduct,
    Matern,
    WhiteKernel,
)

from sparsegp.kernels import KernelBlocks, split_white_noise

KERNELS = [
    ConstantKernel(2.0) * RBF(0.7) + ConstantKernel(0.1),
    ConstantKernel(1.5) * RBF([0.5, 2.0, 1.0]) + WhiteKernel(0.3),
    RBF(1.2) * DotProduct(0.5),
    Matern(1.0, nu=1.5) + ConstantKernel(0.2),
]


@pytest.mark.parametrize("kernel", KERNELS)
def test_blocks_equal_sklearn_evaluation(kernel, rng):
    X = rng.standard_normal((40, 3))
    blocks = KernelBlocks(kernel, X)
    rows, cols = np.array([3, 7, 7]), np.array([0, 5, 39, 12])
    np.testing.assert_allclose(blocks(rows, cols), kernel(X[rows], X[cols]), atol=1e-12)
    np.testing.assert_allclose(blocks(rows), kernel(X[rows], X), atol=1e-12)


def test_split_white_noise_finds_the_noise_anywhere():
    latent, noise = split_white_noise(ConstantKernel(2.0) * RBF(1.0) + WhiteKernel(0.3))
    assert noise == 0.3 and "WhiteKernel" not in repr(latent)
    latent, noise = split_white_noise(
        WhiteKernel(0.2) + (RBF(1.0) + ConstantKernel(1.0))
    )
    assert noise == 0.2
    latent, noise = split_white_noise(
        (RBF(1.0) + WhiteKernel(0.4)) + ConstantKernel(1.0)
    )
    assert noise == 0.4 and "WhiteKernel" not in repr(latent)
    with pytest.raises(ValueError, match="WhiteKernel"):
        split_white_noise(RBF(1.0))
