"""The IVM's probabilities: eq. 5's active-set posterior against [NGH07] §6's FITC one.

    SPARSEGP_DATA=../shared/data python -m benchmarks run ivm_calibration \
        --out benchmarks/results/ivm_calibration.json

MNIST 13×13, 4 against the rest, the 7 291 seeded training images of
``fitc_speed.py`` ([NGH07]'s USPS-sized task) and the 10 000 test images; d = 400 as
in [NGH07] §5. Estimators, one BLAS thread, all in this process:

- ``IVMClassifier(active_set_size=400, posterior="active_set")``: the paper's eq. 5
  (the default before 2026-11-26);
- the same with ``posterior="fitc"`` (EP over all sites on the FITC prior with the
  active set as pseudo-inputs, kernel and bias relearnt);
- ``FITCGPClassifier(n_inducing=400, ard=False)`` with its defaults otherwise
  (pseudo-inputs learnt);
- ``SVC(C=10, gamma="scale", probability=True)`` for time.

The expected calibration error (15 equal-width bins of the predicted probability of
the positive class) is reported beside error and NLP.
"""

from __future__ import annotations

import argparse

from threadpoolctl import threadpool_limits

from benchmarks._lib.tasks import mnist_task
from sparsegp import FITCGPClassifier, IVMClassifier
from sparsegp.benchmarking import PlattSVC, evaluate, save_run
from sparsegp.metrics import expected_calibration_error

D = 400


def estimators():
    return {
        "ivm_400": IVMClassifier(
            ard=False, active_set_size=D, posterior="active_set", random_state=0
        ),
        "ivm_400_fitc": IVMClassifier(
            ard=False, active_set_size=D, posterior="fitc", random_state=0
        ),
        "fitc_400": FITCGPClassifier(n_inducing=D, ard=False, random_state=0),
        "svc_platt": PlattSVC(C=10.0, random_state=0),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip", nargs="*", default=[])
    parser.add_argument("--out", default="benchmarks/results/ivm_calibration.json")
    args = parser.parse_args(argv)
    X, y, X_test, y_test = mnist_task(7291)
    rows = []
    with threadpool_limits(1):
        for name, estimator in estimators().items():
            if name in args.skip:
                continue
            result, fitted = evaluate(
                estimator, X, y, X_test, y_test, name=name, dataset="mnist13_4_n7291"
            )
            positive = fitted.predict_proba(X_test)[:, 1]
            ece = expected_calibration_error(y_test > 0, positive)
            row = dict(result.__dict__, ece=ece)
            rows.append(row)
            print(
                f"{name}: {100 * result.error:.2f} % / {result.nlp:.4f} nats, "
                f"ECE {ece:.4f}, fit {result.fit_seconds:.1f} s",
                flush=True,
            )
    save_run(args.out, rows)


if __name__ == "__main__":
    main()
