"""Settings as data: the claim-bearing runs once per base-learner setting, through the real CLI."""

from __future__ import annotations

import functools
import json
import sqlite3
from contextlib import nullcontext

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from paper_jobs import decided

from mlhidden.cli import cli
from mlhidden.errors import UserError
from mlhidden.experiment.reuse import reuse_units
from mlhidden.paper import reproduction
from mlhidden.paper.parallel_jobs import run_jobs
from mlhidden.paper.primary_setting import SettingFacts, primary_by_rule, scales_as_solver_needs, setting_facts
from mlhidden.paper.reference import LABEL_ACCURACY_FILE
from mlhidden.paper.reproduction import reproduce, setting_refit_jobs
from mlhidden.paper.sensitivity_section import primary_markdown, settings_section
from mlhidden.paper.settings import MANIFEST_FILE, load_sensitivity, read_manifest, run_sensitivity, setting_plans
from mlhidden.runs.record import RunRecord
from mlhidden.runs.store import KEY_COLUMNS, ResultStore, load_results

LOGICAL = """\
name: tiny
datasets: [Logical]
methods: [BR, LP, MLP, AllZero]
splits: 2
shuffle_labels: false
"""

SENSITIVITY = """\
runs: [tiny]
settings:
  a_default:
    about: the config as it is
  b_liblinear:
    base:
      logistic: {name: logistic, params: {solver: liblinear}}
      random_forest: {name: random_forest, params: {n_estimators: 10}}
  e_standard:
    base: {logistic: logistic}
    preprocess: standard
quick: {datasets: [Logical], splits: 1}
"""


@pytest.fixture
def sensitivity_dir(tmp_path):
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "tiny.yaml").write_text(LOGICAL)
    (tmp_path / "sensitivity.yaml").write_text(SENSITIVITY)
    return tmp_path


def run(folder, *args):
    return CliRunner().invoke(cli, [
        "sensitivity", "--config", str(folder / "sensitivity.yaml"), "--configs", str(folder / "configs"),
        "--out", str(folder / "out"), "--reuse", str(folder / "main"), "--n-jobs", "1", "--quiet", *args,
    ])


def test_each_setting_is_a_run_directory_on_the_same_splits_and_the_manifest_names_it(sensitivity_dir):
    result = run(sensitivity_dir)
    assert result.exit_code == 0, result.output
    out = sensitivity_dir / "out"
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    assert [s["name"] for s in manifest["settings"]] == ["a_default", "b_liblinear", "e_standard"]
    assert all(s["run_dirs"] == {"tiny": f"{s['name']}/tiny"} for s in manifest["settings"])
    by_setting = {s["name"]: s for s in manifest["settings"]}
    assert by_setting["b_liblinear"]["adjustments"] == [
        "tiny: LP fits its multi-class model with sklearn.multiclass.OneVsRestClassifier"
    ]
    assert by_setting["e_standard"]["preprocess"] == [{"name": "standard", "params": {}}]

    units = {
        name: load_results(out / name / "tiny").units.set_index(["method", "split"]).sort_index() for name in by_setting
    }
    assert all((frame["status"] == "ok").all() and len(frame) == 8 for frame in units.values())
    default, liblinear, standard = units["a_default"], units["b_liblinear"], units["e_standard"]
    assert (default["seed"] == liblinear["seed"]).all() and (default["seed"] == standard["seed"]).all(), "paired splits"
    for unchanged in ("MLP", "AllZero"):
        assert (default.loc[unchanged, "params_hash"] == standard.loc[unchanged, "params_hash"]).all()
        assert (default.loc[unchanged, "exact_match"] == liblinear.loc[unchanged, "exact_match"]).all()
    assert (default.loc["BR", "params_hash"] != liblinear.loc["BR", "params_hash"]).all()

    reused = {
        name: json.loads((out / name / "tiny" / "run.json").read_text()).get("reused_units") for name in by_setting
    }
    assert reused == {
        "a_default": None,
        "b_liblinear": {str(out / "a_default" / "tiny"): 4},
        "e_standard": {str(out / "a_default" / "tiny"): 4},
    }
    assert [s["reused_units"] for s in manifest["settings"]] == [0, 4, 4], "MLP and AllZero are computed once"

    again = run(sensitivity_dir, "--setting", "b_liblinear")
    assert again.exit_code == 0, again.output
    assert json.loads((out / MANIFEST_FILE).read_text())["settings"] == manifest["settings"], (
        "resumed, nothing recomputed"
    )

    verdicts = {
        setting["name"]: setting_facts(setting, [load_results(out / run).units for run in setting["run_dirs"].values()])
        for setting in read_manifest(out)["settings"]
    }
    assert verdicts["a_default"].units == 8 and not verdicts["a_default"].scaled
    assert verdicts["b_liblinear"].scaled and verdicts["e_standard"].scaled
    assert [name for name, v in verdicts.items() if v.is_paper_era] == ["b_liblinear"], (
        "liblinear, C = 1, 10 trees, no preprocessing"
    )
    assert "inputs preprocessed" in verdicts["e_standard"].differences


def test_a_setting_copies_from_the_main_run_every_unit_it_leaves_as_it_was(sensitivity_dir):
    main = CliRunner().invoke(
        cli,
        [
            "run",
            "--config",
            str(sensitivity_dir / "configs" / "tiny.yaml"),
            "--out",
            str(sensitivity_dir / "main" / "tiny"),
            "--n-jobs",
            "1",
        ],
    )
    assert main.exit_code == 0, main.output
    result = run(sensitivity_dir, "--setting", "a_default", "--setting", "e_standard")
    assert result.exit_code == 0, result.output
    out, main_dir = sensitivity_dir / "out", sensitivity_dir / "main" / "tiny"
    reused = {
        name: json.loads((out / name / "tiny" / "run.json").read_text())["reused_units"]
        for name in ("a_default", "e_standard")
    }
    assert reused == {"a_default": {str(main_dir): 8}, "e_standard": {str(main_dir): 4}}
    columns = [
        "method",
        "params_hash",
        "split",
        "seed",
        "exact_match",
        "hamming_score",
        "train_seconds",
        "finished_at",
        "warnings",
    ]
    copied = load_results(out / "a_default" / "tiny").units[columns].sort_values(columns[:3]).reset_index(drop=True)
    original = load_results(main_dir).units[columns].sort_values(columns[:3]).reset_index(drop=True)
    assert copied.equals(original), "a setting that changes nothing is the main run, row for row"
    with (
        ResultStore(out / "e_standard" / "tiny", create=False) as setting,
        ResultStore(main_dir, create=False) as donor,
    ):
        stored = dict(donor.iter_predictions())
        predictions = dict(setting.iter_predictions())
    assert len(predictions) == 8
    for key, unit in predictions.items():
        if key[2] in ("MLP", "AllZero"):
            assert np.array_equal(unit.predicted, stored[key].predicted) and np.array_equal(
                unit.scores, stored[key].scores
            )
        else:
            assert key not in stored


def test_mlhidden_run_copies_what_another_run_directory_holds(sensitivity_dir, tmp_path):
    config = str(sensitivity_dir / "configs" / "tiny.yaml")
    assert (
        CliRunner()
        .invoke(cli, ["run", "--config", config, "--out", str(tmp_path / "first"), "--n-jobs", "1"])
        .exit_code
        == 0
    )
    again = CliRunner().invoke(
        cli,
        [
            "run",
            "--config",
            config,
            "--out",
            str(tmp_path / "second"),
            "--n-jobs",
            "1",
            "--reuse",
            str(tmp_path / "first"),
            "--splits",
            "3",
        ],
    )
    assert again.exit_code == 0, again.output
    assert f"4 unit(s) run, 8 already stored (8 copied from {tmp_path / 'first'})" in again.stderr


def test_only_finished_units_of_readable_stores_are_copied(sensitivity_dir, tmp_path):
    main_dir = tmp_path / "main"
    assert (
        CliRunner()
        .invoke(
            cli,
            [
                "run",
                "--config",
                str(sensitivity_dir / "configs" / "tiny.yaml"),
                "--out",
                str(main_dir),
                "--n-jobs",
                "1",
            ],
        )
        .exit_code
        == 0
    )
    with ResultStore(main_dir, create=False) as donor:
        keys = donor.done_keys()
    failed = sorted(keys)[0]
    with sqlite3.connect(main_dir / "store.sqlite") as conn:
        conn.execute(
            f"UPDATE units SET status = 'failed' WHERE {' AND '.join(f'{c} = ?' for c in KEY_COLUMNS)}", failed
        )
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "store.sqlite").write_text("not a database")
    target = tmp_path / "target"
    with ResultStore(target) as store:
        copied = reuse_units(store.path, [tmp_path / "missing", tmp_path / "junk", target, main_dir], keys)
        assert copied == {str(main_dir): len(keys) - 1}
        assert store.done_keys() == keys - {failed}
        assert reuse_units(store.path, [main_dir], keys) == {}, "nothing left that the donor has finished"


def test_a_donor_through_a_symlink_loop_is_one_line(tmp_path):
    (tmp_path / "loop").symlink_to("loop")
    result = CliRunner().invoke(cli, [
        "run", "-d", "Logical", "-m", "BR", "--splits", "1", "-q", "--out", str(tmp_path / "run"),
        "--reuse", str(tmp_path / "loop"),
    ])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        f"error: {tmp_path / 'loop' / 'store.sqlite'}: the path goes through a symlink loop"
        " (give a path whose links end at a file or folder)"
    ]


def test_reproduce_makes_the_main_tables_under_the_setting_the_rule_names_whatever_its_place(sensitivity_dir):
    configs = sensitivity_dir / "configs"
    reordered = (
        SENSITIVITY.replace("  a_default:\n    about: the config as it is\n", "")
        + "  a_default:\n    about: the config as it is\n"
    )
    (configs / "sensitivity.yaml").write_text(
        reordered.replace("quick: {datasets: [Logical], splits: 1}\n", "") + "quick: {datasets: [Logical], splits: 1}\n"
    )
    assert primary_by_rule(load_sensitivity(configs / "sensitivity.yaml").settings).name == "b_liblinear"
    out = sensitivity_dir / "results"
    study = CliRunner().invoke(
        cli,
        [
            "sensitivity",
            "--config",
            str(configs / "sensitivity.yaml"),
            "--configs",
            str(configs),
            "--out",
            str(out / "sensitivity"),
            "--reuse",
            str(out),
            "--n-jobs",
            "1",
            "--quiet",
        ],
    )
    assert study.exit_code == 0, study.output
    result = reproduce(out, config_dir=configs, names=("tiny",), n_jobs=1)
    study_dir = out / "sensitivity"
    assert result.summaries["tiny"].n_done == 0
    assert sum(result.summaries["tiny"].reused_units.values()) == 8
    main = load_results(out / "tiny").units.set_index(["method", "split"]).sort_index()
    liblinear = load_results(study_dir / "b_liblinear" / "tiny").units.set_index(["method", "split"]).sort_index()
    assert main["params_hash"].equals(liblinear["params_hash"]) and main["exact_match"].equals(liblinear["exact_match"])
    assert json.loads((out / "reproduction.json").read_text())["setting"]["name"] == "b_liblinear"
    report = unescaped((out / "REPORT.md").read_text())
    assert (
        "Base learners: setting **b_liblinear** of `configs/sensitivity.yaml` (named by the primary rule)"
        in " ".join(report.split())
    )
    section = report.split("### The primary setting")[1]
    assert table_row(section, "b_liblinear")[1] == "**none**"
    assert table_row(section, "a_default")[1].startswith("logistic solver='lbfgs' (era: 'liblinear')")
    assert "The rule names **b_liblinear**, and the main tables above were made under it." in section


def test_two_studies_into_one_folder_keep_each_others_settings_in_the_manifest(sensitivity_dir):
    """A study writes only its own settings' entries; what another study wrote meanwhile stays."""
    out = sensitivity_dir / "out"
    sensitivity = load_sensitivity(sensitivity_dir / "sensitivity.yaml")
    assert run(sensitivity_dir, "--setting", "e_standard").exit_code == 0
    e_entry = json.loads((out / MANIFEST_FILE).read_text())["settings"][0]

    def other_study_finishes_meanwhile(label):
        on_disk = json.loads((out / MANIFEST_FILE).read_text())
        on_disk["settings"] = [entry for entry in on_disk["settings"] if entry["name"] != "b_liblinear"] + [
            {**e_entry, "name": "b_liblinear"}
        ]
        (out / MANIFEST_FILE).write_text(json.dumps(on_disk))
        return nullcontext()

    with_stale_start = run_sensitivity(
        sensitivity,
        out,
        config_dir=sensitivity_dir / "configs",
        only=["a_default"],
        n_jobs=1,
        progress=other_study_finishes_meanwhile,
    )
    assert [entry["name"] for entry in with_stale_start["settings"]] == ["a_default", "b_liblinear", "e_standard"]
    assert json.loads((out / MANIFEST_FILE).read_text()) == with_stale_start


def test_reproduce_setting_makes_the_main_tables_under_another_setting_and_the_report_says_it_was_asked_for(
    sensitivity_dir,
):
    configs = sensitivity_dir / "configs"
    (configs / "sensitivity.yaml").write_text(SENSITIVITY)
    out = sensitivity_dir / "results"
    misspelt = CliRunner().invoke(
        cli, ["reproduce", "--configs", str(configs), "--out", str(out), "--setting", "e_standrd"]
    )
    assert misspelt.exit_code == 2 and not out.exists()
    assert misspelt.output.strip().splitlines() == [
        f"error: {configs / 'sensitivity.yaml'}: unknown setting 'e_standrd' "
        "(did you mean 'e_standard'? valid settings: a_default, b_liblinear, e_standard)"
    ]
    reproduce(out, config_dir=configs, names=("tiny",), n_jobs=1, setting="e_standard")
    logged = json.loads((out / "reproduction.json").read_text())["setting"]
    assert (logged["name"], logged["is_primary"]) == ("e_standard", False)
    stored = load_results(out / "tiny").units
    preprocess = stored.loc[stored["method"] == "BR", "params_json"].map(
        lambda text: json.loads(text)["preprocess"][0]["name"]
    )
    assert set(preprocess) == {"standard"}
    report = " ".join(unescaped((out / "REPORT.md").read_text()).split())
    assert (
        "Base learners: setting **e_standard** of `configs/sensitivity.yaml` "
        "(asked for with `--setting`, not the one the primary rule names)"
        in report
    )


def test_a_setting_not_stored_in_full_is_listed_with_what_it_lacks_and_decides_nothing(sensitivity_dir):
    unscaled = "  d_lbfgs_C100:\n    base: {logistic: {name: logistic, params: {C: 100.0}}}\nquick:"
    (sensitivity_dir / "sensitivity.yaml").write_text(SENSITIVITY.replace("quick:", unscaled))
    assert run(sensitivity_dir, "--setting", "a_default", "--setting", "b_liblinear").exit_code == 0
    with sqlite3.connect(sensitivity_dir / "out" / "b_liblinear" / "tiny" / "store.sqlite") as conn:
        conn.execute("DELETE FROM units WHERE method = 'BR'")
    (sensitivity_dir / "results").mkdir()
    (sensitivity_dir / "out").rename(sensitivity_dir / "results" / "sensitivity")
    markdown, finished, _ = settings_section(sensitivity_dir / "results", decided(sensitivity_dir / "results"))
    markdown = unescaped(markdown)
    assert list(finished) == ["a_default"]
    setting_row = table_row(markdown, "a_default")
    wall = json.loads((sensitivity_dir / "results" / "sensitivity" / MANIFEST_FILE).read_text())["settings"][0][
        "wall_seconds"
    ]
    assert setting_row[2:] == [f"{wall / 60:.1f}", "0"], "wall minutes, units copied"
    assert table_row(markdown, "b_liblinear") == ["b_liblinear", "2 units not stored yet"]
    assert table_row(markdown, "e_standard") == ["e_standard", "not started"]
    assert table_row(markdown, "d_lbfgs_C100") == ["d_lbfgs_C100", "not started"]
    primary = markdown.split("### The primary setting")[1]
    assert [row[0] for row in table_rows(primary)[2:]] == ["a_default"], "only the finished setting is shown"


def test_each_finished_setting_gets_the_refits_its_claims_read_once(tmp_path):
    (tmp_path / "s.yaml").write_text(
        "runs: [synthetic_2d]\nsettings:\n  e: {base: {logistic: logistic}, preprocess: standard}\n"
        "quick: {datasets: [SyntheticComplex], splits: 1, max_sweep_points: 1}\n"
    )
    out = tmp_path / "sensitivity"
    study = CliRunner().invoke(
        cli,
        [
            "sensitivity",
            "--config",
            str(tmp_path / "s.yaml"),
            "--quick",
            "--out",
            str(out),
            "--reuse",
            str(tmp_path),
            "--n-jobs",
            "1",
            "--quiet",
        ],
    )
    assert study.exit_code == 0, study.output
    (written,) = run_jobs(setting_refit_jobs([out / "e", out / "not_run"]))
    accuracy = pd.read_csv(written)
    assert written == out / "e" / "synthetic_2d" / LABEL_ACCURACY_FILE
    assert set(accuracy["method"]) == {"BR", "CC (1,2)", "CC (2,1)"} and set(accuracy["position"]) == {0, 1}
    stored = load_results(out / "e" / "synthetic_2d").units.set_index("method")["exact_match"]
    assert accuracy.groupby("method")["exact_match"].first().to_dict() == {
        m: stored[m] for m in ("BR", "CC (1,2)", "CC (2,1)")
    }
    assert setting_refit_jobs([out / "e"]) == [], "refitted once"


def unescaped(markdown: str) -> str:
    """Markdown with the escapes of setting names' underscores undone, to find the names as spelt."""
    return markdown.replace("\\_", "_")


def table_rows(markdown: str) -> list:
    return [
        [cell.strip() for cell in line.strip("|").split("|")] for line in markdown.splitlines() if line.startswith("|")
    ]


def table_row(markdown: str, first: str) -> list:
    return next(row for row in table_rows(markdown) if row[0] == first)


def test_the_primary_paragraph_names_what_the_rule_chose_and_what_the_tables_use():
    other, era = SettingFacts("a", ("logistic C=10.0 (era: 1.0)",), 10, 3, False), SettingFacts("b", (), 10, 0, True)
    assert "No finished setting has the paper era's defaults" in primary_markdown([other], "a")
    assert table_row(primary_markdown([other, era], "a"), "a") == ["a", "logistic C=10.0 (era: 1.0)", "10", "3", "no"]
    assert table_row(primary_markdown([other, era], "a"), "b")[1] == "**none**"
    assert (
        "The rule names **b**, but the main tables above were made under **a** (asked for with `--setting`)."
        in primary_markdown([other, era], "a")
    )
    assert "The rule names **b**, and the main tables above were made under it." in primary_markdown([era, other], "b")
    assert "the configs as they are" in primary_markdown([other], None)


def test_the_rule_reads_parameters_not_names_and_refuses_two_settings_of_the_paper_era(tmp_path):
    era = (
        "{logistic: {name: logistic, params: {solver: liblinear, C: 1}}, "
        "random_forest: {name: random_forest, params: {n_estimators: 10}}}"
    )
    path = tmp_path / "s.yaml"
    path.write_text(f"runs: [tiny]\nsettings:\n  zz_first_by_nothing:\n    base: {era}\n  b: {{}}\n")
    assert primary_by_rule(load_sensitivity(path).settings).name == "zz_first_by_nothing"
    path.write_text(f"runs: [tiny]\nsettings:\n  x:\n    base: {era}\n    preprocess: standard\n  y: {{}}\n")
    assert primary_by_rule(load_sensitivity(path).settings) is None, "preprocessed inputs are not the era's defaults"
    path.write_text(f"runs: [tiny]\nsettings:\n  x:\n    base: {era}\n  y:\n    base: {era}\n")
    with pytest.raises(UserError, match="settings x, y are all the paper era's defaults"):
        primary_by_rule(load_sensitivity(path).settings)


def test_a_stored_setting_is_read_back_with_its_preprocessing_and_hash(sensitivity_dir):
    assert run(sensitivity_dir, "--setting", "e_standard").exit_code == 0
    results = load_results(sensitivity_dir / "out" / "e_standard" / "tiny")
    record = RunRecord.from_record(results.config)
    stored = results.units.groupby("method")["params_hash"].first()
    assert {m.label: m.params_hash for m in record.methods} == stored.to_dict()
    assert record.method("BR").resolved.preprocess == [{"name": "standard", "params": {}}]
    assert record.method("MLP").resolved.preprocess is None


def test_quick_keeps_the_slice_and_every_setting_is_checked_before_anything_runs(sensitivity_dir):
    sensitivity = load_sensitivity(sensitivity_dir / "sensitivity.yaml")
    plans = setting_plans(sensitivity, sensitivity_dir / "configs", quick=True)
    assert [config.splits for _, configs, _ in plans for config in configs] == [1, 1, 1]
    with pytest.raises(UserError, match="unknown setting 'z'.*valid settings: a_default, b_liblinear, e_standard"):
        setting_plans(sensitivity, sensitivity_dir / "configs", only=["z"])


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("runs: [tiny]\nsettings:\n  x:\n    base: {logistic: svm}\n", 4, "setting 'x': unknown base learner 'svm'"),
        ("runs: [tiny]\nsettings:\n  x:\n    preprocess: standard\n", 4, "re-bases none"),
        ("runs: [tiny]\nsettings:\n  x:\n    solver: liblinear\n", 4, "unknown key 'solver' in setting 'x'"),
        ("runs: tiny\nsettings: {x: {}}\n", 1, "'runs' must be a non-empty list"),
        ("runs: [tiny]\nsettings: {e_standard: {}}\nprimary: e_standard\n", 3, "unknown key 'primary'"),
    ],
)
def test_bad_sensitivity_configs_are_one_line_at_their_line(tmp_path, text, line, fragment):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(UserError) as info:
        load_sensitivity(path)
    assert (
        fragment in str(info.value) and str(info.value).startswith(f"{path}:{line}: ") and "\n" not in str(info.value)
    )


def test_the_shipped_config_resolves_every_setting_on_every_paper_run():
    sensitivity = load_sensitivity("configs/sensitivity.yaml")
    assert sensitivity.runs == ("paper", "logical", "synthetic", "synthetic_2d", "hidden_nodes", "label_count")
    plans = setting_plans(sensitivity, quick=True)
    assert len(plans) == 11 and all(len(configs) == 5 for _, configs, _ in plans), (
        "label_count (Scene) is not in the quick slice"
    )
    assert primary_by_rule(sensitivity.settings).name == "j_paper_era"
    hidden_nodes = {config.name: config for config in plans[0][1]}["hidden_nodes"]
    assert [m.label for m in hidden_nodes.methods[:2]] == ["CCASL [n_synthetic=1]", "CCASL [n_synthetic=2]"] and len(
        hidden_nodes.methods
    ) == 12
    scaled = {s.name: scales_as_solver_needs(s.manifest_entry() | {"preprocess": s.preprocess}) for s, _, _ in plans}
    assert scaled == {
        "a_lbfgs_C1": False, "b_liblinear_C1": True, "c_lbfgs_C10": False, "d_lbfgs_C100": False,
        "e_standard_lbfgs_C1": True, "f_liblinear_C10": True, "g_forest_10_trees": False, "h_tuned_C": True,
        "i_standard_lbfgs_C1_1000": True, "j_paper_era": True, "k_standard_per_model_lbfgs_C1": True,
    }


@pytest.mark.slow
def test_make_sensitivity_quick_slice_runs_the_shipped_settings(tmp_path):
    result = CliRunner().invoke(
        cli,
        [
            "sensitivity",
            "--quick",
            "--setting",
            "a_lbfgs_C1",
            "--setting",
            "h_tuned_C",
            "--out",
            str(tmp_path),
            "--reuse",
            str(tmp_path / "none"),
            "--n-jobs",
            "1",
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / MANIFEST_FILE).read_text())
    assert manifest["quick"] and [s["name"] for s in manifest["settings"]] == ["a_lbfgs_C1", "h_tuned_C"]
    for setting in manifest["settings"]:
        for run_dir in setting["run_dirs"].values():
            units = load_results(tmp_path / run_dir).units
            assert (units["status"] == "ok").all() and set(units["split"]) <= {0, 1}


def test_setting_names_match_in_any_case_and_reproduce_ends_by_naming_its_report_and_page(
    sensitivity_dir, monkeypatch
):
    configs = sensitivity_dir / "configs"
    (configs / "sensitivity.yaml").write_text(SENSITIVITY)
    only_tiny = functools.partial(reproduction.reproduce, names=("tiny",))
    monkeypatch.setattr(reproduction, "reproduce", only_tiny)
    out = sensitivity_dir / "results"
    args = ["reproduce", "--configs", str(configs), "--out", str(out), "--setting", "E_Standard", "--n-jobs", "1", "-q"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert json.loads((out / "reproduction.json").read_text())["setting"]["name"] == "e_standard"
    assert result.stdout.splitlines()[-2:] == [f"report: {out / 'REPORT.md'}", f"results page: {out / 'index.html'}"]
    assert (out / "REPORT.md").is_file() and (out / "index.html").is_file()
