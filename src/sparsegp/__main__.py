"""``python -m sparsegp``: the command line of :mod:`sparsegp.cli`."""

from .cli import main

main()
