#!/bin/bash
# Issue 47's runs on a lent many-core machine with a GPU (the tool library's `device`),
# as one prepared script. Run from the repository root with the wheels the machine
# lacks in .whl/ (dask, distributed, tornado, tblib, zict, locket, partd, and this
# checkout's scikit-learn, for Python 3.12: see the device README), OUT set to the
# folder that comes back. About 8 minutes on the 16-core H100 machine; every part
# has its own timeout and writes its results as it goes.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD:$PWD/src PYTHONUNBUFFERED=1
quiet() { grep -v "distributed\.\|INFO\|warn\|Sending large\|slowdown\|Consider\|or using\|See also"; }
{ date -u; nproc; lscpu | grep -E "Model name|^CPU\(s\)|L3"; nvidia-smi -L; } | tee "$OUT/machine.txt"
timeout 240 python3 -m benchmarks run fitc_workers --workers 1 2 4 8 16 --dask-workers 16 \
    --out "$OUT/fitc_workers_16.json" 2>&1 | quiet | tee "$OUT/workers.log" | tail -9
timeout 240 python3 -m benchmarks run fitc_million --n-jobs 16 --inducing 100 200 \
    --svgp-inducing 200 --out "$OUT/fitc_million_16.json" 2>&1 | tee "$OUT/million.log" | tail -6
date -u
