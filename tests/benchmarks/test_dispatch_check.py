"""benchmarks/dispatch.py --check: a reproduction's runs replayed in dispatch order against their unit phase."""

import json
import shutil
import sqlite3

import pandas as pd
import pytest

from benchmarks.dispatch import chain_costs, check_runs, check_table, shared_fit_simulation
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.costs import UNIT_OVERHEAD_SECONDS
from mlhidden.experiment.eta import makespan
from mlhidden.experiment.runner import dispatch_order, plan_run, run_experiment
from mlhidden.runs.store import STORE_FILE, load_results

# Under another name, Music has no measured cells: each method is priced by its curve, and the plan lists the
# cheapest method first, so the runner's order is not the plan's.
CONFIG = {
    "name": "check",
    "datasets": [{"name": "Music", "label": "mine"}],
    "methods": ["Majority", "CC", "BR"],
    "splits": 2,
}
WORKER_SECONDS = {
    ("Majority", 0): 1.0,
    ("Majority", 1): 1.0,
    ("CC", 0): 2.0,
    ("CC", 1): 2.0,
    ("BR", 0): 6.0,
    ("BR", 1): 1.0,
}
WORKER_START = 0.5


@pytest.fixture(scope="module")
def reproduction(tmp_path_factory):
    """A reproduction folder of two copies of one real run: ``timed`` with hand-set worker times and the
    unit phase recorded, ``old`` as an older mlhidden left it (no worker times, only the run's wall time)."""
    root = tmp_path_factory.mktemp("reproduction")
    config = parse_config(CONFIG)
    run_experiment(config, root / "timed", n_jobs=1)
    shutil.copytree(root / "timed", root / "old")
    with sqlite3.connect(root / "timed" / STORE_FILE) as conn:
        for (method, split), seconds in WORKER_SECONDS.items():
            conn.execute("UPDATE units SET worker_seconds=? WHERE label=? AND split=?", (seconds, method, split))
    conn.close()
    with sqlite3.connect(root / "old" / STORE_FILE) as conn:
        conn.execute("UPDATE units SET worker_seconds=NULL")
    conn.close()
    runs = {
        "timed": {"wall_seconds": 9.0, "unit_phase_seconds": 8.0, "worker_start_seconds": WORKER_START},
        "old": {"wall_seconds": 2.0},
    }
    (root / "reproduction.json").write_text(json.dumps({"runs": runs}))
    return root, config


def _runner_order(config):
    units, _ = dispatch_order(plan_run(config).units, pd.DataFrame())
    return [(unit.method.label, unit.split.index) for unit in units]


def test_a_run_is_replayed_in_the_runners_own_order_from_its_worker_times(reproduction):
    root, config = reproduction
    expected = makespan([WORKER_SECONDS[key] for key in _runner_order(config)], 2, [WORKER_START] * 2)
    assert expected != makespan(list(WORKER_SECONDS.values()), 2, [WORKER_START] * 2), "the order must matter here"
    timed = next(check for check in check_runs(root) if check.name == "timed")
    assert (timed.units, timed.worker_timed, timed.measured, timed.phase) == (6, 6, 8.0, True)
    assert timed.simulated == pytest.approx(expected)


def test_a_run_without_worker_times_or_unit_phase_falls_back_and_the_table_says_so(reproduction):
    root, config = reproduction
    units = load_results(root / "old").units
    fallback = {
        (row.method, row.split): row.train_seconds + row.test_seconds + UNIT_OVERHEAD_SECONDS
        for row in units.itertuples()
    }
    old = next(check for check in check_runs(root) if check.name == "old")
    assert (old.worker_timed, old.worker_start, old.measured, old.phase) == (0, None, 2.0, False)
    assert old.simulated == pytest.approx(makespan([fallback[key] for key in _runner_order(config)], 2))
    table = check_table(root)
    timed = makespan([WORKER_SECONDS[key] for key in _runner_order(config)], 2, [WORKER_START] * 2)
    timed_row = f"| timed | 6 | worker_seconds | 0.50 | 8.00 | {timed:.2f} | {(timed - 8.0) / 8.0:+.0%} |"
    assert any(line.startswith(timed_row.replace("%", " %")) for line in table), (timed_row, table)
    old_row = f"| old | 6 | train + test + {UNIT_OVERHEAD_SECONDS} s | not recorded | 2.00 (whole run: no unit phase"
    assert any(line.startswith(old_row) for line in table)
    assert table[-1].endswith(", not met; per run: met by 1 of 2 (not by old).")


def test_a_shared_chain_is_priced_from_the_units_that_reused_it_and_fitted_once_with_a_claim():
    # Schema 2: CCASL+AML went first and fitted the 10 s chain (in its train time); CCASL and CCASL+BR reused it.
    units = pd.DataFrame(
        {
            "dataset": ["D"] * 3,
            "split": [0] * 3,
            "method": ["CCASL+AML", "CCASL", "CCASL+BR"],
            "train_seconds": [13.0, 0.5, 2.0],
            "total_seconds": [13.0, 0.5, 2.0],
            "reused_seconds": [0.0, 10.0, 10.0],
        }
    )
    chain, own = chain_costs(units)
    assert chain == {("D", "CCASL", 0): 10.0}
    assert own == [3.0, 0.5, 2.0]
    order = list(units.itertuples())
    assert shared_fit_simulation(units, 1, False, order) == (10.0, 15.5)  # one worker: fitted once, in turn
    assert shared_fit_simulation(units, 3, False, order)[0] == 30.0  # three at once, no claim: fitted thrice
    assert shared_fit_simulation(units, 3, True, order) == (10.0, 13.0)  # with the claim: once, the others wait
    older = units.drop(columns="reused_seconds").assign(
        train_seconds=[13.0, 10.5, 12.0], total_seconds=[13.0, 10.5, 12.0]
    )
    assert chain_costs(older) == ({("D", "CCASL", 0): 10.5}, [2.5, 0.0, 1.5])  # schema 1: every unit counted it
