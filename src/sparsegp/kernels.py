"""What scikit-learn's kernels lack here.

The noise term apart, fast kernel rows, and the cross-covariance and input gradients
pseudo-input methods need (scikit-learn differentiates ``K(X, X)`` only).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np
from numpy.typing import ArrayLike, DTypeLike
from sklearn.gaussian_process.kernels import CompoundKernel, Kernel, Sum

from . import kernel_expression as expression

#: One term of :class:`KernelBlocks`' sum: rows, columns, ``log c_t``.
_Term = tuple[np.ndarray, np.ndarray, "float | np.ndarray"]


def split_white_noise(kernel: Kernel) -> tuple[Kernel, float]:
    """Split ``kernel`` into its latent part and the level of its ``WhiteKernel`` term.

    Regressors follow ``GaussianProcessRegressor``: the Gaussian noise is a
    ``WhiteKernel`` summand, so a fitted ``GaussianProcessRegressor().kernel_`` can be
    passed as is.

    Returns
    -------
    latent : Kernel
        ``kernel`` without the ``WhiteKernel`` summand.
    noise_level : float

    Raises
    ------
    ValueError
        If there is no ``WhiteKernel`` summand, nothing but one, or its level is not
        positive.
    """
    latent, noise = _split_white_noise(kernel)
    if noise <= 0:
        raise ValueError(f"The WhiteKernel noise level must be positive; got {noise}.")
    return latent, noise


def white_noise_bounds(kernel: Kernel) -> tuple[float, float] | str:
    """The bounds of ``kernel``'s ``WhiteKernel`` level (``"fixed"`` where it is held);
    ``ValueError`` as :func:`split_white_noise` where it has none."""
    _split_white_noise(kernel)
    white = _white_summand(expression.parse(kernel))
    assert white is not None
    bounds = white.kernel.noise_level_bounds
    if isinstance(bounds, str):
        return bounds
    low, high = map(float, bounds)
    return low, high


def _split_white_noise(kernel: Kernel) -> tuple[Kernel, float]:
    white = _white_summand(expression.parse(kernel))
    if white is None:
        raise ValueError(
            f"The kernel {kernel} needs a WhiteKernel summand for the observation "
            "noise, e.g. ConstantKernel() * RBF() + WhiteKernel(0.1), besides a latent "
            "part."
        )
    return _without_summand(kernel, white.path), float(white.kernel.noise_level)


def _white_summand(term: expression.Term) -> expression.White | None:
    """The ``WhiteKernel`` summand of a sum: an operand of the outermost sum (the
    second first), else one found in its first operand, else in its second."""
    if not isinstance(term, expression.Sum):
        return None
    for operand in (term.second, term.first):
        if isinstance(operand, expression.White):
            return operand
    return _white_summand(term.first) or _white_summand(term.second)


def _without_summand(kernel: Kernel, path: expression.Path) -> Kernel:
    """The sum ``kernel`` less its summand at ``path``; where the summand sat deeper,
    the reduced operand comes first and the other operand second."""
    holder, other = (kernel.k1, kernel.k2) if path[0] == 1 else (kernel.k2, kernel.k1)
    if len(path) == 1:
        return other
    return Sum(_without_summand(holder, path[1:]), other)


def offset_names(kernel: Kernel) -> set[str]:
    """Names of the hyperparameters of ``kernel``'s constant offsets: the
    ``ConstantKernel`` terms of its top-level sum (``k2__constant_value`` in
    ``C * RBF + C``)."""
    return _offset_names(expression.parse(kernel))


def _offset_names(term: expression.Term) -> set[str]:
    if isinstance(term, expression.Sum):
        return _offset_names(term.first) | _offset_names(term.second)
    if isinstance(term, expression.Constant):
        return {expression.parameter_prefix(term.path) + "constant_value"}
    return set()


def with_length_scale_per_feature(kernel: Kernel, n_features: int) -> Kernel:
    """``kernel`` with each isotropic RBF or Matérn term given one length-scale per
    feature (automatic relevance determination, [RW06] §5.1), all at the term's
    length-scale and within its bounds: the same function of the inputs, now with
    ``n_features`` length-scales to learn. Terms already ARD are kept; a
    :class:`KernelPerClass` has each of its kernels so made."""
    if isinstance(kernel, KernelPerClass):
        return KernelPerClass(
            [with_length_scale_per_feature(k, n_features) for k in kernel.kernels]
        )
    per_feature = {
        expression.parameter_prefix(leaf.path) + "length_scale": np.full(
            n_features, float(leaf.length_scale)
        )
        for leaf in expression.parse(kernel).leaves()
        if isinstance(leaf, expression.Stationary) and not leaf.anisotropic
    }
    return kernel.clone_with_theta(kernel.theta).set_params(**per_feature)


#: A feature whose spread is below this share of the features' RMS spread weighs
#: less than a tenth of a typical feature in an isotropic kernel's squared distances
#: (algorithms.md §5.8).
NARROW_FEATURE = float(np.sqrt(0.1))


def spread_factors(spreads: ArrayLike) -> np.ndarray | None:
    """Each feature's spread over ``s̄``, the root mean square of the non-zero
    ``spreads`` (the features' standard deviations), 1 for a constant feature; None
    where every feature is constant."""
    spreads = np.asarray(spreads, dtype=float)
    varying = spreads > 0
    if not varying.any():
        return None
    common = float(np.sqrt(np.mean(spreads[varying] ** 2)))
    return np.where(varying, spreads / common, 1.0)


def has_narrow_feature(spreads: ArrayLike) -> bool:
    """Whether some non-constant feature's spread is under :data:`NARROW_FEATURE`
    times ``s̄`` (:func:`spread_factors`): an isotropic kernel hardly sees it."""
    factor = spread_factors(spreads)
    return factor is not None and _any_narrow(factor)


def _any_narrow(factor: np.ndarray) -> bool:
    """Whether some of :func:`spread_factors`' ``factor`` is under
    :data:`NARROW_FEATURE`."""
    return bool(np.any(factor < NARROW_FEATURE))


def with_length_scales_by_spread(kernel: Kernel, spreads: ArrayLike) -> Kernel | None:
    """``kernel`` with each isotropic RBF or Matérn term's length-scale ``ℓ`` given
    per feature as ``ℓ·s_d/s̄``: the term on features standardised to their common
    spread ``s̄`` (the root mean square of the non-zero ``spreads``, the features'
    standard deviations). A constant feature keeps ``ℓ``; each length-scale is held
    within its term's bounds. A second start for automatic relevance determination
    beside :func:`with_length_scale_per_feature`'s (algorithms.md §5.8): from the
    isotropic optimum, a feature far narrower than the others has a length-scale so
    much longer than its spread that the evidence's gradient in it vanishes.

    Returns None where no feature is that narrow (every non-zero spread at least
    :data:`NARROW_FEATURE` times ``s̄``), or for a :class:`KernelPerClass`.
    """
    factor = spread_factors(spreads)
    if isinstance(kernel, KernelPerClass) or factor is None or not _any_narrow(factor):
        return None
    start = with_length_scale_per_feature(kernel, len(factor))
    bounds = start.get_params()
    by_spread = {}
    for leaf in expression.parse(start).leaves():
        if isinstance(leaf, expression.Stationary) and leaf.anisotropic:
            name = expression.parameter_prefix(leaf.path) + "length_scale"
            low, high = np.asarray(bounds[name + "_bounds"], dtype=float).T
            scaled = np.asarray(leaf.length_scale, dtype=float) * factor
            by_spread[name] = np.clip(scaled, low, high)
    return start.set_params(**by_spread)


class KernelPerClass(CompoundKernel):
    """One kernel per latent function of a multi-class model: scikit-learn's
    ``CompoundKernel`` (``θ`` the kernels' in order, ``k(X)`` stacked on a last
    axis) with a ``θ`` setter that splits ``θ`` by each kernel's own size (the
    inherited one reads an attribute ``CompoundKernel`` does not have)."""

    @property
    def theta(self) -> np.ndarray:
        return np.hstack([kernel.theta for kernel in self.kernels])

    @theta.setter
    def theta(self, theta: np.ndarray) -> None:
        start = 0
        for kernel in self.kernels:
            kernel.theta = theta[start : start + kernel.n_dims]
            start += kernel.n_dims

    def __repr__(self) -> str:
        return f"KernelPerClass([{', '.join(map(repr, self.kernels))}])"


def amplitude_mask(kernel: Kernel) -> np.ndarray:
    """Which entries of ``kernel.theta`` are learnt amplitudes: the ``ConstantKernel``
    factors of its products (``k1__constant_value`` in ``C * RBF + C``), not its
    offsets; each kernel's of a ``CompoundKernel``, in order."""
    if (parts := expression.compound_parts(kernel)) is not None:
        return np.concatenate([amplitude_mask(k) for k in parts])
    names = _amplitude_names(expression.parse(kernel))
    free = [h for h in kernel.hyperparameters if not h.fixed]
    return np.array(
        [h.name in names for h in free for _ in range(h.n_elements)], dtype=bool
    )


def _amplitude_names(term: expression.Term) -> set[str]:
    """The learnt constants that are operands of a product, anywhere in ``term``."""
    if not isinstance(term, expression.Sum | expression.Product):
        return set()
    names = set()
    for operand in (term.first, term.second):
        if isinstance(operand, expression.Constant):
            if isinstance(term, expression.Product) and operand.learnt:
                names.add(expression.parameter_prefix(operand.path) + "constant_value")
        else:
            names |= _amplitude_names(operand)
    return names


class KernelColumns:
    """A set of training points prepared for :meth:`KernelBlocks.block`.

    ``parts`` are arrays whose first axis runs over the points: their training indices,
    then per RBF term their augmented scaled inputs in row and in column form. The set
    can be shrunk or have members replaced without re-reading the training inputs.
    """

    def __init__(self, parts: list[np.ndarray]) -> None:
        self.parts = parts

    def take(self, positions: np.ndarray) -> KernelColumns:
        """The points at ``positions`` (a copy)."""
        return KernelColumns([part[positions] for part in self.parts])

    @staticmethod
    def concatenate(first: KernelColumns, second: KernelColumns) -> KernelColumns:
        """The points of ``first`` followed by those of ``second`` (a copy)."""
        return KernelColumns(
            [
                np.concatenate(pair)
                for pair in zip(first.parts, second.parts, strict=True)
            ]
        )

    def replace(self, positions: np.ndarray, other: KernelColumns) -> None:
        """Overwrite the points at ``positions`` with those of ``other``, in place."""
        for part, new in zip(self.parts, other.parts, strict=True):
            part[positions] = new


class KernelBlocks:
    """Blocks ``K(X[rows], X[cols])`` of a kernel on fixed inputs ``X``, fast.

    Active-set methods need many small blocks of one kernel matrix: a kernel row per
    inclusion, a few rows against a few hundred candidates per step. A sum or product
    of ``ConstantKernel``, ``RBF`` (isotropic or ARD) and ``WhiteKernel`` terms is
    expanded once into ``c₀ + Σ_t c_t exp(−½ ‖(x − x′) / ℓ_t‖²)`` (a product of RBFs is
    one RBF; ``WhiteKernel`` is zero between distinct evaluations). Each term's
    exponent ``log c_t − ½‖z‖² − ½‖z′‖² + z·z′`` (``z = x / ℓ_t``) is one inner product
    of inputs augmented once with ``(log c_t − ½‖z‖², 1)`` and ``(1, −½‖z′‖²)``, so a
    block is one matrix product and one ``exp`` per term, with no walk of the kernel
    expression. Any other kernel is evaluated by its own ``__call__``.

    The inputs are centred first (the expanded kernel is stationary), so the norms that
    the inner product subtracts are those of the data's spread, not of its offset.

    Parameters
    ----------
    kernel : sklearn kernel
    X : ndarray of shape (n, n_features)
    dtype : numpy float dtype, default=float64
        Precision of the expanded blocks. In float32 an exponent carries an absolute
        error of about 1e-7·(‖z‖² + ‖z′‖²) (``z`` the centred, scaled inputs): enough
        for the float32 store of the IVM, whose columns have that precision anyway.
    """

    def __init__(
        self, kernel: Kernel, X: np.ndarray, dtype: DTypeLike = np.float64
    ) -> None:
        self.kernel = kernel
        self.X = X
        terms = expression.parse(kernel).expansion()
        self.expanded = terms is not None
        self.constant = 0.0
        self.log_coefficients = []
        #: ``1/ℓ_t`` of each RBF term, and the centre of the inputs.
        self._scales: list[np.ndarray] = []
        self._centre = X.mean(axis=0) if self.expanded and len(X) else 0.0
        parts = [np.arange(len(X))]
        for coefficient, inverse_squares in terms or []:
            if coefficient == 0.0:
                continue
            if inverse_squares is None:
                self.constant += coefficient
                continue
            self._scales.append(np.sqrt(inverse_squares))
            self.log_coefficients.append(np.log(coefficient))
            Z, half_norms = self._scaled(X, len(self._scales) - 1)
            parts += [
                _augmented(Z, self.log_coefficients[-1] - half_norms, 1.0, dtype),
                _augmented(Z, 1.0, -half_norms, dtype),
            ]
        self._all = KernelColumns(parts)

    def _scaled(self, X: np.ndarray, term: int) -> tuple[np.ndarray, np.ndarray]:
        """``z = (x − centre)/ℓ_t`` and ``½‖z‖²`` for the RBF term ``term``."""
        Z = X - self._centre
        Z *= self._scales[term]
        return Z, 0.5 * np.einsum("ij,ij->i", Z, Z)

    def cross(self, X_new: np.ndarray) -> np.ndarray:
        """``K(X, X_new)`` (n × len(X_new), float64): the inputs against new ones.

        The expanded form costs one matrix product and one ``exp`` per RBF term, where
        scikit-learn's ``RBF`` forms the distances by ``cdist`` (17× slower for
        2 400 × 10 000 points in 169 dimensions). Prediction needs exactly this block.
        """
        if not self.expanded:
            return self.kernel(self.X, X_new)
        rows = self._all.parts[1::2][: len(self.log_coefficients)]

        def terms() -> Iterator[_Term]:
            for t, log_coefficient in enumerate(self.log_coefficients):
                Z, half_norms = self._scaled(X_new, t)
                cols = _augmented(Z, 1.0, -half_norms, float)
                yield rows[t].astype(float, copy=False), cols, log_coefficient

        block = _exponential_sum(terms(), (len(self.X), len(X_new)))
        if self.constant:
            block += self.constant
        return block

    def columns(
        self, points: np.ndarray | None = None, layout: str = "C"
    ) -> KernelColumns:
        """The points ``points`` (all training points, without a copy, if ``None``).

        ``layout="F"`` copies the points' inputs column-major: a block of one row
        against many points (an inclusion's kernel row over a whole training set)
        then streams them column by column, about twice as fast as row by row; a
        row-major copy suits sets that are gathered and replaced point by point.
        """
        columns = self._all if points is None else self._all.take(np.asarray(points))
        if layout == "F":
            return KernelColumns([np.asfortranarray(part) for part in columns.parts])
        return columns

    def block(
        self,
        rows: ArrayLike,
        columns: KernelColumns,
        stop: int | None = None,
        row_scale: np.ndarray | None = None,
    ) -> np.ndarray:
        """``K(X[rows], ·)`` against the first ``stop`` of ``columns`` (all if ``None``).

        ``row_scale`` (positive, one per row) multiplies the rows of the block.
        """
        rows = np.asarray(rows)
        indices = columns.parts[0][:stop]
        if not self.expanded:
            block = self.kernel(self.X[rows], self.X[indices])
            return block if row_scale is None else row_scale[:, None] * block
        constant = self.constant * (1.0 if row_scale is None else row_scale[:, None])
        log_scale = None if row_scale is None else np.log(row_scale)

        def terms() -> Iterator[_Term]:
            for t, log_coefficient in enumerate(self.log_coefficients):
                row_inputs = self._all.parts[2 * t + 1][rows]  # a copy
                if log_scale is not None:
                    row_inputs[:, -2] += log_scale
                    log_coefficient = log_coefficient + log_scale[:, None]
                yield row_inputs, columns.parts[2 * t + 2][:stop], log_coefficient

        block = _exponential_sum(terms(), (len(rows), len(indices)))
        if self.constant:
            block += constant
        return block

    def __call__(self, rows: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
        """``K(X[rows], X[cols])``; ``cols=None`` means all training points."""
        return self.block(rows, self.columns(cols))


def _augmented(
    Z: np.ndarray,
    first: np.ndarray | float,
    second: np.ndarray | float,
    dtype: DTypeLike,
) -> np.ndarray:
    """``[Z, first, second]`` (two columns appended) written straight into ``dtype``:
    no float64 copy of ``Z`` on the way to a float32 one (at large n those temporaries
    are hundreds of MB of fresh pages)."""
    D = Z.shape[1]
    out = np.empty((len(Z), D + 2), dtype)
    out[:, :D] = Z
    out[:, D] = first
    out[:, D + 1] = second
    return out


def _exponential_sum(terms: Iterable[_Term], shape: tuple[int, int]) -> np.ndarray:
    """``Σ_t exp(min(R_t C_tᵀ, log c_t))`` over the terms ``(R_t, C_t, log c_t)`` of
    :class:`KernelBlocks` (the minimum keeps distances ≥ 0): one product and one
    ``exp`` per term, in the inputs' precision, the first product's array holding the
    sum; zeros of ``shape`` without terms."""
    total = None
    for rows, cols, log_coefficient in terms:
        exponent = rows @ cols.T
        np.minimum(exponent, np.asarray(log_coefficient, exponent.dtype), out=exponent)
        if total is None:
            total = np.exp(exponent, out=exponent)
        else:
            total += np.exp(exponent, out=exponent)
    return np.zeros(shape) if total is None else total


def is_input_differentiable(kernel: Kernel) -> bool:
    """Whether :func:`check_input_differentiable` accepts ``kernel``."""
    return expression.parse(kernel).differentiable


def check_input_differentiable(kernel: Kernel) -> None:
    """Raise ``ValueError`` unless ``kernel`` is built from what FITC can differentiate.

    Supported: sums and products of ``ConstantKernel``, ``RBF`` and ``Matern`` with
    ``ν`` = 1.5 or 2.5 (isotropic or ARD). These are stationary, so ``k(x, x)`` does
    not depend on ``x``.
    """
    _differentiable_terms(kernel)


def _differentiable_terms(kernel: Kernel) -> expression.Term:
    """``kernel`` parsed (:func:`~sparsegp.kernel_expression.parse`), or the
    ``ValueError`` of :func:`check_input_differentiable`."""
    terms = expression.parse(kernel)
    for leaf in terms.leaves():
        if not leaf.differentiable:
            raise ValueError(
                f"Learning pseudo-inputs or hyperparameters of a sparse GP needs "
                f"gradients of k(x, z) in x and theta; they are implemented for sums "
                f"and products of ConstantKernel, RBF and Matern with nu=1.5 or 2.5, "
                f"not {expression.describe(leaf)}. Pass such a kernel, or "
                f"optimizer=None to keep the hyperparameters fixed."
            )
    return terms


def gram_and_weighted_gradient(
    kernel: Kernel, X: np.ndarray
) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """``K(X, X)`` and the map ``W ↦ Σ_ij W_ij ∂K_ij/∂θ`` (θ in log-space).

    Sums and products of ``ConstantKernel``, ``RBF`` and ``Matern`` (ν = 3/2, 5/2) go
    through :class:`CrossCovariance` on centred inputs (the kernel is stationary): no
    ``(n, n, len(θ))`` array of derivatives — ``D + 1`` matrices of n × n for an ARD RBF.
    Any other kernel contracts scikit-learn's ``eval_gradient`` array.
    """
    if not is_input_differentiable(kernel):
        K, K_gradient = kernel(X, eval_gradient=True)
        return K, lambda W: np.tensordot(W, K_gradient, axes=([0, 1], [0, 1]))
    block = CrossCovariance(kernel, X - X.mean(axis=0))
    K = block.value
    return 0.5 * (K + K.T), lambda W: block.gradients(W)[0]


def _constant_gradient(
    term: expression.Constant,
    scale: float,
    weights: np.ndarray,
    factor: np.ndarray | None = None,
) -> np.ndarray:
    """``∂/∂ log c`` of a constant term ``c`` for the weights ``scale · weights``
    (times ``factor``, the other factor of a product, if given):
    ``c · scale · Σ W ⊙ F``, one inner product and no |A| × |B| array."""
    if not term.learnt:
        return np.zeros(0)
    total = np.sum(weights) if factor is None else np.vdot(weights, factor)
    return np.array([term.value * scale * total])


class CrossCovariance:
    """``K(A, B)`` of a sum or product of constants, RBFs and Matérns, and its gradients.

    Every node of the kernel expression is evaluated once and kept: distances by one
    matrix product (``‖a‖² + ‖b‖² − 2 a·b``), constants as scalars. A leaf
    ``k(r)`` of the scaled distance ``r`` keeps ``g = k′(r)/r`` too (``−k`` for the
    RBF; ``−3e^{−√3 r}`` and ``−5/3 (1 + √5 r) e^{−√5 r}`` for Matérn 3/2 and 5/2,
    [RW06] eq. 4.17), since ``∂k/∂a_d = g (a_d − b_d)/ℓ_d²`` and
    ``∂k/∂ log ℓ_d = −g (a_d − b_d)²/ℓ_d²``. The weighted gradients of
    :meth:`gradients` reuse those values, and each leaf's ``(W ⊙ g) B`` product serves
    both the length-scale and the input gradient, so a value and both gradients cost
    a few O(|A|·|B|·D) matrix products and no ``(|A|, |B|, D)`` array. Pseudo-input
    methods (FITC), full EP's evidence gradient and the NLP method's validation loss
    need exactly these.

    Parameters
    ----------
    kernel : Kernel
        Accepted by :func:`check_input_differentiable`.
    A : ndarray of shape (n, D)
    B : ndarray of shape (m, D), optional
        ``A`` if omitted.
    """

    def __init__(
        self, kernel: Kernel, A: np.ndarray, B: np.ndarray | None = None
    ) -> None:
        self.kernel = kernel
        self.terms = _differentiable_terms(kernel)
        self.A = np.asarray(A, dtype=float)
        self.B = self.A if B is None else np.asarray(B, dtype=float)
        self._values: dict[expression.Path, np.ndarray | float] = {}
        self._slopes: dict[
            expression.Path, np.ndarray
        ] = {}  # g = k′(r)/r of each Matérn leaf (an RBF's is −k)
        value = np.asarray(self._evaluate(self.terms))
        shape = (len(self.A), len(self.B))
        if value.shape != shape:  # a constant, or a sum with one
            value = np.broadcast_to(value, shape).copy()
        # the nodes' values serve the gradients: read-only, shared rather than copied
        value.flags.writeable = False
        self.value = value

    def _evaluate(self, term: expression.Term) -> np.ndarray | float:
        """``term``'s value, kept under its path in the expression."""
        match term:
            case expression.Sum(first, second):
                value = self._evaluate(first) + self._evaluate(second)
            case expression.Product(first, second):
                value = self._evaluate(first) * self._evaluate(second)
            case expression.Constant(constant):
                value = constant
            case expression.Stationary():
                value, slope = term.value_and_slope(self._exponent(term.length_scale))
                if slope is not None:
                    self._slopes[term.path] = slope
        self._values[term.path] = value
        return value

    def _exponent(self, length_scale: np.ndarray) -> np.ndarray:
        """``−½ r²`` with ``r² = Σ_d (a_d − b_d)²/ℓ_d²``, by one product and two
        in-place passes over its result. The weights ``1/ℓ²`` go into the smaller input
        set and into the norms (``einsum``), so no scaled copy of the larger set is made
        (fresh |A| × |B| or n × D temporaries cost page faults at every evaluation)."""
        A, B = self.A, self.B
        inverse_squares = np.broadcast_to(1.0 / length_scale**2, A.shape[1])
        if len(A) <= len(B):
            value = (A * inverse_squares) @ B.T
        else:
            value = A @ (B * inverse_squares).T
        # the exponent a·b − ½‖a‖² − ½‖b‖² (weighted), at most 0
        value -= 0.5 * np.einsum("ij,ij,j->i", A, A, inverse_squares)[:, None]
        value -= 0.5 * np.einsum("ij,ij,j->i", B, B, inverse_squares)[None, :]
        return np.minimum(value, 0.0, out=value)

    def gradients(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``Σ_ij W_ij ∂k(a_i, b_j)/∂θ`` and ``G_id = Σ_j W_ij ∂k(a_i, b_j)/∂a_id``.

        Parameters
        ----------
        weights : ndarray of shape (n, m)

        Returns
        -------
        grad_theta : ndarray of shape (len(kernel.theta),)
            In the order of ``kernel.theta`` (log-space).
        grad_A : ndarray of shape (n, D)
            Gradient in the first argument.
        """
        grad_A = np.zeros_like(self.A)
        grad_theta = self._gradients(self.terms, np.asarray(weights, float), grad_A)
        return grad_theta, grad_A

    def _gradients(
        self,
        term: expression.Term,
        weights: np.ndarray,
        grad_A: np.ndarray,
        scale: float = 1.0,
    ) -> np.ndarray:
        """The gradients of ``term`` for the weights ``scale · weights``: a constant
        factor of a product is carried in ``scale`` rather than multiplied into an
        |A| × |B| array, and a constant factor's own gradient is one inner product."""
        match term:
            case expression.Sum(first, second):
                return np.concatenate(
                    [
                        self._gradients(first, weights, grad_A, scale),
                        self._gradients(second, weights, grad_A, scale),
                    ]
                )
            case expression.Product(first, second):
                return np.concatenate(
                    [
                        self._factor_gradients(first, second, weights, grad_A, scale),
                        self._factor_gradients(second, first, weights, grad_A, scale),
                    ]
                )
            case expression.Constant():
                return _constant_gradient(term, scale, weights)
        assert isinstance(term, expression.Stationary)  # _differentiable_terms
        return self._leaf_gradients(term, weights, grad_A, scale)

    def _factor_gradients(
        self,
        factor: expression.Term,
        other: expression.Term,
        weights: np.ndarray,
        grad_A: np.ndarray,
        scale: float,
    ) -> np.ndarray:
        """The gradients of one factor of a product, the other's value folded into
        the weights (or into ``scale`` if it is a scalar)."""
        other_value = self._values[other.path]
        if isinstance(other_value, float):
            return self._gradients(factor, weights, grad_A, scale * other_value)
        if isinstance(factor, expression.Constant):
            return _constant_gradient(factor, scale, weights, other_value)
        return self._gradients(factor, weights * other_value, grad_A, scale)

    def _leaf_gradients(
        self,
        term: expression.Stationary,
        weights: np.ndarray,
        grad_A: np.ndarray,
        scale: float,
    ) -> np.ndarray:
        """A stationary leaf's length-scale gradient, its input gradient added to
        ``grad_A``: ``∂k/∂a_d = g (a_d − b_d)/ℓ_d²``, ``∂k/∂ log ℓ_d = −g (a_d − b_d)²/ℓ_d²``."""
        # −g of the leaf times the weights: K for the RBF, −k′(r)/r for a Matérn
        slope = self._slopes.get(term.path)
        WK = weights * (self._values[term.path] if slope is None else -slope)
        if scale != 1.0:
            WK *= scale
        WK_B = WK @ self.B
        row_sums = WK.sum(axis=1)
        inverse_squares = 1.0 / term.length_scale**2
        grad_A += (WK_B - row_sums[:, None] * self.A) * inverse_squares
        if not term.learnt:
            return np.zeros(0)
        squared_distance = (
            np.einsum("i,id,id->d", row_sums, self.A, self.A)
            + np.einsum("j,jd,jd->d", WK.sum(axis=0), self.B, self.B)
            - 2.0 * np.einsum("ij,ij->j", WK_B, self.A)
        )
        per_dimension = squared_distance * inverse_squares
        return per_dimension if term.anisotropic else np.array([per_dimension.sum()])
