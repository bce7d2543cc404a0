"""A scikit-learn kernel read once into the terms the fast kernel paths understand.

:func:`parse` is the one walk over scikit-learn's kernel classes: it maps every node of
a kernel expression to a term here — :class:`Sum`, :class:`Product`,
:class:`Constant`, :class:`Stationary` (the RBF and the Matérn kernels with
``ν`` = 3/2, 5/2, [RW06] eqs. 4.9 and 4.17), :class:`White` or :class:`Opaque`
(anything else). Each term carries its own rules: what it adds to the expanded
blocks of active-set methods (:meth:`~Constant.expansion`), whether its gradients in
inputs and hyperparameters are implemented (:attr:`~Constant.differentiable`), and,
for a stationary leaf, its value and slope at the scaled distances. Supporting a new
kernel means one branch in :func:`parse` and one term class.

Every term keeps its ``path`` in the expression (the positions ``1``/``2`` of its
ancestors' operands ``k1``/``k2``): unlike ``id``, a path survives pickling to a
worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
from sklearn.gaussian_process import kernels as sk

#: The smoothness ``ν`` of the Matérn kernels whose input and hyperparameter
#: gradients are implemented (``ν = ∞`` is the RBF).
DIFFERENTIABLE_MATERN_NU = (1.5, 2.5)

Path = tuple[int, ...]
#: ``[(c_t, 1/ℓ_t² or None)]`` with ``k = Σ_t c_t exp(−½ Σ_d (x_d − x′_d)²/ℓ_td²)``
#: (``None`` a constant term), or ``None`` where the kernel has no such form.
Expansion = list[tuple[float, np.ndarray | None]] | None


class _Leaf:
    """A term without operands: its own only leaf."""

    def leaves(self) -> list[Leaf]:
        return [cast(Leaf, self)]


@dataclass(frozen=True)
class Constant(_Leaf):
    """``ConstantKernel(c)``; ``learnt`` when ``c`` is a hyperparameter."""

    value: float
    learnt: bool
    path: Path
    differentiable = True

    def expansion(self) -> Expansion:
        return [(self.value, None)] if self.value >= 0 else None


@dataclass(frozen=True)
class Stationary(_Leaf):
    """An RBF (``nu = inf``) or a Matérn ``ν`` = 3/2 or 5/2 of the scaled distance
    ``r = ‖(x − x′)/ℓ‖``, isotropic or ARD (``anisotropic``)."""

    nu: float
    length_scale: np.ndarray
    anisotropic: bool
    learnt: bool
    path: Path
    differentiable = True

    def expansion(self) -> Expansion:
        if self.nu == np.inf:
            return [(1.0, 1.0 / self.length_scale**2)]
        return None  # a Matérn kernel is evaluated by its own ``__call__``

    def value_and_slope(
        self, exponent: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """``k(r)`` and ``g = k′(r)/r`` from ``exponent = −½ r²`` (overwritten).

        ``g`` is ``None`` for the RBF, where it is ``−k``; for Matérn 3/2 and 5/2 it
        is ``−3e^{−√3 r}`` and ``−5/3 (1 + √5 r) e^{−√5 r}`` ([RW06] eq. 4.17),
        finite at ``r = 0``.
        """
        if self.nu == np.inf:
            return np.exp(exponent, out=exponent), None
        s = np.sqrt(-2.0 * exponent * (2.0 * self.nu), out=exponent)  # √(2ν) r
        decay = np.exp(-s)
        if self.nu == 1.5:
            return (1.0 + s) * decay, -3.0 * decay
        return (1.0 + s + s * s / 3.0) * decay, (-5.0 / 3.0) * (1.0 + s) * decay


@dataclass(frozen=True)
class White(_Leaf):
    """``WhiteKernel``: zero between distinct evaluations; no input gradient."""

    kernel: sk.WhiteKernel
    path: Path
    differentiable = False

    def expansion(self) -> Expansion:
        return []


@dataclass(frozen=True)
class Opaque(_Leaf):
    """Any other kernel: evaluated by its own ``__call__``, never differentiated here."""

    kernel: sk.Kernel
    path: Path
    differentiable = False

    def expansion(self) -> Expansion:
        return None


@dataclass(frozen=True)
class _Binary:
    """Two operands: supported where both are."""

    first: Term
    second: Term
    path: Path

    @property
    def differentiable(self) -> bool:
        return self.first.differentiable and self.second.differentiable

    def leaves(self) -> list[Leaf]:
        return self.first.leaves() + self.second.leaves()


@dataclass(frozen=True)
class Sum(_Binary):
    """``k1 + k2``."""

    def expansion(self) -> Expansion:
        first, second = self.first.expansion(), self.second.expansion()
        if first is None or second is None:
            return None
        return first + second


@dataclass(frozen=True)
class Product(_Binary):
    """``k1 · k2``; a product of RBF terms is one RBF term."""

    def expansion(self) -> Expansion:
        first, second = self.first.expansion(), self.second.expansion()
        if first is None or second is None:
            return None
        return [
            (c1 * c2, s1 if s2 is None else s2 if s1 is None else s1 + s2)
            for c1, s1 in first
            for c2, s2 in second
        ]


Leaf = Constant | Stationary | White | Opaque
Term = Leaf | Sum | Product


def parse(kernel: sk.Kernel, path: Path = ()) -> Term:
    """``kernel`` as a tree of terms: the one place that tells scikit-learn's kernel
    classes apart (exact types for the leaves, so a subclass with another formula is
    :class:`Opaque`)."""
    if isinstance(kernel, sk.Sum | sk.Product):
        first = parse(kernel.k1, (*path, 1))
        second = parse(kernel.k2, (*path, 2))
        node = Sum if isinstance(kernel, sk.Sum) else Product
        return node(first, second, path)
    if isinstance(kernel, sk.ConstantKernel):
        return Constant(float(kernel.constant_value), _learnt(kernel), path)
    if isinstance(kernel, sk.WhiteKernel):
        return White(kernel, path)
    kind = type(kernel)
    if kind is sk.RBF or (
        kind is sk.Matern and float(kernel.nu) in DIFFERENTIABLE_MATERN_NU
    ):
        nu = np.inf if kind is sk.RBF else float(kernel.nu)
        return Stationary(
            nu,
            np.asarray(kernel.length_scale, dtype=float),
            bool(kernel.anisotropic),
            _learnt(kernel),
            path,
        )
    return Opaque(kernel, path)


def compound_parts(kernel: sk.Kernel) -> list[sk.Kernel] | None:
    """The kernels of a ``CompoundKernel`` (a multi-class model's, one per latent
    function), in order; None for any other kernel."""
    if isinstance(kernel, sk.CompoundKernel):
        return list(kernel.kernels)
    return None


def _learnt(kernel: sk.Kernel) -> bool:
    """Whether ``kernel`` has hyperparameters in ``theta`` (not read from ``theta``,
    whose logarithm warns at a zero constant)."""
    return any(not hyperparameter.fixed for hyperparameter in kernel.hyperparameters)


def parameter_prefix(path: Path) -> str:
    """The prefix of scikit-learn's hyperparameter names for the term at ``path``
    (``k1__k2__`` for the second operand of the first)."""
    return "".join(f"k{side}__" for side in path)


def describe(leaf: Leaf) -> str:
    """A leaf's kernel named for an error message (with its ``ν`` if a Matérn)."""
    if isinstance(leaf, Constant):
        return "ConstantKernel"
    if isinstance(leaf, Stationary):
        return "RBF" if leaf.nu == np.inf else f"Matern (nu={leaf.nu})"
    nu = f" (nu={leaf.kernel.nu})" if isinstance(leaf.kernel, sk.Matern) else ""
    return f"{type(leaf.kernel).__name__}{nu}"
