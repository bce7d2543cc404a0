"""Benchmark loaders, shipped data and the synthetic problems of the seed papers."""

from ._files import DataFile, load_file
from ._generators import mackey_glass_regression, make_mackey_glass, make_xor_clusters
from ._home import DATA_ENV_VAR
from ._ida import IDA_NAMES, IDAInfo, ida_info, load_ida
from ._magic import load_magic
from ._mnist import downsample_13, load_mnist
from ._ripley import load_crabs, load_synth
from ._shipped import load_banana
from ._uci import UCI_NAMES, load_uci

__all__ = [
    "DATA_ENV_VAR",
    "DataFile",
    "IDA_NAMES",
    "UCI_NAMES",
    "IDAInfo",
    "downsample_13",
    "ida_info",
    "load_banana",
    "load_crabs",
    "load_file",
    "load_ida",
    "load_magic",
    "load_mnist",
    "load_synth",
    "load_uci",
    "mackey_glass_regression",
    "make_mackey_glass",
    "make_xor_clusters",
]
