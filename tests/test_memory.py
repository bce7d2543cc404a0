"""The C heap kept through a method's repeated temporaries (:func:`heap_kept`)."""

import json
import subprocess
import sys

import pytest

from sparsegp._memory import _glibc

pytest.importorskip("resource")

#: Evaluations of the sparse regression bound on row blocks, in a fresh interpreter
#: (glibc's thresholds are process-wide): minor page faults per evaluation outside
#: ``heap_kept`` and inside it.
_FAULTS = """
import json, resource, numpy as np
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sparsegp._memory import heap_kept
from sparsegp.approximations.blocks import LocalBlocks
from sparsegp.approximations.sparse_regression import (
    bound_and_gradient, new_regression_block)
rng = np.random.default_rng(0)
n, M, D = 8192, 100, 8
X, Z = rng.normal(size=(n, D)), rng.normal(size=(M, D))
y = np.sin(X[:, 0])
blocks = LocalBlocks(
    [new_regression_block(X[a:a + 2048], y[a:a + 2048]) for a in range(0, n, 2048)])
kernel = ConstantKernel() * RBF(np.ones(D))
def faults():
    bound_and_gradient(blocks, kernel, Z, 0.1, "vfe")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(3):
        bound_and_gradient(blocks, kernel, Z, 0.1, "vfe")
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 3
outside = faults()
with heap_kept(3 * 8 * n * M):
    inside = faults()
print(json.dumps([outside, inside]))
"""


@pytest.mark.skipif(_glibc() is None, reason="heap_kept changes glibc's malloc only")
def test_an_evaluation_faults_in_no_fresh_pages_inside_heap_kept():
    """Outside the context glibc returns the blocks' freed temporaries to the kernel
    and an evaluation faults in several times its K_uf's 1 600 pages again; inside,
    the heap keeps them and an evaluation faults in next to none."""
    result = subprocess.run(
        [sys.executable, "-c", _FAULTS], capture_output=True, text=True, check=True
    )
    outside, inside = json.loads(result.stdout.splitlines()[-1])
    k_uf_pages = 8192 * 100 * 8 // 4096
    assert outside > k_uf_pages
    assert inside < k_uf_pages / 10
