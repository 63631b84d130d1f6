"""Methods, their parameters, labels and the protocol written on the command line (`mlhidden run -m "NAME[k=v]"`)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.experiment.config import config_from_options
from mlhidden.runs.store import load_results


def invoke(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def test_inline_parameters_base_parameters_and_labels_reach_the_store_and_the_columns(tmp_path):
    out = tmp_path / "inline"
    result = invoke(
        "run", "-d", "Logical", "--splits", 2, "--n-jobs", 1, "-q", "--out", out,
        "-m", "CCASL[n_synthetic=4]", "-m", "BR[base.C=10]", "-m", "BR[base.C=0.01]",
        "--label", "CCASL4", "--label", "", "--label", "BR weak",
        "-m", "sklearn.neighbors:KNeighborsClassifier[n_neighbors=3]",
    )
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if line.startswith("Dataset"))
    assert header.split("  ")[0] == "Dataset" and [c.strip() for c in header.split("  ") if c.strip()][1:] == [
        "CCASL4", "BR [base.C=10]", "BR weak", "KNeighborsClassifier [n_neighbors=3]",
    ]
    records = {m["label"]: m for m in load_results(out).config["methods"]}
    assert records["CCASL4"]["params"]["n_synthetic"] == 4
    assert records["BR [base.C=10]"]["base"]["params"]["C"] == 10
    assert records["BR weak"]["base"]["params"]["C"] == 0.01
    assert records["KNeighborsClassifier [n_neighbors=3]"]["params"]["n_neighbors"] == 3


def test_inline_base_learner_and_its_parameters_reach_the_store_and_the_column(tmp_path):
    out = tmp_path / "forest"
    result = invoke(
        "run", "-d", "Logical", "--splits", 1, "--n-jobs", 1, "-q", "--out", out,
        "-m", "BR[base=random_forest,base.n_estimators=3]",
    )
    assert result.exit_code == 0, result.output
    (record,) = load_results(out).config["methods"]
    assert record["label"] == "BR [base=random_forest, base.n_estimators=3]"
    assert record["base"]["name"] == "random_forest" and record["base"]["params"]["n_estimators"] == 3


def test_an_import_path_without_a_label_shows_its_class_name():
    paths = ["sklearn.neighbors:KNeighborsClassifier", "sklearn.tree.DecisionTreeClassifier"]
    config = config_from_options(["Logical"], paths)
    assert [m.label for m in config.methods] == ["KNeighborsClassifier", "DecisionTreeClassifier"]


@pytest.mark.parametrize(
    "text, entry",
    [
        ("CC", {"name": "CC"}),
        ("CCASL[n_synthetic=4]", {"name": "CCASL", "params": {"n_synthetic": 4}}),
        ("CC[order=[2, 1, 0], base.C=1e-1]", {"name": "CC", "params": {"order": [2, 1, 0], "base.C": 0.1}}),
        (
            "BR[base.solver=lbfgs, base.fit_intercept=false]",
            {"name": "BR", "params": {"base.solver": "lbfgs", "base.fit_intercept": False}},
        ),
        ("BR[base=random_forest]", {"name": "BR", "base": "random_forest"}),
    ],
)
def test_values_are_yaml_scalars(text, entry):
    from mlhidden.experiment.command_line import method_option

    assert method_option(text) == entry


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["-m", "CCASL[n_synthtic=4]"], "method 'CCASL' has no parameter(s) n_synthtic (did you mean 'n_synthetic'?"),
        (["-m", "BR[base.CC=1]"], "(did you mean 'C'?"),
        (["-m", "BR[C=1]"], "C is a parameter of the base learner: write base.C, as in -m 'BR[base.C=1]'"),
        (["-m", "BR[foo=1]"], "no parameter(s) foo (valid: none; base and base.PARAM set its base learner)"),
        (["-m", "BR[base=forest]"], "unknown base learner 'forest'"),
        (["-m", "MLP[base=logistic]"], "method 'MLP' takes no base learner (remove 'base' from its entry, or base="),
        (["-m", "BR[base.C=1"], "-m 'BR[base.C=1': write NAME[param=value,...]"),
        (["-m", "BR[C]"], "-m 'BR[C]': write NAME[param=value,...]"),
        (["-m", "BR(base.C=10)"], "-m 'BR(base.C=10)': parameters go in square brackets, -m 'BR[base.C=10]' (write"),
        (["-m", "CCASL{n_synthetic=4}"], "square brackets, -m 'CCASL[n_synthetic=4]'"),
        (["-m", "BR", "--label", "a", "--label", "b"], "2 --label for 1 -m"),
        (["-m", "BR", "--protocol", "kfold:x"], "--protocol 'kfold:x'"),
        (["-m", "BR", "--protocol", "leave_one_out"], "--protocol 'leave_one_out'"),
    ],
)
def test_mistakes_are_one_line(args, fragment):
    result = invoke("run", "-d", "Logical", *args)
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1 and fragment in result.output, result.output


@pytest.mark.parametrize("kind", ["kfold", "stratified_kfold"])
def test_protocol_option_runs_one_unit_per_fold(tmp_path, kind):
    out = tmp_path / kind
    result = invoke("run", "-d", "Logical", "-m", "BR", "--protocol", f"{kind}:3", "--n-jobs", 1, "-q", "--out", out)
    assert result.exit_code == 0, result.output
    results = load_results(out)
    assert results.config["protocol"] == {"kind": kind, "folds": 3} and len(results.units) == 3
    assert sorted(results.units["split"]) == [0, 1, 2]


def test_protocol_option_overrides_a_config_files_holdout_splits(tmp_path):
    result = invoke(
        "run", "--config", "configs/smoke.yaml", "--protocol", "kfold:3", "--dry-run", "--out", tmp_path / "kf"
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == f"plan for {tmp_path / 'kf'}: 6 units, 6 to compute, 0 already stored"
