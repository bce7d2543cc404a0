"""Likelihoods and their Gaussian-averaged moments.

Every approximation in the package (EP, ADF, the online GP, mean-field RVM) needs the same
three numbers for a latent ``f ~ N(mu, var)``: the log of the averaged likelihood
``log Z = log ∫ p(y | f) N(f | mu, var) df`` and its first two derivatives with respect
to ``mu``. algorithms.md §0.2 (Lemma P) states them; this module evaluates them stably.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np
from scipy.special import erfcx, log_ndtr, logsumexp, ndtr

from . import _probit

_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
_SQRT_2 = math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_ASYMPTOTIC_Z = _probit.ASYMPTOTIC_Z


#: What a moment holds: an array over sites, or a float for one site.
Values = TypeVar("Values", np.ndarray, float)


@dataclass(frozen=True)
class Moments(Generic[Values]):
    """Log partition and derivatives of an averaged likelihood.

    Attributes
    ----------
    log_z : ndarray
        ``log Z(mu, var)``.
    g : ndarray
        ``d log Z / d mu``.
    w : ndarray
        ``-d² log Z / d mu²``, clamped into ``[1e-300, (1 - 1e-12) / var]``.
    z : ndarray or None
        The probit argument ``λ y (mu + b) / sqrt(1 + λ² var)`` (probit only).
    """

    log_z: Values
    g: Values
    w: Values
    z: Values | None = None


def inverse_mills_ratio(z):
    """Return ``ρ(z) = φ(z) / Φ(z)``, accurate for every real ``z``.

    ``ρ = √(2/π) / erfcx(−z/√2)`` everywhere (``Φ(z) = ½ e^{−z²/2} erfcx(−z/√2)``): one
    pass, no exponent of ``−z²/2 − log Φ(z)``, whose two large terms cancel for
    ``z < 0`` (at ``z = −30`` that cost ``ρ`` ten digits of ``z + ρ``). Above
    ``z ≈ 37.6`` ``erfcx`` overflows and ``ρ = 0`` (its value is below 1e-307).
    """
    with np.errstate(over="ignore"):
        return _SQRT_2_OVER_PI / erfcx(-np.asarray(z, dtype=float) / _SQRT_2)


def probit_curvature(z, rho=None):
    """Return ``ρ(z)(z + ρ(z))`` with an asymptotic series for ``z < -30``.

    The direct form cancels catastrophically in the far left tail (algorithms.md
    §0.2); there ``1 - z⁻² + 6z⁻⁴ - 50z⁻⁶ + 518z⁻⁸`` is accurate to 2e-11.
    """
    z = np.asarray(z, dtype=float)
    rho = inverse_mills_ratio(z) if rho is None else rho
    direct = rho * (z + rho)
    if not np.any(z < _ASYMPTOTIC_Z):
        return direct
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        inv2 = 1.0 / (z * z)
        series = 1.0 - inv2 + 6 * inv2**2 - 50 * inv2**3 + 518 * inv2**4
    return np.where(z < _ASYMPTOTIC_Z, series, direct)


@dataclass(frozen=True)
class Probit:
    """Probit likelihood ``p(y | f) = Φ(λ y (f + b))`` for labels ``y ∈ {-1, +1}``.

    Parameters
    ----------
    bias : float
        The bias ``b`` added to the latent function ([NGH07] calls it ``β``).
    slope : float
        The slope ``λ > 0``; it is not identifiable together with the kernel amplitude,
        so estimators keep it at 1 — except the NLP classifier, whose hyperparameter
        step holds the sites, where ``λ`` is not redundant (algorithms.md §2.5).
    """

    bias: float = 0.0
    slope: float = 1.0

    def moments(self, mu, var, y) -> Moments:
        """Lemma P of algorithms.md §0.2 at ``f ~ N(mu, var)``."""
        z, s, var, y = self._argument(mu, var, y)
        rho = inverse_mills_ratio(z)
        g = self.slope * y * rho / s
        return Moments(log_z=log_ndtr(z), g=g, w=self._w(z, rho, s, var), z=z)

    def curvature(self, mu, var, y):
        """Lemma P's ``w`` alone (as :meth:`moments` gives it): without ``log Φ`` and
        ``g``, half the cost, for the IVM's selection score ([LSH02] eq. 4)."""
        z, s, var, _ = self._argument(mu, var, y)
        return self._w(z, inverse_mills_ratio(z), s, var)

    def _argument(self, mu, var, y):
        """``z = λ y (mu + b) / s`` with ``s = √(1 + λ² var)``, and the broadcast
        ``var``, ``y``."""
        mu, var, y = np.broadcast_arrays(
            np.asarray(mu, float), np.asarray(var, float), np.asarray(y, float)
        )
        lam = self.slope
        s = np.sqrt(1.0 + lam * lam * var)
        return lam * y * (mu + self.bias) / s, s, var, y

    def _w(self, z, rho, s, var):
        """``w = λ² ρ(z + ρ) / s²``, clamped into ``[1e-300, (1 − 1e-12)/var]``."""
        w = self.slope**2 * probit_curvature(z, rho) / (s * s)
        with np.errstate(divide="ignore"):
            w_max = np.where(var > 0, (1.0 - 1e-12) / var, np.inf)
        return np.clip(w, 1e-300, w_max)

    def scalar_moments(self, mu: float, var: float, y: float) -> Moments[float]:
        """:meth:`moments` for one point, in plain floats: sequential EP's inner loop.

        Numpy's per-call overhead dominates one-element arrays; this is the same
        formula (series tail included), compiled (:func:`sparsegp._probit.moments`).
        """
        z, g, w = _probit.moments(mu, var, y, self.bias, self.slope)
        return Moments(log_z=_probit.log_ndtr(z), g=g, w=w, z=z)

    def predict_proba(self, mean, var):
        """``P(y = +1 | x)`` for a latent predictive ``N(mean, var)`` (algorithms.md §0.1)."""
        return ndtr(self.predictive_z(mean, var))

    def predictive_z(self, mean, var):
        """The probit argument ``λ (mean + b) / sqrt(1 + λ² var)`` of the predictive."""
        lam = self.slope
        return lam * (np.asarray(mean) + self.bias) / np.sqrt(1.0 + lam * lam * var)

    def log_predictive(self, mean, var, y):
        """``log P(y | x)`` for labels in ``{-1, +1}``, computed with ``log Φ``."""
        return log_ndtr(np.asarray(y) * self.predictive_z(mean, var))


@dataclass(frozen=True)
class Gaussian:
    """Gaussian likelihood ``p(y | f) = N(y | f, noise)`` with ``noise > 0``."""

    noise: float

    def moments(self, mu, var, y) -> Moments:
        """Closed-form log Z, g and w (algorithms.md §0.2, last paragraph)."""
        total = np.asarray(var, float) + self.noise
        resid = np.asarray(y, float) - np.asarray(mu, float)
        log_z = -0.5 * (resid * resid / total + np.log(total)) - _LOG_SQRT_2PI
        return Moments(log_z=log_z, g=resid / total, w=1.0 / total)

    def scalar_moments(self, mu: float, var: float, y: float) -> Moments[float]:
        """:meth:`moments` for one point (the same closed form on floats)."""
        return self.moments(mu, var, y)

    def log_predictive(self, mean, var, y):
        """``log N(y | mean, var + noise)`` for a latent predictive ``N(mean, var)``."""
        return self.moments(mean, var, y).log_z

    def curvature(self, mu, var, y):
        """Lemma P's ``w = 1/(var + noise)``."""
        return self.moments(mu, var, y).w


def site_from_cavity(mu_c, var_c, moments: Moments):
    """Moment-matching site ``(τ̃, ν̃)`` for a cavity ``N(mu_c, var_c)`` (algorithms.md §0.3).

    ``τ̃ = w / (1 - var_c w)`` and ``ν̃ = (g + w mu_c) / (1 - var_c w)``; cavity times
    site then has exactly the tilted mean and variance.
    """
    denom = 1.0 - var_c * moments.w
    return moments.w / denom, (moments.g + moments.w * mu_c) / denom


#: The likelihoods every engine accepts (each supplies ``moments(mu, var, y)``).
Likelihood = Probit | Gaussian

#: Entries of the (rows, C, C, nodes) array one block of that quadrature holds.
_QUADRATURE_ENTRIES = 2**21

#: Gauss-Hermite nodes of :meth:`MultinomialProbit.predict_proba`'s one-dimensional
#: integral, centred on the class's own Gaussian: on 10 classes with latent variances
#: 0.05-20 its largest error was 2e-4 of a probability against adaptive quadrature
#: (96 nodes: 6e-6, at twice the time; tests/test_likelihoods.py).
_HERMITE_NODES = 48


@dataclass(frozen=True)
class StepMoments:
    """Moments of one multi-class factor ``Θ(f_y − f_k)`` under independent Gaussian
    cavities of ``f_y`` (the label's latent) and ``f_k`` (algorithms.md §7.2).

    Attributes
    ----------
    log_z : ndarray
        ``log Φ(z)``, ``z = (μ_y − μ_k + b_y − b_k)/s``, ``s² = σ_y² + σ_k²``.
    label, other : Moments
        ``log Z``'s first two derivatives in ``μ_y`` and in ``μ_k``.
    """

    log_z: np.ndarray
    label: Moments
    other: Moments


@dataclass(frozen=True)
class MultinomialProbit:
    """Multinomial probit ``y = argmax_c (f_c + b_c + ε_c)``, ``ε_c ~ N(0, 1)`` i.i.d.

    With the noise folded into the latent priors (``f̃_c = f_c + ε_c``), the
    likelihood is the product of ``C − 1`` steps ``Θ(f̃_y + b_y − f̃_k − b_k)``, each
    on two latents: EP approximates each step by a Gaussian factorised across the
    two ([VH17]; algorithms.md §7.1), so every class keeps its own posterior. Two
    classes give ``Φ((f_1 − f_0 + b_1 − b_0)/√2)``, the binary probit of the latent
    difference.

    Parameters
    ----------
    bias : ndarray of shape (n_classes,)
        Per-class biases ``b_c`` (only their differences matter).
    variance_scale : float, default=1.0
        ``γ``: the predictive probabilities see the latents' variances times ``γ``
        (algorithms.md §7.4), a calibration of the model's under-confident
        predictive; a fitted model carries the ``γ`` of
        :func:`~sparsegp.approximations.multiclass_fitc.fit_variance_scale`. EP
        does not use it.
    """

    bias: np.ndarray
    variance_scale: float = 1.0

    @property
    def n_classes(self) -> int:
        return len(self.bias)

    def step_moments(self, mu_label, var_label, mu_other, var_other, bias_difference):
        """:class:`StepMoments` of the factors ``Θ(f_y − f_k)`` at their cavities.

        ``bias_difference`` is ``b_y − b_k``; all arguments broadcast.
        """
        s2 = np.asarray(var_label, float) + np.asarray(var_other, float)
        s = np.sqrt(s2)
        z = (np.asarray(mu_label, float) - mu_other + bias_difference) / s
        rho = inverse_mills_ratio(z)
        g = rho / s
        w = probit_curvature(z, rho) / s2
        log_z = log_ndtr(z)

        def bounded(variance):
            with np.errstate(divide="ignore"):
                w_max = np.where(variance > 0, (1.0 - 1e-12) / variance, np.inf)
            return np.clip(w, 1e-300, w_max)

        return StepMoments(
            log_z=log_z,
            label=Moments(log_z=log_z, g=g, w=bounded(var_label), z=z),
            other=Moments(log_z=log_z, g=-g, w=bounded(var_other), z=z),
        )

    def log_predict_proba(self, mean, var):
        """``log P(y = c | x)`` for latent predictives ``N(mean, var)``, shape (m, C).

        ``P(y = c) = ∫ N(t | μ_c + b_c, s_c²) Π_{j≠c} Φ((t − μ_j − b_j)/s_j) dt`` with
        ``s² = γσ² + 1`` (algorithms.md §7.4), by Gauss-Hermite quadrature in log
        space, normalised over the classes; O(C²) per point and node, in row blocks.
        """
        mean = np.asarray(mean, float) + self.bias
        scale = np.sqrt(self.variance_scale * np.asarray(var, float) + 1.0)
        rows = max(1, _QUADRATURE_ENTRIES // (self.n_classes**2 * _HERMITE_NODES))
        return np.concatenate(
            [
                _log_class_probabilities(mean[i : i + rows], scale[i : i + rows])
                for i in range(0, len(mean), rows)
            ]
        ).reshape(mean.shape)

    def predict_proba(self, mean, var):
        """``P(y = c | x)`` for latent predictives ``N(mean, var)`` of shape (m, C)."""
        return np.exp(self.log_predict_proba(mean, var))


def _log_class_probabilities(mean, scale):
    """:meth:`MultinomialProbit.log_predict_proba` of a row block, from the biased
    latent means and the noisy latents' standard deviations, both (m, C)."""
    nodes, weights = np.polynomial.hermite.hermgauss(_HERMITE_NODES)
    # t[m, c, q]: the quadrature points of class c's integral
    t = mean[:, :, None] + _SQRT_2 * scale[:, :, None] * nodes
    # log Φ((t − μ_j)/s_j) for every class j, summed over j, less the j = c term
    log_cdf = log_ndtr(
        (t[:, :, None, :] - mean[:, None, :, None]) / scale[:, None, :, None]
    )
    own = log_ndtr(_SQRT_2 * nodes)
    log_terms = log_cdf.sum(axis=2) - own + np.log(weights / np.sqrt(np.pi))
    log_p = logsumexp(log_terms, axis=2)
    return log_p - logsumexp(log_p, axis=1, keepdims=True)
