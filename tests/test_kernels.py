"""Kernel helpers against scikit-learn's own evaluation."""

import warnings

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import (
    RBF,
    ConstantKernel,
    DotProduct,
    Matern,
    WhiteKernel,
)

from sparsegp.kernels import (
    CrossCovariance,
    KernelBlocks,
    KernelPerClass,
    amplitude_mask,
    check_input_differentiable,
    gram_and_weighted_gradient,
    has_narrow_feature,
    split_white_noise,
    spread_factors,
    with_length_scale_per_feature,
    with_length_scales_by_spread,
)

KERNELS = [
    ConstantKernel(2.0) * RBF(0.7) + ConstantKernel(0.1),
    ConstantKernel(1.5) * RBF([0.5, 2.0, 1.0]) + WhiteKernel(0.3),
    RBF(1.2) * DotProduct(0.5),
    Matern(1.0, nu=1.5) + ConstantKernel(0.2),
    ConstantKernel(2.0) * (RBF(0.7) + ConstantKernel(0.5)) * RBF([1.0, 2.0, 0.5]),
    RBF(0.9) + ConstantKernel(0.0) * RBF(0.2),
]


@pytest.mark.parametrize("kernel", KERNELS)
def test_blocks_equal_sklearn_evaluation(kernel, rng):
    X = rng.standard_normal((40, 3))
    blocks = KernelBlocks(kernel, X)
    rows, cols = np.array([3, 7, 7]), np.array([0, 5, 39, 12])
    np.testing.assert_allclose(blocks(rows, cols), kernel(X[rows], X[cols]), atol=1e-12)
    np.testing.assert_allclose(blocks(rows), kernel(X[rows], X), atol=1e-12)
    scale = np.array([0.5, 2.0, 3.0])
    for layout in ("C", "F"):
        np.testing.assert_allclose(
            blocks.block(rows, blocks.columns(cols, layout), stop=3, row_scale=scale),
            scale[:, None] * kernel(X[rows], X[cols[:3]]),
            atol=1e-12,
        )
    every_column = blocks.columns(layout="F")
    np.testing.assert_allclose(
        blocks.block(rows, every_column), kernel(X[rows], X), atol=1e-12
    )
    assert all(part.flags.f_contiguous for part in every_column.parts)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_cross_block_equals_sklearn_at_new_inputs(kernel, offset, rng):
    """Prediction's ``K(X, X_new)``, new inputs far from and at the training ones."""
    X = offset + rng.standard_normal((40, 3))
    X_new = np.vstack([offset + 2.0 * rng.standard_normal((25, 3)), X[:5]])
    block = KernelBlocks(kernel, X).cross(X_new)
    assert block.shape == (40, 30) and block.dtype == np.float64
    np.testing.assert_allclose(block, kernel(X, X_new), rtol=1e-12, atol=1e-12)
    with warnings.catch_warnings():  # no kept points: an empty block, no warning
        warnings.simplefilter("error")
        assert KernelBlocks(kernel, X[:0]).cross(X_new).shape == (0, 30)


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
    # nested in the second operand: the reduced operand first, as scikit-learn names
    latent, noise = split_white_noise(RBF(2.0) + (WhiteKernel(0.5) + RBF(1.0)))
    assert noise == 0.5 and repr(latent) == repr(RBF(1.0) + RBF(2.0))
    # products stop the search: a WhiteKernel factor is no summand
    for kernel in (
        RBF(1.0),
        WhiteKernel(0.1),
        RBF(1.0) * (RBF(2.0) + WhiteKernel(0.1)),
    ):
        with pytest.raises(ValueError, match="WhiteKernel"):
            split_white_noise(kernel)


@pytest.mark.parametrize("noise", [0.0, -0.1])
def test_split_white_noise_needs_a_positive_level(noise):
    with pytest.raises(ValueError, match="must be positive"):
        split_white_noise(RBF(1.0) + WhiteKernel(noise, "fixed"))


GRADIENT_KERNELS = [
    ConstantKernel(1.7) * RBF(0.8),
    ConstantKernel(1.7) * RBF([0.8, 1.6]) + ConstantKernel(0.3),
    RBF([0.8, 1.6]) * ConstantKernel(2.0, "fixed"),
    ConstantKernel(0.5) + RBF(1.2, "fixed"),
    RBF(0.8) * RBF([1.1, 0.7]),
    ConstantKernel(1.3) * (RBF(0.9) + ConstantKernel(0.4)) * ConstantKernel(0.6),
    ConstantKernel(1.7) * Matern(0.8, nu=1.5),
    ConstantKernel(1.7) * Matern([0.8, 1.6], nu=2.5) + ConstantKernel(0.3),
    Matern([0.9, 0.5], nu=1.5) * RBF(1.3),
    Matern(1.1, nu=2.5) + Matern(0.4, nu=1.5, length_scale_bounds="fixed"),
]


@pytest.mark.parametrize("kernel", GRADIENT_KERNELS)
def test_cross_covariance_gradient_equals_sklearn_contracted(kernel, rng):
    X = rng.standard_normal((9, 2))
    weights = rng.standard_normal((9, 9))
    _, K_gradient = kernel(X, eval_gradient=True)
    expected = np.einsum("ij,ijk->k", weights, K_gradient)
    np.testing.assert_allclose(
        CrossCovariance(kernel, X).gradients(weights)[0], expected
    )


@pytest.mark.parametrize(
    "kernel", GRADIENT_KERNELS + [Matern(1.0, nu=1.5) + ConstantKernel(0.2)]
)
def test_gram_and_weighted_gradient_equal_sklearn(kernel, rng):
    # Inputs far from the origin: the contracted path centres them first.
    X = 1e4 + rng.standard_normal((12, 2))
    weights = rng.standard_normal((12, 12))
    weights += weights.T
    K, weighted_gradient = gram_and_weighted_gradient(kernel, X)
    expected_K, K_gradient = kernel(X, eval_gradient=True)
    np.testing.assert_allclose(K, expected_K, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_allclose(
        weighted_gradient(weights),
        np.einsum("ij,ijk->k", weights, K_gradient),
        rtol=1e-8,
        atol=1e-10,
    )


@pytest.mark.parametrize("kernel", GRADIENT_KERNELS)
def test_cross_gradients_match_finite_differences(kernel, rng):
    X, Y = rng.standard_normal((4, 2)), rng.standard_normal((6, 2))
    weights = rng.standard_normal((4, 6))
    eps = 1e-6

    def contracted(kernel_, X_):
        return np.sum(weights * kernel_(X_, Y))

    for j in range(len(kernel.theta)):
        step = eps * np.eye(len(kernel.theta))[j]
        fd = (
            contracted(kernel.clone_with_theta(kernel.theta + step), X)
            - contracted(kernel.clone_with_theta(kernel.theta - step), X)
        ) / (2 * eps)
        np.testing.assert_allclose(
            CrossCovariance(kernel, X, Y).gradients(weights)[0][j],
            fd,
            rtol=1e-6,
            atol=1e-8,
        )
    grad = CrossCovariance(kernel, X, Y).gradients(weights)[1]
    for i, d in [(0, 0), (3, 1)]:
        step = np.zeros_like(X)
        step[i, d] = eps
        fd = (contracted(kernel, X + step) - contracted(kernel, X - step)) / (2 * eps)
        np.testing.assert_allclose(grad[i, d], fd, rtol=1e-6, atol=1e-8)


def test_unsupported_kernel_is_named_in_the_error():
    with pytest.raises(ValueError, match="Matern.*nu=0.5"):
        check_input_differentiable(ConstantKernel() * Matern(nu=0.5))
    check_input_differentiable(GRADIENT_KERNELS[1])
    check_input_differentiable(ConstantKernel() * Matern(nu=2.5))


@pytest.mark.parametrize("nu", [1.5, 2.5])
def test_matern_value_holds_at_zero_and_far_distances(nu):
    X = np.array([[0.0, 0.0], [0.0, 0.0], [40.0, 0.0], [1e-9, 0.0]])
    kernel = Matern([1.0, 2.0], nu=nu)
    block = CrossCovariance(kernel, X)
    np.testing.assert_allclose(block.value, kernel(X), rtol=1e-12, atol=1e-300)
    grad_theta, grad_A = block.gradients(np.ones((4, 4)))
    assert np.all(np.isfinite(grad_theta)) and np.all(np.isfinite(grad_A))


@pytest.mark.parametrize("kernel", GRADIENT_KERNELS)
def test_cross_covariance_value_equals_sklearn(kernel, rng):
    X, Y = 3.0 * rng.standard_normal((7, 2)), rng.standard_normal((5, 2))
    np.testing.assert_allclose(
        CrossCovariance(kernel, X, Y).value, kernel(X, Y), rtol=1e-12, atol=1e-14
    )
    np.testing.assert_allclose(CrossCovariance(kernel, X).value, kernel(X), atol=1e-14)


def test_cross_covariance_value_is_read_only(rng):
    """The value is shared with the node values the gradients use, not copied."""
    block = CrossCovariance(RBF(1.5), rng.standard_normal((6, 2)))
    with pytest.raises(ValueError, match="read-only"):
        block.value[0, 0] = 0.0


def test_single_precision_blocks_of_offset_inputs_match(rng):
    """Centring keeps float32 exponents accurate for inputs far from the origin."""
    X = 1e3 + rng.standard_normal((50, 4))
    kernel = ConstantKernel(2.0) * RBF([0.5, 1.0, 2.0, 1.5]) + ConstantKernel(0.1)
    blocks = KernelBlocks(kernel, X, dtype=np.float32)
    rows, cols = np.arange(10), np.arange(50)
    block = blocks(rows, cols)
    assert block.dtype == np.float32
    np.testing.assert_allclose(block, kernel(X[rows], X), rtol=1e-5, atol=1e-6)


def test_a_cross_covariance_differentiates_after_a_trip_to_a_worker(rng):
    """Blocks on a dask cluster are pickled with their kept kernel values."""
    import pickle

    kernel = ConstantKernel(1.3) * (RBF(0.9) + Matern(0.7, nu=2.5)) * RBF([1.0, 2.0])
    X, Y = rng.standard_normal((5, 2)), rng.standard_normal((4, 2))
    weights = rng.standard_normal((5, 4))
    here = CrossCovariance(kernel, X, Y)
    there = pickle.loads(pickle.dumps(here))
    for a, b in zip(here.gradients(weights), there.gradients(weights), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "kernel, expected",
    [
        (ConstantKernel() * RBF(), [True, False]),
        (ConstantKernel() * RBF() + ConstantKernel(), [True, False, False]),
        (ConstantKernel(1.0, "fixed") * RBF(), [False]),
        (
            ConstantKernel() * RBF([1.0, 2.0]) + ConstantKernel() * Matern(nu=1.5),
            [True, False, False, True, False],
        ),
        (ConstantKernel() * (RBF() + ConstantKernel()), [True, False, False]),
        (ConstantKernel() + WhiteKernel(), [False, False]),
    ],
    ids=["product", "offset", "fixed", "two-terms", "offset-inside", "no-product"],
)
def test_amplitudes_are_the_learnt_constant_factors_of_products(kernel, expected):
    np.testing.assert_array_equal(amplitude_mask(kernel), expected)


def test_a_length_scale_per_feature_is_the_same_kernel_with_more_to_learn(rng):
    kernel = ConstantKernel(2.0) * RBF(0.7, (1e-2, 1e2)) + ConstantKernel(0.3) * Matern(
        [1.0, 2.0, 0.5], nu=2.5
    )
    ard = with_length_scale_per_feature(kernel, 3)
    np.testing.assert_array_equal(ard.k1.k2.length_scale, [0.7, 0.7, 0.7])
    np.testing.assert_array_equal(ard.k2.k2.length_scale, [1.0, 2.0, 0.5])  # kept
    assert len(ard.theta) == len(kernel.theta) + 2
    np.testing.assert_array_equal(ard.bounds[1], np.log([1e-2, 1e2]))
    X = rng.standard_normal((6, 3))
    np.testing.assert_allclose(ard(X), kernel(X), rtol=1e-14)
    assert kernel.k1.k2.length_scale == 0.7  # the given kernel is left alone


def test_spread_factors_are_spreads_over_their_root_mean_square():
    """Constant features count 1 and stay out of the mean; a feature under √0.1 of
    the RMS spread (a tenth of a typical feature's weight) is narrow."""
    np.testing.assert_allclose(spread_factors([1.0, 0.0, 7.0]), [0.2, 1.0, 1.4])
    assert spread_factors([0.0, 0.0]) is None
    assert has_narrow_feature([1.0, 5.0])  # 1/√13 = 0.28
    assert not has_narrow_feature([1.0, 3.0])  # 1/√5 = 0.45
    assert not has_narrow_feature([0.0, 0.0])


def test_length_scales_by_spread_are_the_kernel_on_standardised_features(rng):
    """``ℓ·s_d/s̄`` for every isotropic term (s̄ the RMS of the non-zero spreads): the
    kernel of ``X`` equals the isotropic one of ``X`` standardised to s̄; a constant
    feature keeps ``ℓ``, a length-scale outside its bounds is clipped, ARD terms are
    scaled; without a feature under √0.1 of s̄ (a tenth of its weight; or for a
    kernel per class) there is no second start."""
    spreads = np.array([1e-3, 2.0, 0.0, 5.0])
    kernel = ConstantKernel(2.0) * RBF(0.7, (1e-5, 1e5)) + Matern(1.5, nu=2.5)
    by_spread = with_length_scales_by_spread(kernel, spreads)
    common = np.sqrt(np.mean(spreads[[0, 1, 3]] ** 2))
    factor = np.array([1e-3 / common, 2.0 / common, 1.0, 5.0 / common])
    np.testing.assert_allclose(by_spread.k1.k2.length_scale, 0.7 * factor)
    np.testing.assert_allclose(by_spread.k2.length_scale, 1.5 * factor)
    X = rng.standard_normal((8, 4)) * np.where(spreads > 0, spreads, 1.0)
    standardised = X * np.where(spreads > 0, common / np.maximum(spreads, 1e-300), 1.0)
    np.testing.assert_allclose(by_spread(X), kernel(standardised), rtol=1e-12)
    tight = ConstantKernel(2.0) * RBF(0.7, (0.1, 10.0))
    np.testing.assert_allclose(
        with_length_scales_by_spread(tight, spreads).k2.length_scale,
        np.clip(0.7 * factor, 0.1, 10.0),
    )
    assert with_length_scales_by_spread(kernel, [3.0, 0.0, 3.0, 3.0]) is None
    assert with_length_scales_by_spread(kernel, [1.0, 0.0, 3.0, 3.0]) is None  # 0.40 s̄
    assert with_length_scales_by_spread(kernel, [0.5, 0.0, 3.0, 3.0]) is not None
    assert with_length_scales_by_spread(kernel, np.zeros(4)) is None
    assert with_length_scales_by_spread(KernelPerClass([kernel]), spreads) is None
    assert kernel.k1.k2.length_scale == 0.7  # the given kernel is left alone


def test_kernel_per_class_sets_theta_by_each_kernels_size():
    """θ split by each kernel's own size (an ARD kernel beside an isotropic one):
    ``clone_with_theta`` round-trips, and ``k(X)`` stacks the kernels' on a last axis."""
    kernels = [ConstantKernel(2.0) * RBF([1.0, 3.0]), ConstantKernel(0.5) * RBF(0.7)]
    kernel = KernelPerClass(kernels)
    theta = kernel.theta + np.array([0.1, -0.2, 0.3, 0.4, -0.5])
    cloned = kernel.clone_with_theta(theta)
    np.testing.assert_allclose(cloned.theta, theta)
    np.testing.assert_allclose(cloned.kernels[1].theta, theta[3:])
    np.testing.assert_allclose(kernel.theta, np.hstack([k.theta for k in kernels]))
    X = np.random.default_rng(0).normal(size=(4, 2))
    np.testing.assert_allclose(cloned(X)[:, :, 0], cloned.kernels[0](X))
    np.testing.assert_array_equal(
        amplitude_mask(kernel), [True, False, False, True, False]
    )
    assert repr(kernel) == f"KernelPerClass([{kernels[0]!r}, {kernels[1]!r}])"


def test_a_kernel_per_class_gets_a_length_scale_per_feature_in_each_kernel():
    kernels = [ConstantKernel(2.0) * RBF(0.7), ConstantKernel(0.5) * RBF([1.0, 3.0])]
    ard = with_length_scale_per_feature(KernelPerClass(kernels), 2)
    assert isinstance(ard, KernelPerClass)
    np.testing.assert_array_equal(ard.kernels[0].k2.length_scale, [0.7, 0.7])
    np.testing.assert_allclose(ard.kernels[1].k2.length_scale, [1.0, 3.0])
    X = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(ard(X), KernelPerClass(kernels)(X), rtol=1e-14)
