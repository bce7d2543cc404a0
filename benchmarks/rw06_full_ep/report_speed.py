"""An estimator's IDA results before and after a speed change, and its time beside a peer.

    python -m benchmarks run report_speed benchmarks/results/ida_ep.json \
        benchmarks/results/ida_ep_speed.json --estimator ep --peer sklearn_gpc

For each data set: the error and NLP of ``--estimator`` in the earlier run and in the
new one (mean ± sd over realizations), whether the new mean lies within one standard
deviation (the larger of the two runs') of the earlier one, the fit seconds of both
runs, and the new run's ratio to ``--peer`` fitted in the same processes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def by_dataset(path, estimator):
    rows = {}
    for r in json.loads(Path(path).read_text())["results"]:
        if r["estimator"] == estimator:
            rows.setdefault(r["dataset"], []).append(r)
    return rows


def stats(rows, field):
    values = np.array([r[field] for r in rows], dtype=float)
    return values.mean(), values.std(ddof=1) if len(values) > 1 else 0.0


def unchanged(before, after, field):
    (b, bs), (a, as_) = stats(before, field), stats(after, field)
    return "yes" if abs(a - b) <= max(bs, as_) else "**no**"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--estimator", default="ep")
    parser.add_argument("--peer", default="sklearn_gpc")
    args = parser.parse_args(argv)
    before = by_dataset(args.before, args.estimator)
    after = by_dataset(args.after, args.estimator)
    peer = by_dataset(args.after, args.peer)
    print(
        "| data set | runs | error % before / after | NLP before / after | "
        "within 1 sd | fit s before / after | peer fit s | after / peer |"
    )
    print("|---|---:|---|---|---|---|---:|---:|")
    for dataset, rows in after.items():
        old = before.get(dataset, [])
        (e0, e0s), (e1, e1s) = stats(old, "error"), stats(rows, "error")
        (p0, p0s), (p1, p1s) = stats(old, "nlp"), stats(rows, "nlp")
        t0, t1 = stats(old, "fit_seconds")[0], stats(rows, "fit_seconds")[0]
        tp = stats(peer[dataset], "fit_seconds")[0] if dataset in peer else np.nan
        cells = [
            dataset,
            str(len(rows)),
            f"{100 * e0:.2f} ± {100 * e0s:.2f} / {100 * e1:.2f} ± {100 * e1s:.2f}",
            f"{p0:.3f} ± {p0s:.3f} / {p1:.3f} ± {p1s:.3f}",
            f"{unchanged(old, rows, 'error')} / {unchanged(old, rows, 'nlp')}",
            f"{t0:.1f} / {t1:.1f}",
            f"{tp:.1f}",
            f"{t1 / tp:.2f}",
        ]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
