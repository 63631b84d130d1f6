"""`mlhidden run --dry-run` (the plan, nothing run) and `--timeout SECONDS` (a unit past it is stored as failed)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import joblib
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.runs.store import STORE_FILE, load_results

WORKTREE = Path(__file__).resolve().parents[2]

SLEEPY = '''
import time

import numpy as np
from sklearn.base import BaseEstimator


class Sleepy(BaseEstimator):
    """Fits for ``seconds`` in short sleeps (Python code that a time limit can stop), then predicts zeros."""

    def __init__(self, seconds=600.0):
        self.seconds = seconds

    def fit(self, X, Y):
        end = time.monotonic() + self.seconds
        while time.monotonic() < end:
            time.sleep(0.02)
        self.n_labels_ = Y.shape[1]
        return self

    def predict(self, X):
        return np.zeros((X.shape[0], self.n_labels_), dtype=int)
'''


def test_dry_run_prints_the_plan_with_expected_costs_and_runs_nothing(tmp_path):
    out = tmp_path / "run"
    args = ["run", "-d", "Logical", "-d", "Music", "-m", "BR", "-m", "CC"]
    args += ["--splits", "3", "--n-jobs", "1", "-q", "--out", str(out)]
    logical_only = ["run", "-d", "Logical", *args[5:]]
    first = CliRunner().invoke(cli, logical_only)
    assert first.exit_code == 0, first.output
    stored_before = (out / STORE_FILE).read_bytes()

    result = CliRunner().invoke(cli, [*args, "--dry-run"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"plan for {out}: 12 units, 6 to compute, 6 already stored", lines[0]
    rows = {tuple(line.split()[:4]) for line in lines[1:] if line.startswith(("Logical", "Music"))}
    assert rows == {
        ("Logical", "BR", "0", "3"), ("Logical", "CC", "0", "3"), ("Music", "BR", "3", "0"), ("Music", "CC", "3", "0")
    }
    assert any(line.startswith("expected compute time: ") for line in lines), result.output
    assert lines[-1] == "nothing was run (--dry-run)"
    assert (out / STORE_FILE).read_bytes() == stored_before
    assert len(load_results(out).units) == 6

    new = ["run", "-d", "Scene", "-m", "BR[base.C=3]", "--splits", "2", "--out", str(tmp_path / "new"), "--dry-run"]
    fresh = CliRunner().invoke(cli, new)
    assert fresh.exit_code == 0, fresh.output
    assert fresh.output.splitlines()[0] == f"plan for {tmp_path / 'new'}: 2 units, 2 to compute, 0 already stored"
    assert fresh.output.splitlines()[3].endswith("generic priors: BR curve"), "no unit of it stored: the curve"
    music = next(line for line in lines if line.startswith("Music") and " BR " in line)
    assert music.endswith("generic priors: BR curve"), music
    logical = next(line for line in lines if line.startswith("Logical") and " BR " in line)
    assert logical.endswith("stored units"), logical
    assert not (tmp_path / "new").exists()


def test_the_dry_run_prices_a_forest_base_near_what_its_committed_units_took(tmp_path):
    """BR on a 50-tree forest base on Scene: within a factor of 2 of the committed CC_RF unit there (one
    10-tree forest per label, the same work as BR's on a forest base) times 5, and far above BR on its
    logistic base; it was priced as the logistic curve times the trees, 0.23 s where a unit takes 3-4 s."""
    from importlib import resources

    from mlhidden.experiment.cost_priors import read_cell_table

    cells = read_cell_table(resources.files("mlhidden.paper").joinpath("unit_costs.csv").read_text())
    committed = cells["Scene [first_labels=6]", (2407, 294, 6), "CC_RF"] * 50 / 10

    def priced(method):
        args = ["run", "-d", "Scene", "-m", method, "--splits", "2", "--out", str(tmp_path / "run"), "--dry-run"]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        row = next(line for line in result.output.splitlines() if line.startswith("Scene"))
        return float(re.search(r"(\d+\.\d+) s ", row).group(1)), row

    forest, row = priced("BR[base=random_forest,base.n_estimators=50]")
    assert committed / 2 < forest < committed * 2, (row, committed)
    logistic, _ = priced("BR")
    assert forest > 10 * logistic


def test_an_unknown_method_is_estimated_from_the_median_curve_and_grows_with_size():
    from mlhidden.experiment.cost_priors import GENERIC_PRIORS

    small, large = (
        GENERIC_PRIORS.expected_seconds((100, 10, 10), "my.pkg:Method"),
        GENERIC_PRIORS.expected_seconds((10_000, 100, 10), "my.pkg:Method"),
    )
    assert 0 < small < large
    assert GENERIC_PRIORS.basis((100, 10, 10), "my.pkg:Method", ("D", "mine")) == "generic priors: median curve"
    assert GENERIC_PRIORS.basis((100, 10, 10), "LP", ("D", "LP")) == "generic priors: BR curve"


def test_a_unit_past_the_timeout_is_stored_as_failed_and_the_run_goes_on(tmp_path):
    (tmp_path / "sleepy.py").write_text(SLEEPY, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(WORKTREE), str(tmp_path)])}
    out = tmp_path / "run"
    command = [sys.executable, "-m", "mlhidden", "run", "-d", "Logical", "-m", "sleepy:Sleepy", "-m", "BR",
               "--splits", "2", "--n-jobs", "2", "--timeout", "1", "-q", "--out", str(out)]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    units = load_results(out).units.set_index(["method", "split"])
    assert units.loc[("BR", 0), "status"] == units.loc[("BR", 1), "status"] == "ok"
    for split in (0, 1):
        assert units.loc[("Sleepy", split), "status"] == "failed"
        error = units.loc[("Sleepy", split), "error"]
        assert error.startswith("UnitTimeout: the unit ran past --timeout 1 s"), error
    assert "Sleepy on Logical failed (split 0): UnitTimeout: the unit ran past --timeout 1 s" in done.stderr


def test_timeout_must_be_positive():
    result = CliRunner().invoke(cli, ["run", "-d", "Logical", "-m", "BR", "--timeout", "0"])
    assert result.exit_code == 2 and "--timeout" in result.output


@pytest.mark.parametrize("n_jobs", [None, -1, 1, 100])
def test_the_dry_run_shows_the_worker_count_the_run_uses(tmp_path, n_jobs):
    """One worker count for the plan and the run: all cores (None, -1), one, or more than the 3 units and the
    cores (capped to both, with a warning)."""
    args = ["run", "-d", "Logical", "-m", "BR", "--splits", "3", "-q", "--out", str(tmp_path / "run")]
    args += [] if n_jobs is None else ["--n-jobs", str(n_jobs)]
    dry = CliRunner().invoke(cli, [*args, "--dry-run"])
    run = CliRunner().invoke(cli, args)
    assert dry.exit_code == 0 and run.exit_code == 0, (dry.output, run.output)
    at_once = re.compile(r"(\d+) unit\(s\) at once")
    planned = at_once.search(dry.output)
    used = at_once.search(run.stderr)
    expected = 1 if n_jobs == 1 else min(joblib.cpu_count(), 3)
    assert planned is not None and used is not None, (dry.output, run.stderr)
    assert int(planned.group(1)) == int(used.group(1)) == expected


def test_the_dry_run_prices_units_as_the_runner_does_shared_fits_included(tmp_path):
    from mlhidden.experiment.config import parse_config
    from mlhidden.experiment.plan_preview import preview_plan
    from mlhidden.experiment.runner import dispatch_order, plan_run

    plan = plan_run(parse_config({"datasets": ["Scene"], "methods": ["CC", "PCC"], "splits": 2}))
    preview = preview_plan(plan, tmp_path / "run")
    _, runner_seconds = dispatch_order(plan.units, [])
    assert preview.expected_seconds == pytest.approx(sum(runner_seconds))
    alone = [
        preview_plan(plan_run(parse_config({"datasets": ["Scene"], "methods": [name], "splits": 2})), tmp_path / name)
        .expected_seconds for name in ("CC", "PCC")
    ]
    assert preview.expected_seconds < sum(alone) - 0.5 * min(alone), "PCC and CC share one chain per split"
