"""A user's data file as arrays: CSV with a header, LIBSVM/svmlight, or ``.npz``."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

#: Extensions read as LIBSVM/svmlight files.
SVMLIGHT_SUFFIXES = (".svm", ".libsvm", ".svmlight", ".txt")


@dataclass(frozen=True)
class DataFile:
    """Inputs, targets and column names read from a file.

    Attributes
    ----------
    X : ndarray of shape (n, n_features) or scipy.sparse CSR matrix
    y : ndarray of shape (n,) or None
        Numbers (integers when all are whole) where every value parses as one,
        else strings (class labels); ``None`` when the file has no target.
    feature_names : list of str
    target_name : str or None
    """

    X: object
    y: np.ndarray | None
    feature_names: list
    target_name: str | None


def load_file(path, target=None, *, n_features=None):
    """Read ``path`` by its extension.

    - ``.csv``: a header row, then one row per sample; ``target`` names the label
      column (default: the last column); every other column must be numeric.
    - ``.svm``, ``.libsvm``, ``.svmlight``, ``.txt``: LIBSVM format (a sparse CSR
      ``X``; the label is the first field).
    - ``.npz``: arrays ``X`` and (optionally) ``y``.

    Parameters
    ----------
    path : str or Path
    target : str, optional
        CSV only: the label column's name.
    n_features : int, optional
        The feature columns a fitted model expects: a CSV with exactly that many
        columns (and no ``target``) is read as features only, ``y = None``; a LIBSVM
        file gets that many columns even if its highest feature index is lower.

    Returns
    -------
    DataFile
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No data file {path}.")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _load_csv(path, target, n_features)
    if target is not None:
        raise ValueError(f"--target names a CSV column; {path.name} is not a CSV file.")
    if suffix in SVMLIGHT_SUFFIXES:
        X, y = load_svmlight_file(str(path), n_features=n_features)
        names = [f"x{j}" for j in range(X.shape[1])]
        return DataFile(X, _as_numbers_or_strings(y), names, "label")
    if suffix == ".npz":
        with np.load(path, allow_pickle=False) as archive:
            if "X" not in archive:
                raise ValueError(f"{path.name} has no array 'X'.")
            X = np.asarray(archive["X"])
            y = np.asarray(archive["y"]) if "y" in archive else None
        names = [f"x{j}" for j in range(X.shape[1] if X.ndim == 2 else 0)]
        return DataFile(X, y, names, "y" if y is not None else None)
    raise ValueError(
        f"Cannot read {path.name}: use .csv (with a header row), "
        f"{', '.join(SVMLIGHT_SUFFIXES)} (LIBSVM) or .npz (arrays X, y)."
    )


def _load_csv(path, target, n_features):
    # utf-8-sig: a byte-order mark (as spreadsheets write one) is not a column name
    with open(path, newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if len(rows) < 2:
        raise ValueError(f"{path.name} needs a header row and at least one data row.")
    header, body = [name.strip() for name in rows[0]], rows[1:]
    for number, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise ValueError(
                f"{path.name}, line {number}: {len(row)} fields, the header has "
                f"{len(header)}."
            )
    if target is not None and target not in header:
        raise ValueError(
            f"No column {target!r} in {path.name}; its columns: {', '.join(header)}."
        )
    if target is None and n_features == len(header):
        target_index = None
    else:
        target_index = header.index(target) if target is not None else len(header) - 1
    columns = list(zip(*body, strict=True))
    features = [j for j in range(len(header)) if j != target_index]
    X = np.empty((len(body), len(features)))
    for k, j in enumerate(features):
        _refuse_missing(path, header[j], columns[j], "value")
        try:
            X[:, k] = [float(cell) for cell in columns[j]]
        except ValueError:
            line, cell = next(
                (number, cell)
                for number, cell in enumerate(columns[j], start=2)
                if not _is_number(cell)
            )
            raise ValueError(
                f"Column {header[j]!r} of {path.name}, line {line}: {cell.strip()!r} "
                "is not a number; features must be numbers (encode categories "
                "first), and --target must name the label column."
            ) from None
    y = None
    if target_index is not None:
        _refuse_missing(path, header[target_index], columns[target_index], "label")
        labels = np.array([cell.strip() for cell in columns[target_index]])
        y = _as_numbers_or_strings(labels)
    return DataFile(
        X,
        y,
        [header[j] for j in features],
        header[target_index] if target_index is not None else None,
    )


#: Cells read as a missing value (compared in lower case, stripped).
MISSING = frozenset({"", "na", "n/a", "nan", "null", "none", "?"})


def _refuse_missing(path, name, cells, what):
    """``ValueError`` naming the first lines of column ``name`` whose cell is missing
    (line 1 is the header); nothing is imputed behind the user's back."""
    lines = [
        n for n, cell in enumerate(cells, start=2) if cell.strip().lower() in MISSING
    ]
    if lines:
        shown = ", ".join(map(str, lines[:5])) + (", …" if len(lines) > 5 else "")
        raise ValueError(
            f"{path.name}: column {name!r} has a missing {what} on line(s) {shown} "
            f"({len(lines)} in all). Fill or drop those rows first; sparsegp does not "
            "impute."
        )


def _is_number(cell):
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _as_numbers_or_strings(values):
    """Floats (integers when all are whole) if every value parses, else strings."""
    try:
        numbers = np.asarray(values, dtype=float)
    except ValueError:
        return np.asarray(values, dtype=str)
    if np.all(np.isfinite(numbers)) and np.all(numbers == np.round(numbers)):
        return numbers.astype(int)
    return numbers
