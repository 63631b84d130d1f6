"""Shared fixtures: where the real datasets live for tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def mirror_dir() -> Path:
    """The folder holding the paper's real ARFF files (``MLHIDDEN_TEST_MIRROR`` or ../shared/datasets).

    A missing mirror is a failure, not a skip: these tests exist to check the real files.
    """
    path = Path(os.environ.get("MLHIDDEN_TEST_MIRROR", PROJECT_ROOT.parent / "shared" / "datasets"))
    assert (path / "Music.arff").is_file(), f"dataset mirror not found at {path}; set MLHIDDEN_TEST_MIRROR"
    return path


@pytest.fixture(scope="session", autouse=True)
def _private_parse_cache(tmp_path_factory):
    """Keep the parsed-dataset cache of test runs out of the user's home folder."""
    os.environ["MLHIDDEN_CACHE"] = str(tmp_path_factory.mktemp("parse-cache"))
