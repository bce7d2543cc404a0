#!/bin/bash
# Issue 47's runs on a lent many-core machine with a GPU (the tool library's `device`),
# as prepared scripts. Run from the repository root with the wheels the machine lacks
# in .whl/ (dask, distributed, tornado, tblib, zict, locket, partd, and this checkout's
# scikit-learn, for Python 3.12: see the device README), OUT set to the folder that
# comes back, and one stage:
#   workers  FITC-EP's steps on 1-16 threads and 16 dask workers, at two block sizes
#            (about 4 minutes on the 16-core H100 machine);
#   million  FITCGPClassifier on every core against GPyTorch's SVGP on the GPU at
#            n = 10⁶ (about 4 minutes), then FITC with its default ard="auto" (the
#            labels use three of the ten features; about 3 minutes more).
# Every part has its own timeout and writes its results as it goes.
stage=${1:?usage: many_cores.sh workers|million}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD:$PWD/src PYTHONUNBUFFERED=1
quiet() { grep -v "distributed\.\|INFO\|warn\|Sending large\|slowdown\|Consider\|or using\|See also"; }
{ date -u; nproc; lscpu | grep -E "Model name|^CPU\(s\)|L3"; nvidia-smi -L; } | tee "$OUT/machine.txt"
case $stage in
workers)
    timeout 330 python3 -m benchmarks run fitc_workers --workers 1 2 4 8 16 \
        --dask-workers 16 --block-rows 8192 32768 --out "$OUT/fitc_workers_16.json" \
        2>&1 | quiet | tee "$OUT/workers.log" | tail -14 ;;
million)
    timeout 330 python3 -m benchmarks run fitc_million --n-jobs 16 --inducing 100 200 \
        --svgp-inducing 200 --out "$OUT/fitc_million_16.json" 2>&1 | tee "$OUT/million.log" \
        | tail -6
    timeout 240 python3 -m benchmarks run fitc_million --n-jobs 16 --inducing 100 \
        --svgp-inducing --ard auto --out "$OUT/fitc_million_16_ard.json" 2>&1 \
        | tee "$OUT/million_ard.log" | tail -4 ;;
esac
date -u
