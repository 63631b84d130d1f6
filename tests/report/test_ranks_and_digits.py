"""One ranking rule everywhere (trivial baselines shown, never ranked) and decimals that show what decides a rank."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.report.digits import rank_collisions
from mlhidden.report.formats import to_latex, to_markdown, to_terminal
from mlhidden.report.ranked_methods import TRIVIAL_UNRANKED
from mlhidden.report.significance_tests import significance_report
from mlhidden.report.significance_text import significance_markdown
from mlhidden.report.tables import metric_table
from mlhidden.runs.metrics import MAX_DIGITS
from mlhidden.runs.provenance import RUN_JSON
from mlhidden.stats.replication import against_control
from mlhidden.stats.uncertainty import format_p


def units(values: dict, metric: str = "total_seconds") -> pd.DataFrame:
    """Units of one split per (dataset, method) holding ``values[method][i]`` on dataset ``D<i>``."""
    rows = [
        {"dataset": f"D{i}", "method": method, "split": 0, "status": "ok", "error": "", metric: value}
        for method, column in values.items()
        for i, value in enumerate(column)
    ]
    return pd.DataFrame(rows)


def test_a_trivial_baseline_is_shown_but_never_ranked_nor_best_on_time():
    times = units({"BR": [2.0, 3.0, 1.0], "CC": [4.0, 1.5, 2.0], "Majority": [0.001, 0.001, 0.001]})
    table = metric_table(times, "total_seconds", ["D0", "D1", "D2"], ["BR", "CC", "Majority"])
    assert table.unranked == {"Majority": TRIVIAL_UNRANKED}
    assert table.ranks["Majority"].isna().all() and not any(table.is_best(d, "Majority") for d in table.datasets)
    assert [table.is_best(d, "BR") for d in table.datasets] == [True, False, True]
    terminal, markdown, latex = to_terminal(table), to_markdown(table), to_latex(table)
    assert "**0.00**" not in markdown and r"\textbf{0.00}" not in latex
    assert "**2.0** 1" in markdown and "Majority left out of the ranks" in terminal
    report = significance_report(table)
    assert list(report.avg_ranks.index) == ["BR", "CC"] and [w.method for w in report.wilcoxon] == ["CC"]


def test_only_trivial_baselines_are_still_ranked_among_themselves():
    times = units({"AllZero": [1.0, 2.0], "majority": [2.0, 1.0]})
    table = metric_table(times, "total_seconds", ["D0", "D1"], ["AllZero", "majority"])
    assert table.unranked == {} and table.avg_rank.tolist() == [1.5, 1.5]


def test_the_fewest_decimals_from_2_to_4_that_tell_apart_different_ranks():
    means = pd.DataFrame({"A": [0.781, 0.5], "B": [0.779, 0.4], "C": [0.781, 0.3]}, index=["D0", "D1"])
    ranks = means.rank(axis=1, ascending=False)
    assert rank_collisions(means, ranks, "{:.2f}".format) == [("D0", "A", "B")]  # A and C tie: they share a rank
    scores = units({m: means[m].tolist() for m in means}, "exact_match")
    scores = metric_table(scores, "exact_match", ["D0", "D1"], list(means))
    assert scores.metric.digits == 3
    times = units({"BR": [12.3, 0.101], "CC": [12.4, 0.104]})
    table = metric_table(times, "total_seconds", ["D0", "D1"], ["BR", "CC"])
    assert [table.metric.format(v) for v in (12.3, 12.4, 0.101, 0.104)] == ["12.3", "12.4", "0.101", "0.104"]


def test_a_table_prints_its_scores_at_the_separating_digits_and_notes_what_4_cannot_separate():
    scores = units({"BR": [0.7812, 0.5000001], "CC": [0.7809, 0.5]}, "exact_match")
    table = metric_table(scores, "exact_match", ["D0", "D1"], ["BR", "CC"])
    text = to_terminal(table)
    assert table.metric.digits == 4 and "0.7812 1" in text and "0.7809 2" in text
    assert "BR and CC on D1 read the same but rank differently" in text
    assert metric_table(scores, "exact_match", ["D0", "D1"], ["BR", "CC"], precision=2).metric.digits == 2


def shown_cells(output: str) -> list[list[tuple[str, str]]]:
    """The ``value rank`` pairs of each data row of the score tables a run prints."""
    rows = []
    for line in output.splitlines():
        pairs = re.findall(r"(\d+\.\d+) (\d+(?:\.5)?)\b", line)
        if len(pairs) >= 2 and not line.startswith("avg rank"):
            rows.append(pairs)
    return rows


def assert_equal_looking_values_share_ranks(output: str) -> None:
    """No two values of a row read the same with different ranks, unless even the most decimals a table
    prints cannot tell them apart (two times a few microseconds apart): then a note under the table names
    the two cells, and the CSV files hold their full values."""
    rows = shown_cells(output)
    assert rows, output
    collisions = output.count("read the same but rank differently")
    unnoted = 0
    for pairs in rows:
        rank_of: dict[str, str] = {}
        for value, rank in pairs:
            if rank_of.setdefault(value, rank) != rank:
                assert len(value.split(".")[1]) == MAX_DIGITS, (pairs, output)
                unnoted += 1
    assert unnoted <= collisions, output


@pytest.mark.parametrize(
    "methods",
    [
        ["-m", "BR", "-m", "CC"],
        ["--config", "SWEEP"],
    ],
    ids=["BR-CC", "five-point-sweep"],
)
def test_run_prints_no_two_equal_looking_values_with_different_ranks(tmp_path, methods):
    config = tmp_path / "sweep.yaml"
    config.write_text(
        "datasets: [Music]\nmethods:\n  - {name: BR, sweep: {base.C: [0.6, 0.7, 0.8, 0.9, 1.0]}}\nsplits: 2\n"
    )
    args = ["run", *[str(config) if a == "SWEEP" else a for a in methods], "--out", str(tmp_path / "run")]
    if "--config" not in methods:
        args += ["-d", "Music", "--splits", "2"]
    result = CliRunner().invoke(cli, [*args, "--n-jobs", "1", "-q"])
    assert result.exit_code == 0, result.output
    assert_equal_looking_values_share_ranks(result.output)


def test_run_precision_is_kept_for_report_and_the_page_and_precision_overrides_it(tmp_path):
    run_dir = tmp_path / "run"
    base = ["run", "-d", "Logical", "-m", "BR", "-m", "CC", "--splits", "2", "--out", str(run_dir), "-q"]
    result = CliRunner().invoke(cli, [*base, "--precision", "3"])
    assert result.exit_code == 0, result.output
    assert json.loads((run_dir / RUN_JSON).read_text())["precision"] == 3
    resumed = CliRunner().invoke(cli, base)  # resuming without --precision keeps it
    assert resumed.exit_code == 0 and json.loads((run_dir / RUN_JSON).read_text())["precision"] == 3
    reported = CliRunner().invoke(cli, ["report", str(run_dir), "--html"])
    assert reported.exit_code == 0, reported.output
    assert re.search(r"Logical\s+\d\.\d{3} ", reported.output), reported.output
    assert re.search(r"\| \*?\*?\d\.\d{3}", (run_dir / "exact_match.md").read_text())
    page = (run_dir / "index.html").read_text()
    assert re.search(r"data-d='3'>\d\.\d{3}</span>", page)
    overridden = CliRunner().invoke(cli, ["report", str(run_dir), "--html", "--precision", "4"])
    assert overridden.exit_code == 0 and re.search(r"Logical\s+\d\.\d{4} ", overridden.output)
    page = (run_dir / "index.html").read_text()
    assert re.search(r"data-d='4'>\d\.\d{4}</span>", page) and "data-d='3'" not in page


def test_the_styles_of_14_lines_differ_in_colour_and_marker():
    from mlhidden.report.figures import line_styles

    styles = line_styles(14)
    assert len(set(styles)) == 14 and all(a[0] != b[0] and a[1] != b[1] for a, b in zip(styles, styles[1:]))
    assert np.unique([c for c, _ in styles]).size == 10  # every colour used before one repeats


def test_points_at_0_and_1_stay_visible_in_the_agreement_scatter(monkeypatch):
    import mlhidden.report.html_plots as plots

    drawn = []
    monkeypatch.setattr(plots, "svg", lambda figure, key: drawn.append(figure) or "")
    frame = pd.DataFrame({"reference": [0.0, 1.0], "ours": [0.0, 1.0], "outside": False, "marked": False})
    plots.agreement_svg(frame, 0.05, "key")
    (ax,) = drawn[0].axes
    assert ax.get_xlim()[0] < 0 < 1 < ax.get_xlim()[1] and ax.get_ylim()[0] < 0 < 1 < ax.get_ylim()[1]
    from matplotlib.collections import PathCollection

    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert points and not any(c.get_clip_on() for c in points)


def test_the_tests_of_a_table_with_a_trivial_baseline_say_it_is_not_tested(tmp_path):
    from mlhidden.report.statistics_files import write_table_statistics

    times = units({"BR": [2.0, 3.0, 1.0], "CC": [4.0, 1.5, 2.0], "Majority": [0.001, 0.001, 0.001]})
    table = metric_table(times, "total_seconds", ["D0", "D1", "D2"], ["BR", "CC", "Majority"])
    write_table_statistics({"total_seconds": table}, tmp_path)
    text = (tmp_path / "statistics.md").read_text()
    assert f"Majority is not tested: {TRIVIAL_UNRANKED}" in text and "k = 2 methods" in text
    summary = json.loads((tmp_path / "statistics.json").read_text())["total_seconds"]
    assert summary["methods"] == ["BR", "CC"] and list(summary["unranked"]) == ["Majority"]


def test_a_tie_ranks_alike_in_the_table_the_cd_diagram_and_a_ranks_claim():
    """Two means equal but for float summation order (the same splits' values, summed in another order) are one
    tie everywhere: the table, the significance report the CD diagram draws, and a ranks claim share the average
    ranks and the Friedman p."""
    splits = {"A": [[0.1, 0.2, 0.3], [0.5, 0.5, 0.5]], "B": [[0.3, 0.2, 0.1], [0.4, 0.4, 0.4]],
              "C": [[0.1, 0.1, 0.1], [0.3, 0.3, 0.3]]}
    rows = [
        {"dataset": f"D{i}", "method": method, "split": split, "status": "ok", "error": "", "exact_match": value}
        for method, per_dataset in splits.items()
        for i, values in enumerate(per_dataset)
        for split, value in enumerate(values)
    ]
    frame = pd.DataFrame(rows)
    table = metric_table(frame, "exact_match", ["D0", "D1"], list(splits))
    assert table.means.at["D0", "A"] != table.means.at["D0", "B"]  # the last bit differs ...
    assert table.ranks.loc["D0"].tolist() == [1.5, 1.5, 3.0]  # ... and they tie
    report = significance_report(table)
    scores = frame.pivot_table(index="dataset", columns="method", values="exact_match", sort=False)
    claim = against_control("A first", scores, "A", ["B", "C"])
    gaps = {part.label: part.effect for part in claim.parts}
    assert gaps == {f"A above {m}": report.avg_ranks[m] - report.avg_ranks["A"] for m in ("B", "C")}
    assert report.avg_ranks.tolist() == table.avg_rank.tolist() == [1.25, 1.75, 3.0]
    p_value, kind = report.friedman_p
    assert f"Friedman {kind} p {format_p(p_value)}," in claim.reading
    assert f"ranks claims use the Friedman {kind} p = {format_p(p_value)}" in significance_markdown(report)
    assert "Bonferroni-Dunn against A; the rank section's Nemenyi CD compares all pairs" in claim.reading
