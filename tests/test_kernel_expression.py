"""The one reading of a scikit-learn kernel that every fast kernel path shares."""

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import (
    RBF,
    CompoundKernel,
    ConstantKernel,
    DotProduct,
    Matern,
    RationalQuadratic,
    WhiteKernel,
)

from sparsegp import kernel_expression as expression
from sparsegp.kernels import KernelBlocks, check_input_differentiable


class _MyRBF(RBF):
    """A subclass may change the formula: never read as the RBF it derives from."""


def test_parse_names_every_node_with_its_path():
    kernel = ConstantKernel(2.0) * RBF([1.0, 2.0]) + Matern(0.5, nu=1.5)
    terms = expression.parse(kernel)
    assert isinstance(terms, expression.Sum)
    product, matern = terms.first, terms.second
    assert isinstance(product, expression.Product) and product.path == (1,)
    constant, rbf = product.first, product.second
    assert constant == expression.Constant(2.0, True, (1, 1))
    assert rbf.nu == np.inf and rbf.anisotropic and rbf.path == (1, 2)
    np.testing.assert_array_equal(rbf.length_scale, [1.0, 2.0])
    assert matern.nu == 1.5 and not matern.anisotropic and matern.path == (2,)
    assert [leaf.path for leaf in terms.leaves()] == [(1, 1), (1, 2), (2,)]


@pytest.mark.parametrize(
    "kernel, differentiable, expanded",
    [
        (ConstantKernel() * RBF(), True, True),
        (RBF() * RBF(2.0) + ConstantKernel(0.5), True, True),
        (Matern(nu=2.5), True, False),
        (Matern(nu=0.5), False, False),  # Opaque: no implemented gradient
        (RBF() + WhiteKernel(), False, True),  # zero off the diagonal
        (_MyRBF(), False, False),
        (RationalQuadratic(), False, False),
        (ConstantKernel(-1.0, "fixed") * RBF(), True, False),
        (DotProduct(), False, False),
    ],
)
def test_every_path_agrees_on_what_it_supports(kernel, differentiable, expanded):
    terms = expression.parse(kernel)
    assert terms.differentiable == differentiable
    assert (terms.expansion() is not None) == expanded
    assert KernelBlocks(kernel, np.zeros((3, 1))).expanded == expanded
    if differentiable:
        check_input_differentiable(kernel)
    else:
        with pytest.raises(ValueError, match="not "):
            check_input_differentiable(kernel)


def test_refusal_names_the_first_leaf_without_gradients():
    with pytest.raises(ValueError, match=r"not Matern \(nu=0.5\)"):
        check_input_differentiable(RBF() + Matern(nu=0.5) * RationalQuadratic())


def test_product_of_rbfs_expands_to_one_term_with_summed_precisions():
    terms = expression.parse(ConstantKernel(3.0) * RBF(2.0) * RBF(0.5))
    ((coefficient, inverse_squares),) = terms.expansion()
    assert coefficient == 3.0
    np.testing.assert_allclose(inverse_squares, 1 / 4 + 1 / 0.25)


@pytest.mark.parametrize("nu", [np.inf, 1.5, 2.5])
def test_stationary_value_and_slope_match_the_kernel(nu):
    kernel = RBF(0.7) if nu == np.inf else Matern(0.7, nu=nu)
    leaf = expression.parse(kernel)
    r = np.linspace(0.0, 3.0, 31)
    value, slope = leaf.value_and_slope(-0.5 * r**2)
    np.testing.assert_allclose(value, kernel(np.zeros((1, 1)), 0.7 * r[:, None])[0])
    # g = k′(r)/r, by central differences away from r = 0 (−k for the RBF)
    h = 1e-6
    upper, _ = leaf.value_and_slope(-0.5 * (r[1:] + h) ** 2)
    lower, _ = leaf.value_and_slope(-0.5 * (r[1:] - h) ** 2)
    expected = (upper - lower) / (2 * h) / r[1:]
    g = -value if slope is None else slope
    np.testing.assert_allclose(g[1:], expected, rtol=1e-6, atol=1e-8)


def test_compound_parts_are_a_compound_kernels_kernels_in_order():
    parts = [RBF(1.0), ConstantKernel(2.0) * RBF(3.0)]
    assert expression.compound_parts(CompoundKernel(parts)) == parts
    assert expression.compound_parts(parts[1]) is None
