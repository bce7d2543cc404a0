"""Compare a saved IDA run of EPGPClassifier with the papers' full-GP columns and peers.

    python -m benchmarks run report_full_gp benchmarks/results/ida_ep.json

For each data set: our mean ± sd (sd over realizations), the published full-GP
figures, whether ours lies within one of our standard deviations of each published
figure (or of the published sd for [SSK09]), and the fit-time ratios of the peers.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from benchmarks._lib.paper_tables import FITC_PAPER_GPC, NLP_PAPER_FULL_GP
from benchmarks._lib.reports import stats, within


def report(path):
    run = json.loads(Path(path).read_text())
    by = {}
    for r in run["results"]:
        by.setdefault(r["dataset"], {}).setdefault(r["estimator"], []).append(r)
    print(
        "| data set | EP error % | EP NLP | [NGH07] GPC err / nlp | within 1 sd | "
        "[SSK09] full GP err / nlp | within 1 sd | SVC err % | sklearn GPC err % / NLP | "
        "fit s: EP / SVC / skGPC |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for dataset, est in by.items():
        (e, es), (p, ps) = stats(est["ep"], "error"), stats(est["ep"], "nlp")
        cells = [dataset, f"{100 * e:.2f} ± {100 * es:.2f}", f"{p:.3f} ± {ps:.3f}"]
        if dataset in FITC_PAPER_GPC:
            te, tp = FITC_PAPER_GPC[dataset]
            cells += [
                f"{100 * te:.1f} / {tp:.3f}",
                f"{within(e, es, te)} / {within(p, ps, tp)}",
            ]
        else:
            cells += ["–", "–"]
        if dataset in NLP_PAPER_FULL_GP:
            te, tes, tp, tps = NLP_PAPER_FULL_GP[dataset]
            cells += [
                f"{100 * te:.2f} ± {100 * tes:.2f} / {tp:.3f} ± {tps:.3f}",
                f"{within(e, es, te, tes)} / {within(p, ps, tp, tps)}",
            ]
        else:
            cells += ["–", "–"]
        se, ses = stats(est["svc"], "error")
        ge, _ = stats(est["sklearn_gpc"], "error")
        gp, _ = stats(est["sklearn_gpc"], "nlp")
        times = [stats(est[k], "fit_seconds")[0] for k in ("ep", "svc", "sklearn_gpc")]
        cells += [
            f"{100 * se:.2f} ± {100 * ses:.2f}",
            f"{100 * ge:.2f} / {gp:.3f}",
            " / ".join(f"{t:.1f}" for t in times),
        ]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    report(sys.argv[1])
