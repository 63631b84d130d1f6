"""The reproduction's results page, ``index.html`` beside REPORT.md.

It is the general results page (:mod:`mlhidden.report.html`) of the paper run with the study's
sections put first: the claims, then ours against the paper's for every compared cell, then
every section of REPORT.md rendered from its text (:mod:`mlhidden.report.markdown_pages`). When the
sensitivity study has finished settings, each is one view of the page and a selector switches
the claims, the comparisons, the tables and the plots to that setting at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from mlhidden.claims import TIME_CONVENTION, ClaimResult, StoredRuns
from mlhidden.io import write_text
from mlhidden.paper.audit import CLEAN
from mlhidden.paper.audit_section import AUDIT_TITLE, below_frame
from mlhidden.paper.deviations_section import DEVIATIONS_TITLE, deviations_tables
from mlhidden.paper.evidence import gather_evidence
from mlhidden.paper.parallel_jobs import Job
from mlhidden.paper.reference import (
    COMPARISON_FILE,
    PAPER_TABLES,
    QUICK,
    REPORT_FILE,
    read_run_log,
    reference_results,
)
from mlhidden.paper.report_md import SWEEPS, Findings
from mlhidden.paper.sections import RESULTS_TITLE, Section, html_frame, page_frame, results_section, sweep_means
from mlhidden.paper.setting_folders import finished_settings, folder_runs
from mlhidden.paper.significance_section import SIGNIFICANCE_TITLE, significance_tables
from mlhidden.paper.synthetic_sections import generated_data_tables
from mlhidden.paper.wording import DEVIATION
from mlhidden.report import (
    HTML_FILE,
    HtmlSection,
    agreement_svg,
    esc,
    markdown_html,
    number,
    render_page,
    run_scope,
    run_sections,
    scroll_box,
    sortable_table,
    split_sections,
)
from mlhidden.stats import FAILS, HOLDS

TITLE = "Reproducing 'Multi-label Classification using Labels as Hidden Nodes' (Read & Hollmén)"
KEY = ["table", "metric", "dataset", "method"]
_TIME_TABLE, _TIME_METRIC = PAPER_TABLES["total_seconds"]
REPORT_PREFIX = "report-"  # of the anchors and links of REPORT.md's sections on the page


def _verdict_class(verdict) -> str:
    """The CSS class a verdict is shown with: held, not held, or neither (inconclusive, not evaluated)."""
    text = str(verdict)
    return "good" if text.startswith(HOLDS) else "bad" if text.startswith(FAILS) else ""


def _claims_table(lines: list) -> str:
    """``(key, says, verdict, deciding, numbers)`` lines as a sortable table, each verdict coloured."""
    rows = "".join(
        f"<tr data-order='{i}'><td class='text'>{esc(key)}</td><td class='text'>{esc(says)}</td>"
        f"<td class='text {_verdict_class(verdict)}'>{esc(verdict)}</td>"
        f"<td class='text note'>{esc(deciding)}</td><td class='text note'>{esc(numbers)}</td></tr>"
        for i, (key, says, verdict, deciding, numbers) in enumerate(lines)
    )
    head = "".join(
        f"<th data-sort='text'>{h}</th>" for h in ("", "claim", "verdict", "deciding statistic", "our numbers")
    )
    return scroll_box(f"<table class='sortable claims'><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")


def _claims_section(claims: list) -> HtmlSection:
    """The claims: every verdict in one line (the first screen's answer), then each claim with the
    numbers that decide it, one row each, and their sub-claims in a table folded under them."""
    held = sum(claim.verdict == HOLDS for claim in claims)
    subclaims = [
        (s.spec.id, s.spec.says, s.verdict, "; ".join(filter(None, [f"unit: {s.spec.unit}", s.deciding, s.calibrated])),
         s.numbers)
        for c in claims
        for s in c.subclaims
    ]
    return HtmlSection(
        "claims",
        "Claims",
        f"<p>{held} of {len(claims)} claims hold on these runs: "
        + ", ".join(
            f"<span title='{esc(c.statement)}'>{esc(c.key)} <span class='{_verdict_class(c.verdict)}'>"
            f"{esc(c.verdict)}</span></span>"
            for c in claims
        )
        + f".</p><p>{esc(TIME_CONVENTION)}</p>"
        + _claims_table([
            (c.key, c.statement, c.verdict, "; ".join(filter(None, [c.deciding, c.calibrated])), c.evidence)
            for c in claims
        ])
        + (
            f"<details><summary>The {len(subclaims)} sub-claims, each with its verdict and deciding statistic"
            f"</summary>{_claims_table(subclaims)}</details>"
            if subclaims
            else ""
        ),
    )


def remarked(audit: str) -> bool:
    """Whether the audit found something about a paper value (not just that it found nothing)."""
    return bool(audit) and not audit.startswith(CLEAN)


def _comparison_section(comparisons: pd.DataFrame, key: str) -> HtmlSection:
    """Every compared score, ours against the paper's, with the ±DEVIATION band.

    Times are left out: they come from another machine.
    """
    if comparisons.empty:
        return HtmlSection(
            "comparison", "Ours against the paper's", "<p class='note'>Nothing compared: no run stored.</p>"
        )
    audit = (
        comparisons["audit"].fillna("").astype(str)
        if "audit" in comparisons
        else pd.Series("", index=comparisons.index)
    )
    scores = comparisons.assign(audit=audit)[
        comparisons["difference"].notna()
        & ~((comparisons["table"] == _TIME_TABLE) & (comparisons["metric"] == _TIME_METRIC))
    ]
    frame = pd.DataFrame(
        {
            "reference": scores["paper"].astype(float),
            "ours": scores["ours"].astype(float),
            "outside": (scores["ours"] - scores["paper"]).abs() > DEVIATION,
            "marked": scores["audit"].map(remarked),
        }
    )
    plots = "".join(
        "<figure>"
        + agreement_svg(
            frame[scores["table"] == table],
            DEVIATION,
            f"{key}-agree-{i}",
            title=f"Table '{table}'",
            x_label="paper",
            y_label="ours",
        )
        + "</figure>"
        for i, table in enumerate(dict.fromkeys(scores["table"]))
    )
    rows = [
        [
            row.table,
            row.metric,
            row.dataset,
            row.method,
            (number(row.ours, 3), row.ours),
            (f"{row.paper:.3f}", row.paper),
            (number(row.ours - row.paper, 3, signed=True), row.ours - row.paper),
            row.audit,
        ]
        for row in scores.itertuples()
    ]
    explorer = sortable_table(
        ["table", "metric", "dataset", "method", "ours", "paper", "difference", "audit"], rows, numeric=(4, 5, 6),
        markup=(4, 6),
    )
    return HtmlSection(
        "comparison",
        "Ours against the paper's",
        f"<p class='note'>{int(frame['outside'].sum())} of {len(frame)} compared scores lie outside the band "
        f"of ±{DEVIATION} (the red points in the plots; in the table of every compared cell, a difference beyond "
        f"±{DEVIATION}); an open square marks a paper value the audit found something about. Times are "
        "not compared here: they come from another machine.</p>"
        f"<div class='plots'>{plots}</div>"
        f"<details><summary>Every compared cell (sortable)</summary>{explorer}</details>",
    )


def _run_view(runs: StoredRuns, key: str) -> list[HtmlSection]:
    """A view's sections that depend neither on the comparisons nor on the claims: its paper run's own."""
    paper = runs["paper"]
    return run_sections(paper, key=key) if paper is not None else []


def _results_comparisons(runs: StoredRuns, reference: pd.DataFrame) -> pd.DataFrame:
    """Table 'results' and 'scalability' of ``runs`` next to the paper's, one row per cell."""
    return pd.DataFrame(results_section(runs, reference).comparisons, columns=[*KEY, "ours", "paper", "difference"])


def _with_audit(comparisons: pd.DataFrame, audited: pd.DataFrame) -> pd.DataFrame:
    """A setting's comparisons with the audit of each paper value (it is the same under every setting)."""
    if "audit" not in audited:
        return comparisons
    return comparisons.merge(audited[[*KEY, "audit"]].drop_duplicates(KEY), on=KEY, how="left")


def index_html_job(out_dir, claims: Mapping[Path, list[ClaimResult]], findings: Sequence[Findings] = ()) -> Job:
    """``out_dir/index.html`` from the runs, ``comparison.csv`` and the sensitivity settings under
    ``out_dir``, as a :class:`~mlhidden.paper.parallel_jobs.Job`: each view's run sections are calls; the
    finish reads ``comparison.csv`` (which may be written meanwhile, by a job finished before this one),
    each view's decided claims (``claims``, by run folder: :class:`~mlhidden.paper.claims.DecidedClaims`)
    and REPORT.md's :class:`~mlhidden.paper.report_md.Findings` (``findings``, filled by the report's finish
    when it runs before this one; its audit and deviations tables are the page's then), and writes the page."""
    out_dir = Path(out_dir)
    reference, main_runs = reference_results(), StoredRuns.under(out_dir)
    setting = ((read_run_log(out_dir) or {}).get("setting") or {}).get("name")
    main = f"main runs (setting {setting})" if setting else "main runs"
    finished = finished_settings(out_dir)
    view_folders = {main: out_dir, **finished}
    view_runs = {main: main_runs, **{name: StoredRuns(folder_runs(folder)) for name, folder in finished.items()}}
    keys = ["main", *(f"setting{i}" for i in range(len(finished)))]
    calls = [(_run_view, runs, key) for runs, key in zip(view_runs.values(), keys)]

    def write(parts: list) -> Path:
        comparison_path = out_dir / COMPARISON_FILE
        comparisons = (
            pd.read_csv(comparison_path) if comparison_path.is_file() else _results_comparisons(main_runs, reference)
        )
        views = {}
        for (name, runs), key, run_part in zip(view_runs.items(), keys, parts):
            if view_folders[name] not in claims:  # a setting that finished after the claims were decided
                continue
            compared = comparisons if key == "main" else _with_audit(_results_comparisons(runs, reference), comparisons)
            report = []
            if key == "main":
                tables = _page_tables(runs, reference)
                if findings:
                    tables |= _diagnosis_tables(findings[-1])
                report = _report_sections(out_dir, results_section(runs, reference), tables)
            views[name] = [_claims_section(claims[view_folders[name]]), _comparison_section(compared, key),
                           *report, *run_part]
        return _write_page(out_dir / HTML_FILE, views, main, _scope(out_dir, main_runs))

    return Job(calls, write)


def _page_tables(runs: StoredRuns, reference: pd.DataFrame) -> dict[str, list[str]]:
    """REPORT.md's section title -> the page's versions of its first tables (the significance tests,
    Tables 3 and 4 with the synthetic variants, the figures' tables of means), whose numbers the decimals
    selector rewrites."""
    evidence = gather_evidence(runs)
    tables = generated_data_tables(evidence, runs, reference)
    tables[SIGNIFICANCE_TITLE] = significance_tables(runs, reference)
    for name, (title, x_label, _) in SWEEPS.items():
        frame = getattr(evidence, name)
        if frame is not None:
            tables[title.removeprefix("## ")] = [page_frame(sweep_means(frame, x_label), x_label)]
    return tables


def _diagnosis_tables(findings: Findings) -> dict[str, list[str]]:
    """The page's versions of the tables of REPORT.md's audit and deviations sections, from the report's
    ``findings``, their gaps and our numbers the decimals selector's."""
    tables = {DEVIATIONS_TITLE: deviations_tables(findings.diagnoses, findings.baselines, findings.agreement)}
    below = below_frame(findings.audit, lambda gap: number(gap, 3))
    if below is not None:
        rows = [(row[0], [*map(esc, row[1:5]), *row[5:]]) for row in below.itertuples(index=False)]
        tables[AUDIT_TITLE] = ["", html_frame(rows, list(below.columns[1:]), "Table", text=range(3))]
    return tables


def _report_sections(out_dir: Path, results: Section, tables: Mapping[str, list[str]]) -> list[HtmlSection]:
    """Every section of REPORT.md (written by the job before this page's), rendered from its text, so
    that the page shows whatever the report does: the claims' evidence, the sensitivity matrix, the
    audit, Tables 3 and 4, the figures, the cross-check. Table 'results' is ``results``' page version,
    and ``tables`` (section title -> tables) stand in for the first tables of their sections: both
    have numbers that follow the decimals selector. None when REPORT.md is not there."""
    path = out_dir / REPORT_FILE
    if not path.is_file():
        return []
    return [
        HtmlSection(
            f"report-{i}", title,
            results.html if title == RESULTS_TITLE and results.html
            else markdown_html(body, out_dir, prefix=REPORT_PREFIX, tables=tables.get(title, ())),
        )
        for i, (title, body) in enumerate(split_sections(path.read_text(encoding="utf-8")))
    ]


def _scope(out_dir: Path, runs: StoredRuns) -> str:
    """The page's first line: quick or full (what quick mode leaves out, as REPORT.md says it), the
    setting, and the splits and seed of the paper run, so that no verdict is read without its scope."""
    log = read_run_log(out_dir)
    if log is None:
        mode = "Not made by <code>mlhidden reproduce</code> (no reproduction.json in this folder)."
    elif log["quick"]:
        mode = (
            f"<strong>Quick mode</strong> (<code>mlhidden reproduce --quick</code>): {esc(QUICK.describe())}. "
            "Numbers are rougher than the paper's protocol allows; <code>mlhidden reproduce</code> without "
            "<code>--quick</code> runs the full experiments."
        )
    else:
        mode = "<strong>Full reproduction</strong> (<code>mlhidden reproduce</code>): every split and dataset."
    setting = ((log or {}).get("setting") or {}).get("name")
    paper = runs["paper"]
    scope = [mode, *([f"Base-learner setting {esc(setting)}."] if setting else [])]
    if paper is not None:
        scope.append(f"Table 'results' (run paper): {esc(run_scope(paper).removeprefix('Scope: '))}")
    return f"<p class='scope'>{' '.join(scope)}</p>"


def _write_page(path: Path, views: dict, main: str, scope: str) -> Path:
    intro = scope + (
        "<p class='note'>Generated by <code>mlhidden reproduce</code> from the result stores in this folder; after "
        "the claims and the comparisons come the sections of REPORT.md beside this page, the reasoning behind each "
        "verdict included, then the main run's own tables and plots."
        + (
            " Choose a base-learner setting above to see its claims, comparisons, tables and plots."
            if len(views) > 1
            else ""
        )
        + "</p>"
    )
    if len(views) > 1:
        text = render_page(TITLE, views=views, view_label="setting", intro=intro)
    else:
        text = render_page(TITLE, views[main], intro=intro)
    return write_text(path, text)
