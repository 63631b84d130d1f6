"""Significance tests of mlhidden.report.significance_tests, checked against Demšar (2006) and hand computations."""

from __future__ import annotations

import itertools
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, optimize, stats

from mlhidden.errors import InputWarning, UserError
from mlhidden.report.cd_diagram import CD_BAR, draw_cd_diagram, plot_cd_diagram
from mlhidden.report.formats import format_mean_std
from mlhidden.report.significance_tests import (
    cliques,
    critical_difference,
    holm,
    nemenyi_q,
    significance_report,
)
from mlhidden.report.significance_text import significance_dict, significance_markdown
from mlhidden.report.statistics_files import write_statistics
from mlhidden.report.tables import SUMMARY_METRICS, metric_table
from mlhidden.runs.metrics import UNIT_METRICS
from mlhidden.stats.friedman import friedman_exact_p, friedman_p, friedman_test


def make_units(cells: dict) -> pd.DataFrame:
    """Tidy units from ``{(dataset, method): [value per split]}``, the value in every metric column.

    A None value is a failed split.
    """
    rows = []
    for (dataset, method), values in cells.items():
        for split, value in enumerate(values):
            failed = value is None
            row = {"dataset": dataset, "method": method, "split": split,
                   "status": "failed" if failed else "ok", "error": "boom" if failed else ""}
            row.update({column: math.nan if failed else value for column in UNIT_METRICS})
            rows.append(row)
    return pd.DataFrame(rows)


def table_of(rows: dict, methods, metric="exact_match"):
    """The MetricTable of one split per cell, from ``{dataset: [value per method]}``."""
    cells = {(d, m): [v] for d, values in rows.items() for m, v in zip(methods, values)}
    return metric_table(make_units(cells), metric, list(rows), methods)


# Demšar (2006) Table 6: AUC of C4.5 with m = 0 and with m and/or cf tuned, on 14 UCI datasets.
# The paper ranks voting's two 0.975s as 2 and 3 (they differ before rounding), so C4.5+cf gets
# a hair more here; with it the average ranks are exactly the paper's.
DEMSAR_METHODS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_AUC = {
    "adult (sample)": [0.763, 0.768, 0.771, 0.798],
    "breast cancer": [0.599, 0.591, 0.590, 0.569],
    "breast cancer wisconsin": [0.954, 0.971, 0.968, 0.967],
    "cmc": [0.628, 0.661, 0.654, 0.657],
    "ionosphere": [0.882, 0.888, 0.886, 0.898],
    "iris": [0.936, 0.931, 0.916, 0.931],
    "liver disorders": [0.661, 0.668, 0.609, 0.685],
    "lung cancer": [0.583, 0.583, 0.563, 0.625],
    "lymphography": [0.775, 0.838, 0.866, 0.875],
    "mushroom": [1.000, 1.000, 1.000, 1.000],
    "primary tumor": [0.940, 0.962, 0.965, 0.962],
    "rheum": [0.619, 0.666, 0.614, 0.669],
    "voting": [0.972, 0.981, 0.9751, 0.975],
    "wine": [0.957, 0.978, 0.946, 0.970],
}

# Demšar (2006) Table 5(a): Nemenyi critical values q_alpha for k = 2..10.
DEMSAR_Q = {
    0.05: [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164],
    0.10: [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920],
}


@pytest.fixture(scope="module")
def demsar():
    return significance_report(table_of(DEMSAR_AUC, DEMSAR_METHODS))


def test_demsar_worked_example_friedman_iman_davenport_and_critical_differences(demsar):
    np.testing.assert_allclose(demsar.avg_ranks.to_numpy(), [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    assert demsar.friedman.chi2 == pytest.approx(9.28, abs=5e-3)
    assert demsar.friedman.f == pytest.approx(3.69, abs=5e-3)
    assert demsar.friedman.df == (3, 39)
    assert stats.f.ppf(0.95, *demsar.friedman.df) == pytest.approx(2.85, abs=5e-3)
    assert demsar.friedman.p_value < 0.05  # F_F = 3.69 > 2.85: the null hypothesis is rejected
    at_05, at_10 = demsar.nemenyi
    assert (at_05.alpha, at_10.alpha) == (0.05, 0.10)
    assert at_05.cd == pytest.approx(1.25, abs=5e-3)
    assert at_10.cd == pytest.approx(1.12, abs=5e-3)


def test_demsar_nemenyi_finds_nothing_at_05_and_two_groups_at_10(demsar):
    at_05, at_10 = demsar.nemenyi
    assert not at_05.significant.to_numpy().any()
    assert at_05.cliques == (("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"),)
    # "pure C4.5 is significantly worse than C4.5+m and C4.5+m+cf"; C4.5+cf is in both groups.
    significant = {(a, b) for a in DEMSAR_METHODS for b in DEMSAR_METHODS if at_10.significant.at[a, b]}
    assert significant == {("C4.5", "C4.5+m"), ("C4.5+m", "C4.5"), ("C4.5", "C4.5+m+cf"), ("C4.5+m+cf", "C4.5")}
    assert at_10.cliques == (("C4.5+m+cf", "C4.5+m", "C4.5+cf"), ("C4.5+cf", "C4.5"))
    assert significance_dict(demsar)["nemenyi"][1]["significant_pairs"] == [["C4.5+m+cf", "C4.5"], ["C4.5+m", "C4.5"]]
    markdown = significance_markdown(demsar)
    assert "At α = 0.10, C4.5+m+cf ranks significantly better than C4.5 (avg ranks 1.96 vs 3.14, CD 1.12)." in markdown
    assert "At α = 0.05, C4.5" not in markdown
    assert "At α = 0.05 no two methods' average ranks differ by the CD (1.25) or more" in markdown


def test_demsar_wilcoxon_example_splits_zero_differences():
    # Demšar's Section 3.1.3: C4.5+m against C4.5 gives R+ = 93, R- = 12 (two zero differences
    # split), T = 12 below the critical 21 for N = 14, so C4.5+m is significantly better.
    report = significance_report(table_of(DEMSAR_AUC, DEMSAR_METHODS), control="C4.5+m")
    against = {c.method: c for c in report.wilcoxon}
    assert list(against) == ["C4.5", "C4.5+cf", "C4.5+m+cf"]
    c45 = against["C4.5"]
    assert (c45.n_datasets, c45.rank_sum_better, c45.rank_sum_worse, c45.statistic) == (14, 93, 12, 12)
    assert c45.direction == "better" and c45.p_value < 0.05
    p_values = [against[m].p_value for m in against]
    np.testing.assert_allclose([against[m].p_holm for m in against], holm(p_values))


def test_the_wilcoxon_against_the_control_is_scipys_two_sided_p_without_its_permutation_test(monkeypatch):
    """Ties and a zero among 6 datasets: scipy enumerates the sign flips through ``permutation_test``; the
    report counts them (the claims' one signed rank p) and gets scipy's two-sided p."""
    rows = {"a": [0.50, 0.40, 0.50], "b": [0.60, 0.50, 0.55], "c": [0.70, 0.70, 0.60],
            "d": [0.30, 0.35, 0.20], "e": [0.80, 0.60, 0.90], "f": [0.45, 0.20, 0.45]}
    expected = {
        other: stats.wilcoxon([rows[d][0] - rows[d][index] for d in rows], zero_method="zsplit").pvalue
        for index, other in ((1, "B"), (2, "C"))
    }

    def no_permutations(*args, **kwargs):
        raise AssertionError("scipy's permutation test ran")

    monkeypatch.setattr(stats, "permutation_test", no_permutations)
    report = significance_report(table_of(rows, ["A", "B", "C"]), control="A")
    against = {c.method: c.p_value for c in report.wilcoxon}
    assert against == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("alpha", sorted(DEMSAR_Q))
def test_nemenyi_q_matches_demsar_table_5a(alpha):
    for k, expected in zip(range(2, 11), DEMSAR_Q[alpha]):
        assert nemenyi_q(k, alpha) == pytest.approx(expected, abs=1e-3), k


def _q_by_integration(k: int, alpha: float) -> float:
    """The range of k standard normals: P(range <= q) = k int phi(z) [Phi(z) - Phi(z - q)]^(k-1) dz."""
    def cdf(q):
        def density(z):
            return k * stats.norm.pdf(z) * (stats.norm.cdf(z) - stats.norm.cdf(z - q)) ** (k - 1)

        return integrate.quad(density, -np.inf, np.inf, epsabs=1e-12)[0]

    return optimize.brentq(lambda q: cdf(q) - (1 - alpha), 1, 10, xtol=1e-10) / math.sqrt(2)


@pytest.mark.parametrize("k", [3, 7])
def test_nemenyi_q_is_the_exact_quantile_where_table_5a_rounds_differently(k):
    # Table 5(a) prints 2.343 and 2.949: the exact quantiles are 2.3437 and 2.9483.
    assert nemenyi_q(k, 0.05) == pytest.approx(_q_by_integration(k, 0.05), abs=1e-6)


def test_critical_difference_formula():
    assert critical_difference(4, 14, 0.05) == pytest.approx(nemenyi_q(4, 0.05) * math.sqrt(20 / 84))
    assert critical_difference(9, 11, 0.05) > critical_difference(9, 22, 0.05)


def test_friedman_hand_computed_three_methods_four_datasets():
    # Ranks (1 2 3), (1 3 2), (1 2 3), (2 1 3): rank sums 5, 8, 11.
    # chi2 = 12 / (4 * 3 * 4) * (25 + 64 + 121) - 3 * 4 * 4 = 52.5 - 48 = 4.5
    # F_F = 3 * 4.5 / (4 * 2 - 4.5) = 27 / 7 with (2, 6) df, whose tail is (1 + 2 F / 6) ** -3.
    rows = {"d1": [0.9, 0.5, 0.1], "d2": [0.9, 0.1, 0.5], "d3": [0.8, 0.7, 0.6], "d4": [0.5, 0.6, 0.4]}
    report = significance_report(table_of(rows, ["A", "B", "C"]))
    np.testing.assert_allclose(report.avg_ranks.to_numpy(), [1.25, 2.0, 2.75])
    friedman = report.friedman
    assert friedman.chi2 == pytest.approx(4.5)
    assert friedman.chi2_p_value == pytest.approx(math.exp(-4.5 / 2))  # chi-square, 2 df
    assert friedman.f == pytest.approx(27 / 7)
    assert friedman.df == (2, 6)
    assert friedman.p_value == pytest.approx((1 + 2 * (27 / 7) / 6) ** -3)
    assert friedman_test([[1, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3]]).chi2 == pytest.approx(4.5)


def test_all_ranks_equal_gives_p_one_and_one_group():
    rows = {f"d{i}": [0.5, 0.5, 0.5] for i in range(5)}
    report = significance_report(table_of(rows, ["A", "B", "C"]))
    assert (report.friedman.chi2, report.friedman.f, report.friedman.p_value) == (0, 0, 1)
    assert all(test.cliques == (("A", "B", "C"),) for test in report.nemenyi)
    assert [(c.direction, c.p_value, c.significant) for c in report.wilcoxon] == [("equal", 1, False)] * 2
    assert "does not reject equal performance" in significance_markdown(report)


def test_perfect_agreement_gives_infinite_f_and_valid_json():
    rows = {f"d{i}": [0.9, 0.5, 0.1] for i in range(6)}
    report = significance_report(table_of(rows, ["A", "B", "C"]))
    assert report.friedman.chi2 == 12 and report.friedman.f == math.inf and report.friedman.p_value == 0
    data = json.loads(json.dumps(significance_dict(report), allow_nan=False))
    assert data["friedman"]["iman_davenport_f"] is None and data["friedman"]["chi2"] == 12


def test_holm_adjusts_in_step_down_order_and_keeps_input_order():
    # Sorted: 0.005 * 4 = 0.02, 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, 0.04 * 1 = 0.04 -> raised to 0.06.
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(holm([0.5, 0.6]), [1.0, 1.0])
    np.testing.assert_allclose(holm([0.02, np.nan, 0.01]), [0.02, np.nan, 0.02])


def test_cliques_on_a_hand_made_rank_vector():
    ranks = {"A": 1.0, "B": 1.5, "C": 2.6, "D": 3.0, "E": 4.5}
    # A-B 0.5, B-C 1.1, C-D 0.4 are below 1.2; A-C 1.6, B-D 1.5, D-E 1.5 are not. {D} lies in {C, D}.
    assert cliques(ranks, 1.2) == (("A", "B"), ("B", "C"), ("C", "D"), ("E",))
    assert cliques({"X": 2.0, "Y": 1.0, "Z": 2.0}, 1.0) == (("Y",), ("X", "Z"))
    assert cliques(ranks, 10) == (("A", "B", "C", "D", "E"),)


def test_times_rank_ascending_so_the_fastest_is_best():
    seconds = {f"d{i}": [1.0 + i, 5.0 + i, 20.0 + i] for i in range(10)}
    time = significance_report(table_of(seconds, ["A", "B", "C"], "total_seconds"))
    assert time.avg_ranks.tolist() == [1, 2, 3] and time.control == "A"
    against_c = time.wilcoxon[1]
    assert (against_c.method, against_c.direction, against_c.rank_sum_better) == ("C", "better", 55)
    assert against_c.significant
    assert (
        "At α = 0.05, A ranks significantly better than C (avg ranks 1.00 vs 3.00, CD 1.05)."
        in significance_markdown(time)
    )
    score = significance_report(table_of(seconds, ["A", "B", "C"], "exact_match"), control="A")
    assert score.avg_ranks.tolist() == [3, 2, 1]
    assert score.wilcoxon[1].direction == "worse" and score.wilcoxon[1].significant


def test_a_fully_failed_cell_ranks_last_and_leaves_its_wilcoxon_pair():
    cells = {(f"d{i}", m): [v] for i in range(6) for m, v in zip("ABC", [0.9, 0.5, 0.1])}
    cells["d0", "A"] = [None, None]
    datasets = [f"d{i}" for i in range(6)]
    report = significance_report(metric_table(make_units(cells), "exact_match", datasets, list("ABC")))
    assert report.table.ranks.loc["d0"].tolist() == [3, 1, 2]
    assert [c.n_datasets for c in report.wilcoxon] == [5, 5]


def test_fewer_than_two_complete_datasets_is_not_applicable(tmp_path):
    cells = {("d1", "A"): [0.9], ("d1", "B"): [0.5], ("d2", "A"): [0.7]}  # d2 lacks B
    table = metric_table(make_units(cells), "exact_match", ["d1", "d2"], ["A", "B"], {"Big": "not available"})
    report = significance_report(table)
    assert report.friedman is None and report.nemenyi == () and report.wilcoxon == ()
    assert report.datasets == ("d1",) and report.excluded == ("d2", "Big")
    assert "Tests not applicable: 1 complete dataset and 2 methods" in significance_markdown(report)
    assert significance_dict(report)["not_applicable"].startswith("1 complete dataset")
    paths = write_statistics(make_units(cells), tmp_path, ["d1", "d2"], ["A", "B"], {"Big": "not available"})
    assert sorted(p.name for p in paths) == ["statistics.json", "statistics.md"]
    only_a = metric_table(make_units({("d1", "A"): [0.5]}), "exact_match", ["d1"], ["A", "B"])
    nothing_complete = significance_report(only_a)
    assert nothing_complete.datasets == ()
    assert json.loads(json.dumps(significance_dict(nothing_complete), allow_nan=False))["avg_ranks"] == {
        "A": None,
        "B": None,
    }
    one_method = significance_report(table_of({"d1": [0.5], "d2": [0.6]}, ["A"]))
    assert one_method.not_applicable == "2 complete datasets and 1 method; the tests need at least 2 of each"


def test_unknown_control_is_a_user_error():
    with pytest.raises(UserError, match="unknown control method 'CCASL'.*choose one of: C4.5, C4.5\\+m"):
        significance_report(table_of(DEMSAR_AUC, DEMSAR_METHODS), control="CCASL")


def test_mean_std_cells():
    cells = {("d1", "A"): [0.45, 0.55], ("d1", "B"): [0.5], ("d1", "C"): [None]}
    table = metric_table(make_units(cells), "exact_match", ["d1"], list("ABC"))
    assert format_mean_std(table, "d1", "A") == f"0.50 ± {np.std([0.45, 0.55], ddof=1):.2f}"
    assert format_mean_std(table, "d1", "B") == "0.50"
    with pytest.raises(ValueError, match="C on d1 has no mean"):
        format_mean_std(table, "d1", "C")
    times = metric_table(make_units({("d1", "A"): [240.0, 250.0]}), "total_seconds", ["d1"], ["A"])
    assert format_mean_std(times, "d1", "A") == "245 ± 7.1"


def test_write_statistics_writes_markdown_json_and_diagrams(tmp_path):
    cells = {(d, m): [v] for d, values in DEMSAR_AUC.items() for m, v in zip(DEMSAR_METHODS, values)}
    paths = write_statistics(make_units(cells), tmp_path / "run", list(DEMSAR_AUC), DEMSAR_METHODS, control="C4.5")
    names = {path.name for path in paths}
    diagrams = {f"cd_{metric}.{suffix}" for metric in SUMMARY_METRICS for suffix in ("png", "pdf")}
    assert names == {"statistics.md", "statistics.json"} | diagrams
    for path in paths:
        assert path.stat().st_size > 1000 or path.suffix in (".md", ".json")
    assert (tmp_path / "run" / "cd_exact_match.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert (tmp_path / "run" / "cd_exact_match.pdf").read_bytes().startswith(b"%PDF")
    data = json.loads((tmp_path / "run" / "statistics.json").read_text(encoding="utf-8"))
    assert data["exact_match"]["wilcoxon"]["control"] == "C4.5"
    assert data["exact_match"]["friedman"]["df"] == [3, 39]
    # Times are these AUCs too, but ranked ascending: the ranks mirror those of the scores.
    assert data["total_seconds"]["avg_ranks"]["C4.5"] == pytest.approx(5 - 3.143, abs=5e-4)
    markdown = (tmp_path / "run" / "statistics.md").read_text(encoding="utf-8")
    assert markdown.count("significance over datasets") == 3
    assert "![Critical-difference diagram, Exact match](cd_exact_match.png)" in markdown


def test_cd_diagram_files_for_nine_methods(tmp_path):
    ranks = {"BR": 6.45, "CC": 6.1, "PCC": 5.2, "CCASL": 4.9, "C.+BR": 3.4, "C.+AML": 2.55, "ELM": 8.27,
             "BR_RF": 3.6, "MLP": 4.5}
    png, pdf = plot_cd_diagram(ranks, critical_difference(9, 11, 0.05), tmp_path / "sub" / "cd", "Exact match")
    assert png.read_bytes().startswith(b"\x89PNG") and png.stat().st_size > 10_000
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 1000
    with pytest.raises(ValueError, match="at least 2 methods"):
        plot_cd_diagram({"BR": 1.0}, 1.0, tmp_path / "one")


def test_control_matches_in_any_case_and_a_misspelt_one_gets_a_did_you_mean():
    table = table_of(DEMSAR_AUC, DEMSAR_METHODS)
    assert significance_report(table, control="c4.5+M").control == "C4.5+m"
    with pytest.raises(
        UserError, match=re.escape("unknown control method 'c4.5+M2' (did you mean 'C4.5+m'? choose one of")
    ):
        significance_report(table, control="c4.5+M2")


@pytest.mark.parametrize("k", [2, 3, 9])
def test_the_cd_bar_stays_inside_the_axes_with_two_datasets(k, tmp_path):
    cd = critical_difference(k, 2, 0.05)
    assert k - cd < 1  # longer than the rank axis 1..k
    ranks = {f"M{i}": 1.0 + i for i in range(k)}
    figure = draw_cd_diagram(ranks, cd, "N = 2")
    renderer = figure.canvas.get_renderer()
    (ax,) = figure.axes
    (bar,) = [line for line in ax.get_lines() if line.get_gid() == CD_BAR]
    inside, extent = ax.get_window_extent(renderer), bar.get_window_extent(renderer)
    assert inside.x0 - 0.5 <= extent.x0 and extent.x1 <= inside.x1 + 0.5, (extent, inside)
    assert all(path.stat().st_size > 1000 for path in plot_cd_diagram(ranks, cd, tmp_path / "cd"))


def test_stats_over_fewer_than_five_datasets_warn_once(tmp_path):
    cells = {(d, m): [v + 0.01 * i] for i, d in enumerate("ABC") for m, v in zip(["X", "Y", "Z"], [0.1, 0.2, 0.3])}
    with pytest.warns(InputWarning, match="only N = 3 datasets") as caught:
        write_statistics(make_units(cells), tmp_path, list("ABC"), ["X", "Y", "Z"])
    assert len(caught) == 1
    assert "**Caveat**: the significance tests are over only N = 3 datasets" in (tmp_path / "statistics.md").read_text()
    assert json.loads((tmp_path / "statistics.json").read_text())["exact_match"]["caveat"].startswith(
        "the significance"
    )


def _brute_force_friedman_p(ranks):
    """Every order of every row's ranks, each equally likely: the share whose rank sums spread at least as much."""
    def spread(rows):
        return round(sum(sum(column) ** 2 for column in zip(*rows)), 9)

    orders = [spread(rows) for rows in itertools.product(*(itertools.permutations(row) for row in ranks))]
    return sum(value >= spread(ranks) for value in orders) / len(orders)


@pytest.mark.parametrize("ranks", [
    [[1, 2, 3], [1, 2, 3]],  # two datasets alike: F infinite (p 0), chi-square 0.135, exact 1/6
    [[1.5, 1.5, 3], [3, 1, 2], [1, 2, 3]],
    [[1, 2, 3, 4], [2, 1, 4, 3], [1, 3, 2, 4]],
    [[2.5, 2.5, 1, 4, 5], [1, 2, 3, 4, 5]],
])
def test_the_friedman_p_of_a_small_design_is_exact(ranks):
    assert friedman_exact_p(np.array(ranks)) == pytest.approx(_brute_force_friedman_p(ranks))
    assert friedman_p(np.array(ranks)) == (friedman_exact_p(np.array(ranks)), "exact")


def test_the_friedman_p_of_a_large_design_is_the_f_or_where_f_is_infinite_the_chi_square():
    alike = np.tile(np.arange(1.0, 10.0), (3, 1))  # 9 methods: 9! orders of a row, too many to count
    assert friedman_exact_p(alike) is None
    assert friedman_p(alike) == (friedman_test(alike).chi2_p_value, "chi-square") and friedman_p(alike)[0] > 0
    mixed = np.vstack([alike, np.arange(9.0, 0.0, -1.0)])
    assert friedman_p(mixed) == (friedman_test(mixed).p_value, "F")
