"""A run's results as a report reads them: its units in table order and what is missing, one run or several merged.

:func:`~mlhidden.runs.store.load_results` reads each run directory's store into a
:class:`RunResults`; :func:`merge_results` joins several, refusing runs that split a dataset
differently or give one method label two settings. Which units a config asks for
(:func:`expected_keys`) and how it splits (:func:`split_protocol`) follow from its stored record alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from mlhidden.errors import UserError
from mlhidden.runs.record import RunRecord
from mlhidden.runs.status import OK, UNIT_STATUSES
from mlhidden.runs.store_schema import KEY_FIELDS, UnitKey

UNIT_KEYS = ("dataset", "method", "split")


def listed_once(names: Iterable[str], what: str) -> list[str]:
    """``names`` as a list, refused (ValueError) where one is listed twice: a table has one row or column per name."""
    names = list(names)
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"{what} listed more than once: {', '.join(map(str, duplicates))}")
    return names


def table_rows(datasets: Iterable[str], unavailable: Mapping[str, str] | None = None) -> list[str]:
    """Row order: ``datasets`` as given, then unavailable datasets that are not among them."""
    rows = listed_once(datasets, "datasets")
    return rows + [name for name in (unavailable or {}) if name not in rows]


def sort_units(
    units: pd.DataFrame, datasets: Iterable[str], methods: Iterable[str], unavailable: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """The units of the listed datasets and methods, checked, in table order (dataset, method, split).

    Units of datasets or methods not listed are left out: the tables report the configured run.
    """
    datasets, methods = table_rows(datasets, unavailable), listed_once(methods, "methods")
    if not methods:
        raise ValueError("no methods to report")
    missing = [column for column in (*UNIT_KEYS, "status", "error") if column not in units.columns]
    if missing:
        raise ValueError(f"units lack column(s) {', '.join(missing)}")
    units = units[units["dataset"].isin(datasets) & units["method"].isin(methods)]
    bad_status = sorted(set(units["status"]) - set(UNIT_STATUSES))
    if bad_status:
        raise ValueError(
            f"unit status must be {' or '.join(map(repr, UNIT_STATUSES))}, not {', '.join(map(repr, bad_status))}"
        )
    duplicated = units.duplicated(list(UNIT_KEYS))
    if duplicated.any():
        first = units[duplicated].iloc[0]
        where = f"{first['dataset']} / {first['method']} / split {first['split']}"
        raise ValueError(f"unit reported twice: {where}")
    clash = sorted(set(units["dataset"]) & set(unavailable or {}))
    if clash:
        raise ValueError(f"dataset(s) marked unavailable but with results: {', '.join(clash)}")
    positions = units.assign(
        _dataset=units["dataset"].map({name: i for i, name in enumerate(datasets)}),
        _method=units["method"].map({name: i for i, name in enumerate(methods)}),
    )
    ordered = positions.sort_values(["_dataset", "_method", "split"]).drop(columns=["_dataset", "_method"])
    return ordered.reset_index(drop=True)


def expected_keys(config_record: Mapping[str, Any], dataset_checksums: Mapping[str, str]) -> dict[UnitKey, str]:
    """Store key -> method label for every unit a stored config asks for."""
    keys: dict[UnitKey, str] = {}
    recipe = RunRecord.from_record(config_record).split_recipe
    for name, checksum in dataset_checksums.items():
        for i, seed in enumerate(recipe.split_seeds(name)):
            for method in config_record["methods"]:
                keys[(name, checksum, method["name"], method["params_hash"], i, seed)] = method["label"]
    return keys


@dataclass
class RunResults:
    """What a report needs, read from stores alone: units in table order, and what is missing.

    ``checksums`` maps each available dataset to the checksum of its data; ``provenance`` maps
    each run directory read to its ``run.json`` (None when it has none); ``left_out`` counts
    the stored units the config does not ask for (another run seed, or an earlier config).
    """

    units: pd.DataFrame
    datasets: list[str]
    methods: list[str]
    unavailable: dict[str, str]
    config: dict[str, Any]
    missing: int
    checksums: dict[str, str] = field(default_factory=dict)
    provenance: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    left_out: int = 0

    def note_lines(self) -> list[str]:
        """One line for each kind of unit the tables leave out, so that none is left out silently."""
        lines = []
        if self.missing:
            lines.append(
                f"{self.missing} unit(s) of this config are not in the store yet: "
                "re-run the same command to finish them."
            )
        if self.left_out:
            lines.append(
                f"{self.left_out} stored unit(s) are not in these tables: the config does not ask for them"
                " (units of another run seed, of methods or datasets since removed from it, or of a dataset whose"
                " name another of its datasets had)."
            )
        return lines


# A unit as a table sees it: its store key (with the registry name) and its table label.
MERGE_KEY = (*KEY_FIELDS, "method")


def merge_results(runs: Mapping[str, RunResults]) -> RunResults:
    """Several runs' results as one table, e.g. methods run on different days or clusters.

    A table row compares methods only if they saw the same splits, so runs that share a dataset
    must have split it alike: the same data (checksum), run seed, number of splits and train
    fraction, hence the same split seeds. A method label must also mean the same method and
    parameters in every run. Either mismatch is refused with a ``UserError``. A unit stored by
    several runs is kept once (a successful copy before a failed one).

    Parameters
    ----------
    runs : dict
        Run directory -> its :class:`RunResults`, in the order their datasets and methods should
        appear.
    """
    splits_of: dict[str, tuple[str, tuple[Any, ...], str]] = {}
    method_of: dict[str, tuple[str, tuple[str, str]]] = {}
    for run_dir, run in runs.items():
        for dataset, checksum in run.checksums.items():
            seeds = tuple(RunRecord.from_record(run.config).split_recipe.split_seeds(dataset))
            protocol = (checksum, split_protocol(run.config), seeds)
            description = (
                f"seed {run.config['seed']}, {run.config['splits']} splits, {split_protocol(run.config)}, "
                f"data sha256 {checksum[:12]}"
            )
            first_dir, first_protocol, first_description = splits_of.setdefault(
                dataset, (run_dir, protocol, description)
            )
            if protocol != first_protocol:
                raise UserError(
                    f"cannot merge {first_dir} and {run_dir}: they split {dataset} differently"
                    f" ({first_description} vs {description})",
                    hint="merge only runs made with the same data, seed, protocol, splits, train_fraction "
                    "and shuffle_labels",
                )
        for method in run.config["methods"]:
            identity = (method["name"], method["params_hash"])
            first_dir, first_identity = method_of.setdefault(method["label"], (run_dir, identity))
            if identity != first_identity:
                raise UserError(
                    f"cannot merge {first_dir} and {run_dir}: "
                    f"method '{method['label']}' has different settings in each",
                    hint="give one of them another label in its config and run it again",
                )
    units = pd.concat([run.units for run in runs.values()], ignore_index=True)
    failed_last = units.assign(_failed=units["status"] != OK).sort_values("_failed", kind="stable")
    units = failed_last.drop_duplicates(list(MERGE_KEY)).drop(columns="_failed").sort_index().reset_index(drop=True)
    checksums = {d: c for run in runs.values() for d, c in run.checksums.items()}
    wanted = {
        (*key, label) for run in runs.values() for key, label in expected_keys(run.config, run.checksums).items()
    }
    stored = set(zip(*(units[c] for c in MERGE_KEY)))
    return RunResults(
        units,
        list(dict.fromkeys(d for run in runs.values() for d in run.datasets)),
        list(dict.fromkeys(m for run in runs.values() for m in run.methods)),
        {d: reason for run in runs.values() for d, reason in run.unavailable.items() if d not in checksums},
        {"name": "merged", "runs": {run_dir: run.config for run_dir, run in runs.items()}},
        len(wanted - stored),
        checksums,
        {run_dir: run_json for run in runs.values() for run_dir, run_json in run.provenance.items()},
        sum(run.left_out for run in runs.values()),
    )


def split_protocol(config: Mapping[str, Any]) -> str:
    """How a run's config splits every dataset, beyond the seeds: protocol (train fraction or folds) and label order.

    Unit keys hold the split seed, not these, so runs (or a resumed run) may only share units
    when these agree.
    """
    record = RunRecord.from_record(config)
    order = "shuffled labels" if record.shuffle_labels else "labels in file order"
    return f"{record.protocol.describe(record.train_fraction)}, {order}"
