"""The generic cost priors are the fit of this project's committed runs, and the benchmark's table measures them."""

from __future__ import annotations

from benchmarks.cost_priors import committed_cells, merged, table
from mlhidden.experiment.cost_priors import FAMILY_CURVES, LEARNER_FACTORS, OWN_LEARNERS, fit_cost_priors


def test_the_generic_priors_are_the_fit_of_the_committed_runs():
    fitted = fit_cost_priors(merged(committed_cells()))
    assert fitted.curves == FAMILY_CURVES and fitted.learners == LEARNER_FACTORS
    assert fitted.own_learners == OWN_LEARNERS


def test_the_table_has_a_row_per_config_and_one_for_all():
    by_config = committed_cells()
    rows = table(by_config, by_config).splitlines()
    assert rows[-1].startswith("| all |") and any(row.startswith("| paper | ") for row in rows)
