"""The paper being reproduced: its configs, its published numbers, and how quick mode shrinks them.

Every other module of the reproduction reads its names from here: the configs run
(:data:`PAPER_CONFIGS`), the files written, the paper's numbers (:func:`reference_results`, from
``reference_results.csv`` beside this module) and which of our runs and methods stand for which
of its tables and figures.
"""

from __future__ import annotations

import dataclasses
import io
import json
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pandas as pd

from mlhidden import RunConfig
from mlhidden.data import catalog_entries

PAPER_CONFIGS = ("paper", "logical", "synthetic", "synthetic_2d", "hidden_nodes", "label_count", "synthetic_variants")
REPORT_FILE = "REPORT.md"
RUN_LOG_FILE = "reproduction.json"
LABEL_ACCURACY_FILE = "label_accuracy.csv"
COMPARISON_FILE = "comparison.csv"
CROSSCHECK_FILE = "crosscheck.csv"
REFERENCE_FILE = "reference_results.csv"

# The paper's spelling of our dataset names, in reference_results.csv.
PAPER_DATASET_NAMES = {"Ohsumed": "OHSUMED", "M.Mill": "MediaMill"}

# Our summary metrics -> (the paper's table, its metric name there) in reference_results.csv.
PAPER_TABLES = {
    "exact_match": ("results", "exact_match"),
    "hamming_score": ("results", "hamming_score"),
    "total_seconds": ("scalability", "time_seconds"),
}

# Per-label accuracies the report needs: run -> (dataset groups, method labels) to refit.
LABEL_ACCURACY_REFITS = {
    "synthetic_2d": (("complex 2-D",), ("BR", "CC (1,2)", "CC (2,1)")),
    "paper": (("Medical",), ("CC", "CCASL")),
}

# The trivial baselines in paper.yaml and logical.yaml: in the tables, as a floor for
# the paper's values, but not among the methods whose ranks and times the paper's claims compare.
TRIVIAL_BASELINE_METHODS = ("AllZero", "Majority", "MostFrequentSet")

# Table 3's models, named as in logical.yaml and in the paper's table.
LOGICAL_MODELS = ("BR", "CC (b)", "CC (c)", "PCC (c)", "LP", "BR_phi")

# Fig. "results_syn1": its exact-match columns (method labels of synthetic_2d.yaml), and its base
# classifiers: column -> (method label, label index whose accuracy it is).
SYNTHETIC_2D_METHODS = ("BR", "CC (1,2)", "CC (2,1)", "CCASL")
SYNTHETIC_2D_BASE_CLASSIFIERS = {
    "h1(x) of BR": ("BR", 0),
    "h2(x) of BR": ("BR", 1),
    "h1(x,y2) of CC": ("CC (2,1)", 0),
    "h2(x,y1) of CC": ("CC (1,2)", 1),
}


@dataclass(frozen=True)
class QuickMode:
    """How ``--quick`` shrinks each paper config so that the whole reproduction runs in minutes.

    Attributes
    ----------
    max_splits : int
        Splits per dataset.
    max_cells : int
        Catalog datasets with more than this many feature values (N x D) are left out;
        generated datasets are always kept.
    max_sweep_points : int
        A dataset entry keeps the first this-many points of its sweep (e.g. 10 of the 150
        synthetic datasets of each kind).
    """

    max_splits: int = 3
    max_cells: int = 1_500_000
    max_sweep_points: int = 10

    def describe(self) -> str:
        """What quick mode keeps, as REPORT.md and the page both say it."""
        return (
            f"at most {self.max_splits} splits, only datasets with N x D ≤ {self.max_cells:,}, "
            f"at most {self.max_sweep_points} points of each dataset sweep"
        )

    def shrink(self, config: RunConfig) -> RunConfig:
        """``config`` with fewer splits, without the large catalog datasets, and shorter sweeps."""
        sizes = {entry.name.lower(): entry.n_samples * entry.n_features for entry in catalog_entries()}
        kept = []
        points: Counter[str | None] = Counter()
        for spec in config.datasets:
            if sizes.get(spec.name.lower(), 0) > self.max_cells:
                continue
            points[spec.group] += 1
            if points[spec.group] <= self.max_sweep_points:
                kept.append(spec)
        return dataclasses.replace(config, datasets=tuple(kept), splits=min(config.splits, self.max_splits))


QUICK = QuickMode()


def reference_results() -> pd.DataFrame:
    """The paper's numbers: columns table, metric, dataset (our spelling), method, value, rank."""
    text = resources.files("mlhidden.paper").joinpath(REFERENCE_FILE).read_text(encoding="utf-8")
    frame = pd.read_csv(io.StringIO(text), dtype={"method": str})
    frame["dataset"] = frame["dataset"].replace(PAPER_DATASET_NAMES)
    return frame


def read_run_log(out_dir) -> dict | None:
    """What ``mlhidden reproduce`` last recorded in ``out_dir`` (mode, times, machine), or None."""
    path = Path(out_dir) / RUN_LOG_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
