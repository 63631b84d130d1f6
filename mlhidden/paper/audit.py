"""Audit of the paper's own numbers, done before any of ours is compared with them.

Every mark is a computed comparison on the paper's printed values (``reference_results.csv``: one
row per printed value, with the table it is printed in) and on the trivial baselines measured on
the same datasets, so a reviewer can re-run each one:

- **impossible**: a score outside [0, 1], or a Hamming score below the exact match of the same
  table, dataset and method (an instance with all its labels right has each label right, so the
  Hamming score is never below the exact match);
- **printed differently**: the same metric, dataset and method printed with different values in
  two tables;
- **below a trivial baseline**: the value is below what a predictor that ignores x scores on the
  same dataset (all-zero, per-label majority, most frequent label set), and by how much;
- **failed run**: every value of a method on a dataset (its row of exact match and Hamming score),
  or every value of a method under one metric (its column over the datasets), is below a baseline;
- **words against its own tables**: a sentence of the paper that its own printed values contradict
  (:mod:`mlhidden.paper.text_checks`).

A per-label accuracy (Medical's chain) is compared with the baselines' mean per-label accuracy,
which is their Hamming score: with the chain's label order drawn at random, that is what a
baseline scores at any position of the chain.

The paper prints two decimals: a printed value v is below a baseline b only when v + ROUNDING < b,
and a printed Hamming score is below a printed exact match only when by more than 2 * ROUNDING.
Values are checked against the baselines only where those were measured, and the audit says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from mlhidden.paper.text_checks import CONTRADICTED, STATEMENT_COLUMNS, check_statements

KEY = ["table", "metric", "dataset", "method"]
RUN_KEY = ["table", "dataset", "method"]
SCORE_METRICS = ("exact_match", "hamming_score", "label_accuracy")
BASELINE_METRICS = ("exact_match", "hamming_score")
METRIC_NAMES = {"exact_match": "exact match", "hamming_score": "Hamming score", "label_accuracy": "label accuracy"}
ROUNDING = 0.005
"""Half the last printed digit of the paper's two-decimal tables."""

OUTSIDE, HAMMING_BELOW_EXACT, PRINTED_DIFFERENTLY, BELOW_BASELINE, FAILED_ROW, FAILED_COLUMN = (
    "outside [0, 1]",
    "Hamming score below exact match",
    "printed differently",
    "below a trivial baseline",
    "failed run: row",
    "failed run: column",
)
KINDS = (OUTSIDE, HAMMING_BELOW_EXACT, PRINTED_DIFFERENTLY, BELOW_BASELINE, FAILED_ROW, FAILED_COLUMN)
IMPOSSIBLE_KINDS = (OUTSIDE, HAMMING_BELOW_EXACT)
MARK_COLUMNS = [*KEY, "paper", "kind", "baseline", "other", "gap", "statement"]
CLEAN = "no defect found"
UNCHECKED = "no trivial baseline measured on this data"


def printed(value: float) -> str:
    """A value as the paper prints it: two decimals, or three where it has three."""
    return f"{value:.2f}" if round(value, 2) == round(value, 6) else f"{value:.3f}"


def _mark(row, kind: str, statement: str, gap: float = math.nan, other: float = math.nan, baseline: str = "") -> dict:
    return {
        "table": row.table,
        "metric": row.metric,
        "dataset": row.dataset,
        "method": row.method,
        "paper": row.paper,
        "kind": kind,
        "baseline": baseline,
        "other": other,
        "gap": gap,
        "statement": statement,
    }


def _marks(rows: list) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=MARK_COLUMNS)


def _score_values(reference: pd.DataFrame) -> pd.DataFrame:
    """The paper's printed scores (not its times or dataset statistics): the KEY columns and ``paper``."""
    values = reference[reference["metric"].isin(SCORE_METRICS)].rename(columns={"value": "paper"})
    return values[[*KEY, "paper"]].astype({"paper": float}).reset_index(drop=True)


def _outside_unit_interval(values: pd.DataFrame) -> pd.DataFrame:
    """Scores below 0 or above 1."""
    return _marks(
        [
            _mark(
                row,
                OUTSIDE,
                f"{METRIC_NAMES[row.metric]} {printed(row.paper)} is outside [0, 1]: impossible",
                gap=max(-row.paper, row.paper - 1),
            )
            for row in values.itertuples(index=False)
            if not 0 <= row.paper <= 1
        ]
    )


def _hamming_below_exact(values: pd.DataFrame) -> pd.DataFrame:
    """Both values of every run whose Hamming score is below its exact match."""
    pairs = (
        values[values["metric"].isin(BASELINE_METRICS)]
        .pivot_table(
            index=RUN_KEY,
            columns="metric",
            values="paper",
            aggfunc="first",
            sort=False,
        )
        .reindex(columns=list(BASELINE_METRICS))
        .dropna()
    )
    rows = []
    for (table, dataset, method), pair in pairs.iterrows():
        hamming, exact = pair["hamming_score"], pair["exact_match"]
        if hamming + 2 * ROUNDING < exact:
            said = f"Hamming score {printed(hamming)} below exact match {printed(exact)}: impossible"
            for metric, value, other in (("hamming_score", hamming, exact), ("exact_match", exact, hamming)):
                cell = pd.Series(
                    {"table": table, "metric": metric, "dataset": dataset, "method": method, "paper": value}
                )
                rows.append(_mark(cell, HAMMING_BELOW_EXACT, said, gap=exact - hamming, other=other))
    return _marks(rows)


def _printed_differently(values: pd.DataFrame) -> pd.DataFrame:
    """Every value whose metric, dataset and method another table prints with another value, once per other print."""
    rows = []
    for _, group in values.groupby(["metric", "dataset", "method"], sort=False):
        if group["table"].nunique() < 2 or group["paper"].nunique() < 2:
            continue
        said = "printed " + ", ".join(
            f"{printed(r.paper)} in Table '{r.table}'" for r in group.itertuples(index=False)
        )
        for row in group.itertuples(index=False):
            for other in group.itertuples(index=False):
                if other.table != row.table and other.paper != row.paper:
                    rows.append(
                        _mark(row, PRINTED_DIFFERENTLY, said, gap=abs(row.paper - other.paper), other=other.paper)
                    )
    return _marks(rows)


def _measured_baselines(baselines: pd.DataFrame) -> pd.DataFrame:
    """The baselines (dataset, baseline, exact_match, hamming_score) long: dataset, baseline, metric, score;
    the Hamming score stands for the label accuracy too (the mean per-label accuracy)."""
    long = baselines.melt(
        id_vars=["dataset", "baseline"], value_vars=list(BASELINE_METRICS), var_name="metric", value_name="score"
    )
    per_label = long[long["metric"] == "hamming_score"].assign(metric="label_accuracy")
    return pd.concat([long, per_label], ignore_index=True)


def _below_baselines(values: pd.DataFrame, baselines: pd.DataFrame) -> pd.DataFrame:
    """One mark per value and trivial baseline that the value is below (beyond the rounding)."""
    merged = values.merge(_measured_baselines(baselines), on=["dataset", "metric"])
    below = merged[merged["paper"] + ROUNDING < merged["score"]]
    return _marks(
        [
            _mark(
                row,
                BELOW_BASELINE,
                f"below the {row.baseline} baseline ({row.score:.3f}) by {row.score - row.paper:.3f}",
                gap=row.score - row.paper,
                other=row.score,
                baseline=row.baseline,
            )
            for row in below.itertuples(index=False)
        ]
    )


def _baseline_checked(values: pd.DataFrame, baselines: pd.DataFrame) -> pd.Series:
    """Whether a trivial baseline was measured for each value's dataset and metric."""
    measured = set(zip(*(_measured_baselines(baselines).dropna(subset=["score"])[c] for c in ("dataset", "metric"))))
    return pd.Series(
        [(d, m) in measured for d, m in zip(values["dataset"], values["metric"])], index=values.index, dtype=bool
    )


def _failed_runs(values: pd.DataFrame, below: pd.DataFrame, checked: pd.Series) -> pd.DataFrame:
    """Every value of a row (a method on a dataset) or of a column (a method under a metric) whose values,
    at least two and all checked against the baselines, are all below one."""
    flagged = set(zip(*(below[c] for c in KEY)))
    is_below = pd.Series([key in flagged for key in zip(*(values[c] for c in KEY))], index=values.index, dtype=bool)
    rows = []
    scopes = ((RUN_KEY, FAILED_ROW), (["table", "metric", "method"], FAILED_COLUMN))
    for by, kind in scopes:
        for key, group in values.groupby(by, sort=False):
            if len(group) < 2 or not checked[group.index].all() or not is_below[group.index].all():
                continue
            shown = ", ".join(
                f"{METRIC_NAMES[r.metric] if kind == FAILED_ROW else r.dataset} {printed(r.paper)}"
                for r in group.itertuples(index=False)
            )
            if kind == FAILED_ROW:
                said = f"every value of {key[2]} on {key[1]} in Table '{key[0]}' ({shown}) is below a trivial baseline"
            else:
                said = f"every {METRIC_NAMES[key[1]]} of {key[2]} in Table '{key[0]}' ({shown})"
                said += " is below a trivial baseline"
            said += ": looks like a failed run"
            rows += [_mark(row, kind, said) for row in group.itertuples(index=False)]
    return _marks(rows)


@dataclass(frozen=True)
class Audit:
    """The audit of every printed score of the paper.

    Attributes
    ----------
    values : pandas.DataFrame
        One row per printed score: table, metric, dataset, method, paper, ``checked`` (a trivial
        baseline was measured on its data) and ``audit`` (every finding, or that there is none).
    marks : pandas.DataFrame
        One row per finding: the value's key, ``kind`` (one of :data:`KINDS`), ``baseline`` (its
        name, for :data:`BELOW_BASELINE`), ``other`` (the value it is compared with), ``gap`` (by
        how much) and ``statement``.
    baselines : tuple of str
        The trivial baselines' names, in the order they were given.
    statements : pandas.DataFrame
        The paper's sentences checked against its own tables
        (:func:`~mlhidden.paper.text_checks.check_statements`).
    """

    values: pd.DataFrame
    marks: pd.DataFrame
    baselines: tuple = ()
    statements: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=STATEMENT_COLUMNS))

    def cells(self, *kinds: str) -> pd.DataFrame:
        """The distinct values carrying a mark of one of ``kinds``."""
        return self.marks[self.marks["kind"].isin(kinds)].drop_duplicates(KEY)[[*KEY, "paper"]]

    def counts(self) -> pd.Series:
        """What the audit found, counted: values, impossibilities, duplicates, below each baseline, failed runs."""
        below = self.marks[self.marks["kind"] == BELOW_BASELINE]
        counts = {
            "printed scores audited": len(self.values),
            "of them on data with trivial baselines measured": int(self.values["checked"].sum()),
            "impossible (a value outside [0, 1], or a pair: Hamming score below exact match)": self.impossible(),
            "printed differently in two tables": len(self.cells(PRINTED_DIFFERENTLY)),
            "below at least one trivial baseline": len(self.cells(BELOW_BASELINE)),
            **{f"below the {name} baseline": int((below["baseline"] == name).sum()) for name in self.baselines},
            "failed-run rows (every value of a method on a dataset below a baseline)": self._groups(
                FAILED_ROW, RUN_KEY
            ),
            "failed-run columns (every value of a method under a metric below a baseline)": self._groups(
                FAILED_COLUMN, ["table", "metric", "method"]
            ),
            "sentences checked against the paper's own tables": len(self.statements),
            "of them contradicted by its own tables": len(self.contradicted()),
        }
        return pd.Series(counts, dtype=int)

    def impossible(self) -> int:
        """How many impossibilities: a value outside [0, 1], and a pair of a Hamming score below its exact match."""
        return len(self.cells(OUTSIDE)) + self._groups(HAMMING_BELOW_EXACT, RUN_KEY)

    def contradicted(self) -> pd.DataFrame:
        """The checked sentences that the paper's own tables contradict."""
        return self.statements[self.statements["verdict"] == CONTRADICTED]

    def _groups(self, kind: str, by: list) -> int:
        return len(self.marks[self.marks["kind"] == kind].drop_duplicates(by))

    def _run(self, key: tuple) -> pd.DataFrame:
        """The marks of the run (table, dataset, method) of the value at ``key``."""
        return self.marks[(self.marks[RUN_KEY] == [key[0], key[2], key[3]]).all(axis=1)]

    def explanation(self, key: tuple, ours: float, tolerance: float) -> str:
        """What about the value at ``key`` itself explains ours differing: outside [0, 1], a failed run, below a
        baseline, a second print ours is within ``tolerance`` of ("" if none; an impossible pair is :meth:`context`)."""
        own = self._run(key)
        own = own[own["metric"] == key[1]]
        decisive = own[~own["kind"].isin((PRINTED_DIFFERENTLY, HAMMING_BELOW_EXACT))]
        if not decisive.empty:
            return "; ".join(dict.fromkeys(decisive["statement"]))
        close = own[(own["kind"] == PRINTED_DIFFERENTLY) & ((own["other"] - ours).abs() <= tolerance)]
        if not close.empty:
            return f"{close['statement'].iloc[0]}; ours is within {tolerance} of {printed(close['other'].iloc[0])}"
        return ""

    def context(self, key: tuple) -> str:
        """The findings on the value's run that are not about the value: its impossible pair, the other metric's."""
        run, metric = self._run(key), key[1]
        pair = run[(run["metric"] == metric) & (run["kind"] == HAMMING_BELOW_EXACT)]
        others = run[(run["metric"] != metric) & ~run["kind"].isin((PRINTED_DIFFERENTLY, HAMMING_BELOW_EXACT))]
        found = [f"{statement} (which of the two is wrong is not known)" for statement in pair["statement"][:1]]
        return "; ".join(found + [f"the same run's {METRIC_NAMES[row.metric]} {printed(row.paper)}: {row.statement}"
                                  for row in others.drop_duplicates("statement").itertuples()])


def audit_paper(reference: pd.DataFrame, baselines: pd.DataFrame, statements: tuple | list = ()) -> Audit:
    """Audit every printed score of ``reference`` (the paper's table: table, metric, dataset, method,
    value) against itself and against ``baselines`` (dataset, baseline, exact_match, hamming_score:
    the trivial baselines measured on the same datasets), and ``statements`` (the paper's sentences,
    :func:`~mlhidden.paper.text_checks.paper_statements`) against its tables."""
    values = _score_values(reference)
    checked = _baseline_checked(values, baselines)
    below = _below_baselines(values, baselines)
    found = [
        _outside_unit_interval(values),
        _hamming_below_exact(values),
        _printed_differently(values),
        below,
        _failed_runs(values, below, checked),
    ]
    marks = pd.concat([frame for frame in found if not frame.empty] or [_marks([])], ignore_index=True)
    said = marks.groupby(KEY, sort=False)["statement"].agg(lambda s: "; ".join(dict.fromkeys(s)))
    found_by_value = [said.get(key, "") for key in zip(*(values[c] for c in KEY))]
    audit = [text or (CLEAN if ok else f"{CLEAN}; {UNCHECKED}") for text, ok in zip(found_by_value, checked)]
    return Audit(
        values.assign(checked=checked, audit=audit), marks, tuple(baselines["baseline"].unique()),
        check_statements(reference, list(statements)),
    )


def audit_column(audit: Audit, comparisons: pd.DataFrame) -> pd.Series:
    """The audit of the paper's value in each comparison row ("" where the row has no audited paper score)."""
    found = audit.values.set_index(KEY)["audit"]
    return pd.Series(
        [found.get(key, "") for key in zip(*(comparisons[c] for c in KEY))], index=comparisons.index, dtype=str
    )
