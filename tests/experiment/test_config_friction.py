"""Configs without friction: runs from flags, the template, paths from the config's folder,
base-learner sweeps, and docs/configs.md documenting every config key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.data import load_dataset, make_logical, write_arff
from mlhidden.data.transforms import apply_transforms
from mlhidden.errors import UserError
from mlhidden.experiment.config import TOP_LEVEL_KEYS, config_from_options, load_config, parse_config
from mlhidden.experiment.config_entries import DATASET_KEYS, METHOD_KEYS
from mlhidden.experiment.template import template_text
from mlhidden.methods import make_method
from mlhidden.runs.metrics import get_metric
from mlhidden.runs.provenance import provenance_line, read_run_json
from mlhidden.runs.store import STORE_FILE, load_results

CONFIG_DOCS = Path(__file__).resolve().parents[2] / "docs" / "configs.md"


def test_flags_build_the_config_a_file_would():
    flags = config_from_options(["Music", "Scene"], ["BR", "CCASL+AML"], splits=10)
    written = parse_config(
        {"name": flags.name, "datasets": ["Music", "Scene"], "methods": ["BR", "CCASL+AML"], "splits": 10}
    )
    assert flags.to_dict() == written.to_dict() and flags.config_hash == written.config_hash
    assert flags.name == "Music-Scene_BR-CCASL+AML"


def test_run_from_flags_writes_the_tables(tmp_path, shipped_dir):
    out = tmp_path / "flags"
    args = [
        "run",
        "-d",
        "Logical",
        "-d",
        "Music",
        "-m",
        "BR",
        "-m",
        "CC",
        "--splits",
        "2",
        "--out",
        str(out),
        "--n-jobs",
        "1",
        "-q",
    ]
    result = CliRunner().invoke(cli, [*args, "--data-dir", str(shipped_dir)])
    assert result.exit_code == 0, result.output
    results = load_results([out])
    assert results.datasets == ["Logical", "Music"] and results.methods == ["BR", "CC"] and len(results.units) == 8


def _planned_folder(shipped_dir, *flags: str) -> str:
    """The run folder ``run FLAGS --dry-run`` plans for (nothing is written)."""
    result = CliRunner().invoke(cli, ["run", *flags, "--splits", "1", "--dry-run", "--data-dir", str(shipped_dir)])
    assert result.exit_code == 0, result.output
    return re.search(r"plan for (\S+):", result.output).group(1)


def test_long_flag_runs_get_short_folder_names_that_never_collide(shipped_dir):
    datasets = ["-d", "Logical", "-d", "SyntheticSimple", "-d", "SyntheticComplex"]
    methods = ["-m", "BR", "-m", "CC", "-m", "LP", "-m", "CCASL+AML", "-m", "AllZero", "-m", "Majority"]
    one, other = (_planned_folder(shipped_dir, *datasets, *methods, "-m", last) for last in ("MostFrequentSet", "ELM"))
    assert _planned_folder(shipped_dir, "-d", "Logical", "-m", "BR", "-m", "CC") == "results/Logical_BR-CC"
    assert re.fullmatch(r"results/Logical\+2_BR\+6_[0-9a-f]{6}", one), one
    assert len(Path(one).name) <= 40 and one != other
    assert _planned_folder(shipped_dir, *datasets, *methods, "-m", "MostFrequentSet") == one


def test_out_names_the_run_it_holds(tmp_path, shipped_dir):
    out = tmp_path / "mine"
    args = ["run", "-d", "Logical", "-m", "BR", "--splits", "1", "--out", str(out), "--n-jobs", "1", "-q"]
    result = CliRunner().invoke(cli, [*args, "--data-dir", str(shipped_dir)])
    assert result.exit_code == 0, result.output
    run_json = read_run_json(out)
    assert run_json["config"]["name"] == "mine" and "run mine (config" in provenance_line(run_json)


def test_init_writes_a_template_that_runs_as_written(tmp_path, shipped_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    init = runner.invoke(cli, ["init"])
    assert init.exit_code == 0, init.output
    assert Path("mlhidden.yaml").read_text(encoding="utf-8") == template_text()
    config = load_config("mlhidden.yaml")
    assert [d.name for d in config.datasets] == ["Music", "Scene"] and [m.label for m in config.methods] == [
        "BR",
        "CC",
        "CCASL+AML",
    ]
    run = runner.invoke(
        cli,
        ["run", "--config", "mlhidden.yaml", "--splits", "1", "--data-dir", str(shipped_dir), "--n-jobs", "1", "-q"],
    )
    assert run.exit_code == 0, run.output
    assert (tmp_path / "results" / "my_run" / STORE_FILE).is_file()
    again = runner.invoke(cli, ["init"])
    assert again.exit_code == 2 and "exists already" in again.stderr


def test_a_shipped_config_runs_by_name_from_any_folder(tmp_path, monkeypatch):
    """``--config paper`` is the wheel's ``paper.yaml``: a wheel has no ``configs/`` folder to give a path into."""
    monkeypatch.chdir(tmp_path)
    dry = CliRunner().invoke(cli, ["run", "--config", "paper", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "nothing was run" in dry.output and "Medical" in dry.output
    run = CliRunner().invoke(cli, ["run", "--config", "smoke", "--splits", "2", "--n-jobs", "1", "-q"])
    assert run.exit_code == 0, run.output
    assert sorted(load_results([tmp_path / "results" / "smoke"]).methods) == ["BR", "CC"]


@pytest.mark.parametrize("given", ["configs/paper.yaml", "papr"])
def test_a_config_neither_a_file_nor_shipped_is_one_line_naming_the_shipped_ones(tmp_path, monkeypatch, given):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["run", "--config", given])
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: {given}: config file not found") and "did you mean 'paper'?" in line
    assert "own_method, paper, sensitivity, smoke" in line


def test_init_from_a_shipped_config_writes_it_here_to_edit(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    init = CliRunner().invoke(cli, ["init", "--from", "own_method"])
    assert init.exit_code == 0, init.output
    assert "mlhidden run --config own_method.yaml" in init.output
    shipped = Path(__file__).resolve().parents[2] / "configs" / "own_method.yaml"
    assert (tmp_path / "own_method.yaml").read_text(encoding="utf-8") == shipped.read_text(encoding="utf-8")
    assert load_config("own_method.yaml").name == "own_method"
    unknown = CliRunner().invoke(cli, ["init", "--from", "own_methods"])
    assert unknown.exit_code == 2 and "did you mean 'own_method'?" in unknown.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["own_method.yaml"]


def test_relative_dataset_paths_are_read_from_the_config_folder(tmp_path, monkeypatch):
    folder = tmp_path / "project"
    (folder / "data").mkdir(parents=True)
    write_arff(make_logical(), folder / "data" / "mine.arff")
    (folder / "data" / "mine.xml").write_text(
        '<labels xmlns="http://mulan.sourceforge.net/labels">'
        '<label name="OR"/><label name="AND"/><label name="XOR"/></labels>'
    )
    config_file = folder / "run.yaml"
    config_file.write_text(
        "datasets:\n  - data/mine.arff\n  - {path: data/mine.arff, labels_xml: data/mine.xml}\nmethods: [BR]\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = load_config(Path("..") / "project" / "run.yaml")
    assert Path(config.datasets[0].name).resolve() == (folder / "data" / "mine.arff").resolve()
    assert Path(config.datasets[1].params["labels_xml"]).resolve() == (folder / "data" / "mine.xml").resolve()
    assert config.datasets[1].label == "data/mine.arff [labels_xml=data/mine.xml]", "tables show the path as written"
    with pytest.raises(UserError, match="unknown dataset 'data/mine.arff'.*relative to the current folder"):
        config_from_options(["data/mine.arff"], ["BR"])


def test_sweep_over_base_learner_parameters(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text(
        "datasets: [Logical]\nmethods:\n  - name: CC\n    base: {name: logistic, params: {max_iter: 500}}\n"
        "    sweep: {base.C: [0.1, 1, 10]}\n"
    )
    methods = load_config(path).methods
    assert [m.label for m in methods] == ["CC [base.C=0.1]", "CC [base.C=1]", "CC [base.C=10]"]
    assert [m.resolved.base["params"] for m in methods] == [{"C": c, "max_iter": 500} for c in (0.1, 1, 10)]
    assert [m.make().estimator.C for m in methods] == [0.1, 1, 10]
    assert len({m.params_hash for m in methods}) == 3
    default_base = parse_config(
        {"datasets": ["Logical"], "methods": [{"name": "BR_RF", "sweep": {"base.n_estimators": [10, 20]}}]}
    ).methods
    assert [m.resolved.base for m in default_base] == [
        {"name": "random_forest", "params": {"n_estimators": n}} for n in (10, 20)
    ]




@pytest.mark.parametrize(
    "key", sorted({*TOP_LEVEL_KEYS, *METHOD_KEYS, *DATASET_KEYS, "base.", "first_labels", "range"})
)
def test_config_docs_document_every_key(key):
    assert re.search(rf"(?<![\w.]){re.escape(key)}", CONFIG_DOCS.read_text(encoding="utf-8")), (
        f"docs/configs.md does not mention {key}"
    )


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: get_metric("exact_mach"), "unknown metric 'exact_mach' (did you mean 'exact_match'?"),
        (
            lambda: apply_transforms(make_logical(), {"first_label": 1}),
            "unknown dataset transform 'first_label' (did you mean 'first_labels'?",
        ),
        (
            lambda: load_dataset("muzic"),
            "unknown dataset 'muzic' (not a dataset name and no such file) (did you mean 'Music'?",
        ),
        (lambda: make_method("ccsal"), "unknown method 'ccsal' (did you mean 'CCASL'?"),
    ],
)
def test_unknown_names_outside_configs_get_a_did_you_mean(call, message):
    with pytest.raises(UserError) as caught:
        call()
    assert str(caught.value).startswith(message)
