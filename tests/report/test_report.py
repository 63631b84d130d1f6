"""Tables and writers of mlhidden.report, checked against hand-computed ranks and golden text."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.data import make_logical, write_arff
from mlhidden.errors import UserError
from mlhidden.escaping import latex_escape, markdown_escape
from mlhidden.report import (
    SUMMARY_METRICS,
    TABLE_WRITERS,
    metric_table,
    render_terminal_summary,
    to_latex,
    to_markdown,
    to_terminal,
    write_csv,
    write_reports,
)
from mlhidden.report.formats import format_number, format_rank, write_table
from mlhidden.runs.metrics import METRICS, UNIT_METRICS

ERROR = "RuntimeError: solver diverged\nTraceback line that must not be shown"
MEDIAMILL_REASON = "not available (put MediaMill.arff in the data path)"


def make_units(cells: dict, metric: str = "exact_match") -> pd.DataFrame:
    """Tidy units from ``{(dataset, method): [value per split]}``; a None value is a failed split."""
    rows = []
    for (dataset, method), values in cells.items():
        for split, value in enumerate(values):
            failed = value is None
            row = {
                "dataset": dataset,
                "method": method,
                "split": split,
                "status": "failed" if failed else "ok",
                "error": ERROR if failed else "",
            }
            row.update({column: math.nan if failed else 0.5 for column in UNIT_METRICS})
            if not failed:
                row[metric] = value
            rows.append(row)
    return pd.DataFrame(rows)


def markdown_cells(text: str) -> dict:
    """``{first cell: other cells}`` for each row of the pipe table in ``text``."""
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in text.splitlines() if line.startswith("|")]
    return {row[0]: row[1:] for row in rows}


def grid(datasets, methods, values) -> dict:
    """``{(dataset, method): splits}`` from a row-major list of per-cell split lists."""
    return {(d, m): values[i * len(methods) + j] for i, d in enumerate(datasets) for j, m in enumerate(methods)}


# The paper's Table tab:results, exact match on Logical: the three 1.00s share rank 2.
PAPER_METHODS = ["BR", "CC", "PCC", "CCASL", "C.+BR", "C.+AML", "ELM", "BR_RF", "MLP"]
PAPER_LOGICAL = [0.52, 0.64, 0.87, 0.78, 1.00, 1.00, 0.79, 1.00, 0.83]
PAPER_LOGICAL_RANKS = [9, 8, 4, 7, 2, 2, 6, 2, 5]

# A worked example: 3 datasets x 4 methods, two splits per cell.
DATASETS = ["Logical", "Scene", "Yeast"]
METHODS = ["BR", "CC", "CCASL", "MLP"]
WORKED = grid(
    DATASETS,
    METHODS,
    [
        [0.45, 0.55], [1.0, 1.0], [1.0, 1.0], [1.0, 1.0],  # 0.5 1 1 1 -> 4 2 2 2
        [0.2, 0.4], [0.2, 0.2], [0.4, 0.4], [0.1, 0.1],  # 0.3 0.2 0.4 0.1 -> 2 3 1 4
        [0.55, 0.65], [0.6, 0.6], [0.7, 0.7], [0.5, 0.5],  # 0.6 0.6 0.7 0.5 -> 2.5 2.5 1 4
    ],
)
WORKED_RANKS = [[4, 2, 2, 2], [2, 3, 1, 4], [2.5, 2.5, 1, 4]]
WORKED_AVG = [(4 + 2 + 2.5) / 3, (2 + 3 + 2.5) / 3, (2 + 1 + 1) / 3, (2 + 4 + 4) / 3]


def test_paper_logical_row_ranks_three_way_tie_at_two():
    units = make_units({("Logical", m): [v] for m, v in zip(PAPER_METHODS, PAPER_LOGICAL)})
    table = metric_table(units, "exact_match", ["Logical"], PAPER_METHODS)
    assert table.ranks.loc["Logical"].tolist() == PAPER_LOGICAL_RANKS


def test_worked_example_means_ranks_and_average_rank():
    table = metric_table(make_units(WORKED), "exact_match", DATASETS, METHODS)
    np.testing.assert_allclose(table.means.to_numpy(), [[0.5, 1, 1, 1], [0.3, 0.2, 0.4, 0.1], [0.6, 0.6, 0.7, 0.5]])
    np.testing.assert_allclose(table.std.loc["Logical", "BR"], np.std([0.45, 0.55], ddof=1))
    assert table.ranks.to_numpy().tolist() == WORKED_RANKS
    np.testing.assert_allclose(table.avg_rank.to_numpy(), WORKED_AVG)
    assert table.n_splits.to_numpy().tolist() == [[2] * 4] * 3
    assert len(table.per_split) == 24 and set(table.per_split.columns) >= {"dataset", "method", "split", "value"}


def test_float_noise_does_not_break_a_tie():
    # (0.55 + 0.65) / 2 == 0.6000000000000001, a different float from 0.6.
    units = make_units({("Yeast", "BR"): [0.55, 0.65], ("Yeast", "CC"): [0.6, 0.6], ("Yeast", "MLP"): [0.5, 0.5]})
    table = metric_table(units, "exact_match", ["Yeast"], ["BR", "CC", "MLP"])
    assert table.means.loc["Yeast", "BR"] != table.means.loc["Yeast", "CC"]
    assert table.ranks.loc["Yeast"].tolist() == [1.5, 1.5, 3]


def test_time_ranks_ascending_scores_descending():
    values = {("Scene", "BR"): [1.0], ("Scene", "CC"): [244.0], ("Scene", "MLP"): [10.0]}
    time = metric_table(make_units(values, "total_seconds"), "total_seconds", ["Scene"], ["BR", "CC", "MLP"])
    score = metric_table(make_units(values, "hamming_score"), "hamming_score", ["Scene"], ["BR", "CC", "MLP"])
    assert time.ranks.loc["Scene"].tolist() == [1, 3, 2]
    assert score.ranks.loc["Scene"].tolist() == [3, 1, 2]
    assert not METRICS["total_seconds"].higher_is_better and METRICS["exact_match"].higher_is_better


def test_metric_display_formats():
    assert METRICS["exact_match"].format(0.5249) == "0.52"
    seconds = METRICS["total_seconds"]
    assert [seconds.format(v) for v in (243.4, 2.44, 0.031)] == ["243", "2.4", "0.03"]
    assert [format_rank(r) for r in (2.0, 2.5, 9.0)] == ["2", "2.5", "9"]


@pytest.mark.parametrize(
    "metric, expected",
    [
        ("exact_match", ["0.30 2", "failed 3.5", "**0.90** 1", "failed 3.5"]),
        ("total_seconds", ["**0.30** 1", "failed 3.5", "0.90 2", "failed 3.5"]),
    ],
)
def test_fully_failed_cells_share_the_worst_ranks(metric, expected):
    # Failing must not pay, even where lower is better.
    values = {("Music", "BR"): [0.3], ("Music", "CC"): [None, None], ("Music", "PCC"): [0.9], ("Music", "MLP"): [None]}
    table = metric_table(make_units(values, metric), metric, ["Music"], ["BR", "CC", "PCC", "MLP"])
    assert table.ranks.loc["Music", "CC"] == table.ranks.loc["Music", "MLP"] == 3.5
    assert table.cell_state("Music", "CC") == "failed" and math.isnan(table.means.loc["Music", "CC"])
    assert markdown_cells(to_markdown(table))["Music"] == expected
    assert "failed 3.5" in to_latex(table)


def test_partly_failed_cell_keeps_its_mean_and_is_flagged():
    values = {("Music", "BR"): [0.2, 0.4, None], ("Music", "CC"): [0.25, 0.25, 0.25]}
    table = metric_table(make_units(values), "exact_match", ["Music"], ["BR", "CC"])
    assert table.means.loc["Music", "BR"] == pytest.approx(0.3)
    assert (table.n_splits.loc["Music", "BR"], table.n_failed.loc["Music", "BR"]) == (3, 1)
    assert table.cell_state("Music", "BR") == "partial"
    markdown = to_markdown(table)
    assert "**0.30** 1 †" in markdown
    assert "† BR on Music: 1 of 3 splits failed" in markdown
    assert r"\textbf{0.30} 1 \dag{}" in to_latex(table)


def test_unavailable_dataset_is_shown_everywhere_but_not_ranked(tmp_path):
    units = make_units(WORKED)
    unavailable = {"MediaMill": MEDIAMILL_REASON}
    datasets = [*DATASETS, "MediaMill"]
    table = metric_table(units, "exact_match", datasets, METHODS, unavailable)
    assert table.datasets == tuple(datasets)
    assert table.ranks.loc["MediaMill"].isna().all()
    np.testing.assert_allclose(table.avg_rank.to_numpy(), WORKED_AVG)
    assert table.ranked_datasets == DATASETS

    assert r"MediaMill & \multicolumn{4}{c}{" + MEDIAMILL_REASON + r"} \\" in to_latex(table)
    markdown = to_markdown(table)
    assert markdown_cells(markdown)["MediaMill"] == ["n/a"] * 4
    assert f"MediaMill: {MEDIAMILL_REASON}; not ranked" in markdown

    write_csv(units, tmp_path, datasets, METHODS, unavailable)
    wide = pd.read_csv(tmp_path / "exact_match.csv", keep_default_na=False)
    row = wide[wide["dataset"] == "MediaMill"].iloc[0]
    assert row["status"] == MEDIAMILL_REASON and row["BR rank"] == ""


def test_unavailable_dataset_missing_from_the_list_is_appended():
    table = metric_table(make_units(WORKED), "exact_match", DATASETS, METHODS, {"MediaMill": MEDIAMILL_REASON})
    assert table.datasets == (*DATASETS, "MediaMill")


def test_dataset_without_results_for_every_method_is_not_ranked():
    values = {("Music", "BR"): [0.3], ("Music", "CC"): [0.4], ("Scene", "BR"): [0.5]}
    table = metric_table(make_units(values), "exact_match", ["Music", "Scene"], ["BR", "CC"])
    assert table.ranked_datasets == ["Music"]
    assert table.avg_rank.tolist() == [2, 1]
    assert table.cell_state("Scene", "CC") == "missing"
    markdown = to_markdown(table)
    assert markdown_cells(markdown)["Scene"] == ["0.50", "-"]
    assert "not ranked, as some cells have no result yet (-): Scene" in markdown


def test_tables_follow_the_given_order_not_alphabetical(tmp_path):
    datasets, methods = ["Yeast", "Logical", "Scene"], ["MLP", "BR", "CCASL", "CC"]
    units = make_units(WORKED).sample(frac=1.0, random_state=0)
    table = metric_table(units, "exact_match", datasets, methods)
    assert list(table.means.index) == datasets and list(table.means.columns) == methods
    assert "Dataset & MLP & BR & CCASL & CC \\\\" in to_latex(table)
    assert list(markdown_cells(to_markdown(table)))[2:] == [*datasets, "avg rank"]

    write_csv(units, tmp_path, datasets, methods)
    written = pd.read_csv(tmp_path / "units.csv")
    expected = [(d, m, s) for d in datasets for m in methods for s in (0, 1)]
    assert list(written[["dataset", "method", "split"]].itertuples(index=False, name=None)) == expected
    assert list(written.columns) == list(units.columns)
    assert list(pd.read_csv(tmp_path / "exact_match.csv")["dataset"]) == datasets
    ranks = pd.read_csv(tmp_path / "avg_ranks.csv")
    assert list(ranks.columns) == ["metric", "method", "avg_rank", "n_datasets"]
    exact = ranks[ranks["metric"] == "exact_match"]
    assert list(exact["method"]) == methods and exact["avg_rank"].tolist() == pytest.approx(table.avg_rank.tolist())
    assert set(exact["n_datasets"]) == {3}


def test_latex_escapes_special_characters():
    assert latex_escape("BR_RF & co 50% #1 $x$") == r"BR\_RF \& co 50\% \#1 \$x\$"
    units = make_units({("my_data", "BR_RF"): [0.5], ("my_data", "CCASL+AML"): [0.6]})
    latex = to_latex(metric_table(units, "exact_match", ["my_data"], ["BR_RF", "CCASL+AML"]))
    assert r"Dataset & BR\_RF & CCASL+AML \\" in latex
    assert r"my\_data & 0.50 2 & \textbf{0.60} 1 \\" in latex



def test_latex_escape_leaves_nothing_tex_reads_as_markup_or_refuses():
    """``<``, ``>`` and ``|`` print as ¡, ¿ and — in LaTeX's default OT1 encoding; a control character stops
    pdflatex ("invalid character"), a line break could end a row, and a row opening with ``[`` after the
    previous row's ``\\\\`` is read as that ``\\\\``'s spacing argument ("Missing number")."""
    hostile = "\\input{/etc/passwd} a<b>c|d \x1b[31m\nnext"
    assert latex_escape(hostile) == (
        r"\textbackslash{}input\{/etc/passwd\} a\textless{}b\textgreater{}c\textbar{}d \textbackslash{}x1b[31m next"
    )
    units = make_units({("[x] data", "BR"): [0.5], ("plain", "BR"): [0.6]})
    latex = to_latex(metric_table(units, "exact_match", ["plain", "[x] data"], ["BR"]))
    assert "\n{}[x] data & \\textbf{0.50} 1 \\\\\n" in latex and latex_escape("a [b]") == "a [b]"

GOLDEN_LATEX = r"""\begin{table}
\centering
\caption{Exact match on two datasets.}
\label{tab:em}
\begin{tabular}{lrrr}
\toprule
Dataset & BR & CC & CCASL+AML \\
\midrule
Logical & 0.52 3 & \textbf{1.00} 1.5 & \textbf{1.00} 1.5 \\
Music & 0.23 3 & 0.25 2 & \textbf{0.27} 1 \\
\midrule
avg rank & 3.00 & 1.75 & 1.25 \\
\bottomrule
\end{tabular}
\end{table}
"""


def test_latex_golden_two_by_three():
    methods = ["BR", "CC", "CCASL+AML"]
    values = grid(["Logical", "Music"], methods, [[0.5, 0.54], [1, 1], [1, 1], [0.2, 0.26], [0.25, 0.25], [0.27, 0.27]])
    table = metric_table(make_units(values), "exact_match", ["Logical", "Music"], methods)
    assert to_latex(table, caption="Exact match on two datasets.", label="tab:em") == GOLDEN_LATEX


def test_latex_default_caption_label_and_booktabs():
    latex = to_latex(metric_table(make_units(WORKED, "total_seconds"), "total_seconds", DATASETS, METHODS))
    assert r"\label{tab:total_seconds}" in latex and r"\caption{Time (s): mean over the splits" in latex
    assert [latex.count(rule) for rule in (r"\toprule", r"\midrule", r"\bottomrule")] == [1, 2, 1]


def test_write_reports_writes_every_file_and_lists_problems(tmp_path):
    values = dict(WORKED)
    values["Scene", "MLP"] = [None, None]
    units = make_units(values)
    unavailable = {"MediaMill": MEDIAMILL_REASON}
    paths = write_reports(units, tmp_path / "report", [*DATASETS, "MediaMill"], METHODS, unavailable)

    names = {path.name for path in paths}
    expected = {"units.csv", "tables.md", "avg_ranks.csv"} | {f"{metric}.csv" for metric in UNIT_METRICS}
    expected |= {f"{metric}.{suffix}" for metric in SUMMARY_METRICS for suffix in TABLE_WRITERS}
    assert names == expected and all(path.is_file() for path in paths)

    tables = (tmp_path / "report" / "tables.md").read_text(encoding="utf-8")
    assert tables.count("| avg rank") == 3
    assert markdown_cells(tables)["Scene"][3] == "failed 4"
    assert f"MediaMill: {MEDIAMILL_REASON}" in tables
    assert "MLP on Scene failed (splits 0, 1): RuntimeError: solver diverged" in tables
    assert "Traceback line" not in tables

    wide = pd.read_csv(tmp_path / "report" / "exact_match.csv")
    scene = wide.set_index("dataset").loc["Scene"]
    assert (scene["MLP n_failed"], scene["MLP rank"]) == (2, 4)
    assert "avg rank" not in set(wide["dataset"])
    ranks = pd.read_csv(tmp_path / "report" / "avg_ranks.csv").set_index(["metric", "method"])
    assert ranks.loc[("exact_match", "CCASL"), "avg_rank"] == pytest.approx(4 / 3)


def test_terminal_summary_has_the_three_headline_tables():
    text = render_terminal_summary(make_units(WORKED), DATASETS, METHODS, {"MediaMill": MEDIAMILL_REASON})
    for title in ("Exact match", "Hamming score", "Time (s)"):
        assert f"{title}: mean over splits" in text
    assert "MediaMill" in text
    table = metric_table(make_units(WORKED), "exact_match", DATASETS, METHODS)
    lines = to_terminal(table).splitlines()
    assert lines[0].startswith("Exact match") and lines[-1].split() == ["avg", "rank", "2.83", "2.50", "1.33", "3.33"]


def test_bad_inputs_are_refused():
    units = make_units(WORKED)
    with pytest.raises(UserError, match="unknown metric 'accuracy'"):
        metric_table(units, "accuracy", DATASETS, METHODS)
    with pytest.raises(ValueError, match="reported twice"):
        metric_table(pd.concat([units, units.iloc[:1]]), "exact_match", DATASETS, METHODS)
    with pytest.raises(ValueError, match="status"):
        metric_table(units.assign(status="done"), "exact_match", DATASETS, METHODS)
    with pytest.raises(ValueError, match="unavailable but with results"):
        metric_table(units, "exact_match", DATASETS, METHODS, {"Scene": "gone"})
    with pytest.raises(ValueError, match="more than once"):
        metric_table(units, "exact_match", DATASETS, ["BR", "BR"])


def test_std_cells_show_mean_and_spread_in_every_text_format(tmp_path):
    table = metric_table(make_units(WORKED), "exact_match", DATASETS, METHODS)
    spread = f"{np.std([0.2, 0.4], ddof=1):.2f}"
    markdown = to_markdown(table, std=True)
    assert "mean ± std over splits" in markdown
    assert markdown_cells(markdown)["Scene"] == [
        f"0.30 ± {spread} 2",
        "0.20 ± 0.00 3",
        "**0.40 ± 0.00** 1",
        "0.10 ± 0.00 4",
    ]
    assert f"0.30 $\\pm$ {spread} 2 &" in to_latex(table, std=True)
    assert f"0.30 ± {spread} 2" in to_terminal(table, std=True)
    # Without the flag the cells are the paper's "mean rank".
    assert markdown_cells(to_markdown(table))["Scene"][0] == "0.30 2"

    paths = write_reports(make_units(WORKED), tmp_path, DATASETS, METHODS, std=True)
    assert f"0.30 ± {spread} 2" in (tmp_path / "tables.md").read_text(encoding="utf-8")
    assert "$\\pm$" in (tmp_path / "exact_match.tex").read_text(encoding="utf-8")
    # The per-split values behind every mean and std are in units.csv.
    units = pd.read_csv(tmp_path / "units.csv")
    scene_br = units[(units["dataset"] == "Scene") & (units["method"] == "BR")]
    assert scene_br["split"].tolist() == [0, 1] and scene_br["exact_match"].tolist() == [0.2, 0.4]
    assert tmp_path / "units.csv" in paths
    assert f"0.30 ± {spread} 2" in render_terminal_summary(make_units(WORKED), DATASETS, METHODS, std=True)


def test_any_table_of_display_text_renders_escaped_markdown_and_latex(tmp_path):
    shown = pd.DataFrame({"CC (1,2)": ["0.50", "-"], "a_b": ["x|y", "100%"]}, index=["set & co", "plain"])
    numbers = pd.DataFrame({"CC (1,2)": [0.5, math.nan]}, index=shown.index)
    csv, md, tex = write_table(numbers, shown, tmp_path / "sub" / "demo", "Demo: 50% of *it*", "Data")
    assert md.read_text(encoding="utf-8") == (
        "Demo: 50% of *it*\n\n"
        "| Data         | CC (1,2)   | a\\_b   |\n"
        "|:-------------|:-----------|:-------|\n"
        "| set &amp; co | 0.50       | x\\|y   |\n"
        "| plain        | -          | 100%   |\n"
    )
    assert tex.read_text(encoding="utf-8").splitlines() == [
        r"\begin{table}", r"\centering", r"\caption{Demo: 50\% of *it*}", r"\label{tab:demo}",
        r"\begin{tabular}{lrr}", r"\toprule", r"Data & CC (1,2) & a\_b \\", r"\midrule",
        r"set \& co & 0.50 & x\textbar{}y \\", r"plain & - & 100\% \\", r"\bottomrule", r"\end{tabular}",
        r"\end{table}",
    ]
    assert csv.read_text(encoding="utf-8") == ',"CC (1,2)"\nset & co,0.5\nplain,\n'
    assert format_number(math.nan) == format_number(None) == "-" and format_number(0.1234, 3) == "0.123"


HTML_DATASETS = ("<details open ontoggle=alert(1)>", "<meta http-equiv=refresh content=0>")
HTML_LABELS = ("<img src=http://example.invalid/x.png>", "<script>alert(1)</script>", "![a](http://example.invalid/y.png)")


def test_html_and_image_links_in_names_are_text_in_every_markdown_file(tmp_path):
    """Dataset files and method labels that are HTML or a Markdown image: on a code host they would load a
    remote image or run a handler; in tables.md, the metric tables and statistics.md they are escaped text."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    for name in HTML_DATASETS:
        write_arff(make_logical(), data_dir / f"{name}.arff")
    run_dir = tmp_path / "run"
    args = ["run", *(a for d in HTML_DATASETS for a in ("-d", d)), "-m", "BR", "-m", "CC", "-m", "AllZero",
            *(a for label in HTML_LABELS for a in ("--label", label)), "--data-dir", str(data_dir), "--splits", "2"]
    assert CliRunner().invoke(cli, [*args, "--n-jobs", "1", "-q", "--out", str(run_dir)]).exit_code == 0
    result = CliRunner().invoke(cli, ["report", str(run_dir), "--stats"])
    assert result.exit_code == 0, result.output
    written = {path.name: path.read_text(encoding="utf-8") for path in run_dir.glob("*.md")}
    assert {"tables.md", "exact_match.md", "statistics.md"} <= set(written)
    for name, text in written.items():
        assert not re.search(r"<[a-z/!]", text, re.IGNORECASE) and "](http" not in text, name
    assert "&lt;img src=http://example.invalid/x.png&gt;" in written["tables.md"]
    assert "&lt;details open ontoggle=alert(1)&gt;" in written["tables.md"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in written["statistics.md"]


def test_markdown_escape_makes_html_entities_and_links_text():
    assert markdown_escape('a<b> & "c" ![i](u) [t]') == 'a&lt;b&gt; &amp; "c" ![i]\\(u) [t]'
    assert markdown_escape("x\nline two\r\n# heading \x1b[31m") == "x line two # heading \\\\x1b[31m"
    assert markdown_escape("BR [base.C=10]") == "BR [base.C=10]"
