"""Running an experiment: its config, the runner that plans and computes its units, and its ETA.

The names below are imported on first use (:func:`mlhidden.lazy_exports.lazy_names`), so that
importing one module of the package (the command line imports a few) loads no other.
"""

from typing import TYPE_CHECKING

from mlhidden.lazy_exports import lazy_names

if TYPE_CHECKING:  # the names of the table below, for type checkers
    from mlhidden.experiment.backends import BACKENDS as BACKENDS
    from mlhidden.experiment.backends import ExecutionBackend as ExecutionBackend
    from mlhidden.experiment.backends import worker_count as worker_count
    from mlhidden.experiment.config import RunConfig as RunConfig
    from mlhidden.experiment.config import config_from_options as config_from_options
    from mlhidden.experiment.config import load_config as load_config
    from mlhidden.experiment.config import parse_config as parse_config
    from mlhidden.experiment.cost_history import history_priors as history_priors
    from mlhidden.experiment.cost_history import read_stored_run as read_stored_run
    from mlhidden.experiment.cost_priors import GENERIC_PRIORS as GENERIC_PRIORS
    from mlhidden.experiment.cost_priors import CostPriors as CostPriors
    from mlhidden.experiment.cost_priors import own_seconds as own_seconds
    from mlhidden.experiment.cost_priors import read_cell_table as read_cell_table
    from mlhidden.experiment.costs import UNIT_OVERHEAD_SECONDS as UNIT_OVERHEAD_SECONDS
    from mlhidden.experiment.costs import wall_seconds as wall_seconds
    from mlhidden.experiment.eta import RunEstimate as RunEstimate
    from mlhidden.experiment.eta import machine_slowdown as machine_slowdown
    from mlhidden.experiment.eta import planned_stage as planned_stage
    from mlhidden.experiment.overlay import BaseOverlay as BaseOverlay
    from mlhidden.experiment.plan_preview import preview_plan as preview_plan
    from mlhidden.experiment.reuse import reusable_keys as reusable_keys
    from mlhidden.experiment.run_directory import check_run_path as check_run_path
    from mlhidden.experiment.run_options import RunOptions as RunOptions
    from mlhidden.experiment.run_summary import RunSummary as RunSummary
    from mlhidden.experiment.runner import LoadedDatasets as LoadedDatasets
    from mlhidden.experiment.runner import dispatch_order as dispatch_order
    from mlhidden.experiment.runner import load_datasets as load_datasets
    from mlhidden.experiment.runner import plan_run as plan_run
    from mlhidden.experiment.runner import run_experiment as run_experiment
    from mlhidden.experiment.stop_signals import STOP_SIGNALS as STOP_SIGNALS
    from mlhidden.experiment.template import DEFAULT_PATH as DEFAULT_PATH
    from mlhidden.experiment.template import write_template as write_template

__getattr__, __all__ = lazy_names(__name__, {
    "BACKENDS": "mlhidden.experiment.backends",
    "ExecutionBackend": "mlhidden.experiment.backends",
    "worker_count": "mlhidden.experiment.backends",
    "config_from_options": "mlhidden.experiment.config",
    "load_config": "mlhidden.experiment.config",
    "parse_config": "mlhidden.experiment.config",
    "RunConfig": "mlhidden.experiment.config",
    "CostPriors": "mlhidden.experiment.cost_priors",
    "GENERIC_PRIORS": "mlhidden.experiment.cost_priors",
    "own_seconds": "mlhidden.experiment.cost_priors",
    "read_cell_table": "mlhidden.experiment.cost_priors",
    "read_stored_run": "mlhidden.experiment.cost_history",
    "UNIT_OVERHEAD_SECONDS": "mlhidden.experiment.costs",
    "wall_seconds": "mlhidden.experiment.costs",
    "machine_slowdown": "mlhidden.experiment.eta",
    "planned_stage": "mlhidden.experiment.eta",
    "RunEstimate": "mlhidden.experiment.eta",
    "BaseOverlay": "mlhidden.experiment.overlay",
    "preview_plan": "mlhidden.experiment.plan_preview",
    "check_run_path": "mlhidden.experiment.run_directory",
    "reusable_keys": "mlhidden.experiment.reuse",
    "RunOptions": "mlhidden.experiment.run_options",
    "RunSummary": "mlhidden.experiment.run_summary",
    "LoadedDatasets": "mlhidden.experiment.runner",
    "load_datasets": "mlhidden.experiment.runner",
    "plan_run": "mlhidden.experiment.runner",
    "run_experiment": "mlhidden.experiment.runner",
    "STOP_SIGNALS": "mlhidden.experiment.stop_signals",
    "DEFAULT_PATH": "mlhidden.experiment.template",
    "write_template": "mlhidden.experiment.template",
    "history_priors": "mlhidden.experiment.cost_history",
    "dispatch_order": "mlhidden.experiment.runner",
})
