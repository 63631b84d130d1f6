"""Multi-label datasets: MEKA and Mulan ARFF reading, MEKA writing, the paper's dataset catalog, generated data."""

from mlhidden.data.arff import read_arff, write_arff
from mlhidden.data.arff.mulan import LabelsXmlWarning
from mlhidden.data.catalog import (
    DatasetUnavailable,
    catalog_entries,
    data_path,
    load_dataset,
    resolve_data_dir,
)
from mlhidden.data.dataset import Dataset
from mlhidden.data.fetch import copy_from_mirror
from mlhidden.data.generators import make_logical
from mlhidden.data.inventory import dataset_table, verify_datasets

__all__ = [
    "Dataset",
    "DatasetUnavailable",
    "LabelsXmlWarning",
    "copy_from_mirror",
    "data_path",
    "dataset_table",
    "load_dataset",
    "make_logical",
    "read_arff",
    "catalog_entries",
    "resolve_data_dir",
    "verify_datasets",
    "write_arff",
]
