"""A dataset file is hashed once when it is parsed: the checksum that keys the parse cache is the one parsing keeps."""

from __future__ import annotations

import hashlib
import shutil
import warnings
from pathlib import Path

import pytest

from mlhidden.data import catalog_entries, load_dataset, make_logical, write_arff
from mlhidden.data.cache import CACHE_ENV, load_arff_file
from mlhidden.data.catalog import SHIPPED_DIR
from mlhidden.errors import InputWarning

UPSTREAM = Path(__file__).resolve().parents[2] / "datasets" / "upstream"

REAL_SHA256 = hashlib.sha256


class CountingSha256:
    """hashlib's sha256, counting the bytes each digest is fed."""

    made: list[CountingSha256] = []

    def __init__(self, data: bytes = b"", **options):
        self._digest = REAL_SHA256(data, **options)
        self.fed = len(data)
        self.made.append(self)

    def update(self, data: bytes) -> None:
        self.fed += len(data)
        self._digest.update(data)

    def hexdigest(self) -> str:
        return self._digest.hexdigest()

    def digest(self) -> bytes:
        return self._digest.digest()


@pytest.fixture
def hashed(tmp_path, monkeypatch):
    """The bytes fed to each sha256 digest made while a test loads data, with an empty parse cache."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    load_arff_file.cache_clear()
    made: list[CountingSha256] = []
    monkeypatch.setattr(CountingSha256, "made", made)
    monkeypatch.setattr(hashlib, "sha256", CountingSha256)
    yield lambda: [digest.fed for digest in made if digest.fed]
    load_arff_file.cache_clear()


def test_an_arff_file_is_hashed_once_on_a_cache_miss_and_once_on_a_hit(tmp_path, hashed):
    path = tmp_path / "Logical.arff"
    write_arff(make_logical(), path)
    parsed = load_dataset(path)
    assert hashed() == [path.stat().st_size]
    assert parsed.identity == REAL_SHA256(path.read_bytes()).hexdigest()
    load_arff_file.cache_clear()  # a new process: the disk cache answers
    assert load_dataset(path).identity == parsed.identity
    assert hashed() == [path.stat().st_size] * 2


def test_a_catalog_file_is_hashed_once_on_a_cache_miss(hashed):
    entry = next(e for e in catalog_entries() if e.name == "Music")
    shipped = SHIPPED_DIR / str(entry.shipped_file)
    data = load_dataset("Music")
    assert hashed() == [shipped.stat().st_size]
    assert data.identity == entry.sha256, "the identity stays the manifest's"


def test_a_copy_served_from_the_parse_cache_is_named_in_its_own_warning(tmp_path, monkeypatch):
    """Mulan's medical pair warns (its ``-C 45`` against its XML); a second copy of it, parsed no more
    but served from the cache, gets that warning naming the copy, not the file parsed first."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    copies = []
    for folder in ("first", "second"):
        (tmp_path / folder).mkdir()
        for name in ("medical.arff.bz2", "medical.xml"):
            shutil.copy(UPSTREAM / name, tmp_path / folder / name)
        copies.append(tmp_path / folder / "medical.arff.bz2")
    for copy in copies:
        load_arff_file.cache_clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", InputWarning)
            load_dataset(copy)
        messages = [str(w.message) for w in caught if issubclass(w.category, InputWarning)]
        assert messages and all(str(copy) in m for m in messages), messages
        assert not any(str(other) in m for m in messages for other in copies if other != copy), messages
    load_arff_file.cache_clear()
