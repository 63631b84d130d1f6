"""The results page: one self-contained HTML file to open from disk, no server, no network.

A page is a list of :class:`HtmlSection` (a heading and its HTML) rendered by
:func:`render_page`; :func:`run_sections` makes the sections of a run's results (sortable tables
with a precision toggle, per-split plots, ranks and critical differences, time against size,
provenance and warnings) and :func:`write_html` writes them. Anything built on top (a study
with claims about the results) passes its own sections in, before the run's, or several
*views* that a selector at the top switches between, each a list of sections. Plots are inline
SVG from :mod:`mlhidden.report.html_plots`; the CSS and the little JavaScript (sorting, the
precision toggle, the view selector) are inline too.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from mlhidden.io import PathLike, write_text
from mlhidden.report.formats import format_avg_rank, format_rank, problem_lines, table_title
from mlhidden.report.html_assets import CSS, JS
from mlhidden.report.html_plots import cd_diagram_svg, split_scores_svg, time_size_svg
from mlhidden.report.markdown_pages import markdown_html
from mlhidden.report.significance_splits import SplitsReport
from mlhidden.report.significance_text import splits_markdown
from mlhidden.report.statistics_files import statistics_reports, stored_test_train_ratios
from mlhidden.report.stored_metrics import merged_unranked
from mlhidden.report.table_notes import NO_VALUE, PARTIAL_MARK, WARNED_MARK, table_notes
from mlhidden.report.tables import SUMMARY_METRICS, MetricTable, metric_tables
from mlhidden.runs.metrics import UNIT_METRICS
from mlhidden.runs.provenance import provenance_lines, stored_precision
from mlhidden.runs.run_results import RunResults, split_protocol
from mlhidden.runs.status import FAILED, MISSING, PARTIAL
from mlhidden.runs.store import existing_stores
from mlhidden.runs.unit_warnings import warning_lines
from mlhidden.stats.uncertainty import format_p

HTML_FILE = "index.html"
PRECISIONS = (2, 3, 4)
SPLIT_PLOT_METRICS = ("exact_match", "hamming_score")
RANK_METRICS = SUMMARY_METRICS
TIME_METRIC = "total_seconds"
SIZE_LABEL = "N·D·L (examples × features × labels)"
TOC_SHOWN = 8  # sections listed open above the first; more are folded under "Contents"

@dataclass(frozen=True)
class HtmlSection:
    """One part of the page: an anchor id (unique within its view), a heading and its HTML body."""

    id: str
    title: str
    body: str


def esc(text: object) -> str:
    """``text`` made literal in HTML, quotes too (safe in attributes)."""
    return html.escape(str(text), quote=True)


def bullets(lines: Iterable[object]) -> str:
    """Lines of plain text as an HTML list ("" for none)."""
    lines = list(lines)
    return f"<ul class='notes'>{''.join(f'<li>{esc(line)}</li>' for line in lines)}</ul>" if lines else ""


def sortable_table(
    headers: Sequence[str], rows: Iterable[Sequence[object]], *, caption: str = "", numeric: Container[int] = (),
    better: Mapping[int, str] | None = None, markup: Container[int] = (),
) -> str:
    """A table whose columns sort on a click: ``rows`` of cells, each display text or ``(text, sort value)``.

    Columns whose index is in ``numeric`` sort by number; ``better`` maps a column to "high" or
    "low", the order of its first click (best first). The cells of the columns in ``markup`` are
    HTML already (numbers from :func:`number`, which the decimals selector rewrites), not text.
    """
    better = better or {}
    head = "".join(
        f"<th data-sort='{'num' if i in numeric else 'text'}'"
        + (f" data-better='{better[i]}'" if i in better else "")
        + f">{esc(h)}</th>"
        for i, h in enumerate(headers)
    )
    body = []
    for order, row in enumerate(rows):
        cells = []
        for i, cell in enumerate(row):
            text, value = cell if isinstance(cell, tuple) else (cell, None)
            attribute = "" if value is None else f" data-v='{esc(value)}'"
            shown = text if i in markup else esc(text)
            cells.append(f"<td class='{'num' if i in numeric else 'text'}'{attribute}>{shown}</td>")
        body.append(f"<tr data-order='{order}'>{''.join(cells)}</tr>")
    title = f"<caption>{esc(caption)}</caption>" if caption else ""
    return scroll_box(
        f"<table class='sortable'>{title}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def scroll_box(table: str) -> str:
    """``table`` in a box that scrolls sideways when the table is wider than the page."""
    return f"<div class='scroll'>{table}</div>"


def number(value: float, digits: int, *, signed: bool = False) -> str:
    """A score shown with ``digits`` decimals, its table's; the precision toggle rewrites it from
    ``data-p`` and, at "auto", back to ``data-d`` decimals. ``signed``: a difference, shown with
    its sign (``+`` too) at every precision."""
    sign = "+" if signed else ""
    return (
        f"<span data-p='{float(value)!r}' data-d='{digits}'{' data-signed' if signed else ''}>"
        f"{value:{sign}.{digits}f}</span>"
    )


def _metric_cell(table: MetricTable, dataset: str, method: str) -> str:
    state = table.cell_state(dataset, method)
    if state == MISSING:
        return f"<td title='no result yet'>{NO_VALUE}</td>"
    rank = table.ranks.at[dataset, method]
    rank_text = "" if math.isnan(rank) else f"<span class='rank'>{format_rank(rank)}</span>"
    marks = (f"<span class='mark'>{PARTIAL_MARK}</span>" if state == PARTIAL else "") + (
        f"<span class='mark'>{WARNED_MARK}</span>" if table.n_warned.at[dataset, method] else ""
    )
    if state == FAILED:
        return f"<td class='failed' data-v='' title='every split failed'>{FAILED}{rank_text}{marks}</td>"
    mean, std = table.means.at[dataset, method], table.std.at[dataset, method]
    n_ok = table.n_splits.at[dataset, method] - table.n_failed.at[dataset, method]
    shown = (
        esc(table.metric.format(mean))
        if table.metric.is_time or table.metric.digits is None
        else number(mean, table.metric.digits)
    )
    spread = "" if math.isnan(std) else f", sd {std:.4g}"  # ± is kept for a 95 % half-width, as Table 'results' uses it
    tip = f"mean {mean:.6g}{spread} over {n_ok} split{'s' if n_ok != 1 else ''}"
    best = " class='best'" if table.is_best(dataset, method) else ""
    return f"<td{best} data-v='{float(mean)!r}' title='{esc(tip)}'>{shown}{rank_text}{marks}</td>"


def _metric_table_html(table: MetricTable, key: str) -> str:
    """A metric's table as the text tables show it (mean, rank; best in bold), sortable; id ``<key>-<metric>``."""
    better = "high" if table.metric.higher_is_better else "low"
    head = "<th data-sort='text'>Dataset</th>" + "".join(
        f"<th data-sort='num' data-better='{better}'>{esc(m)}</th>" for m in table.methods
    )
    rows = []
    for order, dataset in enumerate(table.datasets):
        if dataset in table.unavailable:
            cells = f"<td class='note text' colspan='{len(table.methods)}'>{esc(table.unavailable[dataset])}</td>"
        else:
            cells = "".join(_metric_cell(table, dataset, method) for method in table.methods)
        rows.append(f"<tr data-order='{order}'><th>{esc(dataset)}</th>{cells}</tr>")
    footer = "<tr><th>avg rank</th>" + "".join(f"<td>{format_avg_rank(r)}</td>" for r in table.avg_rank) + "</tr>"
    return (
        f"<div class='scroll'><table class='sortable metric' id='{esc(key)}-{esc(table.metric.name)}'>"
        f"<caption>{esc(table_title(table))}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody><tfoot>{footer}</tfoot></table>"
        + bullets(table_notes(table))
        + "</div>"
    )


def _figure(svg_text: str | None, caption: str = "") -> str:
    if svg_text is None:
        return ""
    return f"<figure>{svg_text}{f'<figcaption class=note>{esc(caption)}</figcaption>' if caption else ''}</figure>"


def _rank_section(tables: Mapping[str, MetricTable], key: str, test_train_ratios: Mapping[str, float]) -> HtmlSection:
    """Per metric: the average ranks (sortable), the Friedman test and the critical-difference diagram;
    on one dataset, the methods compared over its splits instead, as ``statistics.md`` shows them.

    The methods the tables leave out of the ranks (:func:`~mlhidden.report.tables.unranked_methods`)
    are named once above them; every rank here is the tables' own. ``test_train_ratios`` maps a
    dataset to the n_test / n_train of its splits
    (:func:`~mlhidden.report.statistics_files.stored_test_train_ratios`).
    """
    parts = []
    for column in RANK_METRICS:
        if column not in tables:
            continue
        report = statistics_reports({column: tables[column]}, None, test_train_ratios)[column]
        if isinstance(report, SplitsReport):
            parts.append(markdown_html(splits_markdown(report, level=3), Path("."), top=3))
            continue
        ranks = report.avg_ranks.sort_values(kind="stable")
        rows = [[method, (number(rank, 2), rank)] for method, rank in ranks.items()]
        table = sortable_table(["method", "avg rank"], rows, numeric=(1,), better={1: "low"}, markup=(1,))
        parts.append(f"<h3>{esc(tables[column].metric.title)}: average rank over {len(report.datasets)} complete "
                     f"dataset(s)</h3>")
        if report.not_applicable or report.friedman_p is None:
            parts.append(f"{table}<p class='note'>No tests: {esc(report.not_applicable)}.</p>")
            continue
        (p_value, which), nemenyi = report.friedman_p, report.nemenyi[0]
        diagram = cd_diagram_svg(report.avg_ranks, nemenyi.cd, "", f"{key}-cd-{column}")
        parts.append(
            f"<div class='plots'>{table}{_figure(diagram)}</div>"
            f"<p class='note'>Friedman {which} p = {format_p(p_value)}; Nemenyi CD = {nemenyi.cd:.2f} "
            f"at α = {nemenyi.alpha:g} (all pairs; a ranks claim's Bonferroni–Dunn CD compares each method with its "
            "control only): methods joined by a bar do not differ significantly.</p>"
        )
    left_out = next((t.unranked for c, t in tables.items() if c in RANK_METRICS), {})
    note = bullets(f"{method} left out of the ranks: {reason}" for method, reason in left_out.items())
    return HtmlSection("ranks", "Average ranks and critical differences", note + "".join(parts))


def _dataset_sizes(run_dirs: Iterable[PathLike]) -> dict[str, float]:
    """Dataset -> N·D·L as the run stores recorded them (datasets of runs without a store left out)."""
    sizes: dict[str, float] = {}
    for store in existing_stores(run_dirs):
        for row in store.datasets().itertuples():
            if row.n_samples and row.n_features and row.n_labels:
                sizes.setdefault(row.name, float(row.n_samples) * row.n_features * row.n_labels)
    return sizes


def _provenance_section(results: RunResults) -> HtmlSection:
    """What produced the numbers (each run's ``run.json``), and every warning, failure and left-out unit."""
    problems = [
        *results.note_lines(),
        *problem_lines(results.units, results.datasets, results.methods, results.unavailable),
    ]
    warned = results.units["warnings"] if "warnings" in results.units else pd.Series([], dtype=object)
    body = [
        "<h3>Warnings and problems</h3>",
        bullets([*problems, *warning_lines(warned)]) or "<p class='note'>None.</p>",
        "<h3>Provenance</h3>",
        bullets(provenance_lines(results.provenance)) or "<p class='note'>No run.json.</p>",
    ]
    for run_dir, run_json in results.provenance.items():
        if run_json is not None:
            body.append(
                f"<details><summary>{esc(run_dir)}/run.json</summary><pre>"
                f"{esc(json.dumps(run_json, indent=2, sort_keys=True))}</pre></details>"
            )
    return HtmlSection("provenance", "Provenance and warnings", "".join(body))


def run_sections(
    results: RunResults, sizes: Mapping[str, float] | None = None, key: str = "run", *, precision: int | None = None
) -> list[HtmlSection]:
    """The sections of a run's results (:class:`~mlhidden.runs.run_results.RunResults`).

    ``sizes`` maps a dataset to its N·D·L (default: read from the stores of the runs in
    ``results.provenance``); ``key`` makes the plots' SVG ids unique when several runs share a page;
    ``precision``: the decimals shown (default: the run's ``run --precision``, else as many as
    tell each table's ranks apart). The tables are those of the text report, ranked alike.
    """
    tables = metric_tables(
        results.units,
        results.datasets,
        results.methods,
        results.unavailable,
        metrics=[m for m in UNIT_METRICS if m in results.units],
        precision=stored_precision(results.provenance) if precision is None else precision,
        unranked=merged_unranked(results),
    )
    sizes = _dataset_sizes(results.provenance) if sizes is None else sizes
    split_tables = [tables[m] for m in SPLIT_PLOT_METRICS if m in tables]
    available = [d for d in results.datasets if d not in results.unavailable]
    splits = "".join(
        _figure(split_scores_svg(split_tables, dataset, f"{key}-splits-{i}")) for i, dataset in enumerate(available)
    )
    time_plot = time_size_svg(tables[TIME_METRIC], sizes, SIZE_LABEL, f"{key}-time") if TIME_METRIC in tables else None
    significance = _rank_section(tables, key, stored_test_train_ratios(results.provenance))
    time = HtmlSection(
        "time",
        "Time against dataset size",
        _figure(time_plot, f"Mean train + test time per dataset, log–log; size = {SIZE_LABEL}.")
        or "<p class='note'>No dataset has a recorded size and a positive time.</p>",
    )
    if len(available) < 2:  # no ranks to average, and a plot of one point
        why = (
            "<p class='note'>No ranks and no time-against-size plot: they need 2 or more datasets, this run has "
            f"{len(available)}.</p>"
        )
        significance = HtmlSection(significance.id, "Significance over the splits", why + significance.body)
    return [
        HtmlSection(
            "tables",
            "Tables",
            "<p class='note'>Mean over the splits, then the rank on the dataset (1 = best; "
            "hover a cell for its spread). Click a column's header to sort the datasets by it.</p>"
            + f"<div class='tables'>{''.join(_metric_table_html(t, key) for t in tables.values())}</div>",
        ),
        HtmlSection(
            "splits",
            "Per-split scores",
            f"<p class='note'>Each dot is one split; the box spans its quartiles.</p><div class='plots'>{splits}</div>",
        ),
        significance,
        *([time] if len(available) >= 2 else []),
        _provenance_section(results),
    ]


def run_scope(results: RunResults) -> str:
    """What the numbers below stand on, in one line for the top of the page: how many datasets and
    methods, and each run's splits, protocol and seed (merged runs may differ in the last three)."""
    configs = results.config["runs"].values() if "runs" in results.config else [results.config]
    protocols = dict.fromkeys(
        f"{config['splits']} split{'s' if config['splits'] != 1 else ''} of each dataset ({split_protocol(config)}), "
        f"run seed {config['seed']}"
        for config in configs
    )
    return (
        f"Scope: {len(results.datasets)} dataset{'s' if len(results.datasets) != 1 else ''}, "
        f"{len(results.methods)} method{'s' if len(results.methods) != 1 else ''}; {'; '.join(protocols)}."
    )


def _toc(sections: Sequence[HtmlSection], prefix: str) -> str:
    """Links to the sections; folded when more than a line's worth, to keep the first screen for the answer."""
    links = "".join(f"<a href='#{prefix}{esc(s.id)}'>{esc(s.title)}</a>" for s in sections)
    nav = f"<nav class='toc'>{links}</nav>"
    if len(sections) <= TOC_SHOWN:
        return nav
    return f"<details class='toc'><summary>Contents: {len(sections)} sections</summary>{nav}</details>"


def _sections_html(sections: Iterable[HtmlSection], prefix: str) -> str:
    """The sections, each folded under its heading but the first: the page opens on its answer, one
    screen long, and a click (or a link to a section, or find in page) unfolds the rest."""
    return "".join(
        f"<section id='{prefix}{esc(s.id)}'><details{' open' if i == 0 else ''}><summary><h2>{esc(s.title)}</h2>"
        f"</summary>{s.body}</details></section>"
        for i, s in enumerate(sections)
    )


def render_page(
    title: str, sections: Sequence[HtmlSection] = (), *, views: Mapping[str, Sequence[HtmlSection]] | None = None,
    view_label: str = "View", intro: str = "",
) -> str:
    """The whole page: a header with the precision toggle, ``sections``, then ``views`` if any.

    The toggle's "auto" shows each table at its own decimals (its
    :attr:`~mlhidden.runs.metrics.Metric.digits`: ``--precision``, else as many as tell its ranks apart).

    Each list of sections opens on its first, the others folded under their headings (a button
    unfolds them all), so that the page is one screen until a reader asks for more.

    ``views`` maps a name to a list of sections; a ``<select>`` labelled ``view_label`` shows one
    view at a time (the first at opening), so a reader can switch every table and plot at once.
    ``intro`` is HTML put under the header: the page's scope (:func:`run_scope`) belongs there.
    """
    precision = "<option value='auto'>auto</option>" + "".join(
        f"<option value='{p}'>{p}</option>" for p in PRECISIONS
    )
    controls = [
        f"<label>decimals <select id='precision'>{precision}</select></label>",
        "<button type='button' id='unfold'>open every section</button>",
    ]
    body = [intro, _toc(sections, "") if sections else "", _sections_html(sections, "")]
    if views:
        options = "".join(f"<option value='{esc(name)}'>{esc(name)}</option>" for name in views)
        controls.insert(0, f"<label>{esc(view_label)} <select id='view'>{options}</select></label>")
        for i, (name, view_sections) in enumerate(views.items()):
            prefix = f"v{i}-"
            body.append(
                f"<div class='view' data-view='{esc(name)}'{' hidden' if i else ''}>"
                f"{_toc(view_sections, prefix)}{_sections_html(view_sections, prefix)}</div>"
            )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>"
        f"<header><h1>{esc(title)}</h1>{''.join(controls)}</header><main>{''.join(body)}</main>"
        f"<script>{JS}</script></body></html>\n"
    )


def write_html(
    run_results: RunResults, path: PathLike, *, title: str | None = None, extra_sections: Iterable[HtmlSection] = (),
    sizes: Mapping[str, float] | None = None, precision: int | None = None,
) -> Path:
    """Write the results page of ``run_results`` (:class:`~mlhidden.runs.run_results.RunResults`) to ``path``.

    ``extra_sections`` (:class:`HtmlSection`) come first, before the run's own sections;
    ``precision``: see :func:`run_sections`.
    """
    path = Path(path)
    title = title or f"Results: {run_results.config.get('name', 'run')}"
    sections = [*extra_sections, *run_sections(run_results, sizes, precision=precision)]
    return write_text(path, render_page(title, sections, intro=f"<p class='scope'>{esc(run_scope(run_results))}</p>"))
