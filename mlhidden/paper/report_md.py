"""REPORT.md: the claims table, the sections, what explains our differences, and how the runs went.

:func:`report_job` reads only the run stores under a folder, their refits and the paper's
numbers, so every number in REPORT.md is computed and the report can be rebuilt at any time.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from mlhidden.claims import ClaimResult, StoredRuns
from mlhidden.escaping import markdown_escape
from mlhidden.io import write_text
from mlhidden.paper.audit import Audit, audit_column, audit_paper
from mlhidden.paper.audit_section import audit_markdown
from mlhidden.paper.crosscheck_table import crosscheck_table, with_gaps
from mlhidden.paper.deviations import (
    cell_values,
    diagnose,
    setting_agreement,
    settings_within_band,
    trivial_baselines,
    version_mismatches,
)
from mlhidden.paper.deviations_section import deviations_markdown
from mlhidden.paper.evidence import Evidence, gather_evidence
from mlhidden.paper.multiverse_claims import multiverse_section
from mlhidden.paper.parallel_jobs import Job
from mlhidden.paper.reference import (
    COMPARISON_FILE,
    CROSSCHECK_FILE,
    PAPER_CONFIGS,
    PAPER_TABLES,
    QUICK,
    REPORT_FILE,
    read_run_log,
    reference_results,
)
from mlhidden.paper.sections import (
    COMPARISON_COLUMNS,
    Section,
    flag_counts,
    medical_section,
    results_section,
    sweep_section,
)
from mlhidden.paper.sensitivity_section import settings_section
from mlhidden.paper.significance_section import significance_section
from mlhidden.paper.summary import (
    answer_paragraph,
    audit_line,
    claims_detail,
    claims_summary_table,
    subclaims_by_claim,
)
from mlhidden.paper.synthetic_sections import logical_section, synthetic_2d_section, synthetic_section
from mlhidden.paper.synthetic_variants import synthetic_variants_markdown
from mlhidden.paper.text_checks import paper_statements
from mlhidden.report import pipe_table, wrap_prose, write_frame
from mlhidden.runs import OK, package_versions
from mlhidden.stats import RULE

SWEEPS = {
    "hidden_nodes": (
        "## Fig. 'contrast': hidden nodes on Logical", "hidden nodes K",
        "K synthetic labels for the CCASL methods (PCCASL: 10 Monte-Carlo samples), K hidden units for ELM and MLP.",
    ),
    "label_count": (
        "## Fig. 'labup': Scene with its first L labels", "labels L",
        "BR_RF and CC_RF use random forests, the others logistic regression.",
    ),
}
"""The sweep sections: run name -> (title, x-axis label, what the lines are)."""


def crosscheck_section(out_dir: Path) -> str:
    """Our BR, CC and LP against scikit-multilearn's and scikit-learn's on the same splits, from the
    cross-check's CSV in ``out_dir`` (:mod:`mlhidden.paper.crosscheck` writes it)."""
    lines = ["## A second implementation: scikit-multilearn and scikit-learn\n"]
    path = out_dir / CROSSCHECK_FILE
    if not path.is_file():
        return "\n".join(
            [
                *lines,
                "Not run for this folder: "
                f"`python -m mlhidden.paper.crosscheck --out FOLDER/{CROSSCHECK_FILE}` writes it.\n",
            ]
        )
    frame = pd.read_csv(path)
    gaps = with_gaps(frame)
    worst = gaps.groupby("method")[["gap_exact_match", "gap_hamming_score"]].max().max(axis=1)
    lines += [
        "The same splits fitted by our methods and by other libraries' with the same base learner "
        f"(`{CROSSCHECK_FILE}`). The largest disagreement in a cell, per method: "
        + ", ".join(f"{markdown_escape(method)} {gap:.4f}" for method, gap in worst.items())
        + ".\n",
        crosscheck_table(frame) + "\n",
    ]
    return "\n".join(lines)


def _differences_section(runs: StoredRuns, reference: pd.DataFrame) -> str:
    """What we know about why our numbers differ from the paper's: data, learners, machine.

    Dataset shapes that differ from the paper's table are listed, so a reader can tell a
    different file from a different method.
    """
    lines = ["## Where our numbers differ, and what we know about why\n"]
    paper_shapes = reference[reference["table"] == "datasets"].pivot_table(
        index="dataset", columns="metric", values="value", sort=False
    )
    run = runs["paper"]
    if run is not None:
        shapes = runs.shapes("paper")
        for dataset in run.datasets:
            if dataset in run.unavailable:
                lines.append(
                    f"- **{markdown_escape(dataset)}**: {markdown_escape(run.unavailable[dataset])}; "
                    "the paper's numbers for it have nothing to compare with."
                )
                continue
            if dataset not in paper_shapes.index:
                continue
            ours, theirs = shapes.loc[dataset], paper_shapes.loc[dataset]
            differing = [
                f"{key} {ours[key]:.{2 if key == 'label_cardinality' else 0}f} "
                f"(paper {theirs[key]:.{2 if key == 'label_cardinality' else 0}f})"
                for key in ("n_samples", "n_labels", "n_features", "label_cardinality")
                if abs(float(ours[key]) - float(theirs[key])) > (0.005 if key == "label_cardinality" else 0)
            ]
            if differing:
                lines.append(
                    f"- **{markdown_escape(dataset)}**: our file differs from the paper's dataset table: "
                    f"{', '.join(differing)}."
                )
        bases = sorted({json.dumps(m.base, sort_keys=True) for m in runs.record("paper").methods if m.base})
        lines.append(
            "- **Base learners** (scikit-learn " + package_versions().get("scikit-learn", "?") + "): "
            + "; ".join(f"`{b}`" for b in bases)
            + ". The paper used the scikit-learn of its day (before 0.22: liblinear logistic regression with a "
            "penalised intercept, forests of 10 trees by default) with settings it does not state; we use today's "
            "defaults unless a parameter is set. No method was tuned towards the paper's numbers."
        )
    for name in ("logical", "paper"):
        run = runs[name]
        if run is not None and "Logical" in run.checksums:
            shape = runs.shapes(name).loc["Logical"]
            n_samples = int(shape["n_samples"])
            n_test = runs.record(name).split_recipe.test_rows(n_samples)
            lines.append(
                f"- **Logical** has {n_samples} examples: a split trains on {n_samples - n_test} and tests on "
                f"{n_test}, so one wrong test example costs {1 / n_test:.3f} exact match, and a training "
                "part may miss an input combination. The paper does not say how it evaluated Table 3."
            )
            break
    lines.append(
        "- **Protocol**: every split draws a random label order, as in the paper, and CC and PCC chain the labels in "
        "it; Table 3 and Fig. 'results_syn1' compare given chain orders, so their configs keep the labels' order "
        "(`shuffle_labels: false`) and name each chain's order."
    )
    lines.append(
        "- **Synthetic data**: the paper describes its generators in one sentence; ours follow it (random inputs, "
        "ReLU hidden layer, threshold units) with choices it leaves open, so Table 4 and Fig. 'results_syn1' compare "
        "trends, not values."
    )
    lines.append("- **Times** come from another machine and implementation; compare ranks and ratios, not seconds.")
    return "\n".join(lines) + "\n"


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {secs:02d} s"


def _run_information(out_dir: Path, runs: StoredRuns) -> str:
    """Wall time, unit time, machine and package versions of the reproduction."""
    lines = ["## Run information\n"]
    log = read_run_log(out_dir)
    if log is None:
        lines.append("No `reproduction.json`: these results were not produced by `mlhidden reproduce`.\n")
    else:
        mode = "`mlhidden reproduce --quick`" if log["quick"] else "`mlhidden reproduce`"
        host = log["machine"]
        memory = f", {host['memory_bytes'] / 2**30:.1f} GiB memory" if host.get("memory_bytes") else ""
        lines.append(
            f"{mode}, last invoked from {log['started_at']} to {log['finished_at']}; wall time to compute every stored "
            f"unit {_duration(log['wall_seconds'])} on "
            f"{host['cores']} cores{memory} ({host['platform']}); Python {log['python']}, "
            + ", ".join(f"{name} {version}" for name, version in sorted(log["packages"].items()))
            + ".\n"
        )
        if log.get("setting"):
            setting = log["setting"]
            about = f": {markdown_escape(setting['about'])}" if setting.get("about") else ""
            chosen_by = (
                "named by the primary rule"
                if setting.get("is_primary", True)
                else "asked for with `--setting`, not the one the primary rule names"
            )
            lines.append(
                f"Base learners: setting **{markdown_escape(setting['name'])}** of `configs/sensitivity.yaml` "
                f"({chosen_by}){about}; see 'The primary setting'.\n"
            )
    rows = []
    for name in PAPER_CONFIGS:
        run = runs[name]
        if run is None:
            continue
        wall = (log or {}).get("runs", {}).get(name, {}).get("wall_seconds")
        ok = run.units["status"] == OK
        rows.append(
            [
                name,
                f"{len(run.units)}",
                f"{int((~ok).sum())}",
                f"{run.missing}",
                _duration(wall) if wall is not None else "-",
                _duration(float(run.units["total_seconds"].sum())),
                f"{runs.record(name).splits}",
            ]
        )
    lines.append(pipe_table(rows, ["run", "units", "failed", "missing", "wall time", "sum of unit times", "splits"]))
    lines.append(
        "\nA run's wall time adds up the invocations that computed its stored units (a resumed run adds to the "
        "earlier time; a run started afresh starts from zero); the sum of unit times is single-core train + test "
        "time of every stored unit, a fit shared between methods counted in each method that uses it (what sharing "
        "saved is `reused_fit_seconds` in the run's `run.json`)."
    )
    return "\n".join(lines) + "\n"


def _variants_section(runs: StoredRuns, reference: pd.DataFrame) -> Section:
    return Section(synthetic_variants_markdown(runs, reference))


def _section_calls(runs: StoredRuns, evidence: Evidence, reference: pd.DataFrame,
                   tables_dir: Path, figures_dir: Path) -> list:
    """The report's sections as calls for :func:`~mlhidden.paper.parallel_jobs.run_jobs`, in report order."""
    sweeps = [
        (
            sweep_section, getattr(evidence, name), runs.record(name).splits if runs[name] is not None else None, name,
            title, x_label, intro, tables_dir, figures_dir,
        )
        for name, (title, x_label, intro) in SWEEPS.items()
    ]
    return [
        (results_section, runs, reference),
        (significance_section, runs, reference, figures_dir),
        (logical_section, evidence, reference, tables_dir, figures_dir),
        (synthetic_section, evidence, reference, tables_dir),
        (_variants_section, runs, reference),
        (synthetic_2d_section, runs, reference, tables_dir, figures_dir),
        *sweeps,
        (medical_section, runs, evidence, tables_dir, figures_dir),
    ]


def diagnosed_cells(
    runs: StoredRuns, settings_cells: dict, comparisons: pd.DataFrame, reference: pd.DataFrame, audit: Audit
) -> pd.DataFrame:
    """Every flagged cell of the main runs diagnosed (:func:`~mlhidden.paper.deviations.diagnose`) against
    each setting's cells (``settings_cells``: name -> :func:`~mlhidden.paper.deviations.cell_values`)."""
    paper_shapes = reference[reference["table"] == "datasets"].pivot_table(
        index="dataset", columns="metric", values="value", sort=False
    )
    mismatches = version_mismatches(runs.shapes("paper"), paper_shapes) if runs["paper"] is not None else {}
    return diagnose(comparisons, settings_cells, audit, mismatches)


@dataclass(frozen=True)
class Findings:
    """What REPORT.md's finish works out beyond its sections: the audit of the paper's numbers, the trivial
    baselines, each setting's agreement with the paper and the diagnosis of every flagged cell. The page
    shows the same tables, so the report hands these on (:func:`report_job`'s ``keep``) rather than the
    page working them out a second time."""

    audit: Audit
    baselines: pd.DataFrame
    agreement: pd.DataFrame
    diagnoses: pd.DataFrame


def report_job(out_dir, claims: Mapping[Path, list[ClaimResult]], data_dir=None,
               keep: Callable[[Findings], object] | None = None) -> Job:
    """REPORT.md, ``tables/``, ``figures/`` and ``comparison.csv`` under ``out_dir`` from its runs, as a
    :class:`~mlhidden.paper.parallel_jobs.Job`: each section (with its tables and figures) is a call; the
    finish writes REPORT.md and ``comparison.csv`` and returns the files written.

    ``claims`` maps ``out_dir`` and each finished setting's folder to its decided claims
    (:class:`~mlhidden.paper.claims.DecidedClaims`), read only in the finish.

    StoredRuns that are missing are reported as not run and their claims as not evaluated. The sensitivity
    study's settings are read from ``out_dir/sensitivity/`` (:func:`~mlhidden.paper.setting_folders.read_settings`);
    the trivial baselines from the datasets under ``data_dir`` (see :func:`mlhidden.data.resolve_data_dir`).
    The finish gives ``keep`` its :class:`Findings`.
    """
    out_dir = Path(out_dir)
    tables_dir, figures_dir = out_dir / "tables", out_dir / "figures"
    runs, reference = StoredRuns.under(out_dir), reference_results()
    evidence = gather_evidence(runs)
    calls = _section_calls(runs, evidence, reference, tables_dir, figures_dir)
    return Job(calls, lambda sections: _write_report(out_dir, data_dir, runs, reference, claims, keep, *sections))


def _write_report(out_dir: Path, data_dir, runs: StoredRuns, reference: pd.DataFrame,
                  decided: Mapping[Path, list[ClaimResult]], keep: Callable[[Findings], object] | None,
                  *sections: Section) -> list:
    """The report from its claims and sections: comparison.csv, the baselines and settings, REPORT.md."""
    comparisons = pd.DataFrame([row for section in sections for row in section.comparisons], columns=COMPARISON_COLUMNS)
    baselines = trivial_baselines(runs, data_dir=data_dir)
    audit = audit_paper(reference, baselines, paper_statements())
    comparisons["audit"] = audit_column(audit, comparisons)
    sensitivity, runs_by_setting, matrix = settings_section(out_dir, decided)
    multiverse, multiverse_lines = multiverse_section(out_dir)
    claims = decided[out_dir]
    settings_cells = {name: cell_values(setting_runs) for name, setting_runs in runs_by_setting.items()}
    comparisons = comparisons.join(settings_within_band(comparisons, settings_cells))
    comparison_path = write_frame(out_dir / COMPARISON_FILE, comparisons)
    findings = Findings(
        audit, baselines, setting_agreement(comparisons, settings_cells),
        diagnosed_cells(runs, settings_cells, comparisons, reference, audit),
    )
    if keep is not None:
        keep(findings)
    log = read_run_log(out_dir)
    compared = comparisons["difference"].notna()
    time_table, time_metric = PAPER_TABLES["total_seconds"]
    times = compared & (comparisons["table"] == time_table) & (comparisons["metric"] == time_metric)
    scores = comparisons[compared & ~times]
    header = [
        "# Reproducing 'Multi-label Classification using Labels as Hidden Nodes' (Read & Hollmén)\n",
        answer_paragraph(claims, matrix, scores, (log or {}).get("setting")),
        claims_summary_table(claims, matrix, multiverse_lines),
        subclaims_by_claim(claims),
        audit_line(audit),
        f"How a verdict is reached. {RULE}\n",
        "Generated by `mlhidden reproduce` from the result stores in this folder and the paper's numbers in "
        "`mlhidden/paper/reference_results.csv`; no number here is typed by hand. Rebuild it with the same command "
        "(stored units are not run again).\n",
    ]
    if log is not None and log["quick"]:
        header.append(
            f"**Quick mode**: {QUICK.describe()}. Numbers are rougher than the paper's "
            "protocol allows; run `mlhidden reproduce` for the full experiments.\n"
        )
    header += [
        claims_detail(claims, matrix),
        f"Over the compared scores, {flag_counts(scores.to_dict('records'))}; the {int(times.sum())} compared "
        "times are never flagged (another machine: compare ranks and ratios). "
        f"`{COMPARISON_FILE}` lists every comparison and the audit of each of the paper's values.\n",
    ]
    body = [
        sensitivity,
        multiverse,
        audit_markdown(audit),
        deviations_markdown(findings.diagnoses, baselines, findings.agreement),
        *(section.markdown for section in sections),
    ]
    text = wrap_prose(
        "\n".join(
            [
                *header,
                *body,
                crosscheck_section(out_dir),
                _differences_section(runs, reference),
                _run_information(out_dir, runs),
            ]
        )
    )
    report = out_dir / REPORT_FILE
    write_text(report, text)
    return [report, comparison_path, *(path for section in sections for path in section.paths)]
