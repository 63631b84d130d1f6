"""Running an experiment: its config, the runner that plans and computes its units, and its ETA.

The names below are imported on first use (:func:`mlhidden.lazy_exports.lazy_names`), so that
importing one module of the package (the command line imports a few) loads no other.
"""

from mlhidden.lazy_exports import lazy_names

__getattr__, __all__ = lazy_names(__name__, {
    "ExecutionBackend": "mlhidden.experiment.backends",
    "CostPriors": "mlhidden.experiment.cost_priors",
    "GENERIC_PRIORS": "mlhidden.experiment.cost_priors",
    "read_cell_table": "mlhidden.experiment.cost_priors",
    "worker_count": "mlhidden.experiment.backends",
    "BaseOverlay": "mlhidden.experiment.overlay",
    "RunConfig": "mlhidden.experiment.config",
    "load_config": "mlhidden.experiment.config",
    "parse_config": "mlhidden.experiment.config",
    "RunEstimate": "mlhidden.experiment.eta",
    "planned_stage": "mlhidden.experiment.eta",
    "check_run_path": "mlhidden.experiment.run_directory",
    "RunSummary": "mlhidden.experiment.run_summary",
    "load_datasets": "mlhidden.experiment.runner",
    "run_experiment": "mlhidden.experiment.runner",
})
