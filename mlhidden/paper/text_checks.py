"""The paper's words against its own tables: a part of the audit of its numbers.

``text_checks.yaml`` (beside this module) quotes each sentence with its line in the shipped ``.tex``
and says how its words are read; :func:`check_statements` computes what the paper's own printed
values (``reference_results.csv``) say, so a reader can re-run every finding:

- **which**: the sentence names the models that reach a value (Table 3: which chain order solves
  Logical); the table's values name them too, and the two lists are compared;
- **ratio**: the sentence gives a size for the ratio of two groups' mean values (running times); the
  ratio is computed per dataset, and every dataset outside the reading contradicts the sentence, or,
  with ``over: geometric mean``, their geometric mean is set against the reading (as the claims file's
  ``unit: datasets`` reads a ratio, so that one sentence is read one way in the whole report). A
  dataset whose denominator is printed as 0 has no ratio and is counted as such.
"""

from __future__ import annotations

import math
from importlib import resources

import numpy as np
import pandas as pd
import yaml

from mlhidden.escaping import markdown_escape

STATEMENTS_FILE = "text_checks.yaml"
GEOMETRIC_MEAN = "geometric mean"
PRINTED_ROUNDING = 0.005
CONSISTENT, CONTRADICTED = "consistent", "contradicted by its own table"
STATEMENT_COLUMNS = ["line", "words", "reading", "computed", "verdict"]


def paper_statements() -> list:
    """The checked sentences of ``text_checks.yaml``, as mappings."""
    text = resources.files("mlhidden.paper").joinpath(STATEMENTS_FILE).read_text(encoding="utf-8")
    return list(yaml.safe_load(text)["statements"])


def _which(statement: dict, reference: pd.DataFrame) -> tuple:
    """The models the table says reach the threshold, against those the sentence names."""
    values = reference[(reference["table"] == statement["table"]) & (reference["metric"] == statement["metric"])]
    chosen = values.set_index("method")["value"]
    printed = {model: float(chosen[model]) for model in statement["among"] if model in chosen.index}
    reached = [model for model, value in printed.items() if value + PRINTED_ROUNDING >= statement["at_least"]]
    said = list(statement["said"])
    computed = (
        f"Table '{statement['table']}', {statement['metric'].replace('_', ' ')}: "
        + ", ".join(f"{model} {value:.2f}" for model, value in printed.items())
        + f"; reaching {statement['at_least']:.2f}: {', '.join(reached) or 'none'}; the sentence: {', '.join(said)}"
    )
    return computed, CONSISTENT if sorted(reached) == sorted(said) else CONTRADICTED


def _selected(statement: dict, reference: pd.DataFrame, datasets: list) -> list:
    """The table's datasets the sentence is about (``min_samples``: by the paper's table of datasets)."""
    if "min_samples" not in statement:
        return datasets
    sizes = reference[(reference["table"] == "datasets") & (reference["metric"] == "n_samples")]
    large = set(sizes.loc[sizes["value"].astype(float) >= statement["min_samples"], "dataset"])
    return [dataset for dataset in datasets if dataset in large]


def ratios(statement: dict, reference: pd.DataFrame) -> pd.Series:
    """Per dataset of the statement, mean(numerator) / mean(denominator) of the paper's printed values
    (NaN where the denominator is printed as 0)."""
    values = reference[(reference["table"] == statement["table"]) & (reference["metric"] == statement["metric"])]
    grid = values.pivot_table(index="dataset", columns="method", values="value", sort=False).astype(float)
    grid = grid.loc[_selected(statement, reference, list(grid.index))]
    top, bottom = grid[list(statement["numerator"])].mean(axis=1), grid[list(statement["denominator"])].mean(axis=1)
    return (top / bottom.where(bottom > 0)).rename("ratio")


def _ratio(statement: dict, reference: pd.DataFrame) -> tuple:
    """The per-dataset ratios, their range and those outside the reading (or their geometric mean's place)."""
    found = ratios(statement, reference)
    low, high = statement["reading"]
    high = math.inf if high is None else high
    defined = found.dropna()
    outside = defined[(defined < low) | (defined > high)]
    name = " / ".join(", ".join(group) for group in (statement["numerator"], statement["denominator"]))
    computed = (
        f"{name} in Table '{statement['table']}': {defined.min():.1f}x ({defined.idxmin()}) to "
        f"{defined.max():.1f}x ({defined.idxmax()}) over {len(defined)} datasets"
        + (f" ({len(found) - len(defined)} more printed as 0 s)" if len(defined) < len(found) else "")
    )
    if statement.get("over") == GEOMETRIC_MEAN:
        mean = math.exp(float(np.log(defined).mean()))
        return f"{computed}; geometric mean {mean:.1f}x", CONSISTENT if low <= mean <= high else CONTRADICTED
    computed += (
        "; outside the reading on " + str(len(outside)) + ": "
        + ", ".join(f"{dataset} {ratio:.1f}x" for dataset, ratio in outside.items())
        if len(outside)
        else "; every one inside the reading"
    )
    return computed, CONTRADICTED if len(outside) else CONSISTENT


CHECKS = {"which": _which, "ratio": _ratio}


def check_statements(reference: pd.DataFrame, statements: list) -> pd.DataFrame:
    """One row per statement (:data:`STATEMENT_COLUMNS`): what the paper's own table says about it."""
    rows = []
    for statement in statements:
        computed, verdict = CHECKS[statement["kind"]](statement, reference)
        reading = statement.get("reading_words", statement.get("reading"))
        rows.append([statement["line"], " ".join(statement["words"].split()), str(reading), computed, verdict])
    return pd.DataFrame(rows, columns=STATEMENT_COLUMNS)


def statements_markdown(checked: pd.DataFrame) -> str:
    """The audit's subsection: every checked sentence, its reading, what the paper's own table says."""
    if checked.empty:
        return ""
    lines = [
        f"- **Line {row.line}** ({'**' + row.verdict + '**' if row.verdict == CONTRADICTED else row.verdict}): "
        f"\"{markdown_escape(row.words)}\" Reading: {markdown_escape(row.reading)}. "
        f"The paper's own table: {markdown_escape(row.computed)}."
        for row in checked.itertuples(index=False)
    ]
    return (
        "### The paper's words against its own tables\n\n"
        f"Sentences its own printed values can check (`mlhidden/paper/{STATEMENTS_FILE}` quotes each with its line "
        "in the shipped `.tex` and says how its words are read; the values are the paper's, not ours).\n\n"
        + "\n".join(lines)
        + "\n\n"
    )
