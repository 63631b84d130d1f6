"""Shared fixtures: the real datasets for tests, from the files the project ships.

Nothing here reaches outside the repository: CI runs the suite from a copy of the checkout
whose parent has no ``shared/`` folder and without network.
"""

from __future__ import annotations

import bz2
import hashlib
import os
import shutil
from pathlib import Path

import pytest

from mlhidden.data import catalog_entries
from mlhidden.data.catalog import SHIPPED_DIR

PROJECT_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def shipped_dir() -> Path:
    """The project's ``datasets/``: the bz2 copies of the paper's datasets and the upstream Mulan files."""
    assert SHIPPED_DIR == PROJECT_ROOT / "datasets"
    return SHIPPED_DIR


@pytest.fixture(scope="session")
def mirror_dir(tmp_path_factory, shipped_dir) -> Path:
    """The dataset mirror (``shared/datasets``: MEKA-form ARFF files and ``SOURCES.md``), rebuilt from the shipped
    files.

    Each shipped bz2 copy is expanded to the mirror's form and must give the mirror file's exact
    bytes (the manifest's identity sha256), so tests reading the mirror's files read the real ones.
    """
    path = tmp_path_factory.mktemp("mirror")
    shutil.copyfile(shipped_dir / "SOURCES.md", path / "SOURCES.md")
    for entry in catalog_entries():
        if entry.shipped_file is None:
            continue
        stored = (shipped_dir / entry.shipped_file).read_bytes()
        assert hashlib.sha256(stored).hexdigest() == entry.shipped_sha256, entry.shipped_file
        content = stored if entry.shipped_file == entry.file else bz2.decompress(stored)
        assert hashlib.sha256(content).hexdigest() == entry.sha256, entry.file
        (path / entry.file).write_bytes(content)
    return path


@pytest.fixture(scope="session", autouse=True)
def _private_parse_cache(tmp_path_factory):
    """Keep the parsed-dataset cache of test runs out of the user's home folder."""
    os.environ["MLHIDDEN_CACHE"] = str(tmp_path_factory.mktemp("parse-cache"))
