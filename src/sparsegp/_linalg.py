"""The one place Cholesky is called: jittered factorisation, solves, rank-one changes."""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import LinAlgError, cho_solve, cholesky, lapack, solve_triangular
from scipy.linalg.blas import get_blas_funcs

from .exceptions import NotPSDError, NumericalWarning, warn_at_caller

__all__ = [
    "cholesky_in_place",
    "cholesky_jitter",
    "cho_solve_lower",
    "cholesky_permuted",
    "inverse_lower",
    "log_det_from_cholesky",
    "quiet_jitter",
    "solve_lower",
    "solve_lower_in_place",
    "solve_lower_transpose",
    "solve_lower_wide",
    "weighted_gram",
]


#: Whether :func:`cholesky_jitter` warns of the jitter it adds, in this thread.
_WARN_OF_JITTER: ContextVar[bool] = ContextVar("warn_of_jitter", default=True)


@contextmanager
def quiet_jitter() -> Iterator[None]:
    """:func:`cholesky_jitter` adds its jitter without a warning in this thread (an
    optimizer's trial points). Not ``warnings.catch_warnings``: that swaps the
    process's filters, which fits on other threads share (two at once left an
    "ignore" behind)."""
    token = _WARN_OF_JITTER.set(False)
    try:
        yield
    finally:
        _WARN_OF_JITTER.reset(token)


def cholesky_jitter(
    A: ArrayLike,
    *,
    initial_jitter: float = 1e-10,
    max_tries: int = 6,
    what: str = "the kernel matrix",
) -> np.ndarray:
    """Lower Cholesky factor of ``A``, adding escalating jitter if it is not PD.

    The jitter starts at ``initial_jitter · mean(diag A)`` and grows tenfold per try
    (as GPy's ``jitchol``); a :class:`NumericalWarning` names the jitter used (none
    inside :func:`quiet_jitter`).

    Raises
    ------
    NotPSDError
        If ``A`` holds NaN/inf or is not PD even with the largest jitter.
    """
    A = np.asarray(A, dtype=float)
    if not np.all(np.isfinite(A)):
        raise NotPSDError(f"{what} contains NaN or infinite values.")
    try:
        return cholesky(A, lower=True, check_finite=False)
    except LinAlgError:
        pass
    scale = max(float(np.mean(np.diag(A))), np.finfo(float).tiny)
    jitter = initial_jitter * scale
    for _ in range(max_tries):
        try:
            L = cholesky(A + jitter * np.eye(len(A)), lower=True, check_finite=False)
        except LinAlgError:
            jitter *= 10.0
            continue
        if _WARN_OF_JITTER.get():
            warn_at_caller(
                f"{what} was not positive definite; added jitter {jitter:.2e} to "
                "its diagonal.",
                NumericalWarning,
            )
        return L
    raise NotPSDError(
        f"{what} is not positive definite even with jitter {jitter / 10:.2e}. "
        "Try a kernel with a larger noise or constant term, or larger length-scales."
    )


def solve_lower(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``L⁻¹ B`` for lower-triangular ``L``."""
    return solve_triangular(L, B, lower=True, check_finite=False)


def solve_lower_in_place(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``B ← L⁻¹ B`` for lower-triangular ``L`` and a C- or F-contiguous ``B``.

    One BLAS ``trsm`` call in ``B``'s precision (float32 or float64), without scipy's
    checks or a copy of ``B``: for loops of many small solves, where
    :func:`solve_lower`'s overhead is comparable to the work. A C-contiguous ``B`` is
    solved as ``Bᵀ ← Bᵀ L⁻ᵀ``.
    """
    (trsm,) = get_blas_funcs(("trsm",), (B,))
    if B.flags.f_contiguous:
        trsm(1.0, L, B, lower=1, overwrite_b=1)
    elif B.flags.c_contiguous:
        trsm(1.0, L, B.T, side=1, lower=1, trans_a=1, overwrite_b=1)
    else:
        raise ValueError("B must be contiguous to be solved in place.")
    return B


def solve_lower_wide(
    L: np.ndarray,
    B: np.ndarray,
    trans: bool = False,
    out: np.ndarray | None = None,
    inverse: np.ndarray | None = None,
) -> np.ndarray:
    """``L⁻¹ B`` (``L⁻ᵀ B`` if ``trans``) for a wide ``B`` of shape (M, n), n ≫ M.

    Inverts the M×M triangle once (LAPACK ``trtri``, M³/3 flops) and multiplies by
    the triangle (BLAS ``trmm``, n·M² flops): on OpenBLAS this runs about 3× faster
    than a triangular solve with n right-hand sides and 2× faster than a GEMM with
    the inverse (which does twice the flops), in ``B``'s precision (float32 or
    float64). The result is C-contiguous; ``out`` (C-contiguous, ``B``'s shape and
    dtype) receives it without a new allocation (``B`` may then be a strided view) —
    large fresh arrays cost page faults at every call. The triangular inverse's
    product is as accurate as forward substitution for the well-conditioned factors
    used here (``I + V G Vᵀ`` has eigenvalues ≥ 1; ``K_uu`` carries a jitter).
    ``inverse``, ``L⁻¹`` already computed (:func:`inverse_lower`), spares its
    ``trtri``: row blocks share one.
    """
    if out is None:
        dtype = np.float32 if B.dtype == np.float32 else np.float64
        out = np.array(B, dtype=dtype, order="C")
    else:
        np.copyto(out, B)
    inverse = np.asfortranarray(
        inverse_lower(L) if inverse is None else inverse, dtype=out.dtype
    )
    # C-contiguous B is Fortran Bᵀ: (L⁻¹B)ᵀ = Bᵀ L⁻ᵀ and (L⁻ᵀB)ᵀ = Bᵀ L⁻¹.
    _trmm_right_lower(inverse, out.T, transpose=not trans)
    return out


@functools.cache
def _blas_function(name: str) -> Callable[..., None]:
    """scipy's ``cython_blas`` routine ``name`` as a ctypes function (Fortran calling
    convention: every argument by pointer). A ctypes call releases the GIL, so row
    blocks on threads run it at once, where scipy's f2py wrappers hold the GIL for
    the whole product."""
    import scipy.linalg.cython_blas as cython_blas

    capsule = cython_blas.__pyx_capi__[name]
    get_name, get_pointer = (
        ctypes.pythonapi.PyCapsule_GetName,
        ctypes.pythonapi.PyCapsule_GetPointer,
    )
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    char, integer, pointer = (
        ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_int),
        ctypes.c_void_p,
    )
    prototype = ctypes.CFUNCTYPE(
        None,
        char,
        char,
        char,
        char,
        integer,
        integer,
        pointer,
        pointer,
        integer,
        pointer,
        integer,
    )
    return prototype(get_pointer(capsule, get_name(capsule)))


_TRMM = {np.dtype(np.float32): "strmm", np.dtype(np.float64): "dtrmm"}


def _trmm_right_lower(A: np.ndarray, B: np.ndarray, transpose: bool) -> None:
    """``B ← B A`` (``B Aᵀ`` with ``transpose``) in place: BLAS ``trmm`` with a lower
    triangular, Fortran-ordered ``A`` of ``B``'s dtype and a Fortran-ordered ``B``,
    called without the GIL (:func:`_blas_function`)."""
    assert A.flags.f_contiguous and B.flags.f_contiguous and A.dtype == B.dtype
    trmm = _blas_function(_TRMM[B.dtype])
    rows, columns = ctypes.c_int(B.shape[0]), ctypes.c_int(B.shape[1])
    lda, ldb = ctypes.c_int(max(A.shape[0], 1)), ctypes.c_int(max(B.shape[0], 1))
    alpha = np.ones((), dtype=B.dtype)
    trmm(
        b"R",
        b"L",
        b"T" if transpose else b"N",
        b"N",
        ctypes.byref(rows),
        ctypes.byref(columns),
        alpha.ctypes.data,
        A.ctypes.data,
        ctypes.byref(lda),
        B.ctypes.data,
        ctypes.byref(ldb),
    )


def solve_lower_transpose(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``L⁻ᵀ B`` for lower-triangular ``L``."""
    return solve_triangular(L, B, lower=True, trans="T", check_finite=False)


def cho_solve_lower(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``(L Lᵀ)⁻¹ B`` from the lower factor ``L``."""
    return cho_solve((L, True), B, check_finite=False)


def cholesky_in_place(A: np.ndarray) -> np.ndarray | None:
    """Lower Cholesky factor of the symmetric C-ordered ``A``, computed in ``A``'s memory.

    LAPACK ``potrf`` on the Fortran-ordered view ``A.T`` (equal to ``A``): no copy of
    the matrix and no pass over it checking for NaN (the factor's diagonal is checked
    instead). Returns the factor (a Fortran-ordered view of ``A``, zero above its
    diagonal), or ``None`` if ``A`` is not positive definite or holds NaN — ``A`` is
    then partly overwritten, and the caller rebuilds it for :func:`cholesky_jitter`.
    """
    factor, info = lapack.dpotrf(A.T, lower=1, overwrite_a=1, clean=1)
    if info < 0:
        raise ValueError(f"potrf: argument {-info} is invalid.")
    # OpenBLAS's potrf lets NaN through; any NaN or inf reaches the diagonal
    if info > 0 or not np.all(np.isfinite(factor.diagonal())):
        return None
    return factor


def cholesky_permuted(L: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor of ``P A Pᵀ`` (rows and columns of ``A = L Lᵀ`` taken in
    ``order``), from ``L``."""
    A = L @ L.T
    return cholesky_jitter(A[np.ix_(order, order)], what="the reordered matrix")


#: Order up to which :func:`inverse_lower` calls LAPACK ``trtri`` directly.
_TRTRI_ORDER = 128


def inverse_lower(L: np.ndarray) -> np.ndarray:
    """``L⁻¹`` of a lower-triangular ``L``, n³/3 flops (a third of the ``L⁻¹ B`` solve
    with ``n`` right-hand sides), zero above the diagonal.

    Recursive on halves, ``[[A, 0], [C, D]]⁻¹ = [[A⁻¹, 0], [−D⁻¹ C A⁻¹, D⁻¹]]``, the
    off-diagonal block by two BLAS ``trmm``, LAPACK ``trtri`` below
    ``_TRTRI_ORDER``: OpenBLAS's ``trtri`` runs at about half its GEMM rate, the
    ``trmm`` near it.
    """
    n = len(L)
    if n <= _TRTRI_ORDER:
        inverse, info = lapack.dtrtri(L, lower=1)
        if info != 0:
            raise NotPSDError(f"the triangular factor is singular (trtri info={info}).")
        return np.tril(inverse)
    half = n // 2
    upper, lower = inverse_lower(L[:half, :half]), inverse_lower(L[half:, half:])
    (trmm,) = get_blas_funcs(("trmm",), (upper,))
    # the halves go to trmm as computed: views of the result would be copied by f2py
    below = np.asfortranarray(L[half:, :half])
    below = trmm(1.0, upper, below, side=1, lower=1, overwrite_b=1)
    below = trmm(-1.0, lower, below, lower=1, overwrite_b=1)
    inverse = np.zeros((n, n), order="F")
    inverse[:half, :half] = upper
    inverse[half:, half:] = lower
    inverse[half:, :half] = below
    return inverse


def weighted_gram(V: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``V diag(w) Vᵀ`` of a wide ``V`` (M × n) for weights of either sign, in float64.

    One ``syrk`` of ``V diag(√|w|)`` (n·M² flops), corrected by a ``syrk`` over the
    columns of the minority sign: n·M² plus that minority's share, where a GEMM with
    ``V diag(w)`` takes 2·n·M². Non-negative weights need the first ``syrk`` only.
    The products run in ``V``'s precision (float32 or float64).
    """
    scaled = V * np.sqrt(np.abs(weights)).astype(V.dtype, copy=False)
    gram = (scaled @ scaled.T).astype(float, copy=False)  # numpy's syrk
    negative = weights < 0
    n_negative = int(np.count_nonzero(negative))
    if n_negative == 0:
        return gram
    if 2 * n_negative <= len(weights):
        minority = scaled[:, negative]
        return gram - 2.0 * (minority @ minority.T)
    minority = scaled[:, ~negative]
    return 2.0 * (minority @ minority.T) - gram


def matvec(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``A x`` for a matrix ``A`` and a vector ``x``. For a contiguous ``A`` (C or
    Fortran order) by ``np.dot``, which releases the interpreter's lock for the BLAS
    call where numpy's ``@`` holds it through a matrix-vector product (numpy 2.4: two
    threads ran 2.0× faster with ``np.dot``, 1.0× with ``@``); row blocks on threads
    share that lock (issue 47). A strided ``A`` (a slice of columns) by ``@``:
    ``np.dot`` copies it first, 4× slower."""
    if A.flags.c_contiguous or A.flags.f_contiguous:
        return np.dot(A, x)
    return A @ x


def log_det_from_cholesky(L: np.ndarray) -> float:
    """``log |L Lᵀ|``."""
    return 2.0 * float(np.sum(np.log(np.diag(L))))
