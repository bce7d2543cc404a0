"""Would the RVM's probabilities gain from augmentation ([RQC05])? Measured, not built.

    SPARSEGP_DATA=../shared/data python -m benchmarks run rvm_augmentation \
        --out benchmarks/results/rvm_augmentation.json

Rasmussen & Quiñonero-Candela (2005) heal the RVM's predictive variance, which shrinks
away from the relevance vectors, by augmenting the model at each test input ``x*`` with
one more basis function ``k(·, x*)`` whose weight has the prior ``N(0, 1/α*)``: the
prior variance at ``x*`` of a unit-amplitude GP for ``α* = 1``. With the classifier's
final adaptive-TAP (EP) E-step as Gaussian sites ``(Ω = diag τ̃, ν̃)`` on the training
latents, the weights' posterior is ``Σ = (A + ΨᵀΩΨ)⁻¹``, ``μ = ΣΨᵀν̃``, and the
augmented predictive is, with ``k* = k(X, x*)``, ``u = ΨᵀΩk*``,
``s = α* + k*ᵀΩk* − uᵀΣu``, ``e = k(x*, x*) − ψ(x*)ᵀΣu`` and
``q = k*ᵀ(ν̃ − ΩΨμ)``::

    mean* = ψ(x*)ᵀμ + e q / s,    var* = ψ(x*)ᵀΣψ(x*) + e² / s

([RQC05] §4 with the Gaussian noise precision replaced by the sites'); O(n·r) per test
input and the n training inputs kept: no longer sparse. Scored here beside the library's
``RVMClassifier(ard=False)`` ([QW03]'s fixed basis) on the same fits, both from one
E-step run to convergence at the fitted ``α`` (the fitted model's own NLP beside them):
error and NLP of ``Φ(mean/√(σ_in² + var))``, on IDA banana, image, ringnorm and twonorm
(realization 0), and MNIST 13×13 4 against the rest and with its ten classes (7 291
images; one-vs-rest, each problem augmented, the ``Φ_k`` normalised as the RVM
combines them). Beside each: the mean latent standard deviation at the test inputs
and the share of the test NLP carried by its worst 0.5 % of test points (confident
mistakes). One BLAS thread.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from scipy.special import log_ndtr, logsumexp
from threadpoolctl import threadpool_limits

from benchmarks._lib.cluster import print_table
from benchmarks._lib.tasks import load_task, mnist_classes, mnist_task
from sparsegp import RVMClassifier
from sparsegp.approximations.rvm_ssem import ep_e_step
from sparsegp.benchmarking import save_run

SETS = ("banana", "image", "ringnorm", "twonorm", "mnist4", "mnist10")
#: The worst test points whose share of the NLP is reported (confident mistakes).
WORST_FRACTION = 0.005


def task(name):
    if name == "mnist4":
        return mnist_task(7291)
    if name == "mnist10":
        return mnist_classes(7291)
    return load_task(name, 0)


def design(model, X):
    """``Ψ`` of the fitted model's relevant basis (the bias first where kept)."""
    Psi = model.kernel(X, model.points)
    if model.predictor.bias_feature:
        Psi = np.column_stack([np.ones(len(X)), Psi])
    return Psi


def final_e_step(model, X, t, sigma_in):
    """The fitted model's relevant basis, its weights' posterior and EP sites, from
    an E-step run to convergence at the fitted ``α`` (the fit's last one may have
    stopped on its iteration cap: both predictives are scored on this one)."""
    Psi = design(model, X)
    posterior, sites = ep_e_step(
        Psi, model.details["alpha"], t, sigma_in, max_iter=1000, tol=1e-10
    )
    return Psi, posterior, sites


def predictives(model, Psi, posterior, sites, X, X_test, alpha_stars):
    """The RVM's latent means and variances at ``X_test``, then the augmented
    model's for each ``α*``."""
    omega, nu = sites.omega, sites.nu
    Sigma = posterior.covariance()
    Psi_star = design(model, X_test)  # m × r
    mean = Psi_star @ posterior.mean
    var = np.einsum("jr,rs,js->j", Psi_star, Sigma, Psi_star)
    K_star = model.kernel(X, X_test)  # n × m
    U = Psi.T @ (omega[:, None] * K_star)  # r × m
    SU = Sigma @ U
    data = np.einsum("ij,i,ij->j", K_star, omega, K_star) - np.sum(U * SU, axis=0)
    e = model.kernel.diag(X_test) - np.einsum("jr,rj->j", Psi_star, SU)
    q = K_star.T @ (nu - omega * (Psi @ posterior.mean))
    out = [(mean, var)]
    for alpha_star in alpha_stars:
        s = alpha_star + data
        out.append((mean + e * q / s, var + e**2 / s))
    return out


def class_log_probabilities(latents, sigma_in):
    """``log P`` of each class from each problem's latent ``(mean, var)``: ``Φ(z)`` and
    ``1 − Φ(z)`` for one binary problem, the one-vs-rest ``Φ_k`` normalised beyond
    (the RVM's combination, odds weight 0)."""
    z = np.column_stack([m / np.sqrt(sigma_in**2 + v) for m, v in latents])
    if z.shape[1] == 1:
        return np.column_stack([log_ndtr(-z[:, 0]), log_ndtr(z[:, 0])])
    log_phi = log_ndtr(z)
    return log_phi - logsumexp(log_phi, axis=1, keepdims=True)


def scores(log_p, codes):
    """Error and NLP of class log probabilities against class indices."""
    error = float(np.mean(np.argmax(log_p, axis=1) != codes))
    return error, float(-np.mean(log_p[np.arange(len(codes)), codes]))


def worst_share(log_p, codes, fraction=WORST_FRACTION):
    """The share of the test NLP carried by its worst ``fraction`` of test points."""
    losses = np.sort(-log_p[np.arange(len(codes)), codes])[::-1]
    return float(losses[: max(1, round(fraction * len(losses)))].sum() / losses.sum())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS))
    parser.add_argument("--alpha-star", type=float, nargs="+", default=[1.0])
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    names = ["RVM"] + [f"RVM*, α* = {a:g}" for a in args.alpha_star]
    rows = []
    for name in args.sets:
        X, y, X_test, y_test = task(name)
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = RVMClassifier(ard=False, random_state=0).fit(X, y)
        if getattr(clf, "input_scale_", 1.0) != 1.0:
            raise RuntimeError(f"{name}: the fit rescaled its inputs")
        codes = np.searchsorted(clf.classes_, y_test)
        fitted_nlp = scores(np.log(clf.predict_proba(X_test)), codes)[1]
        positives = clf.classes_[1:] if len(clf.classes_) == 2 else clf.classes_
        per_problem = []
        with threadpool_limits(1):
            for model, positive in zip(clf.estimators_, positives, strict=True):
                t = np.where(y == positive, 1.0, -1.0)
                Psi, posterior, sites = final_e_step(model, X, t, clf.sigma_in)
                per_problem.append(
                    predictives(
                        model, Psi, posterior, sites, X, X_test, args.alpha_star
                    )
                )
        for k, label in enumerate(names):
            latents = [found[k] for found in per_problem]
            log_p = class_log_probabilities(latents, clf.sigma_in)
            error, nlp = scores(log_p, codes)
            rows.append(
                dict(
                    dataset=name,
                    model=label,
                    error=error,
                    nlp=nlp,
                    fitted_nlp=fitted_nlp,
                    n_relevant=sum(len(m.points) for m in clf.estimators_),
                    mean_sd=float(np.mean([np.sqrt(v).mean() for _, v in latents])),
                    worst_share=worst_share(log_p, codes),
                )
            )
            print(rows[-1], flush=True)
        if args.out:
            save_run(args.out, rows)
    print_table(
        rows,
        [
            ("set", "dataset", "s"),
            ("model", "model", "s"),
            ("error", "error", ".4f"),
            ("NLP", "nlp", ".4f"),
            ("the fitted model's NLP", "fitted_nlp", ".4f"),
            ("relevance vectors", "n_relevant", "d"),
            ("mean latent sd", "mean_sd", ".3f"),
            ("NLP share of the worst 0.5 %", "worst_share", ".2f"),
        ],
    )


if __name__ == "__main__":
    main()
