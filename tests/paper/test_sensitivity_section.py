"""The sensitivity study's report side: settings matrix, closing verdicts, deviation categories, C2 variants."""

from __future__ import annotations

import hashlib
import json
import shutil

import numpy as np
import pandas as pd
import pytest
from paper_jobs import decided, report_jobs

from mlhidden.claims.runs import StoredRuns
from mlhidden.claims.spec import ClaimSpec
from mlhidden.claims.verdicts import ClaimResult
from mlhidden.data.random_networks import draw_network, make_synthetic_complex, make_synthetic_simple
from mlhidden.errors import UserError
from mlhidden.experiment.config import RunConfig, parse_config
from mlhidden.experiment.runner import run_experiment
from mlhidden.paper.deviations import baseline_predictions, cell_values
from mlhidden.paper.evidence import ranked_methods
from mlhidden.paper.parallel_jobs import run_jobs
from mlhidden.paper.reference import reference_results
from mlhidden.paper.sensitivity_section import (
    NEVER_EVALUATED,
    NOT_REPRODUCED,
    ROBUST,
    claims_matrix,
    closing_verdict,
    ranking_significance,
    settings_section,
)
from mlhidden.paper.setting_folders import read_settings
from mlhidden.paper.synthetic_variants import synthetic_variants_markdown
from mlhidden.report.tables import metric_table
from mlhidden.stats.uncertainty import FAILS, HOLDS, INCONCLUSIVE, NO_DIFFERENCE, NOT_EVALUATED

# --------------------------------------------------------------------------- generator options


def fingerprint(data) -> str:
    return hashlib.sha256(data.X.tobytes() + data.Y.tobytes()).hexdigest()[:16]


def test_generator_defaults_draw_the_numbers_they_drew_before_the_options():
    # Hashes taken with the generator before it had options.
    assert fingerprint(make_synthetic_complex(n_samples=2000, random_state=3)) == "988500e1a17c5281"
    assert fingerprint(make_synthetic_simple(n_samples=2000, random_state=3)) == "a8171b2b65791dba"
    small = make_synthetic_complex(n_samples=300, n_features=2, n_labels=2, n_hidden=10, random_state=1)
    assert fingerprint(small) == "c34cfdc0d76ed6f3"
    assert small.params == {"n_samples": 300, "n_features": 2, "n_labels": 2, "n_hidden": 10, "random_state": 1}


def test_each_generator_option_changes_only_its_choice():
    base = make_synthetic_complex(n_samples=500, random_state=0)
    uniform = make_synthetic_complex(n_samples=500, random_state=0, inputs="uniform")
    assert uniform.X.min() >= 0 and uniform.X.max() <= 1 and uniform.params["inputs"] == "uniform"
    binary = make_synthetic_complex(n_samples=500, random_state=0, inputs="binary")
    assert set(np.unique(binary.X)) == {0.0, 1.0}
    zero = make_synthetic_complex(n_samples=500, random_state=0, thresholds="zero")
    np.testing.assert_array_equal(zero.X, base.X)
    X, network = draw_network(**zero.params)
    np.testing.assert_array_equal(network.thresholds, 0.0)
    np.testing.assert_array_equal(zero.Y, (network.activations(X) > 0).astype(np.int8))
    per_label = make_synthetic_complex(n_samples=500, random_state=0, hidden="per_label")
    _, network = draw_network(**per_label.params)
    reads = network.output_weights[:-1] != 0
    assert (reads.sum(axis=0) == 10).all() and (reads.sum(axis=1) <= 1).all()
    assert not np.array_equal(per_label.Y, base.Y)


@pytest.mark.parametrize(
    "params, message",
    [({"inputs": "cauchy"}, "inputs must be one of"), ({"thresholds": "median"}, "thresholds must be one of"),
     ({"hidden": "per_label", "n_hidden": 5}, "n_hidden >= n_labels")],
)
def test_bad_generator_options_are_user_errors(params, message):
    with pytest.raises(UserError, match=message):
        make_synthetic_complex(n_samples=100, **params)


# --------------------------------------------------------------------------- verdicts and matrix


def test_closing_verdict_is_robust_only_when_the_claim_holds_under_every_setting():
    assert closing_verdict({"a": HOLDS, "b": HOLDS}) == ROBUST
    assert closing_verdict({"a": FAILS, "b": HOLDS, "c": HOLDS}) == "holds only under b, c"
    assert closing_verdict({"a": INCONCLUSIVE, "b": HOLDS}) == "holds only under b (inconclusive under a)"
    assert closing_verdict({"a": INCONCLUSIVE, "b": FAILS}) == "holds under no setting tried; inconclusive under a"
    assert closing_verdict({"a": FAILS, "b": FAILS}) == NOT_REPRODUCED
    assert closing_verdict({"a": FAILS, "b": NOT_EVALUATED}) == NOT_REPRODUCED + " (not evaluated under b)"
    assert closing_verdict({"a": HOLDS, "b": NOT_EVALUATED}) == "holds only under a (not evaluated under b)"
    assert closing_verdict({"a": NOT_EVALUATED}) == NEVER_EVALUATED
    eleven = {f"setting_{i}": INCONCLUSIVE for i in range(11)}
    assert closing_verdict(eleven) == "holds under no setting tried; inconclusive under all 11"
    ties = {"a": FAILS, "b": NO_DIFFERENCE, "c": NOT_EVALUATED}
    assert closing_verdict(ties) == NOT_REPRODUCED + " (no practical difference under b; not evaluated under c)"
    all_ties = dict.fromkeys(eleven, NO_DIFFERENCE)
    assert closing_verdict(all_ties) == NOT_REPRODUCED + " (no practical difference under all 11)"


def test_claims_matrix_is_claims_by_settings_with_the_closing_verdict():
    def claim(key, verdict):
        return ClaimResult(ClaimSpec(key, "s", "", "", ()), verdict, ())

    claims = {"a": [claim("C1", FAILS), claim("C2", HOLDS)], "b": [claim("C1", HOLDS), claim("C2", HOLDS)]}
    matrix = claims_matrix(claims)
    assert matrix.loc["C1"].tolist() == [FAILS, HOLDS, "holds only under b"]
    assert matrix.at["C2", "over all settings"] == ROBUST


def test_read_settings_from_the_manifest_or_the_folders(tmp_path):
    assert read_settings(tmp_path / "none") == {}
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    assert list(read_settings(tmp_path)) == ["a", "b"]
    (tmp_path / "settings.json").write_text(json.dumps({"settings": {"b": {"solver": "liblinear", "C": 1}, "z": {}}}))
    settings = read_settings(tmp_path)
    assert list(settings) == ["b"]  # a setting without runs is left out
    assert settings["b"] == (tmp_path / "b", 'solver="liblinear", C=1')


# --------------------------------------------------------------------------- deviations


def test_baseline_predictions_ignore_x():
    Y_train = np.array([[1, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 1]], dtype=np.int8)
    predicted = baseline_predictions(Y_train, 2)
    np.testing.assert_array_equal(predicted["all-zero"], np.zeros((2, 3)))
    np.testing.assert_array_equal(predicted["per-label majority"], [[1, 0, 0]] * 2)
    np.testing.assert_array_equal(predicted["most frequent label set"], [[1, 0, 0]] * 2)


# --------------------------------------------------------------------------- real runs


LOGICAL = {
    "datasets": ["Logical"],
    "methods": [
        {"name": "BR", "base": None},
        {"name": "CC", "label": "CC (b)", "params": {"order": [0, 1, 2]}, "base": None},
    ],
    "splits": 2,
    "seed": 0,
    "shuffle_labels": False,
}


def run_logical(run_dir, C):
    methods = [{**m, "base": {"name": "logistic", "params": {"C": C}}} for m in LOGICAL["methods"]]
    config = parse_config({**LOGICAL, "name": "logical", "methods": methods})
    summary = run_experiment(config, run_dir, n_jobs=1)
    assert summary.n_failed == 0


@pytest.fixture(scope="module")
def logical_settings(tmp_path_factory):
    """A main Logical run (C = 1) and the sensitivity study's settings a (C = 1) and d (C = 100)."""
    out = tmp_path_factory.mktemp("report")
    run_logical(out / "logical", 1.0)
    for name, C in (("a", 1.0), ("d", 100.0)):
        run_logical(out / "sensitivity" / name / "logical", C)
    (out / "sensitivity" / "settings.json").write_text(json.dumps({"a": {"C": 1}, "d": {"C": 100}}))
    return out


def test_the_same_claim_functions_decide_each_setting(logical_settings):
    claims = decided(logical_settings)
    text, runs_by_setting, _ = settings_section(logical_settings, claims)
    assert list(runs_by_setting) == ["a", "d"]
    cells = {name: cell_values(runs) for name, runs in runs_by_setting.items()}
    primary = cell_values(StoredRuns.under(logical_settings))
    pd.testing.assert_frame_equal(cells["a"], primary)  # same config, same splits: the same numbers
    assert not cells["d"]["ours"].equals(primary["ours"])
    c1 = next(line for line in text.splitlines() if line.startswith("| C1 "))
    folders = [logical_settings / "sensitivity" / name for name in runs_by_setting]
    assert [cell.strip(" *") for cell in c1.split("|")[2:4]] == [
        claims[folder][0].verdict for folder in folders
    ] and "| C2 " in text


def test_a_setting_named_like_html_is_text_in_every_table_of_the_section(logical_settings, tmp_path):
    """A setting's folder name reaches the settings table, the claims x settings matrix and each claim's table."""
    name = "<img src=x onerror=alert(1)>"
    shutil.copytree(logical_settings, tmp_path / "out")
    folder = tmp_path / "out" / "sensitivity"
    (folder / "d").rename(folder / name)
    (folder / "settings.json").write_text(json.dumps({"a": {"C": 1}, name: {"C": 100}}))
    text, runs_by_setting, _ = settings_section(tmp_path / "out", decided(tmp_path / "out"))
    assert list(runs_by_setting) == ["a", name]
    assert "<img" not in text and text.count("&lt;img src=x onerror=alert(1)&gt;") >= 3


@pytest.mark.slow
def test_report_has_the_matrix_and_the_diagnosed_deviations_from_real_runs(logical_settings):
    tmp_path = logical_settings
    claims, _ = run_jobs(report_jobs(tmp_path))
    report = (tmp_path / "REPORT.md").read_text(encoding="utf-8")
    matrix = report.split("## Which claims survive which settings")[1].split("###")[0]
    assert "| a " in matrix and "| d " in matrix and "| C1 " in matrix
    c1 = next(line for line in matrix.splitlines() if line.startswith("| C1 "))
    _, runs_by_setting, _ = settings_section(tmp_path, claims)
    folders = [tmp_path / "sensitivity" / name for name in runs_by_setting]
    assert [cell.strip(" *") for cell in c1.split("|")[2:4]] == [claims[folder][0].verdict for folder in folders]
    assert "| C3 " in matrix and NEVER_EVALUATED in matrix
    assert max(len(line) for line in report.splitlines()[:60]) <= 200, "the first screen fits a screen's width"
    deviations = report.split("## Every deviation, diagnosed")[1].split("\n## ")[0]
    comparison = pd.read_csv(tmp_path / "comparison.csv", keep_default_na=False)
    logical = comparison[comparison["table"] == "logical"]
    flagged = int(logical["flagged"].sum())
    assert f"In all {flagged} cells." in deviations
    ran = logical["method"].isin(["BR", "CC (b)"])
    assert (logical["settings_compared"] == 2 * ran).all(), "both settings ran BR and CC (b), and no other model"
    cells = {name: cell_values(runs).set_index(["table", "metric", "dataset", "method"])["ours"]
             for name, runs in runs_by_setting.items()}
    for row in logical[ran].itertuples():
        key = (row.table, row.metric, row.dataset, row.method)
        within = [name for name in sorted(cells) if abs(cells[name][key] - row.paper) <= 0.05]
        assert row.within_band_under == "; ".join(within)


def one_half_split(name: str, datasets: list, methods: list) -> RunConfig:
    """A run config of ``datasets`` x ``methods`` on one 50/50 split."""
    return parse_config({"name": name, "datasets": datasets, "methods": methods, "splits": 1, "train_fraction": 0.5})


def test_c2_is_decided_per_generator_variant_on_a_real_run(tmp_path):
    datasets = []
    for variant, options in (("ours", {}), ("binary inputs", {"inputs": "binary"})):
        for kind, name, extra in (("complex", "SyntheticComplex", {"n_hidden": 20}), ("simple", "SyntheticSimple", {})):
            datasets.append(
                {
                    "name": name,
                    "label": f"{variant} · {kind}",
                    "params": {"n_samples": 200, "n_features": 4, "n_labels": 3, **extra, **options},
                    "sweep": {"random_state": [0, 1]},
                }
            )
    config = one_half_split("synthetic_variants", datasets, ["BR", "CC", "CCASL"])
    assert run_experiment(config, tmp_path / "synthetic_variants", n_jobs=1).n_failed == 0
    text = synthetic_variants_markdown(StoredRuns.under(tmp_path), reference_results())
    rows = [line for line in text.splitlines() if line.startswith("| ours ") or line.startswith("| binary inputs ")]
    assert len(rows) == 2 and all(line.rstrip(" |").endswith((HOLDS + "**", FAILS, INCONCLUSIVE)) for line in rows)
    assert "Over the variants: " in text
    assert "Not run" in synthetic_variants_markdown(StoredRuns.under(tmp_path / "empty"), reference_results())


def test_c2_significance_is_ccasl_against_br_over_the_complex_datasets(tmp_path):
    datasets = [
        {
            "name": name,
            "label": kind,
            "params": {"n_samples": 200, "n_features": 4, "n_labels": 3, **extra},
            "sweep": {"random_state": [0, 1, 2]},
        }
        for kind, name, extra in (("complex", "SyntheticComplex", {"n_hidden": 20}), ("simple", "SyntheticSimple", {}))
    ]
    config = one_half_split("synthetic", datasets, ["BR", "CC", "CCASL"])
    run_experiment(config, tmp_path / "synthetic", n_jobs=1)
    runs = StoredRuns.under(tmp_path)
    table = runs["synthetic"].units.pivot_table(index="dataset", columns="method", values="exact_match")
    gain = (table["CCASL"] - table["BR"])[[d for d in table.index if d.startswith("complex")]].mean()
    text = ranking_significance(runs, "C2")
    assert text.startswith(f"complex data, CCASL − BR: {gain:+.3f} (p ") and ranking_significance(runs, "C3") == ""


def test_ranking_significance_ranks_the_claims_methods_not_the_trivial_baselines(tmp_path):
    """The tested ranks are the claim's: the trivial baselines, which the paper does not rank, beat
    BR on Logical's exact match and would move every rank below them."""
    complex_data = {"n_samples": 150, "n_features": 4, "n_labels": 3, "n_hidden": 20}
    datasets = ["Logical", {"name": "SyntheticComplex", "params": complex_data, "sweep": {"random_state": [0, 1, 2]}}]
    config = one_half_split("paper", datasets, ["BR", "CC", "CCASL+AML", "MostFrequentSet", "AllZero"])
    assert run_experiment(config, tmp_path / "paper", n_jobs=1).n_failed == 0
    runs = StoredRuns.under(tmp_path)
    paper = runs["paper"]
    claimed = metric_table(paper.units, "exact_match", paper.datasets, ranked_methods(paper), paper.unavailable)
    claimed = claimed.avg_rank.sort_values(kind="stable")
    assert "MostFrequentSet" not in claimed.index
    text = ranking_significance(runs, "C3")
    other = claimed.drop("CCASL+AML").index[0]
    assert text.startswith(f"CCASL+AML {claimed['CCASL+AML']:.2f} vs {other} {claimed[other]:.2f}: gap "), text
