"""A dataset entry's name is resolved once, when the config is read: its spec carries what it names, and loading
reads that, so the data folder (``--data-dir``) need not travel beside the config, and the stored record is the
entry as written."""

from __future__ import annotations

import pytest

from mlhidden.data import catalog, catalog_entries, make_logical, write_arff
from mlhidden.experiment import config_entries
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import plan_run

RECORD_KEYS = {"name", "params", "transform", "label", "group", "sweep"}


@pytest.fixture
def own_dir(tmp_path):
    """A data folder holding the user's Mine.arff."""
    mine = tmp_path / "data" / "Mine.arff"
    mine.parent.mkdir()
    write_arff(make_logical(), mine)
    return mine.parent


def test_a_config_read_with_a_data_dir_loads_from_it_without_being_told_again(own_dir, mirror_dir):
    config = parse_config({"datasets": ["Mine"], "methods": ["BR"], "splits": 1}, data_dir=own_dir)
    plan = plan_run(config)
    assert plan.datasets[0].dataset.source == str(own_dir / "Mine.arff")
    music = next(e for e in catalog_entries() if e.name == "Music")
    plan = plan_run(parse_config({"datasets": ["Music"], "methods": ["BR"], "splits": 1}, data_dir=mirror_dir))
    assert plan.datasets[0].dataset.source == str(mirror_dir / music.file)


def test_each_entry_is_resolved_once_and_its_record_is_the_entry_as_written(own_dir, monkeypatch):
    resolved: list[str] = []
    resolve = catalog.resolve_dataset

    def counting(spec, data_dir=None):
        resolved.append(str(spec))
        return resolve(spec, data_dir)

    monkeypatch.setattr(catalog, "resolve_dataset", counting)
    monkeypatch.setattr(config_entries, "resolve_dataset", counting)
    entries = [{"name": "Logical", "sweep": {"jitter": [0.0, 0.1]}}, "Mine", "Music"]
    config = parse_config({"datasets": entries, "methods": ["BR"], "splits": 1}, data_dir=own_dir)
    plan_run(config)
    assert resolved == ["Logical", "Mine", "Music"]
    assert [spec.source.kind for spec in config.datasets] == ["generator", "generator", "data file", "catalog"]
    assert all(set(entry) == RECORD_KEYS for entry in config.to_dict()["datasets"])
