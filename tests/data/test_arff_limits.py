"""Limits on what a hostile ARFF file can take: compressed text by ratio and in all, and line length.

Each is refused in one line as soon as it is crossed, and the peak memory of a refused file is
measured in a child process (its own ``ru_maxrss``).
"""

from __future__ import annotations

import bz2
import gzip
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.data import read_arff
from mlhidden.data.arff.stream import EXPANSION_ENV, EXPANSION_FLOOR
from mlhidden.errors import UserError

TEXT_ENV, LINE_ENV = "MLHIDDEN_MAX_TEXT_MIB", "MLHIDDEN_MAX_LINE_MIB"
HEADER = "@relation 'Bomb: -C 1'\n@attribute y {0,1}\n@attribute x numeric\n@data\n1,0.5\n"
PROBE = (
    "import resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
    "from mlhidden.data import read_arff\n"
    "from mlhidden.errors import UserError\n"
    "try:\n    read_arff(sys.argv[1])\nexcept UserError as error:\n    print(error)\n"
    "print(next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:')))\n"
)


@pytest.fixture(autouse=True)
def _default_limits(monkeypatch):
    for variable in (EXPANSION_ENV, TEXT_ENV, LINE_ENV):
        monkeypatch.delenv(variable, raising=False)


def _read_in_a_child(path: Path, probe: str = PROBE, env: dict[str, str] | None = None) -> tuple[str, int]:
    """What reading ``path`` says (the error, or nothing) and its peak RSS in MiB, under a 3 GiB address space.

    The peak is the child's own (VmHWM): ``ru_maxrss`` also counts the forking parent's resident pages,
    large in a long test session. The child runs without pytest-cov's subprocess measurement."""
    environment = {name: value for name, value in os.environ.items() if not name.startswith(("COV_CORE", "COVERAGE"))}
    environment |= {"OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[2]), **(env or {})}
    result = subprocess.run(
        [sys.executable, "-c", probe, str(path)], capture_output=True, text=True, env=environment, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    *message, peak_kib = result.stdout.splitlines()
    return "\n".join(message), int(peak_kib) >> 10


def _refusal(path: Path) -> str:
    with pytest.raises(UserError) as caught:
        read_arff(path)
    return str(caught.value)


def test_a_bomb_is_refused_within_its_first_text_though_the_whole_file_expands_less(tmp_path, monkeypatch):
    """40 MiB of text from 40 KiB, then an incompressible tail: 60 times in all, under the ratio, but not so far."""
    tail = "".join(f"% {line.hex()}\n" for line in random.Random(0).randbytes(48 * 12_000).split(b"\n"))
    text = (HEADER + ("%" + "0" * 1023 + "\n") * (40 << 10) + tail).encode()
    path = tmp_path / "bomb.arff.gz"
    path.write_bytes(gzip.compress(text, 9))
    assert 30 < len(text) / path.stat().st_size < 100
    assert _refusal(path).startswith(f"{path}: expands to more than 32 MiB of text from its first ")
    monkeypatch.setenv(EXPANSION_ENV, "0")
    assert read_arff(path).X.shape == (1, 1)


def test_a_compressed_file_is_refused_past_the_absolute_text_limit(tmp_path, monkeypatch):
    path = tmp_path / "large.arff.bz2"
    draw = random.Random(0)
    rows = "".join(f"{i % 2},{draw.random()}\n" for i in range(100_000))
    path.write_bytes(bz2.compress((HEADER + rows).encode(), 9))
    assert read_arff(path).X.shape == (100_001, 1)
    monkeypatch.setenv(TEXT_ENV, "1")
    assert _refusal(path) == (
        f"{path}: expands to more than 1 MiB of text; refused (if the file is genuine, set {TEXT_ENV} to a larger "
        "size in MiB, or to 0 for no limit)"
    )


@pytest.mark.parametrize("where", ["name", "row"])
def test_a_line_past_the_limit_is_one_line_naming_file_and_line(tmp_path, monkeypatch, where):
    path = tmp_path / "long.arff"
    long = "n" * (2 << 20)
    path.write_text(HEADER.replace("@attribute x", f"@attribute {long}") if where == "name" else HEADER + long + "\n")
    monkeypatch.setenv(LINE_ENV, "1")
    result = CliRunner().invoke(cli, ["datasets", "info", str(path)])
    line = 3 if where == "name" else 6
    assert result.exit_code == 2 and result.stderr == (
        f"error: {path}:{line}: a line longer than 1 MiB; refused (if the file is genuine, set {LINE_ENV} to a "
        "larger size in MiB, or to 0 for no limit)\n"
    )


def test_a_tiny_file_of_one_25_mb_row_is_refused_in_little_memory(tmp_path):
    path = tmp_path / "row.arff.gz"
    path.write_bytes(gzip.compress((HEADER + "0," * 12_500_000 + "0\n").encode(), 9))
    assert path.stat().st_size < 50_000
    message, peak_mib = _read_in_a_child(path)
    assert message.startswith(f"{path}:6: a line longer than 4 MiB; refused")
    assert peak_mib < 400


def test_a_10_mb_attribute_name_reads_in_little_memory(tmp_path, monkeypatch):
    """Under no line limit the name is read, in tens of MiB beyond the interpreter's own."""
    path = tmp_path / "name.arff"
    path.write_text(HEADER.replace("@attribute x", "@attribute " + "n" * 10_000_000))
    monkeypatch.setenv(LINE_ENV, "0")
    message, peak_mib = _read_in_a_child(path)
    assert message == "" and peak_mib < 400


@pytest.mark.slow
def test_a_decompression_bomb_is_refused_in_bounded_memory(tmp_path):
    """10,000 times expansion: refused with one line once the text passes the floor, peak RSS under 400 MB."""
    row = ",".join(["0"] * 200) + "\n"
    text = ("@relation 'Bomb: -C 1'\n" + "".join(f"@attribute a{i} numeric\n" for i in range(200)) + "@data\n").encode()
    text += row.encode() * ((EXPANSION_FLOOR + (16 << 20)) // len(row))
    path = tmp_path / "bomb.arff.bz2"
    path.write_bytes(bz2.compress(text, 9))
    assert len(text) / path.stat().st_size > 10_000
    del text
    message, peak_mib = _read_in_a_child(path)
    assert message.startswith(f"{path}: expands to more than 32 MiB of text from its first ")
    assert message.endswith(
        f"over 100 times; refused as a likely decompression bomb (if the file is genuine, set {EXPANSION_ENV} to a "
        "larger ratio, or to 0 for no limit)"
    )
    assert peak_mib < 400


@pytest.mark.slow
def test_a_tiny_file_of_25_mb_of_dense_rows_is_read_in_bounded_memory_on_a_cold_cache(tmp_path):
    """6.5 million two-value rows, 1.3 KB as bz2: parsed (and cached) under 500 MB peak, where 1.25 GB was."""
    path = tmp_path / "rows.arff.bz2"
    path.write_bytes(bz2.compress((HEADER + "0,0\n" * 6_499_999).encode(), 9))
    assert path.stat().st_size < 2_000
    cache = tmp_path / "cache"
    cache.mkdir()
    probe = PROBE.replace(
        "read_arff(sys.argv[1])",
        "from mlhidden.data.cache import load_arff_file\n    from mlhidden.io import sha256_of\n"
        "    dataset = load_arff_file(sys.argv[1], sha256_of(sys.argv[1]), None, None)\n"
        "    print(dataset.X.shape, dataset.Y.shape, float(dataset.X.sum()), int(dataset.Y.sum()))",
    )
    message, peak_mib = _read_in_a_child(path, probe, {"MLHIDDEN_CACHE": str(cache)})
    assert message == "(6500000, 1) (6500000, 1) 0.5 1"
    assert len(list(cache.iterdir())) == 1
    assert peak_mib < 500
