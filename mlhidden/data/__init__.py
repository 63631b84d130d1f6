"""Multi-label datasets: MEKA ARFF reading and writing, the paper's dataset registry, generated data."""

from mlhidden.data.arff import read_arff, write_arff
from mlhidden.data.dataset import Dataset
from mlhidden.data.generated import make_logical
from mlhidden.data.registry import (
    DatasetUnavailable,
    copy_from_mirror,
    dataset_table,
    load_dataset,
    registry_entries,
    resolve_data_dir,
    verify_datasets,
)

__all__ = [
    "Dataset",
    "DatasetUnavailable",
    "copy_from_mirror",
    "dataset_table",
    "load_dataset",
    "make_logical",
    "read_arff",
    "registry_entries",
    "resolve_data_dir",
    "verify_datasets",
    "write_arff",
]
