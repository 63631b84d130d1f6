"""Warnings a unit raises are stored with it, marked in the tables and summed up by kind after a run."""

import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from sklearn.linear_model import LogisticRegression

from mlhidden.cli import cli
from mlhidden.runs.store import STORE_FILE
from mlhidden.runs.unit_warnings import record_warnings, unit_kinds, warning_kind, warning_lines

NOT_CONVERGED = "did not converge (lbfgs, max_iter=1): scale the features or raise max_iter"
CONFIG = """name: warned
datasets: [Music]
methods:
  - name: BR
    base: {name: logistic, params: {max_iter: 1}}
  - name: sklearn.neighbors.KNeighborsClassifier
    label: kNN
    params: {n_neighbors: 100000}
  - CC
splits: 2
seed: 0
"""


def test_a_real_sklearn_convergence_warning_is_recorded_and_named_by_solver_and_limit():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 5)) * 1000, rng.integers(0, 2, 60)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        LogisticRegression(max_iter=1).fit(X, y)
        LogisticRegression(max_iter=1).fit(X, y)
        warnings.warn("something else", UserWarning, stacklevel=1)
    stored = record_warnings(caught)
    assert unit_kinds(stored) == [NOT_CONVERGED, "raised UserWarning: something else"]
    assert warning_lines([stored, stored, "[]", None]) == [
        f"2 unit(s) {NOT_CONVERGED}",
        "2 unit(s) raised UserWarning: something else",
    ]


def test_the_batched_logistic_message_names_its_limit():
    message = "lbfgs failed to converge for 7 of 7 targets (max_iter=100); increase max_iter or scale the data"
    assert warning_kind("ConvergenceWarning", message) == NOT_CONVERGED.replace("max_iter=1)", "max_iter=100)")


@pytest.fixture(scope="module")
def warned_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("warned")
    (folder / "warned.yaml").write_text(CONFIG)
    result = CliRunner().invoke(
        cli, ["run", "--config", str(folder / "warned.yaml"), "--out", str(folder / "run"), "--n-jobs", "1", "-q"]
    )
    return result, folder / "run"


def test_the_summary_prints_one_line_per_warning_kind_and_why_units_failed_without_verbose(warned_run):
    result, _ = warned_run
    assert result.exit_code == 1, result.output
    assert f"2 unit(s) {NOT_CONVERGED}" in result.stderr.splitlines()
    assert "kNN on Music failed (split 0): ValueError: Expected n_neighbors <= n_samples_fit" in result.stderr


def test_cells_whose_units_warned_carry_a_footnote_mark_in_markdown_and_latex(warned_run):
    _, run_dir = warned_run
    markdown = (run_dir / "exact_match.md").read_text()
    br_cell = next(line for line in markdown.splitlines() if line.startswith("| Music")).split("|")[2]
    assert br_cell.strip().endswith("‡")
    cc_cell = next(line for line in markdown.splitlines() if line.startswith("| Music")).split("|")[4]
    assert "‡" not in cc_cell
    note = f"‡ BR on Music (2 of 2 splits): units {NOT_CONVERGED}"
    assert f"- {note.replace('_', chr(92) + '_')}" in markdown
    latex = (run_dir / "exact_match.tex").read_text()
    assert r"\ddag{} BR on Music (2 of 2 splits): units did not converge (lbfgs, max\_iter=1)" in latex
    assert latex.count(r"\ddag{}") == 2  # the BR cell and its note
    wide = pd.read_csv(run_dir / "exact_match.csv").set_index("dataset")
    assert (wide.at["Music", "BR n_warned"], wide.at["Music", "CC n_warned"]) == (2, 0)


def test_a_store_from_before_warnings_were_kept_still_reports_its_warned_cells(warned_run, tmp_path):
    _, run_dir = warned_run
    old = tmp_path / "old"
    old.mkdir()
    with sqlite3.connect(run_dir / STORE_FILE) as source, sqlite3.connect(old / STORE_FILE) as copy:
        source.backup(copy)
        copy.execute("ALTER TABLE units DROP COLUMN warnings")
    result = CliRunner().invoke(cli, ["report", str(old)])
    assert result.exit_code == 0, result.output
    assert (
        "‡ BR on Music (2 of 2 splits): units raised warnings (their kinds predate"
        in (old / "exact_match.md").read_text()
    )
