"""A user's own ARFF files in the data path are datasets by name: ``DIR/Emotions.arff`` is ``-d Emotions``.

Names follow the catalog's case rule (any case; the file's own spelling in the tables). Catalog
and generator names come first; the data path's order decides between folders.
"""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.data import load_dataset, make_logical, write_arff
from mlhidden.errors import UserError


@pytest.fixture
def own_dir(tmp_path):
    """A data folder with the user's own file, Emotions.arff (a real MEKA ARFF file)."""
    folder = tmp_path / "data"
    folder.mkdir()
    write_arff(make_logical(), folder / "Emotions.arff")
    return folder


def test_run_addresses_an_arff_file_of_the_data_dir_by_its_stem_in_any_case(own_dir, tmp_path):
    result = CliRunner().invoke(cli, ["run", "-d", "emotions", "-m", "BR", "--data-dir", str(own_dir), "--splits", "2",
                                      "--n-jobs", "1", "--out", str(tmp_path / "run"), "-q"])
    assert result.exit_code == 0, result.output
    assert "| Emotions" in (tmp_path / "run" / "tables.md").read_text()


def test_a_config_names_an_own_file_of_mlhidden_data(own_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("MLHIDDEN_DATA", str(own_dir))
    (tmp_path / "own.yaml").write_text("datasets: [Emotions]\nmethods: [BR]\nsplits: 1\n")
    result = CliRunner().invoke(
        cli, ["run", "--config", str(tmp_path / "own.yaml"), "--n-jobs", "1", "--out", str(tmp_path / "run"), "-q"]
    )
    assert result.exit_code == 0, result.output


def test_datasets_list_shows_the_own_files_of_the_data_dir(own_dir):
    (own_dir / "notes.txt").write_text("not a dataset")
    result = CliRunner().invoke(cli, ["datasets", "list", "--data-dir", str(own_dir)])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if "Emotions" in line)
    assert "Emotions.arff" in row and " 20 " in row
    assert "notes" not in result.output


def test_catalog_names_win_and_two_files_differing_in_case_are_refused(own_dir):
    shutil.copyfile(own_dir / "Emotions.arff", own_dir / "Music.arff")
    with pytest.raises(UserError, match="checksum mismatch"):  # the catalog's Music, checked against the manifest
        load_dataset("Music", data_dir=own_dir)
    shutil.copyfile(own_dir / "Emotions.arff", own_dir / "EMOTIONS.arff")
    assert load_dataset("Emotions", data_dir=own_dir).name == "Emotions"  # the exact spelling wins
    with pytest.raises(UserError, match="matches EMOTIONS and Emotions when case is ignored"):
        load_dataset("emotions", data_dir=own_dir)
