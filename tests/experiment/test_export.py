"""Machine-readable output: `methods --json`, `datasets list --json`, `mlhidden export RUN`, and the docs'
Python example reading the stored predictions."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import os
import re
import shutil
import sqlite3
import stat
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.runs.store import load_results

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


def test_json_export_holds_the_rows_of_the_csv_export(run_dir, tmp_path):
    assert "csv|json|parquet" in invoke("export", "--help").output
    for fmt in ("csv", "json"):
        result = invoke("export", run_dir, "--format", fmt, "--out", tmp_path / f"units.{fmt}", "--predictions")
        assert result.exit_code == 0, result.output
    for stem in ("units", "units_predictions"):
        rows = json.loads((tmp_path / f"{stem}.json").read_text(encoding="utf-8"))
        from_csv = pd.read_csv(tmp_path / f"{stem}.csv", keep_default_na=False)
        assert [list(row) for row in rows] == [list(from_csv.columns)] * len(from_csv)
        nested = [c for c in ("params_json", "warnings", "label_order") if c in from_csv]
        from_csv[nested] = from_csv[nested].map(json.loads)
        from_json = pd.DataFrame(rows).fillna("").astype(str)
        pd.testing.assert_frame_equal(from_json, from_csv.astype(str))
    first = json.loads((tmp_path / "units.json").read_text())[0]
    assert first["error"] == ""
    # The store's JSON text columns are JSON values in a JSON export, not strings to decode again.
    assert first["params_json"]["name"] in ("BR", "CC") and first["warnings"] == []
    assert sorted(first["label_order"]) == [0, 1, 2]


@pytest.mark.parametrize("record", ["store.sqlite", "run.json", "store.sqlite-wal", "store.sqlite.before-repair"])
def test_export_never_writes_over_a_record_of_a_run_folder(run_dir, record):
    records = {path.name: path.read_bytes() for path in run_dir.iterdir() if path.name in ("store.sqlite", "run.json")}
    result = invoke("export", run_dir, "--out", run_dir / record)
    (line,) = result.output.strip().splitlines()
    assert result.exit_code == 2 and line.startswith(f"error: {run_dir / record}: will not write over {record}")
    assert {name: (run_dir / name).read_bytes() for name in records} == records


def test_no_output_file_replaces_a_pipe_or_a_device(run_dir, tmp_path):
    pipe, device = tmp_path / "pipe", tmp_path / "null"
    os.mkfifo(pipe)
    device.symlink_to(os.devnull)
    for target, kind in ((pipe, "a named pipe"), (device, "a character device")):
        result = invoke("export", run_dir, "--out", target)
        assert result.exit_code == 2
        assert result.output.startswith(f"error: {target}: will not write over {kind} (")
    assert stat.S_ISFIFO(pipe.lstat().st_mode) and device.is_symlink()


@pytest.mark.parametrize("where", ["loop", "loop/units.csv"])
def test_export_into_a_symlink_loop_is_one_line(run_dir, tmp_path, where):
    (tmp_path / "loop").symlink_to("loop")
    target = tmp_path / where
    result = invoke("export", run_dir, "--out", target)
    (line,) = result.output.strip().splitlines()
    assert result.exit_code == 2 and line.startswith(f"error: {target}: the path goes through a symlink loop (")


def test_export_writes_no_file_when_one_of_its_files_is_refused(run_dir, tmp_path):
    """The predictions' destination is a pipe: it is found before the units' file is written."""
    pipe = tmp_path / "units_predictions.csv"
    os.mkfifo(pipe)
    result = invoke("export", run_dir, "--out", tmp_path / "units.csv", "--predictions")
    (line,) = result.output.strip().splitlines()
    assert result.exit_code == 2 and line.startswith(f"error: {pipe}: will not write over a named pipe (")
    assert [path.name for path in tmp_path.iterdir()] == [pipe.name]


def _refuse(constant: str) -> None:
    raise ValueError(f"not strict JSON: {constant}")


def test_json_export_is_strict_and_an_infinite_time_is_null(run_dir, tmp_path):
    """JSON has no infinity (RFC 8259): it is null there, as NaN is; CSV and Parquet keep it."""
    run_copy = tmp_path / "run"
    shutil.copytree(run_dir, run_copy)
    with contextlib.closing(sqlite3.connect(run_copy / "store.sqlite")) as conn, conn:
        conn.execute("UPDATE units SET train_seconds = ?, test_seconds = ? WHERE method = 'BR'", (math.inf, -math.inf))
    formats = ("csv", "json", "parquet") if importlib.util.find_spec("pyarrow") else ("csv", "json")
    for fmt in formats:
        result = invoke("export", run_copy, "--format", fmt, "--out", tmp_path / f"units.{fmt}")
        assert result.exit_code == 0, result.output
    rows = json.loads((tmp_path / "units.json").read_text(encoding="utf-8"), parse_constant=_refuse)
    assert [(row["train_seconds"], row["test_seconds"]) for row in rows[:2]] == [(None, None)] * 2
    assert all(math.isfinite(row["train_seconds"]) for row in rows[2:])
    for fmt in formats[::2]:
        units = pd.read_csv(tmp_path / "units.csv") if fmt == "csv" else pd.read_parquet(tmp_path / "units.parquet")
        assert list(units["train_seconds"][:2]) == [math.inf] * 2 and list(units["test_seconds"][:2]) == [-math.inf] * 2


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
