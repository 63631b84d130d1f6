"""Which of the paper's claims survive which base-learner settings: the claims x settings matrix.

Every setting's runs are read as the main ones are (:class:`~mlhidden.claims.runs.StoredRuns`), and
its claims are decided as the main runs' are, once per reproduction (the
:class:`~mlhidden.paper.claims.DecidedClaims` handed in). A claim about a ranking also gets the
significance of the difference that decides it (Nemenyi and Wilcoxon–Holm,
:mod:`mlhidden.report.significance_tests`). The closing verdict per claim is one of "robust: holds
under all settings", "holds only under ..." and "not reproduced under any setting tried".

:func:`~mlhidden.paper.setting_folders.read_settings` is the one place that knows where the settings' runs live.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from mlhidden.claims import ClaimResult, StoredRuns
from mlhidden.escaping import markdown_escape
from mlhidden.paper.evidence import ok_units, ranked_methods
from mlhidden.paper.primary_setting import PAPER_ERA_LIBRARY, SCALE_FREE_SOLVERS, setting_facts
from mlhidden.paper.reference import read_run_log
from mlhidden.paper.setting_folders import study_settings
from mlhidden.paper.settings import SENSITIVITY_DIR
from mlhidden.report import metric_table, number, pipe_table, significance_report
from mlhidden.stats import HOLDS, INCONCLUSIVE, NO_DIFFERENCE, NOT_EVALUATED

ROBUST = "robust: holds under all settings"
NOT_REPRODUCED = "not reproduced under any setting tried"
NEVER_EVALUATED = "not evaluated under any setting"
# Ranking claims: key -> (metric, the method the paper puts first).
RANKING_CLAIMS = {"C3": ("exact_match", "CCASL+AML"), "C4": ("hamming_score", "BR_RF")}
SIGNIFICANCE_CLAIMS = ("C2", *RANKING_CLAIMS)
"""Claims decided by an ordering of methods, whose deciding difference gets a test (C2: over the synthetic datasets)."""


def complex_gain(run, record, group: str, page: bool = False) -> str:
    """CCASL's exact match minus BR's over a dataset group, and its Wilcoxon–Holm p over the datasets;
    ``page``: as HTML whose gain the decimals selector rewrites (the p keeps its digits)."""
    datasets = [spec.table_name for spec in record.datasets if spec.group == group]
    units = ok_units(run)
    units = units[units["dataset"].isin(datasets)]
    if units.empty:
        return "-"
    table = metric_table(units, "exact_match", datasets, ["BR", "CC", "CCASL"])
    report = significance_report(table, "CCASL")
    gain = (table.means["CCASL"] - table.means["BR"]).mean()
    shown = number(gain, 3, signed=True) if page else f"{gain:+.3f}"
    if report.not_applicable:
        return shown
    test = next(test for test in report.wilcoxon if test.method == "BR")
    return f"{shown} (p {test.p_holm:.3f})"


def ranking_significance(runs: StoredRuns, key: str) -> str:
    """Whether the ranking difference deciding claim ``key`` is significant, in one sentence ("" if none).

    C2: CCASL against BR over the complex synthetic datasets (Wilcoxon–Holm). C3, C4: the
    claimed first method is compared with the method ranked first (or, when it is first itself,
    with the runner-up): the Nemenyi test at α = 0.05 and the Wilcoxon signed-rank test, Holm-corrected
    over the claimed method's comparisons.
    """
    if key == "C2":
        run = runs["synthetic"]
        return (
            "" if run is None else "complex data, CCASL − BR: " + complex_gain(run, runs.record("synthetic"), "complex")
        )
    run = runs["paper"]
    if key not in RANKING_CLAIMS or run is None:
        return ""
    metric, claimed = RANKING_CLAIMS[key]
    table = metric_table(run.units, metric, run.datasets, ranked_methods(run), run.unavailable)
    if claimed not in table.methods:
        return f"{claimed} not run"
    report = significance_report(table, claimed)
    if report.not_applicable:
        return f"no test: {report.not_applicable}"
    ranks = report.avg_ranks.sort_values(kind="stable")
    other = ranks.drop(claimed).index[0]
    nemenyi = report.nemenyi[0]
    gap = abs(ranks[claimed] - ranks[other])
    wilcoxon = next(test for test in report.wilcoxon if test.method == other)
    verdict = "significant" if gap >= nemenyi.cd else "not significant"
    return (
        f"{claimed} {ranks[claimed]:.2f} vs {other} {ranks[other]:.2f}: gap {gap:.2f}, CD {nemenyi.cd:.2f} (Nemenyi, "
        f"α {nemenyi.alpha:g}, {len(report.datasets)} datasets): {verdict}; Wilcoxon–Holm p {wilcoxon.p_holm:.3f}"
    )


def closing_verdict(verdicts: dict) -> str:
    """The verdict over all settings from setting name -> verdict (three-way, or "not evaluated").

    "robust" only when the claim holds under every setting; otherwise the settings under which it
    holds, and under which it is inconclusive, of no practical difference or not evaluated, are named.
    """
    by_verdict = {
        kind: [name for name, verdict in verdicts.items() if verdict == kind]
        for kind in (HOLDS, INCONCLUSIVE, NO_DIFFERENCE, NOT_EVALUATED)
    }
    holding, open_ones, unevaluated = by_verdict[HOLDS], by_verdict[INCONCLUSIVE], by_verdict[NOT_EVALUATED]
    if len(unevaluated) == len(verdicts):
        return NEVER_EVALUATED
    if len(holding) == len(verdicts):
        return ROBUST
    notes = [f"inconclusive under {_named(open_ones, verdicts)}"] if open_ones and holding else []
    ties = by_verdict[NO_DIFFERENCE]
    notes += [f"no practical difference under {_named(ties, verdicts)}"] if ties else []
    notes += [f"not evaluated under {_named(unevaluated, verdicts)}"] if unevaluated else []
    suffix = f" ({'; '.join(notes)})" if notes else ""
    if holding:
        return "holds only under " + ", ".join(holding) + suffix
    if open_ones:
        return "holds under no setting tried; inconclusive under " + _named(open_ones, verdicts) + suffix
    return NOT_REPRODUCED + suffix


def _named(names: list, verdicts: dict) -> str:
    """The settings ``names``, or "all N" when they are every one of ``verdicts``' settings."""
    return f"all {len(verdicts)}" if len(names) == len(verdicts) > 1 else ", ".join(names)


def claims_matrix(claims_by_setting: dict) -> pd.DataFrame:
    """Claims x settings of verdicts, with the closing verdict as the last column."""
    frame = pd.DataFrame(
        {name: {claim.key: claim.verdict for claim in claims} for name, claims in claims_by_setting.items()}
    )
    return frame.assign(**{"over all settings": [closing_verdict(frame.loc[key].to_dict()) for key in frame.index]})


def _sensitivity_markdown(
    runs_by_setting: dict, claims_by_setting: dict, descriptions: dict, costs: dict | None = None,
) -> tuple[str, pd.DataFrame | None]:
    """The matrix, then per claim the deciding numbers (and significance) under each setting; and
    the matrix itself (None without settings). ``claims_by_setting``: each setting's decided claims.

    ``costs`` maps a setting to its manifest entry's ``wall_seconds`` and ``reused_units`` (what
    running it took, and how many units it copied instead), shown with its description.
    """
    parts = ["## Which claims survive which settings\n\n"]
    if not runs_by_setting:
        return parts[0] + f"Not run: no settings under `{SENSITIVITY_DIR}/` (`mlhidden sensitivity` runs them).\n", None
    matrix = claims_matrix(claims_by_setting)
    settings = list(runs_by_setting)
    parts += [
        "Every claim-bearing experiment was run again under each base-learner setting below, on the same splits; "
        "`mlhidden/paper/claims.py` decides each claim under each setting with the same functions as above.\n\n",
        _settings_table(settings, descriptions, costs),
        "\n\n",
        pipe_table(
            [
                [markdown_escape(key), *(f"**{v}**" if v == HOLDS else markdown_escape(v) for v in row)]
                for key, row in matrix.iterrows()
            ],
            ["", *map(markdown_escape, matrix.columns)],
        ),
        "\n\n",
    ]
    statements = {claim.key: claim.statement for claim in next(iter(claims_by_setting.values()))}
    for key in matrix.index:
        parts.append(
            f"### {markdown_escape(key)}: {markdown_escape(statements[key])}\n\n"
            f"**{markdown_escape(matrix.at[key, 'over all settings'])}.**\n\n"
        )
        rows = []
        for name in settings:
            claim = next(c for c in claims_by_setting[name] if c.key == key)
            row = [markdown_escape(text) for text in (name, claim.verdict, claim.evidence, claim.deciding)]
            if key in SIGNIFICANCE_CLAIMS:
                row.append(markdown_escape(ranking_significance(runs_by_setting[name], key)))
            rows.append(row)
        headers = ["setting", "verdict", "our numbers", "deciding statistic"] + (
            ["significance"] if key in SIGNIFICANCE_CLAIMS else []
        )
        parts += [pipe_table(rows, headers), "\n\n"]
    return "".join(parts), matrix


def primary_markdown(verdicts: list, main_setting: str | None) -> str:
    """The primary-setting rule, each finished setting beside it, and whether the main tables
    were made under the setting it names (``main_setting``: the one ``mlhidden reproduce`` applied)."""
    main = f"**{markdown_escape(main_setting)}**" if main_setting else "the configs as they are (no setting applied)"
    chosen = next((verdict.setting for verdict in verdicts if verdict.is_paper_era), None)
    rows = [
        [
            markdown_escape(v.setting),
            "**none**" if v.is_paper_era else markdown_escape("; ".join(v.differences)),
            v.units,
            v.units_with_warnings,
            "yes" if v.scaled else "no",
        ]
        for v in verdicts
    ]
    if chosen is None:
        outcome = (
            "No finished setting has the paper era's defaults, so the rule names none; "
            f"the main tables above are under {main}."
        )
    elif chosen == main_setting:
        outcome = f"The rule names **{markdown_escape(chosen)}**, and the main tables above were made under it."
    else:
        outcome = (
            f"The rule names **{markdown_escape(chosen)}**, but the main tables above were made under {main} "
            "(asked for with `--setting`)."
        )
    return "".join(
        [
            "### The primary setting\n\n",
            "The rule (`mlhidden/paper/primary_setting.py`): the paper names scikit-learn's logistic regression and "
            "random forest and gives none of their parameters, so the primary setting is the one whose base learners "
            f"are that library's defaults of the paper's time ({PAPER_ERA_LIBRARY}: liblinear, C = 1, penalised "
            "intercept; forests of 10 trees) on inputs as they are. Neither the config's order nor any result plays a "
            "part. Convergence and scaling are shown as facts about each setting "
            f"(a solver that needs no scaled inputs: {', '.join(SCALE_FREE_SOLVERS)}).\n\n",
            pipe_table(
                rows,
                [
                    "setting",
                    "differs from the paper era's defaults",
                    "units",
                    "units not converged",
                    "inputs scaled as the solver needs",
                ],
            ),
            f"\n\n{outcome}\n\n",
        ]
    )


def _settings_table(settings: list, descriptions: dict, costs: dict | None) -> str:
    if not costs:
        return pipe_table(
            [[markdown_escape(name), markdown_escape(descriptions.get(name, ""))] for name in settings],
            ["setting", "base learners"],
        )
    rows = [
        [
            markdown_escape(name),
            markdown_escape(descriptions.get(name, "")),
            f"{costs[name].get('wall_seconds', 0) / 60:.1f}",
            costs[name].get("reused_units", 0),
        ]
        for name in settings
    ]
    return pipe_table(rows, ["setting", "base learners", "wall minutes", "units copied"])


def settings_section(out_dir, claims: Mapping[Path, list[ClaimResult]]) -> tuple:
    """The sensitivity section's Markdown, the finished settings' runs (name -> StoredRuns) under ``out_dir``,
    and their claims x settings matrix (:func:`claims_matrix`; None when no setting finished).

    ``claims`` maps each finished setting's folder (:func:`finished_settings`) to its decided claims.
    A setting whose runs are not all stored in full (an interrupted ``mlhidden sensitivity``) is listed
    with what it lacks and left out of the matrix, the rule and the deviations, so that no claim
    is decided on part of the data.
    """
    settings, finished, lacking, manifest = study_settings(out_dir)
    finished = {name: runs for name, runs in finished.items() if settings[name][0] in claims}  # decided once, before
    descriptions = {name: description for name, (_, description) in settings.items()}
    costs = {entry["name"]: entry for entry in manifest["settings"]} if manifest is not None else None
    claims_by_setting = {name: claims[settings[name][0]] for name in finished}
    markdown, matrix = _sensitivity_markdown(finished, claims_by_setting, descriptions, costs)
    if any(lacking.values()):
        rows = [[markdown_escape(name), markdown_escape(what)] for name, what in lacking.items() if what]
        markdown += (
            "Settings not finished, left out above and below (`mlhidden sensitivity` resumes them):\n\n"
            + pipe_table(rows, ["setting", "lacks"])
            + "\n\n"
        )
    if manifest is not None:
        main_setting = ((read_run_log(out_dir) or {}).get("setting") or {}).get("name")
        entries = {entry["name"]: entry for entry in manifest["settings"]}
        verdicts = [
            setting_facts(entries[name], [runs[run].units for run in entries[name]["run_dirs"]])
            for name, runs in finished.items()
        ]
        markdown += primary_markdown(verdicts, main_setting)
    return markdown, finished, matrix
