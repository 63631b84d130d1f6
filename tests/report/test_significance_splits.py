"""`--stats` on one dataset: the methods compared over its splits by the corrected resampled t-test, with Holm."""

from __future__ import annotations

import html
import json
import math
import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from own_data import write_own_arff
from scipy import stats

from mlhidden.cli import cli
from mlhidden.report.html import HTML_FILE
from mlhidden.report.statistics_files import statistics_reports, write_table_statistics
from mlhidden.report.tables import metric_table
from mlhidden.runs.store import load_results

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def invoke(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def corrected_p(differences, test_train_ratio):
    """Two-sided p of the corrected resampled t-test (Nadeau & Bengio 2003), computed here from its formula."""
    d = np.asarray(differences, dtype=float)
    k = len(d)
    t = d.mean() / math.sqrt(d.var(ddof=1) * (1 / k + test_train_ratio))
    return 2 * stats.t.sf(abs(t), k - 1)


def holm_by_hand(p_values):
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted, running = [0.0] * len(p_values), 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, p_values[i] * (len(p_values) - step)))
        adjusted[i] = running
    return adjusted


@pytest.fixture(scope="module")
def music(tmp_path_factory):
    """BR, CC and PCC on Music over 3 holdout splits, with --stats, through the real CLI."""
    out = tmp_path_factory.mktemp("one") / "music"
    result = invoke("run", "-d", "Music", "-m", "BR", "-m", "CC", "-m", "PCC", "--splits", 3, "--stats",
                    "--out", out, "--n-jobs", 1, "-q")
    assert result.exit_code == 0, result.output
    return out, result.output


def test_one_dataset_stats_compare_the_methods_over_its_splits_and_say_so(music):
    out, output = music
    assert "one dataset, Music: methods compared over its 3 splits (corrected resampled t-test, Holm); " \
        "see statistics.md" in output
    markdown = (out / "statistics.md").read_text(encoding="utf-8")
    assert "Tests not applicable" not in markdown
    assert markdown.count("significance over the splits of Music") == 3
    assert "n_test/n_train = 0.6667 (the run's protocol)" in markdown
    data = json.loads((out / "statistics.json").read_text(encoding="utf-8"))
    assert set(data) == {"exact_match", "hamming_score", "total_seconds"}
    units = load_results(out).units
    checked = 0
    for metric, tested in data.items():
        assert tested["test_train_ratio"] == pytest.approx(0.4 / 0.6) and tested["n_splits"] == 3
        scores = units.pivot(index="split", columns="method", values=metric)
        means = scores.mean()
        best = means.idxmin() if metric == "total_seconds" else means.idxmax()
        corrected = tested["corrected_t"]
        assert corrected["control"] == best
        p_values = []
        for comparison in corrected["comparisons"]:
            differences = scores[best] - scores[comparison["method"]]
            differences = -differences if metric == "total_seconds" else differences
            assert comparison["difference"] == pytest.approx(differences.mean())
            if differences.var() > 0:
                assert comparison["p_value"] == pytest.approx(corrected_p(differences, 0.4 / 0.6), rel=1e-9)
                checked += 1
            p_values.append(comparison["p_value"])
        assert [c["p_holm"] for c in corrected["comparisons"]] == pytest.approx(holm_by_hand(p_values), rel=1e-9)
    assert checked >= 2


def test_the_control_option_and_a_named_metric_get_the_test_over_splits_too(music, tmp_path):
    out, _ = music
    result = invoke("report", out, "--stats", "--control", "cc", "--out", tmp_path / "cc")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "cc" / "statistics.json").read_text(encoding="utf-8"))
    assert data["exact_match"]["corrected_t"]["control"] == "CC"
    assert [c["method"] for c in data["exact_match"]["corrected_t"]["comparisons"]] == ["BR", "PCC"]
    named = invoke("report", out, "--metric", "ranking_loss", "--stats", "--out", tmp_path / "rl")
    assert named.exit_code == 0 and "one dataset, Music: methods compared over its 3 splits" in named.output
    ranking = json.loads((tmp_path / "rl" / "statistics.json").read_text(encoding="utf-8"))["ranking_loss"]
    assert ranking["corrected_t"]["control"] in ("BR", "CC", "PCC") and ranking["test_train_ratio"] > 0.66


def test_folds_give_the_test_fraction_one_over_k(tmp_path):
    out = tmp_path / "folds"
    result = invoke("run", "-d", "Logical", "-m", "BR", "-m", "CC", "--protocol", "kfold:3", "--stats",
                    "--out", out, "--n-jobs", 1, "-q")
    assert result.exit_code == 0, result.output
    assert "one dataset, Logical: methods compared over its 3 splits" in result.output
    data = json.loads((out / "statistics.json").read_text(encoding="utf-8"))
    assert data["exact_match"]["test_train_ratio"] == pytest.approx((1 / 3) / (2 / 3))


def test_one_split_still_says_why_no_test_applies(tmp_path):
    out = tmp_path / "single"
    result = invoke("run", "-d", "Logical", "-m", "BR", "-m", "CC", "--splits", 1, "--stats",
                    "--out", out, "--n-jobs", 1, "-q")
    assert result.exit_code == 0, result.output
    reason = "Logical has 1 split and 2 methods; the corrected resampled t-test over splits needs at least 2 of each"
    assert f"one dataset, Logical: no test applies ({reason}); see statistics.md" in result.output
    assert f"Tests not applicable: {reason}." in (out / "statistics.md").read_text(encoding="utf-8")
    assert json.loads((out / "statistics.json").read_text(encoding="utf-8"))["exact_match"]["not_applicable"] == reason


def readme_by_path_example() -> list[str]:
    """The README's first own-data command: a MEKA ARFF file given by its path."""
    line = next(line for line in (PROJECT_ROOT / "README.md").read_text(encoding="utf-8").splitlines()
                if line.startswith("mlhidden run -d ") and ".arff" in line.split("#")[0])
    return shlex.split(line.split("#")[0])[1:]


def test_the_readmes_arff_by_path_gets_the_test_over_its_splits(tmp_path, monkeypatch):
    """A file given by path is named by its @relation in the tables; the test over splits finds it by that name."""
    args = readme_by_path_example()
    monkeypatch.chdir(tmp_path)
    write_own_arff(tmp_path / args[args.index("-d") + 1], relation="Sensors")
    result = invoke(*args, "--splits", 3, "--html", "--stats", "--out", "own", "--n-jobs", 1, "-q")
    assert result.exit_code == 0, result.output
    assert "one dataset, Sensors: methods compared over its 3 splits (corrected resampled t-test" in result.output
    markdown = (tmp_path / "own" / "statistics.md").read_text(encoding="utf-8")
    assert "Tests not applicable" not in markdown and "significance over the splits of Sensors" in markdown
    ranks = (tmp_path / "own" / HTML_FILE).read_text(encoding="utf-8").split("<section id='ranks'>", 1)[1]
    assert "No tests" not in ranks and "significance over the splits of Sensors" in ranks


def units_of(cells):
    """Tidy units from ``{(dataset, method): [value per split]}``, the value in every metric column used here."""
    rows = [
        {"dataset": dataset, "method": method, "split": split, "status": "ok", "error": "",
         "exact_match": value, "total_seconds": value}
        for (dataset, method), values in cells.items() for split, value in enumerate(values)
    ]
    return pd.DataFrame(rows)


def test_hand_computed_p_values_holm_and_times_ranked_fastest_first(tmp_path):
    cells = {
        ("d", "A"): [0.50, 0.55, 0.60, 0.52, 0.58],
        ("d", "B"): [0.45, 0.50, 0.58, 0.47, 0.50],
        ("d", "C"): [0.40, 0.54, 0.50, 0.41, 0.49],
    }
    units = units_of(cells)
    tables = {metric: metric_table(units, metric, ["d"], list("ABC")) for metric in ("exact_match", "total_seconds")}
    reports = statistics_reports(tables, test_train_ratios={"d": 0.25})
    scores, times = reports["exact_match"], reports["total_seconds"]
    a, b, c = (np.array(cells[("d", m)]) for m in "ABC")
    p_b, p_c = corrected_p(a - b, 0.25), corrected_p(a - c, 0.25)
    assert scores.control == "A" and times.control == "C"
    assert [x.p_value for x in scores.comparisons] == pytest.approx([p_b, p_c], rel=1e-12)
    assert [x.p_holm for x in scores.comparisons] == pytest.approx(holm_by_hand([p_b, p_c]), rel=1e-12)
    assert [x.direction for x in scores.comparisons] == ["better", "better"]
    assert [x.p_value for x in times.comparisons] == pytest.approx([corrected_p(c - a, 0.25), corrected_p(c - b, 0.25)])
    assert times.comparisons[0].difference == pytest.approx((a - c).mean())  # C is faster by this much
    # Without the run's n_test / n_train the table is tested over datasets, as before: one is too few.
    write_table_statistics(tables, tmp_path)
    assert "Tests not applicable: 1 complete dataset and 3 methods" in (tmp_path / "statistics.md").read_text()


def test_the_page_shows_the_test_over_splits_as_statistics_md_does(music, tmp_path):
    out, _ = music
    result = invoke("report", out, "--html", "--stats", "--out", tmp_path / "page")
    assert result.exit_code == 0, result.output
    page = (tmp_path / "page" / HTML_FILE).read_text(encoding="utf-8")
    ranks = page.split("<section id='ranks'>", 1)[1].split("</section>", 1)[0]
    assert "No tests" not in ranks and ranks.count("significance over the splits of Music") == 3
    markdown = (tmp_path / "page" / "statistics.md").read_text(encoding="utf-8")
    md_rows = [
        [html.unescape(cell.strip()) for cell in line.strip("|").split("|")]
        for line in markdown.splitlines() if line.startswith("|") and not set(line) <= set("|-: ")
    ]
    page_rows = [
        [html.unescape(re.sub("<[^>]+>", "", cell)).strip() for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", ranks)
    ]
    assert len(md_rows) == 3 * 4 and page_rows == md_rows  # per metric: a header and BR, CC, PCC
