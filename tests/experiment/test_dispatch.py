"""Units go out longest expected first; the stored costs of a run count before the priors."""

import pandas as pd

from mlhidden.experiment.config import parse_config
from mlhidden.experiment.cost_priors import GENERIC_PRIORS, learner_of
from mlhidden.experiment.runner import dispatch_order, plan_run

CONFIG = {"name": "dispatch", "datasets": ["Music", "Scene"], "methods": ["BR", "MLP", "CCASL"], "splits": 2, "seed": 0}


def _cells(units):
    return [(unit.data.name, unit.method.name) for unit in units]


def test_units_go_out_longest_expected_first(mirror_dir):
    plan = plan_run(parse_config(CONFIG, data_dir=mirror_dir))
    units, seconds = dispatch_order(plan.units, pd.DataFrame())
    assert seconds == sorted(seconds, reverse=True)
    assert _cells(units)[0][0] == "Scene", "the larger dataset first"
    assert _cells(units) != _cells(plan.units)
    shapes = {p.name: (p.dataset.n_samples, p.dataset.n_features, p.dataset.n_labels) for p in plan.datasets}
    learners = {m.name: learner_of(m.resolved) for m in plan.config.methods}
    expected = {
        cell: GENERIC_PRIORS.expected_seconds(shapes[cell[0]], cell[1], learners[cell[1]], cell)
        for cell in set(_cells(plan.units))
    }
    assert seconds == [expected[cell] for cell in _cells(units)], "each unit at its cell's prior"
    assert [u.split.index for u in units[:2]] == [0, 1], "ties keep the plan's order"


def test_a_stored_unit_cost_counts_before_the_prior(mirror_dir):
    plan = plan_run(parse_config(CONFIG, data_dir=mirror_dir))
    br = next(u for u in plan.units if u.data.name == "Music" and u.method.name == "BR")
    stored = pd.DataFrame([{**br.key_columns(), "status": "ok", "train_seconds": 990.0, "test_seconds": 10.0}])
    units, seconds = dispatch_order(plan.units, stored)
    assert _cells(units)[:2] == [("Music", "BR")] * 2 and seconds[:2] == [1000.0, 1000.0]
