"""Where the benchmark data lives: ``data_home`` or the ``SPARSEGP_DATA`` variable."""

from __future__ import annotations

import os
from pathlib import Path

DATA_ENV_VAR = "SPARSEGP_DATA"


def data_file(filename: str, data_home=None) -> Path:
    """Path of ``filename`` inside the benchmark data folder, checked to exist.

    Raises
    ------
    FileNotFoundError
        Naming the ``SPARSEGP_DATA`` variable when the folder or file is missing.
    """
    home = data_home if data_home is not None else os.environ.get(DATA_ENV_VAR)
    if home is None:
        raise FileNotFoundError(
            f"No benchmark data folder given: pass data_home= or set the "
            f"{DATA_ENV_VAR} environment variable to the folder holding {filename}."
        )
    path = Path(home).expanduser() / filename
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} does not exist; point data_home or {DATA_ENV_VAR} at the folder "
            f"holding {filename}."
        )
    return path
