"""Real disk faults under a real run directory: a full file system, a read-only mount, an immutable store.

A fault the user can fix ends in one line (no traceback) that says what to do, keeps every
stored unit and every file written before, and never advises deleting a store that is one.
The file systems are real (tmpfs, read-only bind mounts, ``chattr +i``); where this machine
does not allow them (not root, no mount), the test is skipped with the reason.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from stores import leave_hot_journal

from mlhidden import io as mlhidden_io
from mlhidden.cli import cli
from mlhidden.io import STORE_COPY
from mlhidden.runs.store import STORE_FILE

PROJECT_ROOT = Path(__file__).resolve().parents[2]
RUN = ["-d", "Logical", "-m", "BR", "-m", "CC", "--splits", "2", "--n-jobs", "1", "-q"]


def mlhidden(*args, **kwargs) -> subprocess.CompletedProcess:
    """The real CLI in its own process."""
    command = [sys.executable, "-m", "mlhidden", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=PROJECT_ROOT, **kwargs)


def invoke(*args) -> SimpleNamespace:
    """The real CLI in this process (faster): its exit code and stderr, as :func:`mlhidden` gives them."""
    result = CliRunner().invoke(cli, [str(arg) for arg in args])
    return SimpleNamespace(returncode=result.exit_code, stderr=result.stderr, exception=result.exception)


def one_line(process) -> str:
    """The single stderr line of a command that ended with a user-fixable error."""
    lines = process.stderr.strip().splitlines()
    assert process.returncode == 2 and len(lines) == 1, process.stderr
    assert "Traceback" not in process.stderr
    return lines[0]


def _root_command(*command) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root (mount, chattr)")
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"`{' '.join(map(str, command))}` is not allowed here: {done.stderr.strip()}")


@contextlib.contextmanager
def small_filesystem(path: Path, size: str):
    """A real tmpfs of ``size`` mounted at ``path`` for the duration."""
    path.mkdir(parents=True, exist_ok=True)
    _root_command("mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path))
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


@contextlib.contextmanager
def read_only_view(source: Path, path: Path):
    """``source`` bind-mounted read-only at ``path`` (an archive of results on a read-only disk)."""
    path.mkdir(parents=True, exist_ok=True)
    _root_command("mount", "--bind", str(source), str(path))
    try:
        _root_command("mount", "-o", "remount,ro,bind", str(path))
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


@contextlib.contextmanager
def immutable(path: Path):
    """``path`` with the immutable attribute: not even root may write it."""
    _root_command("chattr", "+i", str(path))
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def fill(folder: Path, leave: int = 0) -> None:
    """Fill ``folder``'s file system up to ``leave`` bytes free."""
    free = shutil.disk_usage(folder).free
    with open(folder / "filler", "wb") as stream:
        with contextlib.suppress(OSError):
            stream.write(b"\0" * max(free - leave, 0))
            stream.flush()


def files(folder: Path) -> dict:
    """The bytes of every file in ``folder`` but the filler and SQLite's scratch files beside the store."""
    scratch = ("filler", f"{STORE_FILE}-shm", f"{STORE_FILE}-wal")
    return {
        path.name: path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file() and path.name not in scratch
    }


def stored_units(run_dir: Path) -> list:
    with contextlib.closing(sqlite3.connect(f"file:{run_dir / STORE_FILE}?mode=ro", uri=True)) as conn:
        return conn.execute("SELECT method, split, status FROM units ORDER BY method, split").fetchall()


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("finished") / "run"
    result = CliRunner().invoke(cli, ["run", *RUN, "--out", str(run_dir)])
    assert result.exit_code == 0, result.output
    return run_dir


@pytest.fixture
def run_copy(finished_run, tmp_path) -> Path:
    shutil.copytree(finished_run, tmp_path / "run")
    return tmp_path / "run"


def test_report_reads_a_store_on_a_read_only_mount(run_copy, tmp_path):
    with read_only_view(run_copy, tmp_path / "archive") as archive:
        elsewhere = invoke("report", archive, "--out", tmp_path / "tables")
        assert elsewhere.returncode == 0, elsewhere.stderr
        assert (tmp_path / "tables" / "units.csv").read_bytes() == (run_copy / "units.csv").read_bytes()
        in_place = one_line(invoke("report", archive))
    assert "Read-only file system" in in_place and "--out" in in_place and "--fresh" not in in_place


def test_a_hot_journal_on_a_read_only_mount_is_one_line_not_the_uncommitted_values(run_copy, tmp_path):
    """The journal cannot be rolled back there, and reading past it would give the killed writer's values."""
    journal = leave_hot_journal(run_copy, "UPDATE units SET exact_match = 0.5")
    left = {path: path.read_bytes() for path in (run_copy / STORE_FILE, journal)}
    claims = tmp_path / "claims.yaml"
    claims.write_text(
        "claims:\n  - id: C\n    about: a chain helps\n    subclaims:\n      - id: C.1\n        says: CC beats BR\n"
        "        metric: exact_match\n        difference: [CC, BR]\n        smallest_effect: 0.01\n"
        "        unit: splits\n"
    )
    with read_only_view(run_copy, tmp_path / "archive") as archive:
        for command in (
            ["report", archive, "--out", tmp_path / "tables"],
            ["export", archive, "--out", tmp_path / "units.csv"],
            ["claims", claims, archive, "--out", tmp_path / "claims"],
        ):
            line = one_line(invoke(*command))
            assert line.startswith(
                f"error: {archive / STORE_FILE}: a write to the results store was cut short, and its rollback "
                f"journal {journal.name} cannot be rolled back here ("
            ), line
            assert line.endswith(
                "reading the store without it would give values never committed (copy the run directory (the "
                "journal with it) to a writable disk, and run the command on the copy)"
            ), line
    assert not (tmp_path / "tables").exists() and not (tmp_path / "units.csv").exists()
    assert {path: path.read_bytes() for path in left} == left


def test_a_report_on_a_full_disk_keeps_the_previous_tables(finished_run, tmp_path):
    """The tables of a smaller run are there; the larger run's tables do not fit."""
    smaller = tmp_path / "smaller"
    assert (
        CliRunner()
        .invoke(cli, ["run", "-d", "Logical", "-m", "BR", "--splits", "1", "-q", "--out", str(smaller)])
        .exit_code
        == 0
    )
    with small_filesystem(tmp_path / "disk", "1m") as disk:
        assert invoke("report", smaller, "--out", disk).returncode == 0
        before = files(disk)
        fill(disk)
        line = one_line(invoke("report", finished_run, "--out", disk))
        after = files(disk)
    assert "No space left on device" in line and "free some space" in line and "--fresh" not in line
    assert after == before, "a table was replaced by a truncated one, or a temporary file was left"


def test_a_report_over_the_file_size_limit_keeps_the_previous_tables(run_copy):
    """A second kind of write fault (RLIMIT_FSIZE: EFBIG), on any machine."""
    before = files(run_copy)

    def limit_file_size():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))

    line = one_line(mlhidden("report", run_copy, preexec_fn=limit_file_size))
    assert "File too large" in line and "units.csv" in line and "--fresh" not in line
    assert files(run_copy) == before


def test_an_export_whose_second_file_does_not_fit_changes_neither(finished_run, tmp_path):
    """The units (4 KB of JSON) fit, their predictions (17 KB) do not: the export there before stays whole."""
    with small_filesystem(tmp_path / "disk", "1m") as disk:
        (disk / "units.json").write_text("the export before\n")
        fill(disk, leave=8 * 1024)
        export = invoke("export", finished_run, "--format", "json", "--out", disk / "units.json", "--predictions")
        line = one_line(export)
        after = files(disk)
    assert line.startswith(f"error: {disk / 'units_predictions.json'}: cannot write the file (No space left on device")
    assert "no file was changed" in line
    assert after == {"units.json": b"the export before\n"}, "a file was replaced, or a temporary file was left"


def test_a_store_on_a_full_disk_is_not_called_broken(run_copy, tmp_path):
    with small_filesystem(tmp_path / "disk", "1m") as disk:
        shutil.copytree(run_copy, disk / "run")
        fill(disk)
        assert invoke("report", disk / "run", "--out", tmp_path / "tables").returncode == 0
        line = one_line(invoke("run", *RUN, "-m", "LP", "--out", disk / "run"))
    assert "No space left on device" in line or "disk is full" in line
    assert "--fresh" not in line and "not an SQLite" not in line


def test_a_repair_on_a_full_disk_leaves_no_partial_copy_so_its_rerun_works(run_copy, tmp_path):
    with small_filesystem(tmp_path / "disk", "8m") as disk:
        run_dir = Path(shutil.copytree(run_copy, disk / "run"))
        with contextlib.closing(sqlite3.connect(run_dir / STORE_FILE)) as conn, conn:
            conn.execute("DROP TABLE meta")
        units = stored_units(run_dir)
        fill(disk, leave=(run_dir / STORE_FILE).stat().st_size // 2)
        line = one_line(invoke("store", "repair", run_dir))
        assert line.startswith(f"error: {run_dir / STORE_FILE}: the disk is full ("), line
        assert sorted(path.name for path in run_dir.iterdir() if STORE_FILE in path.name) == [STORE_FILE]
        (disk / "filler").unlink()
        repair = invoke("store", "repair", run_dir)
        assert repair.returncode == 0, repair.stderr
        assert stored_units(run_dir) == units
        with contextlib.closing(sqlite3.connect(run_dir / STORE_COPY)) as copy:
            assert copy.execute("SELECT count(*) FROM units").fetchone() == (len(units),)


def test_a_full_disk_during_a_run_keeps_the_units_stored_before(tmp_path):
    with small_filesystem(tmp_path / "disk", "2m") as disk:
        assert (
            invoke(
                "run", "-d", "Logical", "-m", "BR", "--splits", "2", "--n-jobs", "1", "-q", "--out", disk / "run"
            ).returncode
            == 0
        )
        fill(disk, leave=96 * 1024)  # room to open the store, not for all 120 units
        options = ["-d", "Logical", "-m", "BR", "-m", "CC", "-m", "LP", "--splits", "40", "--n-jobs", "1", "-q"]
        process = mlhidden("run", *options, "--out", disk / "run")
        assert process.returncode == 2 and "Traceback" not in process.stderr, process.stderr
        line = process.stderr.strip().splitlines()[-1]  # after the progress lines
        (disk / "filler").unlink()
        units = stored_units(disk / "run")
    assert "disk is full" in line and re.search(r"; \d+ of 120 units are stored", line)
    assert "re-run the same command" in line and "--fresh" not in line
    assert {("BR", 0, "ok"), ("BR", 1, "ok")} <= set(units)


def test_an_immutable_store_is_one_line_for_run_and_read_by_report(run_copy, tmp_path):
    before = (run_copy / STORE_FILE).read_bytes()
    with immutable(run_copy / STORE_FILE):
        line = one_line(invoke("run", *RUN, "--out", run_copy))
        report = invoke("report", run_copy, "--out", tmp_path / "tables")
    assert "read-only" in line and "--out" in line and "--fresh" not in line
    assert report.returncode == 0, report.stderr
    assert (run_copy / STORE_FILE).read_bytes() == before


def test_a_run_directory_made_immutable_is_reported_elsewhere(run_copy, tmp_path):
    with immutable(run_copy):
        report = invoke("report", run_copy, "--out", tmp_path / "tables")
        in_place = one_line(invoke("report", run_copy))
    assert report.returncode == 0, report.stderr
    assert "Operation not permitted" in in_place and "--out" in in_place


def test_tables_and_run_json_keep_the_usual_file_permissions(run_copy):
    assert CliRunner().invoke(cli, ["report", str(run_copy)]).exit_code == 0
    umask = os.umask(0)
    os.umask(umask)
    for name in ("units.csv", "tables.md", "exact_match.tex", "run.json"):
        assert (run_copy / name).stat().st_mode & 0o777 == 0o666 & ~umask, name


@pytest.mark.parametrize("writer", ["write_atomically", "write_files"])
def test_a_signal_right_after_the_temporary_file_is_made_leaves_none(tmp_path, monkeypatch, writer):
    """The race CI hit once with ``datasets fetch`` and SIGTERM: the interrupt lands after the temporary
    file exists on disk but before the writer has its name in hand."""
    real_open = os.open

    def open_then_interrupt(path, flags, *args, **kwargs):
        handle = real_open(path, flags, *args, **kwargs)
        if str(path).endswith(".tmp"):
            os.close(handle)
            raise KeyboardInterrupt
        return handle

    monkeypatch.setattr(os, "open", open_then_interrupt)
    target = tmp_path / "out" / "table.md"
    target.parent.mkdir()
    with pytest.raises(KeyboardInterrupt):
        if writer == "write_atomically":
            mlhidden_io.write_atomically(target, lambda stream: stream.write(b"x"))
        else:
            mlhidden_io.write_files([(target, lambda stream: stream.write(b"x"))])
    assert list(target.parent.iterdir()) == []
