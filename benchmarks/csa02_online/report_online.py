"""The online GP classifier on the IDA suite beside the full EP GP classifier.

    python -m benchmarks run report_online benchmarks/results/ida_online.json \
        benchmarks/results/ida_ep.json

Rows: data set; columns: error % and NLP (mean ± sd over realizations) of
``SparseOnlineGPClassifier`` with d = N/5 and d = N/2 and of ``EPGPClassifier``, and the
mean fit seconds. Original and reconstructed realizations are reported apart.
"""

from __future__ import annotations

import sys

from benchmarks._lib.reports import load, mean_cell, stats

COLUMNS = ("online_n5", "online_n2", "ep")


def report(paths):
    grouped = load(paths)
    for original, title in ((True, "Original realizations"), (False, "Reconstructed")):
        print(f"\n{title}\n")
        print(
            "| data set | runs | online d=N/5 error % / NLP | online d=N/2 error % / NLP "
            "| full EP error % / NLP | fit s: N/5 / N/2 / EP |"
        )
        print("|---|---:|---|---|---|---|")
        for dataset, est in grouped[original].items():
            if not all(name in est for name in COLUMNS):
                continue
            cells = [
                f"{mean_cell(est[name], 'error', 100)} / "
                f"{mean_cell(est[name], 'nlp', digits=3)}"
                for name in COLUMNS
            ]
            seconds = " / ".join(
                f"{stats(est[name], 'fit_seconds')[0]:.1f}" for name in COLUMNS
            )
            print(
                f"| {dataset} | {len(est['online_n5'])} | {' | '.join(cells)} "
                f"| {seconds} |"
            )


if __name__ == "__main__":
    report(sys.argv[1:])
