"""Does the multinomial model lose to one-vs-rest by its factorised sites? A joint EP says.

    python -m benchmarks run joint_steps --out benchmarks/results/joint_steps.json

The multinomial model (algorithms.md §7) approximates each step ``Θ(g_y − g_k)`` of the
multinomial probit by a site factorised across its two noisy latents, so its posterior
factorises across the classes ([VH17]). Nested EP (Riihimäki, Jylänki & Vehtari 2013)
keeps the classes' coupling. Here the coupling is kept directly: dense EP on the same
steps with rank-one sites ``exp(−½ τ̃ (aᵀg)² + ν̃ aᵀg)``, ``a = e_y − e_k``, on the
joint posterior of all ``C·n`` noisy latents (``O((C·n)³)`` a sweep, so a few hundred
training points), its predictive probabilities by Monte Carlo over the test latents'
joint ``C × C`` covariance. Beside it, at the same fixed kernel, no bias and the
pseudo-inputs at the training inputs (the dense limit): the library's factorised
multinomial model and one-vs-rest EP. The library's model is scored twice: with the
predictive variance scale ``γ`` it fits (algorithms.md §7.4), and at ``γ = 1``, the
probabilities of its posterior as they are, to set beside the coupled posterior's.
scikit-learn's digits, the seeded 70/30 split of the multi-class benchmark, the first
``n`` training images; one BLAS thread.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.special import log_ndtr
from scipy.stats import norm
from sklearn.datasets import load_digits
from sklearn.gaussian_process.kernels import RBF
from sklearn.gaussian_process.kernels import ConstantKernel as C
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from benchmarks._lib.cluster import print_table
from sparsegp import FITCGPClassifier
from sparsegp.benchmarking import save_run
from sparsegp.likelihoods import MultinomialProbit

#: Monte Carlo draws of the test latents per test point.
DRAWS = 4000
#: A sweep whose largest change of a site precision is below this ends the joint EP.
TOL = 1e-4


def steps(y, n_classes):
    """The steps ``(i, k ≠ y_i)`` as coordinates of ``g_{i,y_i}`` and ``g_{i,k}`` in the
    class-major vector of all noisy latents."""
    n = len(y)
    points = np.repeat(np.arange(n), n_classes - 1)
    others = np.concatenate([np.delete(np.arange(n_classes), label) for label in y])
    return y[points] * n + points, others * n + points


def spd_inverse(A):
    """The inverse of a symmetric positive definite ``A`` by its Cholesky factor."""
    return cho_solve(cho_factor(A), np.eye(len(A)))


def joint_posterior(prior_precision, label, other, tau, nu):
    """Mean and covariance of the noisy latents under the rank-one step sites."""
    precision = prior_precision.copy()
    for rows, cols, sign in ((label, label, 1), (other, other, 1), (label, other, -1)):
        np.add.at(precision, (rows, cols), sign * tau)
        if sign < 0:
            np.add.at(precision, (cols, rows), sign * tau)
    cov = spd_inverse(precision)
    natural = np.zeros(len(cov))
    np.add.at(natural, label, nu)
    np.add.at(natural, other, -nu)
    return cov @ natural, cov


def joint_step_ep(K, y, n_classes, *, damping=0.5, max_sweeps=60):
    """Parallel EP on every step with the classes' coupling kept (dense): the
    posterior's mean and covariance, the sweeps run, and whether the sites settled."""
    n = len(y)
    prior_precision = np.kron(np.eye(n_classes), spd_inverse(K + np.eye(n)))
    label, other = steps(y, n_classes)
    tau, nu = np.zeros(len(label)), np.zeros(len(label))
    sweeps, converged = 0, False
    while sweeps < max_sweeps and not converged:
        sweeps += 1
        mean, cov = joint_posterior(prior_precision, label, other, tau, nu)
        m = mean[label] - mean[other]
        v = cov[label, label] + cov[other, other] - 2 * cov[label, other]
        v_cav = 1 / (1 / v - tau)
        m_cav = v_cav * (m / v - nu)
        r = m_cav / np.sqrt(v_cav)
        ratio = np.exp(norm.logpdf(r) - log_ndtr(r))  # the step's tilted moments
        m_hat = m_cav + np.sqrt(v_cav) * ratio
        v_hat = v_cav * (1 - ratio * (r + ratio))
        new_tau = np.maximum(1 / v_hat - 1 / v_cav, 1e-10)
        new_nu = m_hat / v_hat - m_cav / v_cav
        converged = np.max(np.abs(new_tau - tau)) < TOL
        tau, nu = tau + damping * (new_tau - tau), nu + damping * (new_nu - nu)
    mean, cov = joint_posterior(prior_precision, label, other, tau, nu)
    return mean, cov, sweeps, converged


def joint_predict_proba(kernel, X, X_test, mean, cov, n_classes, rng):
    """``P(g*_c is the largest)`` under the test latents' joint Gaussian, by Monte Carlo
    (add-half smoothed so that no probability is 0)."""
    n = len(X)
    cross = kernel(X, X_test)
    weights = cho_solve(cho_factor(kernel(X) + np.eye(n)), cross).T  # k*ᵀ (K + I)⁻¹
    residual = kernel.diag(X_test) - np.einsum("ij,ji->i", weights, cross)
    blocks = [slice(c * n, (c + 1) * n) for c in range(n_classes)]
    latent = np.column_stack([weights @ mean[b] for b in blocks])
    joint = np.empty((len(X_test), n_classes, n_classes))  # one product per block pair
    for c, b in enumerate(blocks):
        for e, d in enumerate(blocks):
            joint[:, c, e] = np.einsum("ij,ij->i", weights @ cov[b, d], weights)
    joint += (residual + 1.0)[:, None, None] * np.eye(n_classes)
    draws = rng.standard_normal((DRAWS, n_classes))
    proba = np.empty((len(X_test), n_classes))
    for j, factor in enumerate(np.linalg.cholesky(joint)):
        sample = latent[j] + draws @ factor.T
        proba[j] = np.bincount(sample.argmax(axis=1), minlength=n_classes)
    return (proba + 0.5) / (DRAWS + 0.5 * n_classes)


def scores(proba, y_test, seconds):
    p_true = proba[np.arange(len(y_test)), y_test]
    return dict(
        error=float(np.mean(proba.argmax(axis=1) != y_test)),
        nlp=float(-np.mean(np.log(p_true))),
        fit_seconds=seconds,
    )


def compared(kernel, X, y, X_test, y_test, rng):
    """The three models at one fixed ``kernel``: name → scores."""
    start = time.perf_counter()
    mean, cov, sweeps, converged = joint_step_ep(kernel(X), y, 10)
    proba = joint_predict_proba(kernel, X, X_test, mean, cov, 10, rng)
    seconds = time.perf_counter() - start  # the prediction's Monte Carlo included
    settled = "" if converged else ", not settled"
    out = {f"joint steps ({sweeps} sweeps{settled})": scores(proba, y_test, seconds)}
    for name, multi_class in (
        ("factorised steps (the library)", "multinomial"),
        ("one-vs-rest EP", "one_vs_rest"),
    ):
        model = FITCGPClassifier(
            kernel,
            n_inducing=len(X),
            inducing_init=X,
            optimize_inducing=False,
            optimizer=None,
            learn_bias=False,
            multi_class=multi_class,
        )
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
        out[name] = scores(model.predict_proba(X_test), y_test, seconds)
        if multi_class == "multinomial":  # the posterior itself: its variances unscaled
            unscaled = MultinomialProbit(model.bias_).predict_proba(
                *model.latent_mean_and_variance(X_test)
            )
            out[f"{name}, γ = 1"] = scores(unscaled, y_test, seconds)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[200, 600])
    parser.add_argument(
        "--kernels",
        nargs="+",
        default=["100,30", "1190,85"],
        help="amplitude,length-scale pairs (1190,85: one-vs-rest EP's learnt ones)",
    )
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=0, stratify=y
    )
    rows = []
    with threadpool_limits(1):
        for n in args.n:
            for pair in args.kernels:
                amplitude, length_scale = map(float, pair.split(","))
                kernel = C(amplitude, "fixed") * RBF(length_scale, "fixed")
                results = compared(
                    kernel,
                    X_train[:n],
                    y_train[:n],
                    X_test,
                    y_test,
                    np.random.default_rng(0),
                )
                for model, result in results.items():
                    rows.append(dict(n=n, kernel=pair, model=model, **result))
                    print(rows[-1], flush=True)
    print_table(
        rows,
        [
            ("n", "n", "d"),
            ("amplitude, length-scale", "kernel", "s"),
            ("model", "model", "s"),
            ("error", "error", ".4f"),
            ("NLP", "nlp", ".4f"),
            ("fit s", "fit_seconds", ".1f"),
        ],
    )
    if args.out:
        save_run(args.out, rows)


if __name__ == "__main__":
    main()
