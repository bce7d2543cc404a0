"""Compare a saved IDA run of IVMClassifier with Naish-Guzman & Holden's IVM column.

    python -m benchmarks run report_ivm benchmarks/results/ida_ivm.json \
        benchmarks/results/ida_ep.json

The second file (optional) adds the full EP GP of an earlier run for reference.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from benchmarks._lib.paper_tables import FITC_PAPER_IVM
from benchmarks._lib.reports import stats, within


def by_dataset(path):
    grouped = {}
    for r in json.loads(Path(path).read_text())["results"]:
        grouped.setdefault(r["dataset"], {}).setdefault(r["estimator"], []).append(r)
    return grouped


def report(ivm_path, ep_path=None):
    runs = by_dataset(ivm_path)
    ep = by_dataset(ep_path) if ep_path else {}
    print(
        "| data set | d | IVM error % | IVM NLP | [NGH07] IVM err / nlp | within 1 sd | "
        "SVC error % | SVC NLP | fit s: IVM / SVC | full EP error % / NLP |"
    )
    print("|---|---:|---|---|---|---|---|---|---|---|")
    for dataset, est in runs.items():
        (e, es), (p, ps) = stats(est["ivm"], "error"), stats(est["ivm"], "nlp")
        te, tp, d = FITC_PAPER_IVM[dataset]
        (se, ses), (sp, _) = stats(est["svc"], "error"), stats(est["svc"], "nlp")
        times = [stats(est[k], "fit_seconds")[0] for k in ("ivm", "svc")]
        full = "–"
        if dataset in ep:
            full = (
                f"{100 * stats(ep[dataset]['ep'], 'error')[0]:.2f} / "
                f"{stats(ep[dataset]['ep'], 'nlp')[0]:.3f}"
            )
        print(
            f"| {dataset} | {d} | {100 * e:.2f} ± {100 * es:.2f} | {p:.3f} ± {ps:.3f} | "
            f"{100 * te:.1f} / {tp:.3f} | {within(e, es, te)} / {within(p, ps, tp)} | "
            f"{100 * se:.2f} ± {100 * ses:.2f} | {sp:.3f} | "
            f"{times[0]:.2f} / {times[1]:.2f} | {full} |"
        )


if __name__ == "__main__":
    report(*sys.argv[1:3])
