"""Multi-label datasets: MEKA and Mulan ARFF reading, MEKA writing, the paper's dataset catalog, generated data."""

from mlhidden.data.arff import read_arff, write_arff
from mlhidden.data.arff.mulan import LabelsXmlWarning
from mlhidden.data.catalog import (
    FILE_KINDS,
    LABELS_MEANING,
    DatasetSource,
    DatasetUnavailable,
    catalog_entries,
    data_path,
    dataset_params_problem,
    dataset_source,
    load_dataset,
    load_source,
    resolve_data_dir,
    resolve_dataset,
    unknown_dataset,
    unknown_dataset_hint,
)
from mlhidden.data.dataset import Dataset, Matrix, RandomStateLike
from mlhidden.data.fetch import copy_from_mirror
from mlhidden.data.generators import make_logical
from mlhidden.data.inventory import dataset_table, verify_datasets
from mlhidden.data.random_networks import draw_network
from mlhidden.data.transforms import TRANSFORMS, apply_transforms

__all__ = [
    "apply_transforms",
    "catalog_entries",
    "copy_from_mirror",
    "data_path",
    "Dataset",
    "dataset_params_problem",
    "dataset_source",
    "dataset_table",
    "DatasetSource",
    "DatasetUnavailable",
    "draw_network",
    "FILE_KINDS",
    "LABELS_MEANING",
    "LabelsXmlWarning",
    "load_dataset",
    "load_source",
    "make_logical",
    "Matrix",
    "RandomStateLike",
    "read_arff",
    "resolve_data_dir",
    "resolve_dataset",
    "TRANSFORMS",
    "unknown_dataset",
    "unknown_dataset_hint",
    "verify_datasets",
    "write_arff",
]
