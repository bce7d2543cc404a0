"""Compare saved runs of FITCGPClassifier with [NGH07]'s SPGPC column.

    python -m benchmarks run report_fitc benchmarks/results/ida_fitc.json \
        benchmarks/results/ida_ep.json benchmarks/results/ripley_ep.json

The first file holds the FITC (and SVC) run; the others add the full EP GP of the
same machine. Original and reconstructed realizations are reported in separate
tables (the reconstructed ones are not comparable with published figures).
"""

from __future__ import annotations

import sys

from benchmarks._lib.paper_tables import FITC_PAPER_GPC, FITC_PAPER_SPGPC
from benchmarks._lib.reports import load, mean_cell, stats, within


def report(paths):
    grouped = load(paths)
    for original, title in ((True, "Original realizations"), (False, "Reconstructed")):
        if not grouped[original]:
            continue
        print(f"\n{title}\n")
        print(
            "| data set | n | M | FITC error % | FITC NLP | [NGH07] SPGPC err / nlp | "
            "within 1 sd | full EP error % / NLP | [NGH07] GPC err / nlp | SVC error % | "
            "fit s: FITC / SVC |"
        )
        print("|---|---:|---:|---|---|---|---|---|---|---|---|")
        for dataset, est in grouped[original].items():
            if "fitc" not in est:
                continue
            fitc = est["fitc"]
            (e, es), (p, ps) = stats(fitc, "error"), stats(fitc, "nlp")
            te, tp, M = FITC_PAPER_SPGPC[dataset]
            ge, gp = FITC_PAPER_GPC[dataset]
            full = "–"
            if "ep" in est:
                full = (
                    f"{100 * stats(est['ep'], 'error')[0]:.2f} / "
                    f"{stats(est['ep'], 'nlp')[0]:.3f}"
                )
            agreement = f"{within(e, es, te)} / {within(p, ps, tp)}"
            if len(fitc) == 1:  # one test set: no spread to compare against
                agreement = "1 run"
            svc = mean_cell(est["svc"], "error", 100) if "svc" in est else "–"
            seconds = f"{stats(fitc, 'fit_seconds')[0]:.1f}"
            if "svc" in est:
                seconds += f" / {stats(est['svc'], 'fit_seconds')[0]:.2f}"
            print(
                f"| {dataset} | {len(fitc)} | {M} | {mean_cell(fitc, 'error', 100)} | "
                f"{mean_cell(fitc, 'nlp', digits=3)} | {100 * te:.1f} / {tp:.3f} | "
                f"{agreement} | {full} | "
                f"{100 * ge:.1f} / {gp:.3f} | {svc} | {seconds} |"
            )


if __name__ == "__main__":
    report(sys.argv[1:])
