"""Plug-in datasets and metrics, as methods have them: a loader (a function returning a Dataset) or
a metric function ``(Y_true, Y_pred[, scores]) -> float``, named by import path or by an installed
package's entry point (``mlhidden.datasets``, ``mlhidden.metrics``), on the command line and in configs.

The import paths name modules of the working folder; the entry points are those of a real
distribution's metadata on ``sys.path`` (tests/test_wheel.py installs such a package with pip).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from mlhidden.cli import cli

PROJECT_ROOT = Path(__file__).resolve().parents[2]

PLUGIN = '''
import numpy as np

from mlhidden.data import Dataset


def load_blobs(n=40, seed=0):
    """Two labels of a random linear problem: a dataset from no file at all."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] + X[:, 2] > 0]).astype(np.int8)
    return Dataset(name="Blobs", X=X, Y=Y, feature_names=("a", "b", "c"), label_names=("first", "second"))


def label_recall(Y_true, Y_pred):
    """Share of the true labels predicted."""
    return float((Y_true & Y_pred).sum() / max(Y_true.sum(), 1))


def mean_true_score(Y_true, Y_pred, scores):
    """Mean probability given to the true labels."""
    return float(scores[Y_true.astype(bool)].mean())


def not_a_loader():
    return [1, 2, 3]
'''


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A user's project folder holding ``myplugin.py``, as the working folder."""
    (tmp_path / "myplugin.py").write_text(PLUGIN)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the working folder is put on it; restored after
    yield tmp_path
    sys.modules.pop("myplugin", None)


def invoke(*args):
    return CliRunner().invoke(cli, [*args])


def test_a_dataset_loader_by_import_path_runs_with_params_from_a_config(project):
    result = invoke(
        "run", "-d", "myplugin:load_blobs", "-m", "BR", "--splits", "2", "--n-jobs", "1", "--out", "cli", "-q"
    )
    assert result.exit_code == 0, result.output
    assert "| Blobs" in (project / "cli" / "tables.md").read_text()
    (project / "own.yaml").write_text(textwrap.dedent("""\
        datasets:
          - {name: myplugin.load_blobs, params: {n: 60}, label: Blobs60}
        methods: [BR]
        splits: 2
    """))
    result = invoke("run", "--config", "own.yaml", "--n-jobs", "1", "--out", "config", "-q")
    assert result.exit_code == 0, result.output
    assert "| Blobs60" in (project / "config" / "tables.md").read_text()


def test_a_loader_that_returns_no_dataset_or_takes_no_such_params_is_one_line(project):
    result = invoke("run", "-d", "myplugin:not_a_loader", "-m", "BR", "--splits", "2", "--out", "r", "-q")
    assert result.exit_code == 2 and "returned a list, not a Dataset" in result.output
    (project / "bad.yaml").write_text(
        "datasets:\n  - {name: 'myplugin:load_blobs', params: {rows: 3}}\nmethods: [BR]\n"
    )
    result = invoke("run", "--config", "bad.yaml", "--out", "r", "-q")
    assert result.exit_code == 2 and "bad.yaml:2" in result.output and "rows" in result.output, result.output


def test_a_metric_by_import_path_is_tabulated_from_the_stored_predictions(project):
    assert (
        invoke(
            "run", "-d", "Logical", "-m", "BR", "-m", "AllZero", "--splits", "2", "--n-jobs", "1", "--out", "run", "-q"
        ).exit_code
        == 0
    )
    result = invoke("report", "run", "--metric", "myplugin:label_recall", "--metric", "myplugin.mean_true_score")
    assert result.exit_code == 0, result.output
    assert "myplugin:label_recall" in result.output and "myplugin.mean_true_score" in result.output
    recall_row = next(line for line in result.output.splitlines() if line.startswith("Logical"))
    br, _, all_zero = recall_row.split()[1:4]
    assert float(br) > 0.5 and all_zero == "0.00"  # AllZero predicts no label, and is shown but never ranked


def test_a_config_lists_extra_metrics_printed_after_the_run(project):
    (project / "own.yaml").write_text(
        "datasets: [Logical]\nmethods: [BR]\nsplits: 2\nmetrics: ['myplugin:label_recall']\n"
    )
    result = invoke("run", "--config", "own.yaml", "--n-jobs", "1", "--out", "run", "-q")
    assert result.exit_code == 0, result.output
    assert "myplugin:label_recall" in result.output
    (project / "bad.yaml").write_text("datasets: [Logical]\nmethods: [BR]\nmetrics: [myplugin.nothing_here]\n")
    result = invoke("run", "--config", "bad.yaml", "--out", "r", "-q")
    assert result.exit_code == 2 and "bad.yaml:3" in result.output and "nothing_here" in result.output, result.output


def test_entry_points_name_a_loader_and_a_metric_of_an_installed_package(tmp_path):
    """Real distribution metadata on the path: ``mlhidden-demo-data`` 1.0 registers ``Blobs`` and ``recall``."""
    site = tmp_path / "site"
    (site / "demo_data").mkdir(parents=True)
    (site / "demo_data" / "__init__.py").write_text(PLUGIN)
    info = site / "mlhidden_demo_data-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mlhidden-demo-data\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[mlhidden.datasets]\nBlobs = demo_data:load_blobs\n\n[mlhidden.metrics]\nrecall = demo_data:label_recall\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(PROJECT_ROOT)])}

    def mlhidden(*args):
        return subprocess.run(
            [sys.executable, "-m", "mlhidden", *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    listing = mlhidden("datasets", "list")
    assert listing.returncode == 0 and "Blobs" in listing.stdout, listing.stderr
    run = mlhidden("run", "-d", "blobs", "-m", "BR", "--splits", "2", "--n-jobs", "2", "--out", "run", "-q")
    assert run.returncode == 0, run.stderr
    report = mlhidden("report", "run", "--metric", "recall")
    assert report.returncode == 0, report.stderr
    row = next(line for line in report.stdout.splitlines() if line.startswith("Blobs"))
    assert 0 < float(row.split()[1]) <= 1
