"""The one rendering layer: every Markdown, LaTeX and CSV table the package writes comes from here
(the CSV files of a run's results from :mod:`mlhidden.report.csv_files`).

Results tables show the paper's cells, ``0.52 9``: the mean over the splits, then the method's
rank on that dataset; with ``std=True`` the spread over the splits follows the mean,
``0.52 ± 0.03 9``. A new text format is one function ``(MetricTable, *, std) -> str`` added to
:data:`TABLE_WRITERS`; the metrics that get text tables are :data:`SUMMARY_METRICS`. Any other
table (the reproduction's, the significance tests') is rows of display text rendered by
:func:`pipe_table`, :func:`markdown_frame`, :func:`_latex_frame` or written by :func:`write_table`;
the command line's listings by :func:`listing`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from tabulate import SEPARATING_LINE, tabulate

from mlhidden.escaping import PLUS_MINUS, latex_escape, markdown_escape
from mlhidden.io import PathLike, write_text
from mlhidden.report.csv_files import write_csvs
from mlhidden.report.table_notes import NO_VALUE, PARTIAL_MARK, WARNED_MARK, table_notes
from mlhidden.report.tables import SUMMARY_METRICS, MetricTable, metric_tables
from mlhidden.runs.run_results import sort_units
from mlhidden.runs.status import FAILED, MISSING, PARTIAL

NOT_AVAILABLE = "n/a"
AVG_RANK = "avg rank"

@dataclass(frozen=True)
class _Style:
    escape: Callable[[str], str]
    bold: Callable[[str], str]


LATEX = _Style(latex_escape, lambda text: rf"\textbf{{{text}}}")
MARKDOWN = _Style(markdown_escape, lambda text: f"**{text}**")
PLAIN = _Style(str, str)


def format_rank(rank: float) -> str:
    """A rank as the paper shows it: whole ranks as integers ("2"), tied half ranks as "2.5"."""
    if math.isnan(rank):
        return NO_VALUE
    return str(int(rank)) if float(rank).is_integer() else f"{rank:.1f}"


def format_avg_rank(rank: float) -> str:
    return NO_VALUE if math.isnan(rank) else f"{rank:.2f}"


def format_number(value: float | None, digits: int = 2) -> str:
    """A value with ``digits`` decimals, or :data:`NO_VALUE` for None and NaN."""
    return NO_VALUE if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def format_interval(value: float | None, low: float | None, high: float | None, digits: int = 2) -> str:
    """"value ± half-width" of a 95 % interval, or the value alone when there is no interval."""
    if low is None or high is None or any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        return format_number(value, digits)
    return f"{format_number(value, digits)} {PLUS_MINUS} {(high - low) / 2:.{digits}f}"


def pipe_table(
    rows: Iterable[Sequence[object]], headers: Sequence[str], colalign: Sequence[str] | None = None
) -> str:
    """A Markdown pipe table of display text (no trailing newline); cells are used as given."""
    text: str = tabulate(rows, headers=headers, tablefmt="pipe", colalign=colalign, disable_numparse=True)
    return text


def listing(rows: Iterable[Any], headers: str | Sequence[str] = "keys", tablefmt: str = "github") -> str:
    """The CLI's listings (datasets, checksums, methods; ``tablefmt="plain"`` for name/value pairs)."""
    text: str = tabulate(rows, headers=headers if tablefmt != "plain" else (), tablefmt=tablefmt, floatfmt=".2f")
    return text


def markdown_frame(frame: pd.DataFrame, index_name: str = "") -> str:
    """A frame of display text as a Markdown pipe table, its index as the first column, escaped."""
    headers = [index_name, *map(str, frame.columns)]
    rows = [
        [markdown_escape(index), *(markdown_escape(v) for v in row)]
        for index, row in zip(frame.index, frame.to_numpy())
    ]
    return pipe_table(rows, [markdown_escape(h) for h in headers]) + "\n"


def _booktabs(
    caption: str, label: str, header: list[str], rows: list[list[str]], footer: Sequence[Sequence[str]] = ()
) -> list[str]:
    """The lines of a booktabs ``table`` float up to ``\\bottomrule``: one left column, the rest right."""
    lines = [
        r"\begin{table}", r"\centering", rf"\caption{{{caption}}}", rf"\label{{{label}}}",
        rf"\begin{{tabular}}{{l{'r' * (len(header) - 1)}}}", r"\toprule", " & ".join(header) + r" \\", r"\midrule",
    ]
    lines += [" & ".join(row) + r" \\" for row in rows]
    if footer:
        lines += [r"\midrule", *(" & ".join(row) + r" \\" for row in footer)]
    return [*lines, r"\bottomrule", r"\end{tabular}"]


def _latex_frame(frame: pd.DataFrame, caption: str, label: str, index_name: str = "") -> str:
    """A frame of display text as a booktabs LaTeX table; caption and every cell are escaped."""
    header = [latex_escape(h) for h in [index_name, *frame.columns]]
    rows = [[latex_escape(v) for v in [index, *row]] for index, row in zip(frame.index, frame.to_numpy())]
    return "\n".join([*_booktabs(latex_escape(caption), label, header, rows), r"\end{table}"]) + "\n"


def write_table(
    numbers: pd.DataFrame, shown: pd.DataFrame, stem: Path, caption: str, index_name: str = ""
) -> list[Path]:
    """``numbers`` as ``<stem>.csv``; ``shown`` (display text) as ``<stem>.md`` and ``<stem>.tex``."""
    return [
        write_text(stem.with_suffix(".csv"), numbers.to_csv(lineterminator="\n")),
        write_text(stem.with_suffix(".md"), f"{caption}\n\n{markdown_frame(shown, index_name)}"),
        write_text(stem.with_suffix(".tex"), _latex_frame(shown, caption, f"tab:{stem.name}", index_name)),
    ]


def format_mean_std(table: MetricTable, dataset: str, method: str) -> str:
    """A cell's mean with its spread over the ok splits, "0.52 ± 0.03", for tables with ``std``.

    Both numbers use the metric's display format. A cell with a single ok split has no standard
    deviation and shows the mean alone. Only cells with a mean (state "ok" or "partial") have one.
    """
    mean, std = table.means.at[dataset, method], table.std.at[dataset, method]
    if math.isnan(mean):
        raise ValueError(f"{method} on {dataset} has no mean (cell state '{table.cell_state(dataset, method)}')")
    text = table.metric.format(mean)
    return text if math.isnan(std) else f"{text} {PLUS_MINUS} {table.metric.format(std)}"


def table_title(table: MetricTable, std: bool = False) -> str:
    spread = f" {PLUS_MINUS} std" if std else ""
    return f"{table.metric.title}: mean{spread} over splits and rank per dataset (1 = best)"


def _cell(table: MetricTable, dataset: str, method: str, style: _Style, std: bool) -> str:
    """"value rank", with the value in bold if best, "failed rank" or "value rank †" if partly failed.

    With ``std`` the value is "mean ± std" (see :func:`format_mean_std`).
    """
    state = table.cell_state(dataset, method)
    if state == MISSING:
        return NO_VALUE
    if state == FAILED:
        parts = [FAILED]
    else:
        text = format_mean_std(table, dataset, method) if std else table.metric.format(table.means.at[dataset, method])
        value = style.escape(text)
        parts = [style.bold(value) if table.is_best(dataset, method) else value]
    rank = table.ranks.at[dataset, method]
    if not math.isnan(rank):
        parts.append(format_rank(rank))
    if state == PARTIAL:
        parts.append(style.escape(PARTIAL_MARK))
    if table.n_warned.at[dataset, method]:
        parts.append(style.escape(WARNED_MARK))
    return " ".join(parts)


def _body(table: MetricTable, style: _Style, std: bool) -> list[tuple[str, list[str] | None]]:
    """``(dataset, cells)`` per row; ``cells`` is None for an unavailable dataset."""
    return [
        (
            dataset,
            None
            if dataset in table.unavailable
            else [_cell(table, dataset, method, style, std) for method in table.methods],
        )
        for dataset in table.datasets
    ]


def to_latex(table: MetricTable, caption: str | None = None, label: str | None = None, *, std: bool = False) -> str:
    """A booktabs LaTeX table (needs ``\\usepackage{booktabs}``) in a ``table`` float.

    Parameters
    ----------
    table : MetricTable
    caption : str, optional
        Used verbatim, so it may hold LaTeX; by default the metric's title and how to read cells.
    label : str, optional
        By default ``tab:<metric column>``.
    std : bool
        Show each mean's standard deviation over the splits, "0.52 $\\pm$ 0.03".
    """
    if caption is None:
        spread = f" {PLUS_MINUS} standard deviation" if std else ""
        caption = latex_escape(
            f"{table.metric.title}: mean{spread} over the splits, then the method's rank on the dataset"
            " (1 = best; ties share the average rank)."
        )
    label = f"tab:{table.metric.name}" if label is None else label
    width = len(table.methods)
    rows: list[list[str]] = []
    for dataset, cells in _body(table, LATEX, std):
        if cells is None:
            cells = [rf"\multicolumn{{{width}}}{{c}}{{{latex_escape(table.unavailable[dataset])}}}"]
        rows.append([latex_escape(dataset), *cells])
    footer = [[AVG_RANK, *map(format_avg_rank, table.avg_rank)]]
    lines = _booktabs(caption, label, ["Dataset", *map(latex_escape, table.methods)], rows, footer)
    notes = [latex_escape(note) for note in table_notes(table, unavailable=False)]
    if notes:
        lines += [r"\par\smallskip\footnotesize", " \\\\\n".join(notes)]
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _plain_rows(table: MetricTable, style: _Style, std: bool) -> list[list[str]]:
    rows = [
        [style.escape(dataset), *(cells or [NOT_AVAILABLE] * len(table.methods))]
        for dataset, cells in _body(table, style, std)
    ]
    return rows + [[AVG_RANK, *map(format_avg_rank, table.avg_rank)]]


def _tabulate(table: MetricTable, rows: list[list[str]], style: _Style, tablefmt: str) -> str:
    text: str = tabulate(
        rows,
        headers=["Dataset", *map(style.escape, table.methods)],
        tablefmt=tablefmt,
        colalign=("left", *["right"] * len(table.methods)),
        disable_numparse=True,
    )
    return text


def to_markdown(table: MetricTable, *, std: bool = False) -> str:
    """A Markdown section: the title as a heading, a pipe table with bold best values, the notes.

    ``std`` adds each mean's standard deviation over the splits.
    """
    body = _tabulate(table, _plain_rows(table, MARKDOWN, std), MARKDOWN, "pipe")
    text = f"## {table_title(table, std)}\n\n{body}\n"
    notes = table_notes(table)
    if notes:
        text += "\n" + "".join(f"- {markdown_escape(note)}\n" for note in notes)
    return text


def to_terminal(table: MetricTable, tablefmt: str = "simple", *, std: bool = False) -> str:
    """Plain text for a terminal: a title line, the table (any tabulate format), the notes.

    ``std`` adds each mean's standard deviation over the splits.
    """
    rows = _plain_rows(table, PLAIN, std)
    if tablefmt == "simple":
        rows.insert(-1, SEPARATING_LINE)
    body = _tabulate(table, rows, PLAIN, tablefmt)
    return "\n".join([table_title(table, std), body, *table_notes(table)]) + "\n"


# A new text format: one function (MetricTable, *, std) -> str here, keyed by its file suffix.
TABLE_WRITERS: dict[str, Callable[..., str]] = {"tex": to_latex, "md": to_markdown}


def problem_lines(
    units: pd.DataFrame, datasets: Iterable[str], methods: Iterable[str], unavailable: Mapping[str, str] | None = None
) -> list[str]:
    """One line per unavailable dataset and per (dataset, method, error) of the failed units.

    Only the first line of each error is kept: the full text is in ``units.csv``.
    """
    lines = [f"{dataset}: {reason}" for dataset, reason in (unavailable or {}).items()]
    units = sort_units(units, datasets, methods, unavailable)
    failed = units[units["status"] == FAILED]
    first_lines = failed["error"].fillna("").astype(str).str.strip().str.split("\n").str[0]
    failed = failed.assign(error=first_lines.replace("", "(no error text)"))
    for (dataset, method, error), group in failed.groupby(["dataset", "method", "error"], sort=False):
        splits = ", ".join(map(str, group["split"]))
        lines.append(f"{method} on {dataset} failed (split{'s' if len(group) > 1 else ''} {splits}): {error}")
    return lines


def write_text_tables(
    table: MetricTable, out_dir: PathLike, provenance: Iterable[object] = (), *, std: bool = False,
    notes: Sequence[str] = (),
) -> list[Path]:
    """One file per format of :data:`TABLE_WRITERS`, ``<metric>.tex`` headed by the ``provenance`` comment lines.

    ``notes`` (e.g. why a method has no value) follow the Markdown table as bullets.
    """
    paths: list[Path] = []
    for suffix, writer in TABLE_WRITERS.items():
        text = writer(table, std=std)
        if suffix == "tex":
            text = _latex_comment(provenance) + text
        elif notes:
            text += "".join(f"- {markdown_escape(line)}\n" for line in notes)
        paths.append(write_text(Path(out_dir) / f"{table.metric.name}.{suffix}", text))
    return paths


def _latex_comment(lines: Iterable[object]) -> str:
    """``lines`` as LaTeX comment lines (``% ...``), which a document including the table ignores."""
    return "".join(f"% {' '.join(str(line).split())}\n" for line in lines)


def write_reports(
    units: pd.DataFrame, out_dir: PathLike, datasets: Sequence[str], methods: Sequence[str],
    unavailable: Mapping[str, str] | None = None, provenance: Sequence[str] = (), std: bool = False,
    notes: Sequence[str] = (), *, precision: int | None = None, unranked: Mapping[str, str] | None = None,
) -> list[Path]:
    """Write every report file into ``out_dir`` and return their paths.

    That is ``units.csv``, a wide CSV per metric and ``avg_ranks.csv``; for each of :data:`SUMMARY_METRICS` one file
    per format in :data:`TABLE_WRITERS`; and ``tables.md`` with the summary tables, the
    unavailable datasets, the failed units and the ``notes`` (what the tables leave out, see
    :meth:`~mlhidden.runs.run_results.RunResults.note_lines`). ``provenance`` lines (what produced the results)
    head each LaTeX table as comments and end ``tables.md``, so a table copied into a paper
    still says where it came from. ``std`` adds each mean's standard deviation over the splits
    to the text tables (the CSVs always have it, and ``units.csv`` every split's value).
    ``precision`` and ``unranked`` are those of :func:`~mlhidden.report.tables.metric_table`.
    """
    out_dir = Path(out_dir)
    tables = metric_tables(units, datasets, methods, unavailable, precision=precision, unranked=unranked)
    paths = write_csvs(sort_units(units, datasets, methods, unavailable), tables, out_dir)
    for column in SUMMARY_METRICS:
        paths += write_text_tables(tables[column], out_dir, provenance, std=std)
    sections = ["# Results\n", *(to_markdown(tables[column], std=std) for column in SUMMARY_METRICS)]
    problems = [*notes, *problem_lines(units, datasets, methods, unavailable)]
    if problems:
        sections.append("## Problems\n\n" + "".join(f"- {markdown_escape(line)}\n" for line in problems))
    if provenance:
        sections.append("## Provenance\n\n" + "".join(f"- {markdown_escape(line)}\n" for line in provenance))
    paths.append(write_text(out_dir / "tables.md", "\n".join(sections)))
    return paths


def render_terminal_summary(
    units: pd.DataFrame, datasets: Sequence[str], methods: Sequence[str], unavailable: Mapping[str, str] | None = None,
    std: bool = False, *, precision: int | None = None, unranked: Mapping[str, str] | None = None,
) -> str:
    """The summary tables as plain text for printing, then the unavailable datasets and failures.

    ``std`` adds each mean's standard deviation over the splits; ``precision`` and ``unranked``: see
    :func:`~mlhidden.report.tables.metric_table`.
    """
    grid = (units, datasets, methods, unavailable)
    tables = metric_tables(*grid, metrics=SUMMARY_METRICS, precision=precision, unranked=unranked)
    sections = [to_terminal(tables[column], std=std) for column in SUMMARY_METRICS]
    problems = problem_lines(units, datasets, methods, unavailable)
    if problems:
        sections.append("\n".join(["Problems:", *(f"  {line}" for line in problems)]) + "\n")
    return "\n".join(sections)

