"""`mlhidden report` options through the real CLI: --metric with --out/--stats, --precision, merged method sets."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli


def invoke(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def run_cli(out, datasets, methods, splits=2):
    args = ["run", "--out", out, "--splits", splits, "--n-jobs", 1, "-q"]
    for dataset in datasets:
        args += ["-d", dataset]
    for method in methods:
        args += ["-m", method]
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def two_datasets(tmp_path_factory):
    """BR, CC and CCASL on Logical and Music, 2 splits: two complete datasets, so the tests apply."""
    return run_cli(tmp_path_factory.mktemp("runs") / "lm", ["Logical", "Music"], ["BR", "CC", "CCASL"])


def test_metric_honours_out_and_stats_and_writes_what_builtin_metrics_get(two_datasets, tmp_path):
    out = tmp_path / "rl_out"
    metrics = ["--metric", "ranking_loss", "--metric", "macro_auc"]
    result = invoke("report", two_datasets, *metrics, "--stats", "--out", out)
    assert result.exit_code == 0, result.output
    for metric in ("ranking_loss", "macro_auc"):
        for suffix in ("csv", "md", "tex"):
            assert (out / f"{metric}.{suffix}").is_file(), (metric, suffix)
        assert (out / f"cd_{metric}.png").is_file() and (out / f"cd_{metric}.pdf").is_file()
    wide = pd.read_csv(out / "ranking_loss.csv")
    assert list(wide["dataset"]) == ["Logical", "Music"] and {"BR", "BR rank", "CCASL std"} <= set(wide.columns)
    assert "Ranking loss" in (out / "ranking_loss.md").read_text()
    assert "\\begin{table}" in (out / "ranking_loss.tex").read_text()
    statistics = (out / "statistics.md").read_text()
    assert "Ranking loss: significance" in statistics and "Macro ROC AUC: significance" in statistics
    assert "Ranking loss: mean" in result.output and "Macro ROC AUC: mean" in result.output
    assert f"wrote 12 files to {out}/" in result.output  # 6 tables, statistics.md/.json, 2 diagrams x png/pdf


def test_metric_without_out_or_stats_only_prints(two_datasets):
    before = sorted(p.name for p in two_datasets.iterdir())
    result = invoke("report", two_datasets, "--metric", "one_error")
    assert result.exit_code == 0 and "One-error: mean" in result.output
    assert sorted(p.name for p in two_datasets.iterdir()) == before


def test_precision_sets_the_decimals_of_terminal_markdown_and_latex(two_datasets, tmp_path):
    out = tmp_path / "p4"
    result = invoke("report", two_datasets, "--out", out, "--precision", 4)
    assert result.exit_code == 0, result.output
    logical = next(line for line in result.output.splitlines() if line.startswith("Logical"))
    assert re.fullmatch(r"Logical(\s+\d\.\d{4} [\d.]+){3}", logical.strip()), logical
    lines = (out / "hamming_score.md").read_text().splitlines()
    markdown = next(line for line in lines if line.startswith("| Logical"))
    assert len(re.findall(r"\d\.\d{4}\b", markdown)) == 3, markdown
    latex = next(line for line in (out / "exact_match.tex").read_text().splitlines() if line.startswith("Logical"))
    assert len(re.findall(r"\d\.\d{4}\b", latex)) == 3, latex
    default = invoke("report", two_datasets, "--out", tmp_path / "p2")
    assert re.search(r"Logical\s+\d\.\d\d \d ", default.output)
    metric = invoke("report", two_datasets, "--metric", "ranking_loss", "--precision", 3)
    assert re.search(r"Logical(\s+\d\.\d{3} [\d.]+){3}", metric.output), metric.output


def test_precision_must_be_a_small_count(two_datasets):
    result = invoke("report", two_datasets, "--precision", -1)
    assert result.exit_code == 2 and "--precision" in result.output


def test_merged_runs_with_different_methods_rank_the_shared_ones_with_a_note(two_datasets, tmp_path):
    other = run_cli(tmp_path / "other", ["Logical"], ["BR", "PCC"])
    out = tmp_path / "merged"
    result = invoke("report", two_datasets, other, "--out", out, "--stats")
    assert result.exit_code == 0, result.output
    music = next(line for line in result.output.splitlines() if line.startswith("Music"))
    assert re.fullmatch(r"Music(\s+\d\.\d{2,4} [\d.]+){3}\s+-", music.strip()), music  # decimals by rank
    note = (
        "PCC left out of the ranks: it has no results on Music "
        "(ranked over the methods every dataset has: BR, CC, CCASL)"
    )
    assert note in result.output
    assert note in (out / "tables.md").read_text()
    ranks = pd.read_csv(out / "avg_ranks.csv")
    exact = ranks[ranks["metric"] == "exact_match"].set_index("method")
    assert exact.loc[["BR", "CC", "CCASL"], "n_datasets"].tolist() == [2, 2, 2]
    assert exact["avg_rank"].notna().tolist() == [True, True, True, False]
    assert "Friedman test over N = 2 datasets and k = 3 methods" in (out / "statistics.md").read_text()


def test_metric_and_control_names_match_in_any_case_as_dataset_and_method_names_do(two_datasets, tmp_path):
    out = tmp_path / "cased"
    result = invoke("report", two_datasets, "--metric", "Ranking_Loss", "--stats", "--control", "ccasl", "--out", out)
    assert result.exit_code == 0, result.output
    assert (out / "ranking_loss.csv").is_file()
    assert "R+ / R- vs CCASL" in (out / "statistics.md").read_text()
    misspelt = invoke("report", two_datasets, "--stats", "--control", "ccsal", "--out", tmp_path / "bad")
    assert misspelt.exit_code == 2
    assert "unknown control method 'ccsal' (did you mean 'CCASL'?" in misspelt.output


def test_run_html_writes_the_page_report_html_writes_and_names_it(tmp_path):
    out = tmp_path / "paged"
    result = invoke("run", "-d", "Logical", "-m", "BR", "--splits", 2, "--n-jobs", 1, "-q", "--out", out, "--html")
    assert result.exit_code == 0, result.output
    assert f"results page: {out / 'index.html'}" in result.output.splitlines()
    again = invoke("report", out, "--html", "--out", tmp_path / "again")
    assert again.exit_code == 0, again.output
    assert (out / "index.html").read_bytes() == (tmp_path / "again" / "index.html").read_bytes()
