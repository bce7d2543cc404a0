"""Cholesky helpers against direct factorisation."""

import numpy as np
import pytest
from scipy.linalg import solve_triangular

from sparsegp._linalg import (
    cho_solve_lower,
    cholesky_in_place,
    cholesky_jitter,
    cholesky_permuted,
    inverse_lower,
    log_det_from_cholesky,
    solve_lower,
    solve_lower_in_place,
    solve_lower_wide,
    weighted_gram,
)
from sparsegp.exceptions import NotPSDError, NumericalWarning


def random_spd(rng, m):
    A = rng.standard_normal((m, m))
    return A @ A.T + m * np.eye(m)


def test_cholesky_jitter_on_singular_matrix_warns_and_factorises(rng):
    X = rng.standard_normal((5, 2))
    A = X @ X.T  # rank 2
    with pytest.warns(NumericalWarning, match="jitter"):
        L = cholesky_jitter(A)
    np.testing.assert_allclose(L @ L.T, A, atol=1e-6 * np.mean(np.diag(A)))


def test_cholesky_jitter_rejects_indefinite_and_nan():
    with pytest.raises(NotPSDError, match="not positive definite"):
        cholesky_jitter(np.diag([1.0, -1.0]))
    with pytest.raises(NotPSDError, match="NaN"):
        cholesky_jitter(np.array([[1.0, np.nan], [np.nan, 1.0]]))


def test_solve_and_log_det(rng):
    A = random_spd(rng, 6)
    L = cholesky_jitter(A)
    b = rng.standard_normal((6, 2))
    np.testing.assert_allclose(cho_solve_lower(L, b), np.linalg.solve(A, b), rtol=1e-10)
    np.testing.assert_allclose(
        log_det_from_cholesky(L), np.linalg.slogdet(A)[1], rtol=1e-12
    )


@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 1e-4)])
def test_wide_solve_equals_the_triangular_solve(trans, order, dtype, rtol):
    rng = np.random.default_rng(3)
    A = rng.standard_normal((6, 6))
    L = np.linalg.cholesky(A @ A.T + 6 * np.eye(6))
    B = rng.standard_normal((6, 50))
    expected = solve_triangular(L, B, lower=True, trans="T" if trans else "N")
    result = solve_lower_wide(L, np.asarray(B.astype(dtype), order=order), trans=trans)
    assert result.dtype == dtype and result.flags.c_contiguous
    np.testing.assert_allclose(result, expected, rtol=rtol)
    out = np.empty(B.shape, dtype)
    assert solve_lower_wide(L, B.astype(dtype), trans=trans, out=out) is out
    np.testing.assert_allclose(out, expected, rtol=rtol)
    shared = solve_lower_wide(L, B.astype(dtype), trans=trans, inverse=inverse_lower(L))
    np.testing.assert_array_equal(shared, result)  # a precomputed inverse: same bits


@pytest.mark.parametrize("trans", [False, True])
def test_wide_solve_of_a_large_factor_equals_the_triangular_solve(trans):
    """Past ``_TRTRI_ORDER`` the inverse is built by halves; BLAS ``trmm`` is called
    through ctypes either way."""
    rng = np.random.default_rng(4)
    A = rng.standard_normal((200, 200))
    L = np.linalg.cholesky(A @ A.T + 200 * np.eye(200))
    B = rng.standard_normal((200, 300))
    expected = solve_triangular(L, B, lower=True, trans="T" if trans else "N")
    np.testing.assert_allclose(
        solve_lower_wide(L, B, trans=trans), expected, rtol=1e-10, atol=1e-12
    )


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_solve_lower_in_place_equals_solve_lower(order, dtype, rtol):
    rng = np.random.default_rng(0)
    L = np.tril(rng.standard_normal((6, 6))) + 4 * np.eye(6)
    B = np.asarray(rng.standard_normal((6, 9)), order=order)
    expected = solve_lower(L, B)
    B = B.astype(dtype, order=order)
    result = solve_lower_in_place(L.astype(dtype), B)
    assert np.shares_memory(result, B) and B.dtype == dtype
    np.testing.assert_allclose(B, expected, rtol=rtol)
    with pytest.raises(ValueError, match="contiguous"):
        solve_lower_in_place(L, np.ones((6, 18))[:, ::2])


@pytest.mark.parametrize("condition", [1e6, 1e9, 1e12])
def test_cholesky_of_ill_conditioned_kernel_matrices_is_accurate(condition):
    """Condition numbers up to 1e12 factorise without jitter to working accuracy."""
    rng = np.random.default_rng(0)
    Q = np.linalg.qr(rng.standard_normal((40, 40)))[0]
    A = (Q * np.geomspace(1.0, 1.0 / condition, 40)) @ Q.T
    A = (A + A.T) / 2
    L = cholesky_jitter(A)
    np.testing.assert_allclose(L @ L.T, A, atol=1e-13)


def test_rbf_matrix_of_near_duplicates_gets_jitter_and_a_warning():
    """Near-duplicate inputs make an RBF matrix singular to double precision: the jitter
    ladder factorises it and names the jitter."""
    x = np.concatenate([np.linspace(0, 1, 30), np.linspace(0, 1, 30) + 1e-9])
    A = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / 0.5**2)
    with pytest.warns(NumericalWarning, match="added jitter"):
        L = cholesky_jitter(A)
    np.testing.assert_allclose(L @ L.T, A, atol=1e-6)


def test_cholesky_in_place_factorises_in_the_matrix_own_memory(rng):
    X = rng.standard_normal((40, 3))
    A = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1)) + np.eye(40)
    expected = np.linalg.cholesky(A)
    work = A.copy()
    L = cholesky_in_place(work)
    np.testing.assert_allclose(L, expected, rtol=1e-12, atol=1e-12)
    assert np.shares_memory(L, work)
    assert np.all(np.triu(L, 1) == 0.0)


@pytest.mark.parametrize("bad", [np.nan, -5.0])
def test_cholesky_in_place_returns_none_off_positive_definite(bad):
    A = np.eye(4)
    A[2, 2] = bad
    assert cholesky_in_place(A) is None


def test_cholesky_permuted_factorises_the_reordered_matrix(rng):
    A = random_spd(rng, 7)
    order = rng.permutation(7)
    L = cholesky_permuted(cholesky_jitter(A), order)
    np.testing.assert_allclose(L @ L.T, A[np.ix_(order, order)], rtol=1e-12)
    np.testing.assert_array_equal(L, np.tril(L))


@pytest.mark.parametrize("negative_share", [0.0, 0.02, 0.5, 0.98, 1.0])
def test_weighted_gram_equals_the_product_with_diag_w(rng, negative_share):
    V = rng.standard_normal((15, 400))
    weights = rng.exponential(size=400)
    weights[: int(negative_share * 400)] *= -1.0
    np.testing.assert_allclose(
        weighted_gram(V, weights), V @ np.diag(weights) @ V.T, rtol=1e-12, atol=1e-11
    )


@pytest.mark.parametrize("negative_share", [0.0, 0.3, 0.8])
def test_weighted_gram_of_a_float32_v_runs_in_float32_and_returns_float64(
    rng, negative_share
):
    V = rng.standard_normal((15, 400)).astype(np.float32)
    weights = rng.exponential(size=400)
    weights[: int(negative_share * 400)] *= -1.0
    gram = weighted_gram(V, weights)
    expected = V.astype(float) @ np.diag(weights) @ V.T.astype(float)
    assert gram.dtype == np.float64
    # float32 rounding of 400-term sums (a float64 product would be within 1e-12)
    error = np.max(np.abs(gram - expected)) / np.max(np.abs(expected))
    assert 1e-9 < error < 1e-5


@pytest.mark.parametrize("n", [1, 127, 128, 129, 300, 517])
@pytest.mark.parametrize("order", ["C", "F"])
def test_inverse_lower_equals_the_triangular_solve(rng, n, order):
    """By halves above ``_TRTRI_ORDER`` (odd sizes split unevenly), LAPACK below."""
    A = rng.standard_normal((n, n))
    L = np.linalg.cholesky(A @ A.T / n + np.eye(n))
    L = np.asarray(L, order=order)
    inverse = inverse_lower(L)
    expected = solve_lower(L, np.eye(n))
    np.testing.assert_allclose(inverse, expected, rtol=1e-11, atol=1e-13)
    assert not np.any(np.triu(inverse, 1))


def test_inverse_lower_of_a_singular_factor_raises():
    L = np.linalg.cholesky(np.eye(300) + 0.1)
    L[250, 250] = 0.0  # in the second half's second half
    with pytest.raises(NotPSDError, match="singular"):
        inverse_lower(L)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matvec_equals_the_product_for_contiguous_and_strided_matrices(dtype):
    from sparsegp._linalg import matvec

    rng = np.random.default_rng(0)
    A = rng.standard_normal((40, 30)).astype(dtype)
    x = rng.standard_normal(30).astype(dtype)
    for matrix in (A, np.asfortranarray(A), A[:, :20]):
        vector = x[: matrix.shape[1]]
        result = matvec(matrix, vector)
        assert result.dtype == dtype
        np.testing.assert_allclose(result, matrix @ vector, rtol=1e-5)
