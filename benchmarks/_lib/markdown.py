"""Markdown tables from saved runs (``benchmarks/results/*.json``).

A run file holds ``command``, ``date``, ``machine`` and ``results`` (a list of row
dicts). :func:`pivot` makes one table row per value of a key (a data set, an
estimator) and a group of columns per value of another, each cell a mean (± sd over
realizations); :func:`rows` prints chosen fields of each row. BENCHMARKS.md is made of
these (``benchmarks/_lib/claims.py``).
"""

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parents[1] / "results"


def load_run(name: str) -> dict:
    """The run saved as ``benchmarks/results/<name>.json``."""
    return json.loads((RESULTS / f"{name}.json").read_text())


def _mean_sd(values):
    values = np.asarray(values, dtype=float)
    return values.mean(), (values.std(ddof=1) if len(values) > 1 else 0.0)


#: How a field is shown: its header, the scale of its values and their format.
FIELDS = {
    "error": ("error %", 100.0, ".2f"),
    "nlp": ("NLP", 1.0, ".3f"),
    "ece": ("ECE", 1.0, ".3f"),
    "fit_seconds": ("fit s", 1.0, ".2f"),
    "cpu_seconds": ("CPU s", 1.0, ".2f"),
    "mse": ("MSE", 1.0, ".2e"),
    "model_size": ("size", 1.0, ".0f"),
    "relevance_vectors": ("relevance vectors", 1.0, ".0f"),
}


def cell(values, field: str, spread: bool) -> str:
    """``mean`` (or ``mean ± sd`` with ``spread``) of ``values`` as ``field`` shows."""
    _, scale, spec = FIELDS.get(field, (field, 1.0, ".2f"))
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    mean, sd = _mean_sd(values)
    if spread and len(values) > 1:
        return f"{scale * mean:{spec}} ± {scale * sd:{spec}}"
    return f"{scale * mean:{spec}}"


def table(header: Sequence[str], body: Sequence[Sequence[str]]) -> list[str]:
    """A markdown table, the first column left-aligned and the others right."""
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|---" + "|---:" * (len(header) - 1) + "|")
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return lines


def pivot(
    results: list[dict],
    row_key: str,
    column_key: str,
    columns: dict[str, str],
    fields: Sequence[str] = ("error", "nlp", "fit_seconds"),
    *,
    spread: Sequence[str] = ("error", "nlp"),
    row_labels: dict | None = None,
    extra: Callable[[object], list[str]] | None = None,
    extra_header: Sequence[str] = (),
) -> list[str]:
    """One row per ``row_key`` value (in first-seen order, or ``row_labels``' order),
    ``fields`` of each ``columns`` entry (``{value: label}``) beside each other;
    ``extra(row_value)`` appends cells such as a paper's figure."""
    order = (
        list(row_labels)
        if row_labels
        else list(dict.fromkeys(r[row_key] for r in results))
    )
    header = [row_key.replace("_", " ")]
    for label in columns.values():
        header += [f"{label}: {FIELDS.get(f, (f,))[0]}" for f in fields]
    header += list(extra_header)
    body = []
    for value in order:
        selected = [r for r in results if r[row_key] == value]
        if not selected:
            continue
        row = [row_labels[value] if row_labels else str(value)]
        for key in columns:
            group = [r for r in selected if r[column_key] == key]
            row += [cell([r.get(f) for r in group], f, f in spread) for f in fields]
        body.append(row + (extra(value) if extra else []))
    return table(header, body)


def rows(results: list[dict], fields: dict[str, str], formats: dict | None = None):
    """A table of ``fields`` (``{key: header}``) of every row, ``formats[key]`` a
    format spec or a function of the row."""
    formats = formats or {}
    body = []
    for r in results:
        line = []
        for key in fields:
            spec = formats.get(key)
            if callable(spec):
                line.append(spec(r))
            elif key in FIELDS and spec is None:
                line.append(cell([r.get(key)], key, False))
            elif spec is not None:
                line.append(format(r.get(key), spec))
            else:
                line.append(str(r.get(key)))
        body.append(line)
    return table(list(fields.values()), body)
