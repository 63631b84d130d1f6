"""`reproduce` and `sensitivity` hand the paper study's table of unit costs to the general runner."""

from __future__ import annotations

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
