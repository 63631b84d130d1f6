"""`reproduce` and `sensitivity` hand the paper study's table of unit costs to the general runner."""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path

from mlhidden.experiment.cost_priors import GENERIC_PRIORS, read_cell_table
from mlhidden.experiment.runner import RunSummary
from mlhidden.paper import reproduction
from mlhidden.paper.cost_table import paper_cost_priors

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_reproduce_runs_under_the_paper_table_of_unit_costs(tmp_path, monkeypatch):
    received = []

    def first_run_only(config, run_dir, **options):
        received.append(options["priors"])
        return RunSummary(run_dir, interrupted=True)

    monkeypatch.setattr(reproduction, "run_experiment", first_run_only)
    reproduction.reproduce(tmp_path / "out", quick=True, config_dir=CONFIGS)
    table = read_cell_table(resources.files("mlhidden.paper").joinpath("unit_costs.csv").read_text())
    (priors,) = received
    assert priors is paper_cost_priors() and priors.cells == table and priors.source == "paper run"
    assert priors.curves == GENERIC_PRIORS.curves
    dataset, shape, label = next(iter(table))
    assert priors.basis(shape, label, (dataset, label)) == "paper run: its cell"


def test_a_cell_of_the_paper_table_prices_another_base_learner_by_its_factor_and_members():
    """The table was measured on liblinear and 10-tree forests: under a setting of 100-tree forests (the
    sensitivity study's) a forest unit does ten times its cell's work, a tuned-C unit its learner's factor."""
    priors = paper_cost_priors()
    (dataset, shape, label), seconds = next(
        (key, value) for key, value in priors.cells.items() if key[0] == "Scene" and key[2] == "BR_RF")
    cell = (dataset, label)
    assert priors.expected_seconds(shape, "BR_RF", "random_forest", cell, scale=1.0) == seconds
    assert priors.expected_seconds(shape, "BR_RF", "random_forest", cell, scale=10.0) == 10 * seconds
    basis = priors.basis(shape, "BR_RF", cell, None, "random_forest", 10.0)
    assert basis == "paper run: its cell x 10 for its base learner"
    (_, br_shape, _), br_seconds = next(
        (key, value) for key, value in priors.cells.items() if key[0] == "Scene" and key[2] == "BR")
    tuned = priors.expected_seconds(br_shape, "BR", "logistic_cv", ("Scene", "BR"))
    assert tuned == br_seconds * math.exp(priors.learners["logistic_cv"]) > 5 * br_seconds
