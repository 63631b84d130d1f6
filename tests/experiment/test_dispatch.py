"""Units go out longest expected first after one of each dataset; the stored costs of a run count before the priors."""

import pandas as pd
import pytest

from mlhidden.experiment.config import parse_config
from mlhidden.experiment.cost_priors import GENERIC_PRIORS, MIN_UNIT_SECONDS, learner_of
from mlhidden.experiment.costs import REUSED_FIT_SHARE
from mlhidden.experiment.runner import dispatch_order, plan_run

CONFIG = {"name": "dispatch", "datasets": ["Music", "Scene"], "methods": ["BR", "MLP", "CCASL"], "splits": 2, "seed": 0}


def _cells(units):
    return [(unit.data.name, unit.method.name) for unit in units]


def test_each_dataset_sends_its_dearest_unit_first_then_units_go_out_longest_expected_first(mirror_dir):
    plan = plan_run(parse_config(CONFIG, data_dir=mirror_dir))
    units, seconds = dispatch_order(plan.units, pd.DataFrame())
    cells = _cells(units)
    assert [cell[0] for cell in cells[:2]] == ["Scene", "Music"], "one unit of each dataset, the larger first"
    assert seconds[:2] == [max(s for c, s in zip(cells, seconds) if c[0] == d) for d in ("Scene", "Music")]
    assert seconds[2:] == sorted(seconds[2:], reverse=True)
    assert cells != _cells(plan.units)
    shapes = {p.name: (p.dataset.n_samples, p.dataset.n_features, p.dataset.n_labels) for p in plan.datasets}
    learners = {m.name: learner_of(m.resolved) for m in plan.config.methods}
    expected = {
        cell: GENERIC_PRIORS.expected_seconds(shapes[cell[0]], cell[1], learners[cell[1]], cell)
        for cell in set(_cells(plan.units))
    }
    assert seconds == [expected[cell] for cell in cells], "each unit at its cell's prior"
    assert [u.split.index for u in units[:3] if u.data.name == "Scene"] == [0, 1], "ties keep the plan's order"


def test_a_method_that_reuses_another_ones_fit_is_priced_without_most_of_it(mirror_dir):
    """PCC trains CC's chain and the first of them on a split computes it: the other is priced at the
    share of it a reuse still costs; a CC with another base learner shares nothing."""
    other_base = {"name": "CC", "label": "CC (C=10)", "base": {"name": "logistic", "params": {"C": 10.0}}}
    config = {"name": "shared", "datasets": ["Scene"], "methods": ["PCC", "CC", other_base], "splits": 1, "seed": 0}
    plan = plan_run(parse_config(config, data_dir=mirror_dir))
    units, seconds = dispatch_order(plan.units, pd.DataFrame())
    cost = {unit.method.label: s for unit, s in zip(units, seconds)}
    shape = (plan.datasets[0].dataset.n_samples, plan.datasets[0].dataset.n_features, plan.datasets[0].dataset.n_labels)
    curve = {m: GENERIC_PRIORS.curve_seconds(shape, m, "logistic") for m in ("PCC", "CC")}
    assert curve["PCC"] > curve["CC"] and cost["PCC"] == curve["PCC"]
    assert cost["CC"] == pytest.approx(max(REUSED_FIT_SHARE * curve["CC"], MIN_UNIT_SECONDS))
    assert cost["CC (C=10)"] == curve["CC"]


def test_a_stored_unit_cost_counts_before_the_prior(mirror_dir):
    plan = plan_run(parse_config(CONFIG, data_dir=mirror_dir))
    br = next(u for u in plan.units if u.data.name == "Music" and u.method.name == "BR")
    stored = pd.DataFrame([{**br.key_columns(), "status": "ok", "train_seconds": 990.0, "test_seconds": 10.0}])
    units, seconds = dispatch_order(plan.units, stored)
    assert _cells(units)[0] == ("Music", "BR") and seconds[0] == 1000.0, "Music's dearest unit, now the dearest of all"
    assert _cells(units)[2] == ("Music", "BR") and seconds[2] == 1000.0, "after Scene's first, the rest longest first"
