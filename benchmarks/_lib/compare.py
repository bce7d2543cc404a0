"""A saved run against its earlier version in git: what a re-run changed.

``python -m benchmarks compare RUN --against REV`` reads
``benchmarks/results/RUN.json`` from the working tree and from git revision ``REV``,
groups the records by ``--key`` fields (the realizations of one estimator on one set)
and prints, for each group and metric, the earlier and the new mean ± sd, the shift
of the mean in units of the earlier sd, and how many records are bit-identical.
A group is *same* when every record's metrics are equal, *within* when every metric's
mean moved by at most one earlier sd (by at most the metric's rounding where that sd is
zero), else *moved*.
"""

import json
import subprocess
from collections import defaultdict
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parents[1] / "results"


def _records(run, revision=None):
    """The records of ``run``: from the working tree, or from git at ``revision``."""
    path = RESULTS / f"{run}.json"
    if revision is None:
        return json.loads(path.read_text())["results"]
    relative = path.relative_to(RESULTS.parents[1])
    text = subprocess.run(
        ["git", "show", f"{revision}:{relative}"],
        cwd=RESULTS.parents[1],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(text)["results"]


def _groups(records, key):
    grouped = defaultdict(list)
    for record in records:
        grouped[tuple(record.get(field) for field in key)].append(record)
    return grouped


def compare(earlier, later, key, metrics, resolution=1e-4):
    """Rows ``(group, metric, earlier mean, earlier sd, later mean, later sd, shift,
    largest change, identical records, verdict)`` for the groups present in both runs.

    Records pair up by their position in the group (the realizations in run order);
    ``shift`` is ``|Δ mean| / earlier sd`` (``inf`` for a shift over ``resolution``
    with zero sd); the largest change is that of one record."""
    before, after = _groups(earlier, key), _groups(later, key)
    rows = []
    for group in sorted(set(before) & set(after), key=str):
        old, new = before[group], after[group]
        identical = sum(
            all(a.get(m) == b.get(m) for m in metrics)
            for a, b in zip(old, new, strict=False)
        )
        verdicts = []
        group_rows = []
        for metric in metrics:
            a = np.array([r[metric] for r in old if r.get(metric) is not None], float)
            b = np.array([r[metric] for r in new if r.get(metric) is not None], float)
            if not len(a) or not len(b):
                continue
            delta = abs(b.mean() - a.mean())
            paired = min(len(a), len(b))
            largest = float(np.max(np.abs(b[:paired] - a[:paired])))
            sd = a.std(ddof=1) if len(a) > 1 else 0.0
            shift = delta / sd if sd > 0 else (0.0 if delta <= resolution else np.inf)
            verdicts.append(shift <= 1.0)
            group_rows.append(
                [
                    group,
                    metric,
                    a.mean(),
                    sd,
                    b.mean(),
                    b.std(ddof=1) if len(b) > 1 else 0.0,
                    shift,
                    largest,
                ]
            )
        same = identical == len(old) == len(new)
        verdict = "same" if same else "within" if all(verdicts) else "moved"
        rows += [[*row, f"{identical}/{len(new)}", verdict] for row in group_rows]
    return rows


def report(run, revision, key, metrics):
    """Print :func:`compare` of ``run`` now against ``run`` at ``revision``; return
    the number of groups that moved."""
    rows = compare(_records(run, revision), _records(run), key, metrics)
    print(f"# {run}: working tree against {revision}")
    print(
        f"{'group':42s} {'metric':12s} {'before':>17s} {'now':>17s} "
        f"{'shift/sd':>8s} {'max |Δ|':>8s}  same   verdict"
    )
    moved = set()
    for group, metric, m0, s0, m1, s1, shift, largest, identical, verdict in rows:
        name = " / ".join(str(g) for g in group)
        print(
            f"{name:42s} {metric:12s} {m0:9.4f} ± {s0:.4f} {m1:9.4f} ± {s1:.4f} "
            f"{shift:8.2f} {largest:8.1e}  {identical:6s} {verdict}"
        )
        if verdict == "moved":
            moved.add(group)
    counts = defaultdict(set)
    for row in rows:
        counts[row[-1]].add(row[0])
    print("groups: " + ", ".join(f"{len(v)} {k}" for k, v in sorted(counts.items())))
    return len(moved)
