"""The one predictor form against its dense computation (algorithms.md §0.7)."""

import numpy as np
import pytest

from sparsegp.approximations.predictor import Predictor


def _lower(rng, r):
    A = rng.standard_normal((r, r))
    return np.linalg.cholesky(A @ A.T + r * np.eye(r))


def _dense(psi, k_diag, weights, chol, scale, inner, prior_share):
    """Mean ``ψᵀw`` and variance ``c·k** + uᵀWu``, ``u = L⁻¹(s ⊙ ψ)``, by inverses."""
    scaled = psi if scale is None else scale[:, None] * psi
    u = np.linalg.inv(chol) @ scaled
    W = -np.eye(len(chol)) if inner is None else inner
    return psi.T @ weights, prior_share * k_diag + np.einsum("ij,ik,kj->j", u, W, u)


@pytest.mark.parametrize("scaled", [False, True])
@pytest.mark.parametrize("inner", ["none", "matrix"])
@pytest.mark.parametrize("bias", [False, True])
def test_one_output_equals_the_dense_form_and_its_covariance_diagonal(
    scaled, inner, bias
):
    rng = np.random.default_rng(0)
    m, n_test = 6, 5
    r = m + bias
    chol = _lower(rng, r)
    scale = rng.uniform(0.5, 2.0, r) if scaled else None
    W = None
    if inner == "matrix":
        B = rng.standard_normal((r, r))
        W = 0.1 * (B + B.T)
    weights = rng.standard_normal(r)
    prior_share = 0.0 if bias else 1.0
    predictor = Predictor(weights, chol, scale, W, prior_share, bias_feature=bias)
    K_cross = rng.standard_normal((m, n_test))
    k_diag = rng.uniform(5.0, 6.0, n_test)
    psi = np.vstack([np.ones((1, n_test)), K_cross]) if bias else K_cross
    mean, var = predictor.latent_mean_and_variance(K_cross, k_diag)
    dense_mean, dense_var = _dense(psi, k_diag, weights, chol, scale, W, prior_share)
    np.testing.assert_allclose(mean, dense_mean, rtol=1e-12)
    np.testing.assert_allclose(var, np.maximum(dense_var, 0.0), rtol=1e-10, atol=1e-12)
    K_star = np.diag(k_diag) + 0.0
    cov = predictor.latent_covariance(K_cross, K_star)
    np.testing.assert_allclose(cov, cov.T, atol=1e-12)
    np.testing.assert_allclose(np.diag(cov), dense_var, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n_sets", [1, 3])
def test_each_output_sees_its_share_of_the_points(n_sets):
    """Three outputs on one shared set of points or on a set each: output ``p`` is the
    one-output predictor of its ``w``, ``W`` and its set's ``L`` and rows."""
    rng = np.random.default_rng(1)
    m, n_test, outputs = 4, 3, 3
    chols = np.stack([_lower(rng, m) for _ in range(n_sets)])
    inners = np.stack([0.1 * np.eye(m) * (p + 1) for p in range(outputs)])
    weights = rng.standard_normal((m, outputs))
    predictor = Predictor(weights, chols, inner=inners)
    K_cross = rng.standard_normal((n_sets * m, n_test))
    k_diag = rng.uniform(5.0, 6.0, (n_test, n_sets))
    mean, var = predictor.latent_mean_and_variance(K_cross, k_diag)
    assert mean.shape == var.shape == (n_test, outputs)
    for p in range(outputs):
        g = p % n_sets
        one = Predictor(weights[:, p], chols[g], inner=inners[p])
        expected = one.latent_mean_and_variance(
            K_cross[g * m : (g + 1) * m], k_diag[:, g]
        )
        np.testing.assert_allclose(mean[:, p], expected[0], rtol=1e-12)
        np.testing.assert_allclose(var[:, p], expected[1], rtol=1e-12)
    with pytest.raises(ValueError, match="one output"):
        predictor.latent_covariance(K_cross, np.eye(n_test))


def test_an_empty_basis_predicts_the_prior():
    predictor = Predictor(np.zeros(0), np.zeros((0, 0)), inner=np.zeros((0, 0)))
    mean, var = predictor.latent_mean_and_variance(np.zeros((0, 4)), np.full(4, 2.0))
    np.testing.assert_array_equal(mean, np.zeros(4))
    np.testing.assert_array_equal(var, np.full(4, 2.0))
