"""Benchmarks reproducing each paper's claims beside the peers, one folder per paper.

Run from the repository root: ``python -m benchmarks list`` shows the scripts,
``python -m benchmarks run SCRIPT [ARGS...]`` runs one (``--help`` for its options),
``python -m benchmarks table KEY`` re-runs one table of BENCHMARKS.md. See README.md.
"""
