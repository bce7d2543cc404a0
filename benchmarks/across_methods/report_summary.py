"""The summary table that leads BENCHMARKS.md: every classifier on two real-size tasks.

    python -m benchmarks run report_summary benchmarks/results/calibration.json

Reads a saved run of ``calibration`` (MAGIC gamma: 12 680 training events, noisy;
MNIST 13×13 4 against the rest: 7 291 training images) and prints one row per method:
test error, test NLP, expected calibration error and fit seconds on each task.
"""

import json
import sys
from pathlib import Path

#: Row labels of the estimators ``calibration`` runs, in the table's order.
LABELS = {
    "ep_2000_subset": "Full EP GP ([RW06]), random 2 000-point subset",
    "ivm_1000": "IVM ([LSH02]), d = 1 000 / 400, defaults",
    "ivm_400": "IVM ([LSH02]), d = 1 000 / 400, defaults",
    "ivm_1000_fitc": "IVM, same d, [NGH07] §6 FITC posterior, kernel relearnt",
    "ivm_400_fitc": "IVM, same d, [NGH07] §6 FITC posterior, kernel relearnt",
    "fitc_200": "FITC-EP ([NGH07]), M = 200",
    "nlp_200": "NLP classifier ([SSK09]), d = 200",
    "online_200": "Sparse online GP ([Csa02]), d = 200",
    "rvm_1000": "RVM by Subspace EM ([QW03]), 1 000 candidates",
    "svc_platt": "peer: libsvm `SVC`, Platt probabilities",
}


def cells(row):
    return [
        f"{100 * row['error']:.2f}",
        f"{row['nlp']:.3f}",
        f"{row['ece']:.3f}",
        f"{row['fit_seconds']:.1f}",
    ]


def report(path):
    run = json.loads(Path(path).read_text())
    by_label = {}
    for row in run["results"]:
        by_label.setdefault(LABELS[row["estimator"]], {})[row["dataset"]] = row
    datasets = sorted({row["dataset"] for row in run["results"]})
    print(f"{run['date']}, `{run['command']}`\n")
    header = " | ".join(f"{d}: error % | NLP | ECE | fit s" for d in datasets)
    print(f"| method | {header} |")
    print("|---|" + "---:|" * 4 * len(datasets))
    for label in dict.fromkeys(LABELS.values()):
        if label in by_label:
            row = by_label[label]
            values = [
                c for d in datasets for c in (cells(row[d]) if d in row else ["—"] * 4)
            ]
            print(f"| {label} | " + " | ".join(values) + " |")


if __name__ == "__main__":
    report(sys.argv[1])
