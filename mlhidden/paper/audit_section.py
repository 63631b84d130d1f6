"""The section "Audit of the paper's numbers": the findings of :mod:`mlhidden.paper.audit` as REPORT.md shows
them, and the table of values below a baseline that the page shows with its decimals selector."""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from mlhidden.paper.audit import (
    BELOW_BASELINE,
    FAILED_COLUMN,
    FAILED_ROW,
    IMPOSSIBLE_KINDS,
    KEY,
    METRIC_NAMES,
    PRINTED_DIFFERENTLY,
    ROUNDING,
    RUN_KEY,
    Audit,
    printed,
)
from mlhidden.paper.text_checks import statements_markdown
from mlhidden.report import markdown_frame

AUDIT_TITLE = "Audit of the paper's numbers"


def _bullets(found: pd.DataFrame, by: list) -> str:
    """One line per finding, named by ``by`` (the columns that tell its cells apart)."""
    if found.empty:
        return "None.\n\n"
    lines = []
    for key, group in found.groupby(by or ["statement"], sort=False):
        where = ", ".join(
            f"Table '{part}'" if column == "table" else METRIC_NAMES.get(part, part) for column, part in zip(by, key)
        )
        said = "; ".join(dict.fromkeys(group["statement"]))
        lines.append(f"- {where}: {said}" if by else f"- {said}")
    return "\n".join(lines) + "\n\n"


def below_frame(audit: Audit, gap: Callable[[float], str]) -> pd.DataFrame | None:
    """The values below a baseline, one row each (:data:`KEY`, the paper's value as printed), with by how
    much it is below each baseline as ``gap`` shows it ("" where it is not); None when there are none."""
    below = audit.marks[audit.marks["kind"] == BELOW_BASELINE]
    if below.empty:
        return None
    gaps = below.pivot_table(index=[*KEY, "paper"], columns="baseline", values="gap", aggfunc="first")
    gaps = gaps.reindex(index=below.set_index([*KEY, "paper"]).index.unique(), columns=list(audit.baselines))
    shown = gaps.map(lambda value: "" if math.isnan(value) else gap(value)).reset_index()
    shown = shown.assign(paper=shown["paper"].map(printed), metric=shown["metric"].map(METRIC_NAMES))
    shown.columns = [*KEY, "paper", *(f"below {name} by" for name in gaps.columns)]
    return shown


def _below_table(audit: Audit) -> str:
    shown = below_frame(audit, lambda gap: f"{gap:.3f}")
    return "None.\n\n" if shown is None else markdown_frame(shown.set_index("table"), "Table") + "\n"


def audit_markdown(audit: Audit) -> str:
    """The report's section: the counts, then every impossibility, second print, value below a baseline, failed run."""
    marks, counts = audit.marks, audit.counts()
    parts = [
        f"## {AUDIT_TITLE}\n\n",
        "Before ours are compared with them, the paper's printed scores are checked against each other and against\n"
        "predictors that ignore x, measured on the paper run's splits (`mlhidden/paper/audit.py` states the rules;\n"
        f"a printed value counts as below a baseline only beyond its rounding, {ROUNDING}).\n"
        "A value below a baseline is not impossible: it is worse than ignoring the inputs.\n"
        "A per-label accuracy is compared with the baselines' mean per-label accuracy (their Hamming score).\n"
        "`comparison.csv` carries each value's findings in its `audit` column.\n\n",
        markdown_frame(counts.astype(str).rename("values").to_frame(), "Finding"),
        "\n",
        "### Impossible values\n\n",
        _bullets(marks[marks["kind"].isin(IMPOSSIBLE_KINDS)], RUN_KEY),
        "### Printed differently in two tables\n\n",
        _bullets(marks[marks["kind"] == PRINTED_DIFFERENTLY], ["dataset", "method", "metric"]),
        "### Below a trivial baseline\n\n",
        _below_table(audit),
    ]
    below = audit.cells(BELOW_BASELINE)
    if not below.empty:
        by_method = below["method"].value_counts()
        parts.append("By method: " + ", ".join(f"{m} {n}" for m, n in by_method.items()) + ".\n\n")
    failed = marks[marks["kind"].isin((FAILED_ROW, FAILED_COLUMN))]
    parts += ["### Rows or columns that look like a failed run\n\n", _bullets(failed, [])]
    unchecked = audit.values[~audit.values["checked"]]
    if not unchecked.empty:
        parts.append(f"Not checked against a baseline, none being measured on their data: {len(unchecked)} values.\n\n")
        for table, group in unchecked.groupby("table", sort=False):
            parts.append(
                f"- Table '{table}': "
                + ", ".join(f"{d} ({n})" for d, n in group.groupby("dataset", sort=False).size().items())
                + "\n"
            )
        parts.append("\n")
    parts.append(statements_markdown(audit.statements))
    return "".join(parts)
