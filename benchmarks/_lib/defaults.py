"""Every classifier of the library with its defaults (``random_state=0``), by short
name: what the benchmarks of data as a user brings it (default sizes, data quirks) fit."""

from sparsegp import (
    EPGPClassifier,
    FITCGPClassifier,
    IVMClassifier,
    NLPSparseGPClassifier,
    RVMClassifier,
    SparseOnlineGPClassifier,
)

DEFAULT_CLASSIFIERS = {
    "fitc": lambda: FITCGPClassifier(random_state=0),
    "nlp": lambda: NLPSparseGPClassifier(random_state=0),
    "ivm": lambda: IVMClassifier(random_state=0),
    "online": lambda: SparseOnlineGPClassifier(random_state=0),
    "ep": lambda: EPGPClassifier(random_state=0),
    "rvm": lambda: RVMClassifier(random_state=0),
}
