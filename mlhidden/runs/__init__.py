"""The stored-run model: what a run stores (its specs, splits, units and measures), the store, and reading it back.

The names below are imported on first use (:func:`mlhidden.lazy_exports.lazy_names`), so that
importing one module of the package (a worker imports a few) loads no other.
"""

from typing import TYPE_CHECKING

from mlhidden.lazy_exports import lazy_names

if TYPE_CHECKING:  # the names of the table below, for type checkers
    from mlhidden.runs.blas_threads import blas_description as blas_description
    from mlhidden.runs.blas_threads import reserve_blas_buffer as reserve_blas_buffer
    from mlhidden.runs.blas_threads import unit_thread_limits as unit_thread_limits
    from mlhidden.runs.compact_results import has_compact_copy as has_compact_copy
    from mlhidden.runs.metrics import FUNCTION_HINT as FUNCTION_HINT
    from mlhidden.runs.metrics import METRICS as METRICS
    from mlhidden.runs.metrics import SCORES as SCORES
    from mlhidden.runs.metrics import UNIT_METRICS as UNIT_METRICS
    from mlhidden.runs.metrics import Metric as Metric
    from mlhidden.runs.metrics import check_metric_name as check_metric_name
    from mlhidden.runs.metrics import evaluate as evaluate
    from mlhidden.runs.metrics import exact_match as exact_match
    from mlhidden.runs.metrics import get_metric as get_metric
    from mlhidden.runs.metrics import hamming_score as hamming_score
    from mlhidden.runs.metrics import plugin_metric as plugin_metric
    from mlhidden.runs.predictions import UnitPredictions as UnitPredictions
    from mlhidden.runs.provenance import blas_architectures as blas_architectures
    from mlhidden.runs.provenance import describe_run as describe_run
    from mlhidden.runs.provenance import field_readable as field_readable
    from mlhidden.runs.provenance import finish_run as finish_run
    from mlhidden.runs.provenance import machine as machine
    from mlhidden.runs.provenance import package_versions as package_versions
    from mlhidden.runs.provenance import provenance_lines as provenance_lines
    from mlhidden.runs.provenance import read_run_json as read_run_json
    from mlhidden.runs.provenance import remember_precision as remember_precision
    from mlhidden.runs.provenance import stored_precision as stored_precision
    from mlhidden.runs.provenance import write_run_json as write_run_json
    from mlhidden.runs.record import RunRecord as RunRecord
    from mlhidden.runs.run_results import UNIT_KEYS as UNIT_KEYS
    from mlhidden.runs.run_results import RunResults as RunResults
    from mlhidden.runs.run_results import expected_keys as expected_keys
    from mlhidden.runs.run_results import listed_once as listed_once
    from mlhidden.runs.run_results import sort_units as sort_units
    from mlhidden.runs.run_results import split_protocol as split_protocol
    from mlhidden.runs.run_results import table_rows as table_rows
    from mlhidden.runs.specs import DatasetSpec as DatasetSpec
    from mlhidden.runs.specs import MethodSpec as MethodSpec
    from mlhidden.runs.specs import canonical_hash as canonical_hash
    from mlhidden.runs.specs import load_dataset_spec as load_dataset_spec
    from mlhidden.runs.splits import DEFAULT_FOLDS as DEFAULT_FOLDS
    from mlhidden.runs.splits import HOLDOUT as HOLDOUT
    from mlhidden.runs.splits import PROTOCOL_KINDS as PROTOCOL_KINDS
    from mlhidden.runs.splits import TRAIN_FRACTION as TRAIN_FRACTION
    from mlhidden.runs.splits import Protocol as Protocol
    from mlhidden.runs.splits import Split as Split
    from mlhidden.runs.splits import label_coverage as label_coverage
    from mlhidden.runs.status import FAILED as FAILED
    from mlhidden.runs.status import MISSING as MISSING
    from mlhidden.runs.status import OK as OK
    from mlhidden.runs.status import PARTIAL as PARTIAL
    from mlhidden.runs.status import UNAVAILABLE as UNAVAILABLE
    from mlhidden.runs.store import ResultStore as ResultStore
    from mlhidden.runs.store import existing_stores as existing_stores
    from mlhidden.runs.store import load_results as load_results
    from mlhidden.runs.store import now as now
    from mlhidden.runs.store import remove_store as remove_store
    from mlhidden.runs.store import results_exist as results_exist
    from mlhidden.runs.store import store_exists as store_exists
    from mlhidden.runs.store import stored_datasets as stored_datasets
    from mlhidden.runs.store import stored_label_accuracies as stored_label_accuracies
    from mlhidden.runs.store import unit_key as unit_key
    from mlhidden.runs.store_file import store_error as store_error
    from mlhidden.runs.store_repair import repair_store as repair_store
    from mlhidden.runs.store_schema import KEY_COLUMNS as KEY_COLUMNS
    from mlhidden.runs.store_schema import KEY_FIELDS as KEY_FIELDS
    from mlhidden.runs.store_schema import SPLIT_COLUMNS as SPLIT_COLUMNS
    from mlhidden.runs.store_schema import WHERE_KEY as WHERE_KEY
    from mlhidden.runs.store_schema import UnitKey as UnitKey
    from mlhidden.runs.unit_fit import fit_unit as fit_unit
    from mlhidden.runs.unit_fit import impute as impute
    from mlhidden.runs.unit_warnings import kind_counts as kind_counts
    from mlhidden.runs.unit_warnings import record_warnings as record_warnings
    from mlhidden.runs.unit_warnings import stored_warnings as stored_warnings
    from mlhidden.runs.unit_warnings import warning_lines as warning_lines
    from mlhidden.runs.units import PlannedUnit as PlannedUnit
    from mlhidden.runs.units import UnitResult as UnitResult

__getattr__, __all__ = lazy_names(__name__, {
    "blas_description": "mlhidden.runs.blas_threads",
    "reserve_blas_buffer": "mlhidden.runs.blas_threads",
    "unit_thread_limits": "mlhidden.runs.blas_threads",
    "check_metric_name": "mlhidden.runs.metrics",
    "evaluate": "mlhidden.runs.metrics",
    "exact_match": "mlhidden.runs.metrics",
    "FUNCTION_HINT": "mlhidden.runs.metrics",
    "hamming_score": "mlhidden.runs.metrics",
    "plugin_metric": "mlhidden.runs.metrics",
    "SCORES": "mlhidden.runs.metrics",
    "UnitPredictions": "mlhidden.runs.predictions",
    "blas_architectures": "mlhidden.runs.provenance",
    "describe_run": "mlhidden.runs.provenance",
    "field_readable": "mlhidden.runs.provenance",
    "finish_run": "mlhidden.runs.provenance",
    "machine": "mlhidden.runs.provenance",
    "package_versions": "mlhidden.runs.provenance",
    "provenance_lines": "mlhidden.runs.provenance",
    "read_run_json": "mlhidden.runs.provenance",
    "remember_precision": "mlhidden.runs.provenance",
    "stored_precision": "mlhidden.runs.provenance",
    "write_run_json": "mlhidden.runs.provenance",
    "RunRecord": "mlhidden.runs.record",
    "expected_keys": "mlhidden.runs.run_results",
    "listed_once": "mlhidden.runs.run_results",
    "RunResults": "mlhidden.runs.run_results",
    "sort_units": "mlhidden.runs.run_results",
    "split_protocol": "mlhidden.runs.run_results",
    "table_rows": "mlhidden.runs.run_results",
    "UNIT_KEYS": "mlhidden.runs.run_results",
    "canonical_hash": "mlhidden.runs.specs",
    "DatasetSpec": "mlhidden.runs.specs",
    "load_dataset_spec": "mlhidden.runs.specs",
    "MethodSpec": "mlhidden.runs.specs",
    "DEFAULT_FOLDS": "mlhidden.runs.splits",
    "HOLDOUT": "mlhidden.runs.splits",
    "label_coverage": "mlhidden.runs.splits",
    "Protocol": "mlhidden.runs.splits",
    "PROTOCOL_KINDS": "mlhidden.runs.splits",
    "Split": "mlhidden.runs.splits",
    "TRAIN_FRACTION": "mlhidden.runs.splits",
    "FAILED": "mlhidden.runs.status",
    "MISSING": "mlhidden.runs.status",
    "OK": "mlhidden.runs.status",
    "PARTIAL": "mlhidden.runs.status",
    "UNAVAILABLE": "mlhidden.runs.status",
    "existing_stores": "mlhidden.runs.store",
    "load_results": "mlhidden.runs.store",
    "now": "mlhidden.runs.store",
    "remove_store": "mlhidden.runs.store",
    "ResultStore": "mlhidden.runs.store",
    "results_exist": "mlhidden.runs.store",
    "store_exists": "mlhidden.runs.store",
    "stored_datasets": "mlhidden.runs.store",
    "stored_label_accuracies": "mlhidden.runs.store",
    "unit_key": "mlhidden.runs.store",
    "store_error": "mlhidden.runs.store_file",
    "repair_store": "mlhidden.runs.store_repair",
    "KEY_COLUMNS": "mlhidden.runs.store_schema",
    "KEY_FIELDS": "mlhidden.runs.store_schema",
    "SPLIT_COLUMNS": "mlhidden.runs.store_schema",
    "UnitKey": "mlhidden.runs.store_schema",
    "WHERE_KEY": "mlhidden.runs.store_schema",
    "fit_unit": "mlhidden.runs.unit_fit",
    "impute": "mlhidden.runs.unit_fit",
    "kind_counts": "mlhidden.runs.unit_warnings",
    "record_warnings": "mlhidden.runs.unit_warnings",
    "stored_warnings": "mlhidden.runs.unit_warnings",
    "warning_lines": "mlhidden.runs.unit_warnings",
    "PlannedUnit": "mlhidden.runs.units",
    "UnitResult": "mlhidden.runs.units",
    "METRICS": "mlhidden.runs.metrics",
    "UNIT_METRICS": "mlhidden.runs.metrics",
    "Metric": "mlhidden.runs.metrics",
    "get_metric": "mlhidden.runs.metrics",
    "has_compact_copy": "mlhidden.runs.compact_results",
})
