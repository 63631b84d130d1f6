"""The paper study's measured unit costs, handed to the general runner and ETA as their cost priors.

``unit_costs.csv`` holds, per dataset (with its shape) and method label of the paper's configs, the
number of units and their mean compute seconds in a stored reproduction (the prior-units tool of the
benchmarks rewrites it). The generic curves miss some of these cells by several
times, and dispatch sends the largest, least typical cells first, so an ETA that learned the
machine's pace from them would carry their misfit to every other cell: the study's own table prices
them as they fell, fits a family shares included (the method that went first paid for the chain).
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from mlhidden.experiment import GENERIC_PRIORS, CostPriors, read_cell_table

UNIT_COSTS = "unit_costs.csv"
"""The table's file in this package: dataset, n_samples, n_features, n_labels, label, units, seconds."""


@cache
def paper_cost_priors() -> CostPriors:
    """The generic priors with the paper study's measured cells, which `reproduce` and `sensitivity` run under."""
    text = resources.files("mlhidden.paper").joinpath(UNIT_COSTS).read_text()
    return GENERIC_PRIORS.with_cells(read_cell_table(text), "paper run")
