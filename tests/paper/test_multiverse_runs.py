"""The multiverse's runs: each claim-bearing run once per distinct setting and split seed, through the real CLI."""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pytest
from click.testing import CliRunner

from mlhidden.claims import StoredRuns
from mlhidden.claims.multiverse import MULTIPLICITY_METHODS
from mlhidden.cli import cli
from mlhidden.errors import UserError
from mlhidden.paper import multiverse_runs
from mlhidden.paper.claims import paper_claims
from mlhidden.paper.multiverse_claims import CLAIMS_MULTIVERSE_FILE
from mlhidden.paper.multiverse_cost import multiverse_cost
from mlhidden.paper.multiverse_runs import (
    MANIFEST_FILE,
    load_multiverse,
    merge_lines,
    merges,
    plan_pieces,
)
from mlhidden.paper.reference import LABEL_ACCURACY_FILE
from mlhidden.paper.setting_folders import folder_runs, setting_runs
from mlhidden.runs.compact_results import UNITS_FILE
from mlhidden.runs.store import load_results

TINY = """\
name: tiny
datasets: [Logical]
methods: [BR, CC, AllZero]
splits: 2
shuffle_labels: false
"""
FOREST = """\
name: forest
datasets: [Logical]
methods: [BR, BR_RF]
splits: 2
"""
LIBLINEAR = "{name: logistic, params: {solver: liblinear}}"
TEN_TREES = "{name: random_forest, params: {n_estimators: 10}}"
FOUR_SETTINGS = f"""\
runs: [tiny, forest]
settings:
  a_default: {{}}
  b_liblinear:
    base: {{logistic: {LIBLINEAR}}}
  g_ten_trees:
    base: {{random_forest: {TEN_TREES}}}
  j_paper_era:
    base: {{logistic: {LIBLINEAR}, random_forest: {TEN_TREES}}}
"""
TWO_SETTINGS = f"""\
runs: [tiny]
settings:
  a_default: {{}}
  j_paper_era:
    base: {{logistic: {LIBLINEAR}, random_forest: {TEN_TREES}}}
quick: {{datasets: [Logical], splits: 2}}
"""


def folder(tmp_path, sensitivity: str, multiverse: str):
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "tiny.yaml").write_text(TINY)
    (configs / "forest.yaml").write_text(FOREST)
    (configs / "sensitivity.yaml").write_text(sensitivity)
    (configs / "multiverse.yaml").write_text(multiverse)
    return configs


def test_the_pieces_are_the_distinct_settings_times_the_seeds_times_the_runs_and_duplicates_are_named(tmp_path):
    configs = folder(tmp_path, FOUR_SETTINGS, "sensitivity: sensitivity.yaml\nblocks:\n"
                     "  - {runs: [tiny, forest], settings: all, seeds: 3}\n"
                     "  - {runs: [forest], settings: [j_paper_era], seeds: [0, 5]}\n")
    pieces = plan_pieces(load_multiverse(configs / "multiverse.yaml"), configs)
    distinct = {"tiny": 2, "forest": 4}  # without forests, g is a and b is j; with them, all four differ
    assert len(pieces) == sum(distinct.values()) * 3 + 1, "the second block adds seed 5 of forest under j only"
    tiny = {p.setting: p.stands_for for p in pieces if p.run == "tiny" and p.seed == 0}
    assert tiny == {"a_default": ("a_default", "g_ten_trees"), "j_paper_era": ("j_paper_era", "b_liblinear")}, (
        "the primary setting represents its group, else the first in the config's order"
    )
    assert [p.folder for p in pieces if p.run == "tiny" and p.setting == "j_paper_era"] == [
        "j_paper_era/seed0/tiny", "j_paper_era/seed1/tiny", "j_paper_era/seed2/tiny"
    ]
    assert {p.config.seed for p in pieces if p.run == "tiny"} == {0, 1, 2}
    assert merges(pieces)["forest"] == {
        "same_run": {},
        "same_units": [
            {"settings": ["a_default", "g_ten_trees"], "methods": ["BR"]},
            {"settings": ["b_liblinear", "j_paper_era"], "methods": ["BR"]},
            {"settings": ["a_default", "b_liblinear"], "methods": ["BR_RF"]},
            {"settings": ["g_ten_trees", "j_paper_era"], "methods": ["BR_RF"]},
        ],
    }
    assert merge_lines(pieces)[:3] == [
        "tiny: g_ten_trees = a_default for every method (one run directory, a_default)",
        "tiny: b_liblinear = j_paper_era for every method (one run directory, j_paper_era)",
        "tiny: a_default = j_paper_era for AllZero (distinct run directories; these units are computed once and "
        "copied)",
    ]
    assert len(plan_pieces(load_multiverse(configs / "multiverse.yaml"), configs, only=["forest", "seed5"])) == 1


def test_a_mistaken_multiverse_config_is_one_line_naming_its_key(tmp_path):
    configs = folder(tmp_path, FOUR_SETTINGS, "sensitivity: sensitivity.yaml\nblocks:\n"
                     "  - {runs: [tiny], settings: [j_papr_era], seeds: 2}\n")
    with pytest.raises(UserError, match="multiverse.yaml:3: unknown setting 'j_papr_era'"):
        load_multiverse(configs / "multiverse.yaml")
    (configs / "multiverse.yaml").write_text("sensitivity: sensitivity.yaml\nblocks:\n  - {runs: [tiny], seeds: 0}\n")
    with pytest.raises(UserError, match="multiverse.yaml:3: 'seeds' must be a count"):
        load_multiverse(configs / "multiverse.yaml")


def invoke(configs, out, *args):
    return CliRunner().invoke(cli, [
        "multiverse", "--configs", str(configs), "--out", str(out), "--reuse", str(out.parent / "main"),
        "--quick", "--n-jobs", "1", "--quiet", *args,
    ])


def test_a_tiny_multiverse_runs_from_an_empty_folder_resumes_and_skips_what_is_finished(tmp_path):
    configs = folder(tmp_path, TWO_SETTINGS, "sensitivity: sensitivity.yaml\nblocks:\n"
                     "  - {runs: [tiny], settings: all, seeds: 2}\n")
    out = tmp_path / "multiverse"
    before = invoke(configs, out, "--dry-run")
    assert before.exit_code == 0, before.output
    assert "4 pieces (0 finished), 24 units (0 stored)" in before.output
    assert "0.00 done" in before.output and not out.exists(), "a dry run writes nothing"

    result = invoke(configs, out)
    assert result.exit_code == 0, result.output
    assert "4 of 4 piece(s) finished" in result.output
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    assert [p["dir"] for p in manifest["pieces"]] == [
        "a_default/seed0/tiny", "j_paper_era/seed0/tiny", "a_default/seed1/tiny", "j_paper_era/seed1/tiny"
    ]
    assert [p["run_seed"] for p in manifest["pieces"]] == [0, 0, 1, 1]
    assert [p["reused_units"] for p in manifest["pieces"]] == [0, 2, 0, 2], "AllZero is computed once per seed"
    units = {p["dir"]: pd.read_csv(out / p["dir"] / UNITS_FILE) for p in manifest["pieces"]}
    assert all(len(frame) == 6 and (frame["status"] == "ok").all() for frame in units.values())
    assert set(units["a_default/seed0/tiny"]["seed"]).isdisjoint(units["a_default/seed1/tiny"]["seed"]), (
        "another seed draws other splits"
    )
    stored = load_results(out / "j_paper_era/seed1/tiny").units
    assert len(stored) == 6 and set(stored["seed"]) == set(units["j_paper_era/seed1/tiny"]["seed"])

    decided = pd.read_csv(out / CLAIMS_MULTIVERSE_FILE)
    specifications = sum(len(claim.readings) for claim in paper_claims()) * len(MULTIPLICITY_METHODS)
    assert len(decided) == 4 * specifications, "each claim in each world, under each reading and multiplicity"
    assert set(decided["world"]) == {"a_default/seed0", "j_paper_era/seed0", "a_default/seed1", "j_paper_era/seed1"}
    assert list(decided["world"])[0] == "j_paper_era/seed0", "the primary setting's seed 0 is the primary world"

    again = invoke(configs, out)
    assert again.exit_code == 0 and "==" not in again.output, "every finished piece is skipped"

    piece = out / "a_default/seed1/tiny"
    conn = sqlite3.connect(piece / "store.sqlite")
    with conn:
        conn.execute("DELETE FROM units WHERE method = 'BR' AND split = 1")
    conn.close()
    run_json = json.loads((piece / "run.json").read_text())
    (piece / "run.json").write_text(json.dumps({**run_json, "status": "interrupted"}))
    resumed = invoke(configs, out)
    assert resumed.exit_code == 0, resumed.output
    assert "== a_default/seed1/tiny" in resumed.output and resumed.output.count("==") == 1
    assert json.loads((piece / "run.json").read_text())["units"] == {
        "total": 6, "done": 1, "failed": 0, "skipped": 5, "not_run": 0
    }, "one unit computed again, the rest resumed from the store"

    after = invoke(configs, out, "--dry-run")
    assert "4 pieces (4 finished), 24 units (24 stored)" in after.output and "0.00 left" in after.output
    assert "merged: tiny: a_default = j_paper_era for AllZero" in after.output


def test_a_finished_piece_of_a_refitted_run_gets_its_per_label_refits_once(tmp_path, monkeypatch):
    monkeypatch.setattr(multiverse_runs, "LABEL_ACCURACY_REFITS", {"tiny": (("Logical",), ("CC",))})
    configs = folder(tmp_path, TWO_SETTINGS, "sensitivity: sensitivity.yaml\nblocks:\n"
                     "  - {runs: [tiny], settings: [j_paper_era], seeds: 1}\n")
    out = tmp_path / "multiverse"
    assert invoke(configs, out).exit_code == 0
    refits = out / "j_paper_era/seed0/tiny" / LABEL_ACCURACY_FILE
    accuracy = pd.read_csv(refits)
    assert set(accuracy["method"]) == {"CC"} and set(accuracy["split"]) == {0, 1}, "every split of the method refitted"
    assert len(accuracy) == 2 * 3, "a row per split and chain position of Logical's 3 labels"

    refits.unlink()
    assert invoke(configs, out).exit_code == 0
    assert refits.is_file(), "a finished piece that lacks its refits gets them on the next call"


def test_a_setting_the_study_left_without_units_is_read_from_the_multiverse_piece_of_the_same_computation(tmp_path):
    configs = folder(tmp_path, TWO_SETTINGS, "sensitivity: sensitivity.yaml\nblocks:\n"
                     "  - {runs: [tiny], settings: all, seeds: 1}\n")
    results = tmp_path / "results"
    assert invoke(configs, results / "multiverse").exit_code == 0
    piece = results / "multiverse/a_default/seed0/tiny"
    study = results / "sensitivity/a_default"
    (study / "tiny").mkdir(parents=True)
    (study / "tiny/run.json").write_text((piece / "run.json").read_text())
    assert setting_runs(study) == [piece], "a run.json without units: the piece of the same config hash stands in"
    assert StoredRuns(folder_runs(study))["tiny"].units.equals(load_results(piece).units)

    other = json.loads((piece / "run.json").read_text())
    (study / "tiny/run.json").write_text(json.dumps({**other, "config_hash": "another"}))
    assert setting_runs(study) == [], "a piece of another computation never stands in"
    assert setting_runs(results / "sensitivity/j_paper_era") == [results / "multiverse/j_paper_era/seed0/tiny"], (
        "a setting the study never ran is the piece standing for it"
    )
    assert folder_runs(results) == [results], "the main output folder is its own runs"


def test_a_piece_at_another_seed_is_its_config_read_at_that_seed(tmp_path):
    """The dry run plans every seed from the seed-0 config it parsed: the same config as reading the file again."""
    configs = folder(tmp_path, FOUR_SETTINGS, "sensitivity: sensitivity.yaml\nblocks:\n"
                     "  - {runs: [tiny, forest], settings: all, seeds: 3}\n")
    study = load_multiverse(configs / "multiverse.yaml")
    pieces = plan_pieces(study, configs)
    assert {piece.seed for piece in pieces} == {0, 1, 2}
    for piece in pieces:
        read = study.sensitivity.setting(piece.setting).load(configs / f"{piece.run}.yaml", seed=piece.seed)
        assert piece.config == read and piece.config.config_hash == read.config_hash


TWIN = TINY.replace("name: tiny", "name: twin")


def test_the_dry_run_counts_as_copied_exactly_what_the_run_copies(tmp_path):
    """Two runs asking for units of one store key: the runner copies a unit only from the pieces of its own run
    and seed, or from a donor's store, so the dry run must not price the twin's units as copied, nor
    count a donor that holds only a compact copy (a fresh clone's results/)."""
    configs = folder(tmp_path, TWO_SETTINGS.replace("runs: [tiny]", "runs: [tiny, twin]"),
                     "sensitivity: sensitivity.yaml\nblocks:\n  - {runs: [tiny, twin], settings: all, seeds: 1}\n")
    (configs / "twin.yaml").write_text(TWIN)
    out = tmp_path / "multiverse"
    donor = tmp_path / "main" / "twin"
    donor.mkdir(parents=True)
    (donor / UNITS_FILE).write_text("dataset,method,split,status\n")
    dry = invoke(configs, out, "--dry-run")
    assert dry.exit_code == 0, dry.output
    copied = {line.split()[0]: int(line.split()[-4]) for line in dry.output.splitlines() if "/seed0/" in line}

    result = invoke(configs, out)
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    assert copied == {p["dir"]: p["reused_units"] for p in manifest["pieces"]}
    assert copied["a_default/seed0/twin"] == 0 and copied["j_paper_era/seed0/twin"] == 2


def test_the_dry_run_of_a_clones_pieces_costs_what_they_measured_and_prices_their_other_seeds_by_them(tmp_path):
    """A clone has the finished pieces' compact copies, not their stores: a finished piece costs its units' measured
    seconds (a unit copied into a later piece counted once), and the same run and setting at another seed is priced
    by those units, the same computations on other splits, not by generic curves."""
    configs = folder(tmp_path, TWO_SETTINGS, "sensitivity: sensitivity.yaml\nblocks:\n"
                     "  - {runs: [tiny], settings: all, seeds: 2}\n")
    out = tmp_path / "multiverse"
    assert invoke(configs, out, "--only", "seed0").exit_code == 0
    measured = {}
    for setting in ("a_default", "j_paper_era"):
        piece = out / setting / "seed0/tiny"
        for store_file in piece.glob("store.sqlite*"):
            store_file.unlink()
        units = pd.read_csv(piece / UNITS_FILE, keep_default_na=False)
        units["train_seconds"] = 100.0 + units.index
        units.to_csv(piece / UNITS_FILE, index=False, compression={"method": "gzip", "mtime": 0})
        measured[setting] = units.set_index(["registry_name", "split"])[["train_seconds", "test_seconds"]].sum(axis=1)

    study = load_multiverse(configs / "multiverse.yaml")
    pieces = plan_pieces(study, configs, True)
    costs = {cost.piece.folder: cost for cost in multiverse_cost(pieces, out, ["a_default", "j_paper_era"])}
    a, j = measured["a_default"], measured["j_paper_era"]
    assert costs["a_default/seed0/tiny"].finished and costs["j_paper_era/seed0/tiny"].finished
    assert costs["a_default/seed0/tiny"].cpu_hours * 3600 == pytest.approx(a.sum())
    assert costs["j_paper_era/seed0/tiny"].cpu_hours * 3600 == pytest.approx(j.drop("AllZero").sum()), (
        "AllZero, copied from a_default's piece, is a_default's cost"
    )
    assert costs["a_default/seed0/tiny"].cpu_hours_left == 0.0
    per_method = {name: a.groupby(level=0).mean() for name, a in measured.items()}
    assert costs["a_default/seed1/tiny"].cpu_hours_left * 3600 == pytest.approx(2 * per_method["a_default"].sum())
    assert costs["j_paper_era/seed1/tiny"].cpu_hours_left * 3600 == pytest.approx(
        2 * per_method["j_paper_era"].drop("AllZero").sum()
    )
