"""Saving and loading fitted models: skops (safe to load) or joblib/pickle.

skops stores a model as data and, on loading, builds only the types it is told to
trust. :func:`load_model` trusts the classes defined in the package and scikit-learn's
GP kernels (plain data holders; :func:`trusted_types`) besides what skops trusts by
default (numpy, scikit-learn's estimators); a file naming any other type is refused
with the list of those types.
joblib/pickle files run arbitrary code when loaded: load only files you made.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from pathlib import Path

import joblib
import sklearn.gaussian_process.kernels

#: Extensions written and read by joblib (pickle).
PICKLE_SUFFIXES = (".joblib", ".pkl", ".pickle")


def save_model(estimator, path):
    """Write ``estimator`` to ``path``: skops for ``.skops``, joblib for ``.joblib``/``.pkl``."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".skops":
        _skops().dump(estimator, path)
    elif suffix in PICKLE_SUFFIXES:
        joblib.dump(estimator, path)
    else:
        raise ValueError(
            f"Cannot save to {path.name}: use .skops (safe to load) or "
            f"{', '.join(PICKLE_SUFFIXES)} (pickle)."
        )


def load_model(path):
    """Read a model written by :func:`save_model` (or by skops/joblib directly).

    Raises
    ------
    ValueError
        A skops file that names types outside the package, scikit-learn's kernels and
        skops' defaults (they are listed).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No model file {path}.")
    suffix = path.suffix.lower()
    if suffix in PICKLE_SUFFIXES:
        return joblib.load(path)
    if suffix != ".skops":
        raise ValueError(
            f"Cannot load {path.name}: a model file ends in .skops or "
            f"{', '.join(PICKLE_SUFFIXES)}."
        )
    sio = _skops()
    untrusted = sio.get_untrusted_types(file=path)
    refused = [name for name in untrusted if name not in trusted_types()]
    if refused:
        raise ValueError(
            f"{path.name} names types this loader does not trust: "
            f"{', '.join(refused)}. If you trust the file, load it with "
            "skops.io.load(path, trusted=[...]) yourself."
        )
    return sio.load(path, trusted=untrusted)


@functools.cache
def trusted_types():
    """Names of the classes :func:`load_model` trusts beyond skops' defaults.

    Exactly the classes defined in the package's modules and scikit-learn's GP
    kernels — an allow-list, so a file cannot name some other object reachable
    through a trusted module's namespace.
    """
    import sparsegp

    modules = [sklearn.gaussian_process.kernels] + [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(sparsegp.__path__, "sparsegp.")
        if not info.name.endswith("__main__")
    ]
    return frozenset(
        f"{module.__name__}.{obj.__qualname__}"
        for module in modules
        for obj in vars(module).values()
        if isinstance(obj, type) and obj.__module__ == module.__name__
    )


def _skops():
    try:
        import skops.io
    except ImportError:
        raise ImportError(
            "Saving and loading .skops files needs skops: pip install 'sparsegp[io]' "
            "(or use a .joblib file)."
        ) from None
    return skops.io
