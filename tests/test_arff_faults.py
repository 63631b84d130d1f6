"""Faults in ARFF input a user or an attacker can cause: each is one clear line, never a traceback."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from mlhidden.cli import cli


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
