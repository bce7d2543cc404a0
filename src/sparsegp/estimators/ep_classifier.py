"""The full GP classifier with expectation propagation: the reference for every sparse one."""

from __future__ import annotations

import time
from numbers import Integral, Real

from sklearn.gaussian_process.kernels import Kernel
from sklearn.utils._param_validation import Interval, StrOptions

from .._memory import require_memory
from ..kernels import is_input_differentiable
from ..methods.fitted import fitted_model
from ..methods.full_ep import ard_by_full_ep, fit_full_ep, full_ep_settings
from ._base import (
    AMPLITUDE_PRIOR_CONSTRAINT,
    ARD_CONSTRAINT,
    CLASSIFIER_RUNTIME_CONSTRAINTS,
    GPClassifierMixin,
    chooses_ard,
    report_progress,
    starting_kernel,
    warn_full_ep_not_converged,
)

#: n × n float64 arrays an EP fit holds at once besides the kernel gradient: K, B and
#: its Cholesky factor (one array), the factor's inverse, and B⁻¹ (for the gradient)
#: or the sequential sweep's V and Σ.
_DENSE_ARRAYS = 5


class EPGPClassifier(GPClassifierMixin):
    """Gaussian-process classifier with a probit likelihood and EP inference.

    The full (non-sparse) GP classifier every sparse estimator of the package is
    compared with: EP as in Rasmussen & Williams (2006), Alg. 3.5, in the stable
    ``B = I + S̃½ K S̃½`` form, with kernel hyperparameters and the probit bias ``b``
    chosen by maximising the EP evidence with its analytic gradient ([RW06] eq. 5.27).

    .. math:: p(y \\mid f) = \\Phi(y (f + b)), \\qquad f \\sim GP(0, k).

    Cost: O(n³) per EP sweep and per evidence gradient, O(n²) memory.

    Parameters
    ----------
    kernel : sklearn kernel, default=None
        Prior covariance. ``None`` means ``ConstantKernel(1.0) * RBF(ℓ₀)`` with both
        hyperparameters learnt; ``ℓ₀ = √(Σ_d var x_d)`` is ``√D`` for standardised
        inputs and follows inputs in any units.
    ard : bool or "auto", default=False
        One length-scale per feature in the default kernel. ``False`` is [RW06]'s
        isotropic kernel. ``"auto"`` fits the isotropic kernel, screens the ARD
        kernel from its optimum and keeps ARD where its log evidence is higher by
        more than the ``D − 1`` length-scales it adds: it pays where features are
        irrelevant or in other units, at two to three times the isotropic fit's
        time there, and did not pass the defaults gate (algorithms.md §5.8).
        ``True`` learns ARD length-scales. With a given ``kernel``, ``"auto"``
        keeps it.
    optimizer : "fmin_l_bfgs_b" or None, default="fmin_l_bfgs_b"
        ``None`` keeps the kernel and ``bias`` fixed.
    n_restarts_optimizer : int, default=0
        Extra optimizer runs from random points inside the kernel bounds; the run with
        the highest evidence wins.
    max_iter_optimizer : int, default=100
        L-BFGS-B iterations per optimizer run.
    learn_bias : bool, default=True
        Learn the probit bias ``b`` with the kernel. A zero bias loses badly on
        unbalanced or off-centre problems (e.g. ringnorm).
    bias : float, default=0.0
        Initial (or, with ``learn_bias=False``, fixed) bias.
    ep_mode : {"parallel", "sequential"}, default="parallel"
        Parallel EP updates all sites from the same marginals, then refreshes the
        posterior in O(n³); sequential EP ([RW06] Alg. 3.5) updates sites one by one with
        rank-one changes in random order.
    damping : float in (0, 1], default=1.0
        Fraction of each moment-matched site change applied at first; halved when
        the sites stop changing less from sweep to sweep (parallel EP oscillates
        without damping on some problems). Parallel sweeps are Anderson-accelerated.
        Starting undamped takes fewer sweeps than 0.5 to the same fixed point.
    tol : float, default=1e-3
        The optimizer stops when an iteration improves the evidence by less than
        this fraction. Each evaluation's EP run settles the log evidence to
        ``tol / 10`` (relative) and the sites to ``√tol``, or the sites alone to
        ``tol / 10``; the fitted model's final EP run settles both to ``tol / 100``.
        ``FITCGPClassifier``'s default too. Against ``1e-4``: faster, with test error
        and NLP within one standard deviation on the IDA sets, the log evidence
        slightly lower where the optimizer stops earlier; pass ``1e-4`` to compare
        models by their evidence more finely.
    max_sweeps : int, default=200
        Maximum EP sweeps per evidence evaluation.
    amplitude_prior : float or None, default=3.0
        Standard deviation ``s`` of a normal prior on the log of the kernel's learnt
        amplitude (``log σ²`` of each ``ConstantKernel`` factor, centred at 0): the
        hyperparameters maximise the EP evidence times this prior (algorithms.md
        §5.8). On (nearly) separable data the evidence keeps growing with the
        amplitude, and the latent means and variances grow with it (standardised
        breast cancer, FITC: latent means to ±420 with standard deviations to 131);
        the prior settles them (±31, 10), and each estimator's mean test NLP over
        eight small sets fell with it (algorithms.md §5.8).
        ``None``: the evidence alone, as [RW06] and the papers.
    n_jobs : int, default=None
        Parallel one-vs-rest problems (joblib).
    random_state : int, RandomState instance or None, default=None
        Seeds optimizer restarts and sequential visiting orders.
    verbose : int, default=0
        1 shows a progress bar over the optimizer's iterations and reports each
        fitted problem, 2 also each evidence evaluation.

    Attributes
    ----------
    odds_weight_ : float
        How the one-vs-rest probabilities of more than two classes combine: ``P(k) ∝ Φ_k
        (1 − Φ_k)^(−w)``, fitted in [0, 1] by the leave-one-out likelihood of the
        training labels from the binary models' EP cavities (algorithms.md §7.5); 0 (the
        ``Φ_k`` normalised) for two classes.
    n_iter_ : int or ndarray
        Evidence evaluations of the optimizer (each an EP run to convergence),
        per one-vs-rest problem.
    converged_ : bool
        The optimizer stopped on its tolerance and the final EP run on ``tol``
        (not on ``max_iter_optimizer`` / ``max_sweeps``); a
        ``ConvergenceWarning`` says when not.
    classes_ : ndarray of shape (n_classes,)
    kernel_ : Kernel
        Learnt kernel (a ``CompoundKernel`` of one kernel per class beyond two classes).
    bias_ : float or ndarray of shape (n_classes,)
        Learnt probit bias.
    log_marginal_likelihood_value_ : float
        EP log evidence at the learnt hyperparameters (mean over one-vs-rest problems).
    estimators_ : list of FittedModel
        One fitted model per binary problem.

    References
    ----------
    [RW06] Rasmussen, C. E. and Williams, C. K. I. (2006). *Gaussian Processes for
    Machine Learning*, Alg. 3.5-3.6 and §5.5.2. MIT Press.

    Examples
    --------
    >>> from sparsegp import EPGPClassifier
    >>> from sparsegp.datasets import make_xor_clusters
    >>> X, y = make_xor_clusters(60, random_state=0)
    >>> clf = EPGPClassifier(random_state=0).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    """

    _parameter_constraints: dict = {
        "kernel": [None, Kernel],
        "ard": ARD_CONSTRAINT,
        "optimizer": [StrOptions({"fmin_l_bfgs_b"}), None],
        "n_restarts_optimizer": [Interval(Integral, 0, None, closed="left")],
        "max_iter_optimizer": [Interval(Integral, 1, None, closed="left")],
        "learn_bias": ["boolean"],
        "bias": [Real],
        "ep_mode": [StrOptions({"parallel", "sequential"})],
        "damping": [Interval(Real, 0, 1, closed="right")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_sweeps": [Interval(Integral, 1, None, closed="left")],
        "amplitude_prior": AMPLITUDE_PRIOR_CONSTRAINT,
        **CLASSIFIER_RUNTIME_CONSTRAINTS,
    }

    def __init__(
        self,
        kernel=None,
        *,
        ard=False,
        optimizer="fmin_l_bfgs_b",
        n_restarts_optimizer=0,
        max_iter_optimizer=100,
        learn_bias=True,
        bias=0.0,
        ep_mode="parallel",
        damping=1.0,
        tol=1e-3,
        max_sweeps=200,
        amplitude_prior=3.0,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.ard = ard
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.max_iter_optimizer = max_iter_optimizer
        self.learn_bias = learn_bias
        self.bias = bias
        self.ep_mode = ep_mode
        self.damping = damping
        self.tol = tol
        self.max_sweeps = max_sweeps
        self.amplitude_prior = amplitude_prior
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _check_training_size(self, X):
        n = len(X)
        kernel = self.kernel  # None: the default kernel, input-differentiable
        gradient_arrays = 0  # scikit-learn's (n, n, p) derivatives, where needed
        if (
            self.optimizer is not None
            and kernel is not None
            and not is_input_differentiable(kernel)
        ):
            gradient_arrays = kernel.n_dims
        arrays = _DENSE_ARRAYS + gradient_arrays
        require_memory(
            arrays * 8.0 * n * n,
            f"full EP's n × n matrices (about {arrays} float64 arrays of {n} × {n}: "
            "the kernel matrix, its gradient per hyperparameter, the posterior)",
            "use a sparse classifier (FITCGPClassifier, IVMClassifier) or fit on "
            "a subsample",
        )

    def _fit_binary(self, X, y, random_state):
        start = time.perf_counter()
        kernel = starting_kernel(self, X)
        settings = full_ep_settings(
            optimize=self.optimizer is not None,
            max_iter=self.max_iter_optimizer,
            learn_bias=self.learn_bias,
            ep_mode=self.ep_mode,
            damping=self.damping,
            tol=self.tol,
            max_sweeps=self.max_sweeps,
            n_restarts=self.n_restarts_optimizer,
            random_state=random_state,
            amplitude_prior=self.amplitude_prior,
            progress="EPGPClassifier: EP evidence" if self.verbose else None,
            report=lambda line: report_progress(self, level=2, message=line),
        )

        def warn(fit):
            warn_full_ep_not_converged(self, fit, settings, "raise max_iter_optimizer")

        fit = fit_full_ep(X, y, kernel, self.bias, settings)
        warn(fit)
        model = fitted_model(fit)
        if chooses_ard(self, X):
            model = ard_by_full_ep(X, y, model, settings, warn, random_state)
        report_progress(
            self,
            message=f"EPGPClassifier: n={len(y)} "
            f"log Z_EP={model.log_marginal_likelihood:.3f} kernel={model.kernel} "
            f"bias={model.likelihood.bias:.3f} ({time.perf_counter() - start:.1f} s)",
        )
        return model
