"""Machine-readable output: `methods --json`, `datasets list --json`, `mlhidden export RUN`, and the docs'
Python example reading the stored predictions."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.experiment.store import load_results

USAGE_DOCS = Path(__file__).resolve().parents[2] / "docs" / "usage.md"


def invoke(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "run"
    result = invoke("run", "-d", "Logical", "-m", "BR", "-m", "CC", "--splits", 2, "--n-jobs", 1, "-q", "--out", out)
    assert result.exit_code == 0, result.output
    return out


def test_methods_json_is_the_registry_with_structured_defaults():
    result = invoke("methods", "--json")
    assert result.exit_code == 0, result.output
    methods = {row["method"]: row for row in json.loads(result.output)}
    assert methods["CCASL"]["defaults"]["weight_std"] == 0.2 and methods["CCASL"]["base"] == "logistic"
    assert methods["MLP"]["base"] is None and methods["BR"]["source"] == "mlhidden"


def test_datasets_list_json(mirror_dir):
    result = invoke("datasets", "list", "--json", "--data-dir", mirror_dir)
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.output)}
    music = rows["Music"]
    assert (music["N"], music["L"], music["D"], music["available"]) == (592, 6, 71, True)
    assert rows["Logical"]["file"] == "(generated)"


def test_export_csv_has_one_row_per_unit_and_the_predictions_on_request(run_dir, tmp_path):
    out = tmp_path / "units.csv"
    result = invoke("export", run_dir, "--format", "csv", "--out", out, "--predictions")
    assert result.exit_code == 0, result.output
    units = pd.read_csv(out)
    assert len(units) == 4 and list(units[["method", "split"]].itertuples(index=False, name=None)) == [
        ("BR", 0), ("BR", 1), ("CC", 0), ("CC", 1)
    ]
    assert {"dataset", "status", "exact_match", "hamming_score", "train_seconds", "params_json"} <= set(units.columns)
    predictions = pd.read_csv(tmp_path / "units_predictions.csv")
    columns = ["dataset", "method", "split", "test_row", "label", "truth", "predicted", "score"]
    assert list(predictions.columns) == columns
    stored = load_results(run_dir).units.set_index(["method", "split"])
    for (method, split), unit in predictions.groupby(["method", "split"]):
        assert unit["predicted"].isin([0, 1]).all() and unit["score"].between(0, 1).all()
        hamming = (unit["truth"] == unit["predicted"]).mean()
        assert hamming == pytest.approx(stored.loc[(method, split), "hamming_score"])
    assert f"wrote {out} (4 units)" in result.output


def test_export_defaults_to_the_run_directory_without_predictions(run_dir):
    result = invoke("export", run_dir)
    assert result.exit_code == 0, result.output
    assert (run_dir / "export.csv").is_file() and not (run_dir / "export_predictions.csv").exists()


def test_parquet_without_pyarrow_names_the_extra(run_dir, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    result = invoke("export", run_dir, "--format", "parquet", "--out", tmp_path / "units.parquet")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: --format parquet needs the pyarrow package (pip install 'mlhidden[parquet]')"
    ]
    assert not (tmp_path / "units.parquet").exists()


def test_parquet_holds_the_same_units(run_dir, tmp_path):
    pytest.importorskip("pyarrow")
    result = invoke("export", run_dir, "--format", "parquet", "--out", tmp_path / "units.parquet")
    assert result.exit_code == 0, result.output
    assert len(pd.read_parquet(tmp_path / "units.parquet")) == 4


def test_docs_predictions_example_runs(run_dir, monkeypatch, capsys):
    section = USAGE_DOCS.read_text(encoding="utf-8").split("## Stored predictions from Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    monkeypatch.chdir(run_dir.parent)
    (run_dir.parent / "results").mkdir(exist_ok=True)
    (run_dir.parent / "results" / "smoke").symlink_to(run_dir)
    namespace: dict = {}
    exec(compile(code, "docs/usage.md", "exec"), namespace)
    lines = capsys.readouterr().out.strip().splitlines()
    pattern = r"Logical (BR|CC) [01] [01]\.\d+ [01]\.\d+"
    assert len(lines) == 4 and all(re.fullmatch(pattern, line) for line in lines), lines
    assert np.isfinite(namespace["micro_f1"])
