"""Where the benchmark data lives: ``data_home``, ``SPARSEGP_DATA``, or the package.

The small sets (eleven IDA sets, Ripley's synth and crabs, about 0.8 MB) ship inside the
package; the large ones (ringnorm, twonorm, waveform, MNIST, MAGIC) are read from a data
folder (``../shared/data/README.md`` of the project describes its files).
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

DATA_ENV_VAR = "SPARSEGP_DATA"


def shipped_files() -> list[str]:
    """Names of the data files shipped inside the package."""
    folder = resources.files(__package__).joinpath("data")
    return sorted(
        entry.name for entry in folder.iterdir() if entry.name.endswith(".npz")
    )


def data_file(filename: str, data_home=None) -> Path:
    """Path of ``filename``: in ``data_home`` (else ``$SPARSEGP_DATA``) if it is there,
    otherwise the copy shipped with the package.

    Raises
    ------
    FileNotFoundError
        Naming ``data_home``, the ``SPARSEGP_DATA`` variable and the shipped files when
        ``filename`` is in none of them.
    """
    home = data_home if data_home is not None else os.environ.get(DATA_ENV_VAR)
    if home is not None and (Path(home).expanduser() / filename).is_file():
        return Path(home).expanduser() / filename
    shipped = resources.files(__package__).joinpath("data", filename)
    if shipped.is_file():
        return Path(str(shipped))
    where = (
        f"{Path(home).expanduser()} has no {filename}"
        if home is not None
        else "no data folder is given"
    )
    raise FileNotFoundError(
        f"{filename} is not shipped with the package and {where}: pass data_home= or "
        f"set {DATA_ENV_VAR} to the folder holding it. Shipped: "
        f"{', '.join(shipped_files())}."
    )
