"""The multi-class FITC model beside libsvm, one-vs-rest FITC, logistic regression, SVGP.

    python -m benchmarks run multiclass digits --out benchmarks/results/multiclass_digits.json
    python -m benchmarks run multiclass classification \
        --out benchmarks/results/multiclass_classification.json
    SPARSEGP_DATA=../shared/data python -m benchmarks run multiclass mnist \
        --out benchmarks/results/multiclass_mnist.json
    SPARSEGP_DATA=../shared/data python -m benchmarks run multiclass mnist \
        --n-train 7291 --n-inducing 100 200 400 --estimators svc fitc_one_vs_rest \
        --out benchmarks/results/multiclass_mnist_7291_sizes.json

Issue 46's sets: ``digits`` is scikit-learn's ``load_digits`` (1 797 images, 64 raw
pixels, 10 classes), a seeded stratified 70/30 split; ``classification`` is
``make_classification(n_samples=50_000, n_features=20, n_informative=10,
n_classes=10, flip_y=0.05, random_state=0)``, a seeded 80/20 split; ``mnist`` is MNIST
13×13 with all ten classes, the 60 000 training and 10 000 test images. Estimators
(``--estimators``, all by default): ``FITCGPClassifier(multi_class="multinomial")``
(the multinomial model), ``FITCGPClassifier()`` (one-vs-rest, its default; same M),
``SVC(C=10, gamma="scale", probability=True)``, ``LogisticRegression``, and
GPyTorch's SVGP with a softmax likelihood at the same M where it is installed
(``[bench]``); and, named only, both FITC models with the isotropic kernel
(``fitc_one_vs_rest_isotropic``, ``fitc_multinomial_isotropic``: ``ard=False``, the
default before 2026-11-28; the default ``"auto"`` takes a length-scale per feature
where the evidence pays for it, algorithms.md §5.8), the multinomial model with an
isotropic kernel and M pseudo-inputs per class (``fitc_multinomial_per_class``,
``shared_prior=False``), full EP one-vs-rest (``ep_one_vs_rest``, the model the
sparse ones approximate; O(n³): digits, or ``--n-train`` of a few thousand), and the
two models each at the other's length-scale, which bound what the kernel the evidence
learns costs against libsvm (algorithms.md §8 item 11): ``svc_at_fitc_length_scale``,
libsvm + Platt with ``γ = 1/(2ℓ²)`` at the geometric mean ``ℓ`` of the isotropic
one-vs-rest FITC's per-class length-scales (name ``fitc_one_vs_rest_isotropic``
before it), and ``fitc_one_vs_rest_at_svc_length_scale``, isotropic one-vs-rest FITC
with its length-scale held at libsvm's ``gamma="scale"``, ``ℓ = √(D·var X / 2)``
(amplitude, bias and pseudo-inputs learnt). One BLAS thread each (threadpoolctl),
``n_jobs`` as given (1 by default); every peer timed in the same run. ``--n-train``
fits on a seeded random subset of the training set; ``--n-inducing`` adds the
multinomial model at each given M (``fitc_multinomial_M``), to measure how its
accuracy and time grow with M; ``--one-vs-rest-inducing`` one-vs-rest FITC at each
given M (``fitc_one_vs_rest_M``)::

    python -m benchmarks run multiclass digits --estimators svc \
        --one-vs-rest-inducing 400 --out /tmp/multiclass_digits_400.json
    SPARSEGP_DATA=../shared/data python -m benchmarks run multiclass mnist \
        --n-train 3000 --estimators svc fitc_one_vs_rest_isotropic \
        svc_at_fitc_length_scale fitc_one_vs_rest_at_svc_length_scale ep_one_vs_rest \
        --out benchmarks/results/multiclass_mnist_3000_length_scales.json
"""

from __future__ import annotations

import argparse
import importlib.util

import numpy as np
from sklearn.datasets import load_digits, make_classification
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from benchmarks._lib.peers import GPyTorchMultiClassSVGP
from sparsegp import EPGPClassifier, FITCGPClassifier
from sparsegp.benchmarking import PlattSVC, evaluate, format_table, save_run
from sparsegp.datasets import load_mnist


def digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


def classification():
    X, y = make_classification(
        n_samples=50_000,
        n_features=20,
        n_informative=10,
        n_classes=10,
        flip_y=0.05,
        random_state=0,
    )
    return train_test_split(X, y, test_size=0.2, random_state=0)


def mnist():
    X, y, X_test, y_test = load_mnist(resolution=13)
    return X, X_test, y, y_test


SETS = {"digits": digits, "classification": classification, "mnist": mnist}


def svc_length_scale(X):
    """The RBF length-scale of libsvm's ``gamma="scale"``, ``1 / (D·var X)``."""
    return float(np.sqrt(X.shape[1] * X.var() / 2.0))


def svc_at_length_scales(fitted):
    """libsvm + Platt at the geometric mean of ``fitted``'s per-class isotropic
    length-scales, as ``γ = 1/(2ℓ²)``."""
    scales = [kernel.k2.length_scale for kernel in fitted.kernel_.kernels]
    length_scale = float(np.exp(np.mean(np.log(scales))))
    return PlattSVC(C=10.0, gamma=0.5 / length_scale**2, random_state=0)


def estimators(X, n_jobs):
    """The compared estimators by name; the sparse ones at FITC's default M."""
    M = FITCGPClassifier()._inducing_size(len(X))
    held = ConstantKernel(1.0) * RBF(svc_length_scale(X), length_scale_bounds="fixed")
    svc = PlattSVC(C=10.0, random_state=0)
    return {
        "fitc_multinomial": FITCGPClassifier(
            multi_class="multinomial", random_state=0, n_jobs=n_jobs
        ),
        "fitc_one_vs_rest": FITCGPClassifier(random_state=0, n_jobs=n_jobs),
        "svc": svc,
        "logistic": LogisticRegression(max_iter=5000),
        "svgp_softmax": GPyTorchMultiClassSVGP(n_inducing=M),
        "fitc_one_vs_rest_isotropic": FITCGPClassifier(
            ard=False, random_state=0, n_jobs=n_jobs
        ),
        "fitc_multinomial_isotropic": FITCGPClassifier(
            ard=False, multi_class="multinomial", random_state=0, n_jobs=n_jobs
        ),
        "fitc_multinomial_per_class": FITCGPClassifier(
            multi_class="multinomial",
            shared_prior=False,
            ard=False,
            random_state=0,
            n_jobs=n_jobs,
        ),
        "ep_one_vs_rest": EPGPClassifier(random_state=0, n_jobs=n_jobs),
        "fitc_one_vs_rest_at_svc_length_scale": FITCGPClassifier(
            held, ard=False, random_state=0, n_jobs=n_jobs
        ),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", choices=sorted(SETS))
    parser.add_argument("--estimators", nargs="*", default=None)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--n-train", type=int, default=None)
    parser.add_argument("--n-inducing", type=int, nargs="*", default=[])
    parser.add_argument("--one-vs-rest-inducing", type=int, nargs="*", default=[])
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    X, X_test, y, y_test = SETS[args.data]()
    if args.n_train is not None and args.n_train < len(X):
        subset = np.random.default_rng(0).choice(len(X), args.n_train, replace=False)
        X, y = X[subset], y[subset]
    candidates = estimators(X, args.n_jobs)
    for M in args.n_inducing:
        candidates[f"fitc_multinomial_{M}"] = FITCGPClassifier(
            n_inducing=M, multi_class="multinomial", random_state=0, n_jobs=args.n_jobs
        )
    for M in args.one_vs_rest_inducing:
        candidates[f"fitc_one_vs_rest_{M}"] = FITCGPClassifier(
            n_inducing=M, random_state=0, n_jobs=args.n_jobs
        )
    names = (
        (args.estimators or list(candidates)[:5])
        + [f"fitc_multinomial_{M}" for M in args.n_inducing]
        + [f"fitc_one_vs_rest_{M}" for M in args.one_vs_rest_inducing]
    )
    if "svgp_softmax" in names and importlib.util.find_spec("gpytorch") is None:
        print("svgp_softmax: gpytorch is not installed ([bench] extra); skipped")
        names.remove("svgp_softmax")
    results, extra, fits = [], {}, {}
    for name in names:
        if name == "svc_at_fitc_length_scale":
            if "fitc_one_vs_rest_isotropic" not in fits:
                parser.error(f"{name} needs fitc_one_vs_rest_isotropic named before it")
            candidates[name] = svc_at_length_scales(fits["fitc_one_vs_rest_isotropic"])
        with threadpool_limits(1):
            result, fitted = evaluate(
                candidates[name], X, y, X_test, y_test, name=name, dataset=args.data
            )
        results.append(result)
        fits[name] = fitted
        if name.startswith("fitc"):
            extra[name] = {
                "n_inducing": len(fitted.estimators_[0].points),
                "n_evaluations": int(np.sum(fitted.n_iter_)),
                "kernel": str(fitted.kernel_),
                "variance_scale": fitted.variance_scale_,
                "ard": [bool(m.details.get("ard")) for m in fitted.estimators_],
            }
        print(
            f"{args.data} {name}: {result.error:.2%} / {result.nlp:.4f} nats, "
            f"fit {result.fit_seconds:.1f} s",
            flush=True,
        )
        if args.out:  # after every estimator: a long peer cut short loses nothing
            save_run(args.out, results, n_train=len(X), n_test=len(X_test), fits=extra)
    print(format_table(results))


if __name__ == "__main__":
    main()
