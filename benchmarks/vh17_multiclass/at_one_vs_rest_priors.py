"""The multinomial likelihood on one-vs-rest's own priors: what the likelihood is worth.

    SPARSEGP_DATA=../shared/data python -m benchmarks run at_one_vs_rest_priors \
        --out benchmarks/results/multiclass_at_one_vs_rest_priors.json

One-vs-rest FITC (``FITCGPClassifier()``, its default M) learns a kernel, pseudo-inputs
and a bias per class. The same priors — each class's latent function on its binary
model's kernel and pseudo-inputs, its bias the binary model's — are then given to the
multinomial model's EP (algorithms.md §7: the multinomial probit, EP to ``tol = 10⁻⁵``,
nothing learnt), and its probabilities read at ``γ = 1`` and at the ``γ`` fitted by its
cavities as ``fit`` fits it (§7.4). Beside them the multinomial model fitted with its
defaults (one kernel, M shared pseudo-inputs) and with ``shared_prior=False`` (a kernel
and M pseudo-inputs per class, learnt). Where the multinomial EP on one-vs-rest's own
priors trails one-vs-rest, the gap is the likelihood's and its EP's, not the priors'
(algorithms.md §8 item 7). Sets: scikit-learn's digits (the ``multiclass`` benchmark's
split), MNIST 13×13 ten classes (7 291 seeded training images, 10 000 test), and the
``multiclass`` benchmark's ``make_classification`` set on a seeded 8 000-point subset
of its training set. One BLAS thread; test error, NLP, fit seconds.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks._lib.cluster import print_table
from benchmarks._lib.tasks import mnist_classes
from benchmarks.vh17_multiclass.multiclass import classification, digits
from sparsegp import FITCGPClassifier
from sparsegp.approximations.ep import leave_one_out, run_ep
from sparsegp.approximations.multiclass_fitc import (
    InMemoryMultiClassFITC,
    fit_variance_scale,
)
from sparsegp.benchmarking import save_run
from sparsegp.kernels import KernelPerClass
from sparsegp.likelihoods import MultinomialProbit

EP_OPTIONS = dict(mode="parallel", damping=0.8, tol=1e-5, max_sweeps=1000)


def tasks():
    yield "digits", *digits()
    X, labels, X_test, labels_test = mnist_classes(7291)
    yield "MNIST 10 classes, 7 291", X, X_test, labels, labels_test
    X, X_test, y, y_test = classification()
    subset = np.random.default_rng(0).choice(len(X), 8000, replace=False)
    yield "make_classification, 8 000", X[subset], X_test, y[subset], y_test


def scores(proba, codes):
    p_true = np.clip(proba[np.arange(len(codes)), codes], 1e-300, 1.0)
    return dict(
        error=float(np.mean(np.argmax(proba, axis=1) != codes)),
        nlp=float(-np.mean(np.log(p_true))),
    )


def on_one_vs_rest_priors(one_vs_rest, X, y, X_test):
    """Multinomial EP on ``one_vs_rest``'s kernels, pseudo-inputs and biases (in
    ``X``'s units): the test probabilities at ``γ = 1`` and at the fitted ``γ``."""
    kernel = KernelPerClass(one_vs_rest.kernel_.kernels)
    Z_sets = one_vs_rest.inducing_points_
    n_classes = len(one_vs_rest.classes_)
    data = InMemoryMultiClassFITC(
        X,
        np.searchsorted(one_vs_rest.classes_, y),
        n_classes,
        one_vs_rest.jitter,
        differentiable=False,
        per_class_priors=True,
    )
    likelihood = MultinomialProbit(np.asarray(one_vs_rest.bias_, dtype=float))
    state = run_ep(
        data.posterior(kernel, np.vstack(Z_sets), None), None, likelihood, **EP_OPTIONS
    )
    predictor = data.predictor(state)
    K_cross = np.vstack(
        [k(Z, X_test) for k, Z in zip(kernel.kernels, Z_sets, strict=True)]
    )
    mean, var = predictor.latent_mean_and_variance(K_cross, kernel.diag(X_test))
    fitted = fit_variance_scale(likelihood, *leave_one_out(state), data.labels)
    return {
        "γ = 1": likelihood.predict_proba(mean, var),
        f"fitted γ = {fitted.variance_scale:.2f}": fitted.predict_proba(mean, var),
    }, state


def models():
    yield "one-vs-rest", dict(ard=False)
    yield "multinomial, shared prior", dict(multi_class="multinomial", ard=False)
    yield (
        "multinomial, prior per class",
        dict(multi_class="multinomial", shared_prior=False, ard=False),
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    rows = []
    for task, X, X_test, y, y_test in tasks():
        fitted = {}
        for name, options in models():
            with threadpool_limits(1), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # iteration caps, reported in the note
                start = time.perf_counter()
                fitted[name] = FITCGPClassifier(random_state=0, **options).fit(X, y)
                seconds = time.perf_counter() - start
            codes = np.searchsorted(fitted[name].classes_, y_test)
            proba = fitted[name].predict_proba(X_test)
            rows.append(dict(task=task, model=name, fit_seconds=seconds))
            rows[-1] |= scores(proba, codes)
            print(rows[-1], flush=True)
        with threadpool_limits(1):
            start = time.perf_counter()
            readings, state = on_one_vs_rest_priors(fitted["one-vs-rest"], X, y, X_test)
            seconds = time.perf_counter() - start
        for reading, proba in readings.items():
            rows.append(
                dict(
                    task=task,
                    model=f"multinomial EP on one-vs-rest's priors, {reading}",
                    fit_seconds=seconds,
                    **scores(proba, codes),
                )
            )
            print(rows[-1], f"({state.n_sweeps} sweeps)", flush=True)
    print_table(
        rows,
        [
            ("task", "task", "s"),
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
