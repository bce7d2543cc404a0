"""Tables from saved runs: means with standard deviations, and agreement with a paper."""

import json
from pathlib import Path

import numpy as np

from sparsegp.metrics import expected_calibration_error


def stats(rows, field):
    """Mean and sample standard deviation of ``field`` over ``rows``."""
    values = np.array([r[field] for r in rows], dtype=float)
    return values.mean(), values.std(ddof=1) if len(values) > 1 else 0.0


def within(ours, sd, target, target_sd=0.0):
    """'yes' within one sd, 'better' below it (lower is better), else a bold 'no'."""
    if abs(ours - target) <= max(sd, target_sd):
        return "yes"
    return "better" if ours < target else "**no**"


def load(paths):
    """``{original?: {dataset: {estimator: [rows]}}}`` over all files."""
    grouped = {True: {}, False: {}}
    for path in paths:
        run = json.loads(Path(path).read_text())
        flags = run.get("reconstructed", {})
        for r in run["results"]:
            rebuilt = flags.get(r["dataset"], [False] * 10)[r["realization"]]
            table = grouped[not rebuilt].setdefault(r["dataset"], {})
            table.setdefault(r["estimator"], []).append(r)
    return grouped


def mean_cell(rows, field, scale=1.0, digits=2):
    """``mean ± sd`` of ``field`` over ``rows``, scaled, as a table cell."""
    mean, sd = stats(rows, field)
    return f"{scale * mean:.{digits}f} ± {scale * sd:.{digits}f}"


def calibration_error(fitted, X_test, y_test):
    """ECE of the positive class (two classes) or of the top label (more)."""
    proba = fitted.predict_proba(X_test)
    if proba.shape[1] == 2:
        return expected_calibration_error(y_test == fitted.classes_[1], proba[:, 1])
    predicted = fitted.classes_[np.argmax(proba, axis=1)]
    return expected_calibration_error(predicted == y_test, np.max(proba, axis=1))
