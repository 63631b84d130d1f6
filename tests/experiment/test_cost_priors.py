"""Cost priors: generic ones that name no dataset, refitted on the runs a machine stored."""

from __future__ import annotations

import math
import re
import statistics
from pathlib import Path

from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.experiment.cost_history import history_priors, read_stored_run
from mlhidden.experiment.cost_priors import GENERIC_PRIORS, stored_cells

EXPERIMENT = Path(__file__).resolve().parents[2] / "mlhidden" / "experiment"
PAPER_DATASETS = ("Music", "Scene", "Yeast", "Medical", "Enron", "Reuters", "OHSUMED", "Bibtex", "Corel5k", "MediaMill")


def test_the_general_cost_modules_ship_no_paper_dataset_and_no_dated_measurement():
    """The paper study's costs are its data (mlhidden/paper/unit_costs.csv), not the general half's."""
    files = [*EXPERIMENT.glob("*.py"), *EXPERIMENT.glob("*.csv")]
    named = {path.name: name for path in files for name in PAPER_DATASETS if name in path.read_text()}
    assert named == {}
    for module in ("costs.py", "cost_priors.py", "eta.py"):
        assert not re.search(r"\b20\d\d-\d\d-\d\d\b", (EXPERIMENT / module).read_text()), module


def _median_log_error(priors, cells):
    return statistics.median(
        abs(math.log(priors.curve_seconds(cell.shape, cell.family, cell.learner, cell.scale) / cell.seconds))
        for cell in cells
    )


def test_priors_refitted_on_a_small_stored_run_predict_its_units_better_than_the_generic_ones(tmp_path):
    run = tmp_path / "first"
    args = ["run", "-d", "Music", "-m", "BR", "-m", "CC", "-m", "Majority", "--splits", "2", "-q", "--out", str(run)]
    assert CliRunner().invoke(cli, args).exit_code == 0
    units, shapes = read_stored_run(run)
    cells = stored_cells(units, shapes)
    refitted = GENERIC_PRIORS.refitted([(units, shapes)])
    assert _median_log_error(refitted, cells) < _median_log_error(GENERIC_PRIORS, cells)
    assert refitted.source == "generic priors, rescaled"

    beside = history_priors(tmp_path / "second")
    assert beside.curves == refitted.curves and beside.timed == refitted.timed, "a run is priced by the runs beside it"
    dry = CliRunner().invoke(cli, [*args[:-1], str(tmp_path / "second"), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    music_br = next(line for line in dry.output.splitlines() if line.startswith("Music") and " BR " in line)
    assert music_br.endswith("stored units"), music_br


def test_a_run_without_its_store_is_priced_by_its_compact_copy_as_with_the_store(tmp_path):
    """A clone holds a run's compact copy, not its git-ignored store: its units still time the next run."""
    run = tmp_path / "first"
    args = ["run", "-d", "Music", "-m", "BR", "-m", "Majority", "--splits", "2", "-q", "--out", str(run)]
    assert CliRunner().invoke(cli, args).exit_code == 0
    with_store = history_priors(tmp_path / "second")
    for store_file in run.glob("store.sqlite*"):
        store_file.unlink()
    without = history_priors(tmp_path / "second")
    assert without.timed == with_store.timed and len(without.timed) == 2
    assert without.curves == with_store.curves != GENERIC_PRIORS.curves


def test_units_timed_by_several_runs_cost_what_the_quietest_of_them_measured():
    """Wall seconds only grow when the machine is busy: the same units timed on a busy and a quiet run are priced
    at the quiet run's mean, not at the mean of both."""
    def unit(seconds):
        return {"dataset": "d", "registry_name": "BR", "label": "BR", "params_hash": "h", "status": "ok",
                "train_seconds": seconds, "test_seconds": 0.5}

    busy, quiet = [unit(4.0), unit(5.0)], [unit(1.0), unit(2.0)]
    for runs in ([(busy, {}), (quiet, {})], [(quiet, {}), (busy, {})]):
        assert GENERIC_PRIORS.refitted(runs).timed == {("d", "BR", "h"): 2.0}


def test_a_store_that_cannot_be_read_leaves_the_priors_as_they_are(tmp_path):
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "store.sqlite").write_bytes(b"not a database")
    assert history_priors(tmp_path / "run") == GENERIC_PRIORS
