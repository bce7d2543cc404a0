"""[SSK09]'s Tables 2-4 from saved runs of NLPSparseGPClassifier and its peers.

    python -m benchmarks run report_nlp benchmarks/results/ida_nlp.json \
        [benchmarks/results/ida_nlp_dmax.json]

Tables 2 (test NLP, ×10⁻²) and 4 (test error, %): ours beside [SSK09]'s figures for the full
GP, the random baseline, NLP(κ = 59) and the IVM (ours at d = N/5 and at [SSK09]'s d, [SSK09]'s
at its best d_max: N/2, image N/3, titanic 2N/3), with "within 1 sd" judged against the
larger of the two sds. Then the fit times and, if the runs hold them, Table 3 (test NLP
against d_max = N/k). Original and reconstructed realizations are reported apart.
"""

from __future__ import annotations

import sys

from benchmarks._lib.paper_tables import (
    NLP_PAPER_BASELINE,
    NLP_PAPER_DMAX,
    NLP_PAPER_FULL_GP,
    NLP_PAPER_IVM,
    NLP_PAPER_KAPPA59,
)
from benchmarks._lib.reports import load, stats, within

#: ours -> [SSK09]'s column, in [SSK09]'s order.
COLUMNS = (
    ("ep", NLP_PAPER_FULL_GP),
    ("nlp_random", NLP_PAPER_BASELINE),
    ("nlp", NLP_PAPER_KAPPA59),
    ("ivm_n5", None),
    ("ivm_002", NLP_PAPER_IVM),
)
TIMED = ("nlp", "nlp_random", "ivm_n5", "ep", "svc")


def paper_key(dataset):
    return dataset.removesuffix("_002")


def cell(rows, field, scale):
    mean, sd = stats(rows, field)
    return f"{scale * mean:.2f} ± {scale * sd:.2f}"


def comparison_table(grouped, field, scale, title):
    offset = 0 if field == "error" else 2
    print(f"\n{title}: ours ([SSK09])\n")
    print(
        "| data set | runs | full EP | baseline κ=1 | NLP κ=59 | NLP κ=59 within 1 sd "
        "| IVM d=N/5 | IVM at [SSK09]'s d | SVC |"
    )
    print("|---|---:|---|---|---|---|---|---|---|")
    for dataset, est in grouped.items():
        if "nlp" not in est:
            continue
        key = paper_key(dataset)
        cells = []
        for name, paper in COLUMNS:
            ours = cell(est[name], field, scale) if name in est else "–"
            if paper is None:
                cells.append(ours)
                continue
            mean, sd = paper[key][offset : offset + 2]
            cells.append(f"{ours} ({scale * mean:.2f} ± {scale * sd:.2f})")
        mean, sd = stats(est["nlp"], field)
        verdict = within(mean, sd, *NLP_PAPER_KAPPA59[key][offset : offset + 2])
        svc = cell(est["svc"], field, scale) if "svc" in est else "–"
        print(
            f"| {dataset} | {len(est['nlp'])} | {' | '.join(cells[:3])} | {verdict} "
            f"| {cells[3]} | {cells[4]} | {svc} |"
        )


def timing_table(grouped):
    print("\nMean fit seconds (same process, one after another)\n")
    print(f"| data set | {' | '.join(TIMED)} | NLP / IVM |")
    print(f"|---|{'---:|' * (len(TIMED) + 1)}")
    for dataset, est in grouped.items():
        if "nlp" not in est:
            continue
        seconds = {n: stats(est[n], "fit_seconds")[0] for n in TIMED if n in est}
        cells = " | ".join(f"{seconds[n]:.1f}" if n in seconds else "–" for n in TIMED)
        ratio = (
            f"{seconds['nlp'] / seconds['ivm_n5']:.1f}" if "ivm_n5" in seconds else "–"
        )
        print(f"| {dataset} | {cells} | {ratio} |")


def dmax_table(grouped):
    rows = []
    for dataset, est in grouped.items():
        for k, (mean_paper, sd_paper) in NLP_PAPER_DMAX.get(dataset, {}).items():
            name = "nlp" if k == 5 else f"nlp_n{k}"
            if name not in est:
                continue
            mean, sd = stats(est[name], "nlp")
            error, error_sd = stats(est[name], "error")
            rows.append(
                f"| {dataset} | N/{k} | {len(est[name])} | {100 * mean:.2f} ± "
                f"{100 * sd:.2f} | {100 * mean_paper:.2f} ± {100 * sd_paper:.2f} "
                f"| {within(mean, sd, mean_paper, sd_paper)} | {100 * error:.2f} ± "
                f"{100 * error_sd:.2f} |"
            )
    if rows:
        print("\nTable 3: test NLP (×10⁻²) of NLP(κ = 59) against d_max\n")
        print("| data set | d_max | runs | ours | [SSK09] | within 1 sd | error % |")
        print("|---|---|---:|---|---|---|---|")
        print("\n".join(rows))


def report(paths):
    grouped = load(paths)
    for original, title in ((True, "Original realizations"), (False, "Reconstructed")):
        if not grouped[original]:
            continue
        print(f"\n## {title}")
        comparison_table(grouped[original], "nlp", 100, "Table 2, test NLP ×10⁻²")
        comparison_table(grouped[original], "error", 100, "Table 4, test error %")
        timing_table(grouped[original])
        dmax_table(grouped[original])


if __name__ == "__main__":
    report(sys.argv[1:])
