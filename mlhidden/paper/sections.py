"""REPORT.md's sections on the paper's tables and figures, each next to the paper's numbers.

Here: the tables of the real datasets, the sweeps and Medical's chain (their significance tests are
:mod:`mlhidden.paper.significance_section`). The
sections on the generated data's tables (Tables 3 and 4, Fig. 'results_syn1') are in
:mod:`mlhidden.paper.synthetic_sections`; both build their comparison rows with :func:`comparison_row`.

A section takes evidence (:mod:`mlhidden.paper.evidence`), draws its figures through
:mod:`mlhidden.report.figures`, writes its tables through :mod:`mlhidden.report.formats`, and
returns a :class:`Section`: its Markdown, the comparison rows it adds to ``comparison.csv`` and the
files it wrote.
"""

from __future__ import annotations

import math
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from mlhidden.claims import StoredRuns
from mlhidden.escaping import markdown_escape
from mlhidden.paper.evidence import Evidence, refit_check
from mlhidden.paper.reference import PAPER_TABLES
from mlhidden.paper.wording import DEVIATION, missing_run
from mlhidden.report import (
    esc,
    format_avg_rank,
    format_interval,
    format_number,
    format_rank,
    markdown_frame,
    markdown_html,
    metric_table,
    number,
    plot_sweep,
    scroll_box,
    write_table,
)
from mlhidden.runs import METRICS

FLAG = "⚠"
COMPARISON_COLUMNS = [
    "table",
    "metric",
    "dataset",
    "method",
    "ours",
    "paper",
    "difference",
    "flagged",
    "ci_low",
    "ci_high",
    "beyond_deviation",
]
"""``comparison.csv``: ``beyond_deviation`` when ours and the paper's differ by more than DEVIATION;
``flagged`` when, besides, the paper's value lies outside our 95 % interval [ci_low, ci_high]."""


@dataclass
class Section:
    """A part of REPORT.md, the comparison rows it contributes and the files it wrote."""

    markdown: str
    comparisons: list = field(default_factory=list)
    paths: list = field(default_factory=list)
    html: str = ""
    """The page's body for the section where it is more than the Markdown rendered: numbers the
    decimals selector rewrites (:func:`~mlhidden.report.html.number`); "" where it is not."""


def comparison_row(
    table, metric, dataset, method, ours, paper, flagged: bool = True, interval=(math.nan, math.nan)
) -> dict:
    """One comparison row; a cell with no interval (fewer than two values) is flagged on the difference alone."""
    difference = ours - paper if not (math.isnan(ours) or math.isnan(paper)) else math.nan
    low, high = interval
    beyond = bool(flagged and not math.isnan(difference) and abs(difference) > DEVIATION)
    inside = not (math.isnan(low) or math.isnan(high)) and low <= paper <= high
    return {
        "table": table,
        "metric": metric,
        "dataset": dataset,
        "method": method,
        "ours": ours,
        "paper": paper,
        "difference": difference,
        "flagged": beyond and not inside,
        "ci_low": low,
        "ci_high": high,
        "beyond_deviation": beyond,
    }


def flag_counts(rows) -> str:
    """How many compared values are further than DEVIATION from the paper's, and how many of those beyond our noise."""
    rows = list(rows)
    beyond = sum(bool(row["beyond_deviation"]) for row in rows)
    flagged = sum(bool(row["flagged"]) for row in rows)
    compared = sum(not math.isnan(row["difference"]) for row in rows)
    return (
        f"{beyond} of {compared} values differ from the paper's by more than {DEVIATION}; {flagged} of them with the "
        f"paper's value outside our 95 % interval ({FLAG})"
    )


def flag_note(rows: list) -> str:
    return flag_counts(rows) + "."


def compared_cell(row: dict, digits: int = 2, page: bool = False) -> str:
    """"ours ± half-width (paper's)" with the flag when the paper's value is both far and outside our interval;
    ``page``: as HTML whose numbers of ours the decimals selector rewrites (the paper's keep its printed digits)."""
    theirs = f" ({format_number(row['paper'], digits)})" + (f" {FLAG}" if row["flagged"] else "")
    return _ours(row, digits, page) + (esc(theirs) if page else theirs)


def interval_columns(comparisons: list, index: list, key: str) -> dict:
    """``{"<metric> ci_low": [...], "<metric> ci_high": [...]}`` in ``index`` order, from a section's comparison rows.

    ``key`` says what a row of the table is: "method" (one dataset) or "kind_method" ((dataset, method) pairs).
    """
    columns: dict[str, list] = {}
    for metric in dict.fromkeys(row["metric"] for row in comparisons):
        by_row = {
            (row["dataset"], row["method"]) if key == "kind_method" else row["method"]: row
            for row in comparisons
            if row["metric"] == metric
        }
        for bound in ("ci_low", "ci_high"):
            columns[f"{metric} {bound}"] = [by_row[i][bound] if i in by_row else math.nan for i in index]
    return columns


def relative_link(path: Path, root: Path) -> str:
    return Path(path).relative_to(root).as_posix()


def _format_metric(table, value) -> str:
    return "-" if math.isnan(value) else table.metric.format(value)


def _ours(row: dict, digits: int, page: bool) -> str:
    """Our mean ± the half-width of its 95 % interval: as text, or for the page as numbers the decimals
    selector rewrites, at ``digits`` decimals when it is on "auto"."""
    if not page:
        return format_interval(row["ours"], row["ci_low"], row["ci_high"], digits)
    if math.isnan(row["ours"]):
        return format_number(row["ours"], digits)
    if math.isnan(row["ci_low"]) or math.isnan(row["ci_high"]):
        return number(row["ours"], digits)
    return f"{number(row['ours'], digits)} ± {number((row['ci_high'] - row['ci_low']) / 2, digits)}"


def page_rank(rank: float) -> str:
    """An average rank as the page shows it: at 2 decimals, or those the decimals selector asks for."""
    return format_avg_rank(rank) if math.isnan(rank) else number(rank, 2)


def html_frame(rows: Mapping[str, Sequence[str]] | Iterable[tuple[str, Sequence[str]]], columns: list,
               index_name: str, text: Container[int] = ()) -> str:
    """``rows`` ({label: cells of HTML}, or ``(label, cells)`` pairs where labels repeat) as a page table,
    the labels (text) as its first column; the cells of the ``columns`` whose index is in ``text`` are
    aligned as text, the others as numbers."""
    head = "".join(f"<th>{esc(h)}</th>" for h in [index_name, *columns])
    body = "".join(
        f"<tr><th>{esc(label)}</th>"
        + "".join(f"<td class='{'text' if i in text else 'num'}'>{cell}</td>" for i, cell in enumerate(cells))
        + "</tr>"
        for label, cells in (rows.items() if isinstance(rows, Mapping) else rows)
    )
    return scroll_box(f"<table class='paper-results'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


RESULTS_TITLE = "Table 'results' and Table 'scalability': the real datasets"


def results_section(runs: StoredRuns, reference: pd.DataFrame) -> Section:
    """Table "results" (exact match, Hamming score) and Table "scalability" (time) next to the paper's.

    Each cell holds our mean and rank, then the paper's; scores further than DEVIATION from the
    paper's are flagged (times are not: they come from another machine). The page's version
    (``html``) shows our scores at the decimals its selector asks for.
    """
    title = f"## {RESULTS_TITLE}\n\n"
    run = runs["paper"]
    if run is None:
        return Section(title + f"Not run: {missing_run('paper')}.\n")
    parts = [
        title,
        "Each cell: our mean over the splits ± the half-width of its 95 % t-interval and our rank on the dataset, then "
        f"the paper's value and rank in parentheses; {FLAG} marks a score more than {DEVIATION} from the paper's whose "
        "value is also outside our interval. The average rank is over the "
        "datasets we ranked; the paper's is recomputed from its per-dataset ranks on those same datasets. Every "
        "table of the run, with standard deviations and LaTeX versions: `paper/tables.md`; ranking loss, coverage, "
        "average precision, one-error, log-loss and ROC AUC from the stored label scores: "
        "`paper/score_metrics.md`.\n\n",
    ]
    comparisons, page = [], [markdown_html(parts[1], Path("."))]
    for metric, (table_name, paper_metric) in PAPER_TABLES.items():
        table = metric_table(run.units, metric, run.datasets, run.methods, run.unavailable)
        paper = reference[(reference["table"] == table_name) & (reference["metric"] == paper_metric)].set_index(
            ["dataset", "method"]
        )
        text_rows, page_rows, table_comparisons = _metric_rows(table, paper, table_name, paper_metric)
        comparisons += table_comparisons
        heading = f"### {table.metric.title} (Table '{table_name}')\n\n"
        about = (
            "Train plus test seconds per unit; the paper's come from another machine, so compare ranks and ratios.\n\n"
            if table.metric.is_time else ""
        )
        note = "\n" if table.metric.is_time else f"\n{flag_note(table_comparisons)}\n\n"
        frame = pd.DataFrame.from_dict(text_rows, orient="index", columns=list(table.methods))
        parts += [heading, about, markdown_frame(frame, "Dataset"), note]
        page += [markdown_html(heading + about, Path(".")), html_frame(page_rows, list(table.methods), "Dataset"),
                 markdown_html(note, Path("."))]
    return Section("".join(parts), comparisons, html="".join(page))


def _metric_rows(table, paper: pd.DataFrame, table_name: str, paper_metric: str) -> tuple[dict, dict, list]:
    """One metric's rows of Table 'results' as text and as page HTML, and its comparison rows."""
    text_rows: dict = {}
    page_rows: dict = {}
    comparisons = []
    for dataset in table.datasets:
        if dataset in table.unavailable:
            text_rows[dataset] = [table.unavailable[dataset], *[""] * (len(table.methods) - 1)]
            page_rows[dataset] = [esc(cell) for cell in text_rows[dataset]]
            continue
        text_rows[dataset], page_rows[dataset] = [], []
        for method in table.methods:
            row = comparison_row(
                table_name, paper_metric, dataset, method, table.means.at[dataset, method],
                paper["value"].get((dataset, method), math.nan), flagged=not table.metric.is_time,
                interval=(table.ci_low.at[dataset, method], table.ci_high.at[dataset, method]),
            )
            comparisons.append(row)
            theirs = (
                f" {format_rank(table.ranks.at[dataset, method])} "
                f"({format_number(row['paper'], 0 if table.metric.is_time else 2)} "
                f"{format_rank(paper['rank'].get((dataset, method), math.nan))})"
            ) + (f" {FLAG}" if row["flagged"] else "")
            if table.metric.is_time:
                text_rows[dataset].append(_format_metric(table, row["ours"]) + theirs)
                page_rows[dataset].append(esc(text_rows[dataset][-1]))
            else:
                text_rows[dataset].append(_ours(row, 2, page=False) + theirs)
                page_rows[dataset].append(_ours(row, table.metric.digits or 2, page=True) + esc(theirs))
    paper_ranks = paper["rank"].unstack("method").reindex(index=table.ranked_datasets, columns=list(table.methods))
    text_rows["avg rank"] = [
        f"{format_avg_rank(table.avg_rank[m])} ({format_avg_rank(paper_ranks[m].mean())})" for m in table.methods
    ]
    page_rows["avg rank"] = [
        f"{page_rank(table.avg_rank[m])} ({esc(format_avg_rank(paper_ranks[m].mean()))})" for m in table.methods
    ]
    return text_rows, page_rows, comparisons


def sweep_means(frame: pd.DataFrame, x_label: str) -> pd.DataFrame:
    """A sweep's table of means: one row per swept value (``x_label``), one column per line, in the run's order."""
    means = frame.pivot_table(index="x", columns="line", values="mean", sort=False)
    return means[list(dict.fromkeys(frame["line"]))].rename_axis(index=x_label, columns=None)


def page_frame(frame: pd.DataFrame, index_name: str) -> str:
    """A table of our means as the page shows it (:func:`html_frame`), its numbers the decimals selector's."""
    cells = {
        str(label): [format_number(v) if math.isnan(v) else number(v, 2) for v in row]
        for label, row in zip(frame.index, frame.to_numpy(dtype=float))
    }
    return html_frame(cells, [str(c) for c in frame.columns], index_name)


def sweep_section(
    frame: pd.DataFrame | None,
    splits: int | None,
    name: str,
    title: str,
    x_label: str,
    intro: str,
    tables_dir: Path,
    figures_dir: Path,
) -> Section:
    """A sweep figure of run ``name`` (exact match against the swept value) with its table of means.

    ``frame`` is the run's sweep (:func:`~mlhidden.paper.evidence.sweep_frame`), None when the
    run has no store; ``splits`` its number of splits.
    """
    if frame is None:
        return Section(f"{title}\n\nNot run: {missing_run(name)}.\n")
    y_label = METRICS["exact_match"].title
    paths = plot_sweep(
        frame, figures_dir / name, y_label=y_label, x_label=x_label,
        title=f"{y_label}, mean ± 1 sd over {splits} splits",
    )
    means = sweep_means(frame, x_label)
    paths += write_table(
        frame.set_index(["panel", "line", "x"]),
        means.map(format_number),
        tables_dir / name,
        f"{title.lstrip('# ')} (ours)",
        x_label,
    )
    text = (
        f"{title}\n\n{intro} The paper gives this figure as a plot only, so there are no numbers to set ours "
        f"against; the claims table checks what its text says about it.\n\n"
        f"![{markdown_escape(title.lstrip('# '))}]({relative_link(paths[0], figures_dir.parent)})\n\n"
        + markdown_frame(means.map(format_number), x_label)
    )
    return Section(text, paths=paths)


def medical_section(runs: StoredRuns, evidence: Evidence, tables_dir: Path, figures_dir: Path) -> Section:
    """Medical's per-label accuracy along the CC and CCASL chains, from refits of the stored units."""
    title = "## Medical: per-label accuracy along the chain\n\n"
    frame = evidence.medical_chain
    if frame is None:
        return Section(title + "Not evaluated: no per-label refits of Medical (the paper run lacks Medical).\n")
    paths = plot_sweep(
        frame,
        figures_dir / "medical_chain",
        y_label="Label accuracy",
        x_label="position in the chain (real labels)",
        title="Test accuracy of each chain position, mean ± 1 sd over the splits",
    )
    means = frame.pivot_table(index="x", columns="line", values="mean", sort=False).map(lambda v: format_number(v, 3))
    paths += write_table(
        frame.set_index(["line", "x"]),
        means,
        tables_dir / "medical_chain",
        "Medical: label accuracy per chain position (ours)",
        "position",
    )
    check = refit_check(runs, "paper") or (0, 0)
    text = (
        title
        + "Each split chains the labels in its random order, so each position holds a random label; the accuracy at a "
        f"position is averaged over the splits. From refits of the stored units ({check[0]} of {check[1]} reproduce "
        "the stored exact match).\n\n" + f"![Medical chain accuracy]({relative_link(paths[0], figures_dir.parent)})\n"
    )
    return Section(text, paths=paths)
