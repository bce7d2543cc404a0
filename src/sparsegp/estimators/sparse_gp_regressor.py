"""Sparse GP regression with learnt pseudo-inputs (VFE or FITC): the scikit-learn shell."""

from __future__ import annotations

from numbers import Integral

from joblib import effective_n_jobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import Kernel, WhiteKernel
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ..exceptions import warn_at_caller
from ..kernels import (
    check_input_differentiable,
    split_white_noise,
    white_noise_bounds,
)
from ..methods.sparse_regression import SparseRegression, default_starts
from ._base import (
    GPRegressorMixin,
    fifth_up_to,
    report_progress,
    warn_at_bounds,
)
from ._input_units import in_input_units

#: The largest ``M`` that ``n_inducing=None`` picks (N/5 below it): an evaluation of
#: the bound costs O(N·M²), and the fit a few hundred of them.
DEFAULT_MAX_INDUCING = 200


class SparseGPRegressor(GPRegressorMixin):
    """Sparse GP regression with M learnt pseudo-inputs: VFE (SGPR) or FITC (SPGP).

    The pseudo-inputs start at k-means centres of the training inputs and move with
    the kernel's hyperparameters and the noise, all learnt by L-BFGS-B on a
    closed-form objective and its analytic gradient: Titsias's collapsed variational
    bound (``"vfe"``) or FITC's evidence (``"fitc"``), each O(n·M²) time and O(n·M)
    memory per evaluation, the rows in blocks on ``n_jobs`` threads (algorithms.md
    §6.3). Prediction costs O(M) for the mean and O(M²) for the variance.

    Parameters
    ----------
    kernel : sklearn kernel with a WhiteKernel summand, default=None
        ``None`` means ``ConstantKernel(1.0) * RBF(ℓ₀) + WhiteKernel(0.1)``; the
        ``WhiteKernel`` level is the noise variance, learnt within its bounds (kept
        where they are ``"fixed"``).
    n_inducing : int, default=None
        Pseudo-inputs ``M``; ``None`` means N/5, at most ``DEFAULT_MAX_INDUCING``.
    approximation : {"vfe", "fitc"}, default="vfe"
        ``"vfe"`` maximises a lower bound on the exact evidence, so more pseudo-inputs
        never make the fit worse; FITC's evidence is of a different model, which can
        over-fit and under-estimate the noise [BvdWR16].
    ard : bool, default=True
        A length-scale per feature in the default kernel (``False``: one); a given
        ``kernel`` is used as it is. Unlike the classifiers' default (their papers'
        isotropic kernel), regression keeps ARD: where few inputs matter, an
        isotropic kernel explains the targets as noise (algorithms.md §6.3).
    optimizer : "fmin_l_bfgs_b" or None, default="fmin_l_bfgs_b"
        ``None`` keeps the kernel, the noise and the k-means pseudo-inputs.
    max_iter : int, default=200
        L-BFGS-B iterations.
    learn_inducing : bool, default=True
        Whether the pseudo-inputs are learnt (else kept at the k-means centres).
    normalize_y : bool, default=True
        Fit the standardised targets, as ``GaussianProcessRegressor(normalize_y=True)``.
    n_jobs : int, default=None
        Threads the row blocks run on (``None``: one).
    random_state : int, RandomState or None, default=None
        Draws of the k-means start.
    verbose : int, default=0
        1 reports the fit's end, 2 adds the optimizer's progress bar.

    Attributes
    ----------
    kernel_ : Kernel
        Learnt kernel, ``WhiteKernel`` term included (in normalised units).
    noise_variance_ : float
        The learnt noise variance in the targets' units.
    inducing_points_ : ndarray of shape (M, n_features)
        Learnt pseudo-inputs, in ``X``'s units.
    log_marginal_likelihood_value_ : float
        The objective at the end: VFE's bound or FITC's evidence (normalised units).
    n_iter_ : int
        Objective evaluations.
    converged_ : bool
        Whether L-BFGS-B stopped on its tolerance, not its iteration limit.
    y_mean_, y_std_ : float
        The target normalisation (0 and 1 without ``normalize_y``).

    References
    ----------
    [Tit09] Titsias, M. (2009). Variational learning of inducing variables in sparse
    Gaussian processes. AISTATS.
    [SG06] Snelson, E. and Ghahramani, Z. (2006). Sparse Gaussian processes using
    pseudo-inputs. NIPS 18.
    [BvdWR16] Bauer, M., van der Wilk, M. and Rasmussen, C. E. (2016). Understanding
    probabilistic sparse Gaussian process approximations. NIPS 29.

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from sparsegp import SparseGPRegressor
    >>> X, y = make_friedman1(n_samples=500, noise=1.0, random_state=0)
    >>> reg = SparseGPRegressor(n_inducing=30, random_state=0).fit(X, y)
    >>> reg.inducing_points_.shape
    (30, 10)
    """

    _fits_dask_arrays = True

    _parameter_constraints: dict = {
        "kernel": [None, Kernel],
        "n_inducing": [None, Interval(Integral, 1, None, closed="left")],
        "approximation": [StrOptions({"vfe", "fitc"})],
        "ard": ["boolean"],
        "optimizer": [StrOptions({"fmin_l_bfgs_b"}), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "learn_inducing": ["boolean"],
        "normalize_y": ["boolean"],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel=None,
        *,
        n_inducing=None,
        approximation="vfe",
        ard=True,
        optimizer="fmin_l_bfgs_b",
        max_iter=200,
        learn_inducing=True,
        normalize_y=True,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.kernel = kernel
        self.n_inducing = n_inducing
        self.approximation = approximation
        self.ard = ard
        self.optimizer = optimizer
        self.max_iter = max_iter
        self.learn_inducing = learn_inducing
        self.normalize_y = normalize_y
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    #: Two samples at least: one cannot tell a function from its noise.
    _min_samples = 2

    def _fit_model(self, X, y):
        """The pseudo-inputs, the kernel and the noise learnt from ``X``, ``y`` (a
        dask array's rows stay on the workers of the active ``distributed.Client``,
        in the in-memory fit's row blocks)."""
        starts = self._starts(X)
        kernel = self.kernel
        if kernel is None:
            kernel = starts[0][0] + WhiteKernel(starts[0][1])
        model = self._method(X, kernel).fit(
            X,
            y,
            starts,
            check_random_state(self.random_state),
            report=lambda line: report_progress(self, line),
        )
        fitted = model.kernel + WhiteKernel(
            model.likelihood.noise, white_noise_bounds(kernel)
        )
        if self.optimizer is not None:
            warn_at_bounds(fitted, self)
            if not model.converged:
                warn_at_caller(
                    f"SparseGPRegressor: L-BFGS-B stopped at max_iter={self.max_iter} "
                    "iterations before its tolerance; raise max_iter for a higher "
                    "bound.",
                    ConvergenceWarning,
                )
        return model, fitted

    def _starts(self, X):
        """The ``(kernel, noise)`` starts of the fit: the given kernel as it is, or
        the method's default ones (:func:`default_starts`)."""
        if self.kernel is not None:
            latent, noise = split_white_noise(self.kernel)
            if self.optimizer is not None:
                check_input_differentiable(latent)
            return [(latent, noise)]
        return default_starts(X, self.ard)

    def _method(self, X, kernel) -> SparseRegression:
        """The fit's settings: M from ``n_inducing`` (N/5 up to the cap), the noise
        learnt within its ``WhiteKernel``'s bounds (held where they are fixed)."""
        n_inducing = self.n_inducing or fifth_up_to(len(X), DEFAULT_MAX_INDUCING)
        if n_inducing > len(X):
            raise ValueError(
                f"n_inducing={n_inducing} exceeds the {len(X)} training points."
            )
        bounds = white_noise_bounds(kernel)
        learn = self.optimizer is not None
        return SparseRegression(
            approximation=self.approximation,
            n_inducing=n_inducing,
            max_iter=self.max_iter if learn else None,
            learn_inducing=self.learn_inducing,
            noise_bounds=None
            if isinstance(bounds, str)
            else (float(bounds[0]), float(bounds[1])),
            n_threads=self._n_threads(),
            progress="SparseGPRegressor" if self.verbose >= 2 else None,
        )

    def _n_threads(self):
        return max(1, effective_n_jobs(self.n_jobs))

    @property
    def inducing_points_(self):
        """Learnt pseudo-inputs, in ``X``'s units."""
        return in_input_units(self, self.model_.points)

    @property
    def noise_variance_(self):
        """The learnt noise variance, in the targets' units squared."""
        return self.model_.likelihood.noise * self.y_std_**2
