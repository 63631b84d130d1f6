"""Faults in ARFF input a user or an attacker can cause: each is one clear line, never a traceback."""

from __future__ import annotations

import os

import numpy as np
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.data import read_arff
from mlhidden.errors import UserError


def _error_line(args) -> str:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda p: os.symlink(p.name, p), "is a symbolic link that loops (too many levels of symbolic links)"),
        (lambda p: p.mkdir(), "is a directory, not an ARFF file"),
        (lambda p: os.symlink("nowhere.arff", p), "is a symbolic link to 'nowhere.arff', which does not exist"),
    ],
    ids=["symlink-loop", "directory", "dangling-symlink"],
)
def test_a_path_that_is_not_a_file_says_what_it_is(tmp_path, make, expected):
    path = tmp_path / "data.arff"
    make(path)
    assert _error_line(["datasets", "info", str(path)]).startswith(f"error: dataset '{path}' {expected} (")
    config = tmp_path / "run.yaml"
    config.write_text("datasets: [data.arff]\nmethods: [BR]\nsplits: 2\n")
    line = _error_line(["run", "--config", str(config), "--out", str(tmp_path / "out")])
    assert line.startswith(f"error: {config}:1: dataset 'data.arff' {expected} (")


NAN_INF = "@relation 'R: -C 1'\n@attribute l {0,1}\n@attribute x numeric\n@data\n1,0.5\n0,VALUE\n"


@pytest.mark.parametrize(
    "value, expected",
    [
        ("NaN", None),  # Weka's missing value is NaN: read as missing, like ?
        ("?", None),
        ("nan", "value 'nan' of numeric attribute 'x' is not a number (use a number, or ? for missing)"),
        ("inf", "value 'inf' of numeric attribute 'x' is not a number (use a number, or ? for missing)"),
        ("Infinity", "feature 'x' is infinite in data row 2; values must be finite or ? (missing)"),
        ("1e999", "feature 'x' is infinite in data row 2; values must be finite or ? (missing)"),
        ("1_0", "value '1_0' of numeric attribute 'x' is not a number (use a number, or ? for missing)"),
    ],
)
def test_nan_and_inf_spellings_are_read_as_weka_reads_them(tmp_path, value, expected):
    path = tmp_path / "values.arff"
    path.write_text(NAN_INF.replace("VALUE", value))
    if expected is None:
        assert np.isnan(read_arff(path).X[1, 0])
    else:
        with pytest.raises(UserError) as caught:
            read_arff(path)
        assert str(caught.value) == f"{path}:6: {expected}"


def test_a_field_longer_than_csvs_limit_is_read(tmp_path):
    path = tmp_path / "long.arff"
    path.write_text(NAN_INF.replace("VALUE", "0" * 200_000 + "1.5"))
    assert read_arff(path).X[1, 0] == 1.5
