"""The tool as a researcher installs it: a wheel built from this checkout, in a fresh virtual
environment, used from a folder with no clone beside it; and the editable install the Makefile makes.

The wheel must carry the paper's datasets and configs (``mlhidden/_shipped/``), so that
``mlhidden run -d Music`` and ``mlhidden reproduce --quick`` work from any folder and write only
where ``--out`` says. Building and installing take a few minutes (the dependencies come from the
package index, or pip's cache): those tests are slow, and ``.ci/run`` runs them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
# What a build reads: the package, the folders it ships, and the metadata's files.
BUILD_INPUTS = ("mlhidden", "datasets", "configs", "pyproject.toml", "README.md", "LICENSE")
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "upstream", "*.egg-info")



def _run(args, cwd, timeout=1800, check=True):
    """A command in a clean environment: no PYTHONPATH (nothing of this checkout leaks in), no data folder."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "MLHIDDEN_DATA", "VIRTUAL_ENV")}
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check:
        assert result.returncode == 0, (
            f"{' '.join(map(str, args))} exited {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )
    return result


def _source_copy(folder: Path) -> Path:
    """This checkout's build inputs, copied (a build writes build/ and *.egg-info beside its sources)."""
    source = folder / "source"
    for name in BUILD_INPUTS:
        origin = PROJECT_ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, ignore=IGNORED)
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, source / name)
    return source


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """``(venv bin folder, wheel)``: the wheel built from a copy of this checkout, installed in a fresh venv."""
    folder = tmp_path_factory.mktemp("wheel")
    source = _source_copy(folder)
    _run(
        [sys.executable, "-m", "pip", "wheel", source, "--no-deps", "--quiet", "--wheel-dir", folder / "dist"],
        cwd=folder,
    )
    (wheel,) = (folder / "dist").glob("mlhidden-*.whl")
    _run([sys.executable, "-m", "venv", folder / "venv"], cwd=folder)
    bin_dir = folder / "venv" / "bin"
    _run([bin_dir / "python", "-m", "pip", "install", "--quiet", wheel], cwd=folder)
    shutil.rmtree(source)
    return bin_dir, wheel


def _empty_folder(tmp_path) -> Path:
    """A working folder with nothing in it and no clone above it (``tmp_path`` is outside the checkout)."""
    folder = tmp_path / "project"
    folder.mkdir()
    assert not (folder.parent / "datasets").exists() and PROJECT_ROOT not in folder.parents
    return folder


def test_pyproject_lists_every_package_of_the_source_tree():
    """The package list is explicit (discovery cannot map the shipped folders): a new subpackage must be added to it."""
    tomllib = pytest.importorskip("tomllib")
    listed = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    on_disk = {
        ".".join(path.parent.relative_to(PROJECT_ROOT).parts)
        for path in (PROJECT_ROOT / "mlhidden").rglob("__init__.py")
    }
    assert on_disk == {name for name in listed if not name.startswith("mlhidden._shipped")}


@pytest.mark.slow
def test_the_wheel_carries_the_datasets_and_configs_but_not_the_upstream_copies(installed):
    import zipfile

    names = set(zipfile.ZipFile(installed[1]).namelist())
    for path in ("Music.arff.bz2", "Scene.arff.bz2", "Logical.arff", "SOURCES.md"):
        assert f"mlhidden/_shipped/datasets/{path}" in names
    assert {f"mlhidden/_shipped/configs/{p.name}" for p in (PROJECT_ROOT / "configs").glob("*.yaml")} <= names
    assert not [name for name in names if "upstream" in name]
    assert [name for name in names if name.endswith(".dist-info/licenses/LICENSE")], "the licence ships too"


@pytest.mark.slow
def test_the_installed_wheel_runs_a_paper_dataset_from_any_folder(installed, tmp_path):
    bin_dir, _ = installed
    work = _empty_folder(tmp_path)
    listing = _run([bin_dir / "mlhidden", "datasets", "list"], cwd=work)
    assert "missing" not in listing.stdout, listing.stdout
    _run([bin_dir / "mlhidden", "run", "-d", "Music", "-m", "BR", "--splits", "2", "--out", "music", "-q"], cwd=work)
    record = json.loads((work / "music" / "run.json").read_text())
    assert record["units"]["done"] == 2 and record["units"]["failed"] == 0
    assert (work / "music" / "tables.md").is_file()
    assert sorted(os.listdir(work)) == ["music"]


@pytest.mark.slow
def test_the_installed_wheel_reproduces_the_quick_paper_run_into_out(installed, tmp_path):
    bin_dir, _ = installed
    work = _empty_folder(tmp_path)
    _run([bin_dir / "mlhidden", "reproduce", "--quick", "--out", "paper", "--quiet"], cwd=work, timeout=3600)
    assert (work / "paper" / "REPORT.md").is_file()
    assert sorted(os.listdir(work)) == ["paper"]


@pytest.mark.slow
def test_a_newcomer_follows_the_readme_from_an_empty_folder(installed, tmp_path):
    """One run, their own ARFF by path with its t-test, the quick reproduction's page and ``mlhidden claims``,
    with the wheel's ``mlhidden`` from a folder with nothing in it, as the README writes the commands."""
    from own_data import write_own_arff

    bin_dir, _ = installed
    mlhidden = bin_dir / "mlhidden"
    work = _empty_folder(tmp_path)
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    first = re.search(r"```sh\n\.venv/bin/mlhidden (run [^\n]+)\n```", readme).group(1)
    _run([mlhidden, *first.split(), "-q"], cwd=work)
    assert (work / "results" / "Music_BR-CC" / "index.html").is_file()

    by_path = next(line.split("#")[0].split() for line in readme.splitlines()
                   if line.startswith("mlhidden run -d ") and ".arff" in line.split("#")[0])
    write_own_arff(work / by_path[by_path.index("-d") + 1], relation="Sensors")
    own = _run([mlhidden, *by_path[1:], "--splits", "3", "--html", "--stats", "--out", "own"], cwd=work)
    assert "one dataset, Sensors: methods compared over its 3 splits (corrected resampled t-test" in own.stdout
    assert "significance over the splits of Sensors" in (work / "own" / "statistics.md").read_text(encoding="utf-8")
    assert "significance over the splits of Sensors" in (work / "own" / "index.html").read_text(encoding="utf-8")

    _run([mlhidden, "reproduce", "--quick", "--out", "paper", "--quiet"], cwd=work, timeout=3600)
    page = (work / "paper" / "index.html").read_text(encoding="utf-8")
    assert not re.findall(r"\bmake (?:reproduce|sensitivity)\b", page), "a wheel user has no Makefile"

    _run([mlhidden, "init", "--from", "claims"], cwd=work)
    verdicts = _run([mlhidden, "claims", "claims.yaml", "paper"], cwd=work)
    assert "C1" in verdicts.stdout and "C8" in verdicts.stdout
    assert sorted(os.listdir(work)) == ["claims.yaml", "own", "paper", "path", "results"]


PLUGIN_PROJECT = {
    "pyproject.toml": """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "mlhidden-blobs"
version = "1.0"

[project.entry-points."mlhidden.datasets"]
Blobs = "mlhidden_blobs:load_blobs"

[project.entry-points."mlhidden.metrics"]
recall = "mlhidden_blobs:label_recall"
""",
    "mlhidden_blobs.py": """\
import numpy as np

from mlhidden.data import Dataset


def load_blobs(n=40):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] + X[:, 2] > 0]).astype(np.int8)
    return Dataset(name="Blobs", X=X, Y=Y, feature_names=("a", "b", "c"), label_names=("first", "second"))


def label_recall(Y_true, Y_pred):
    return float((Y_true & Y_pred).sum() / max(Y_true.sum(), 1))
""",
}


@pytest.mark.slow
def test_a_pip_installed_plugin_package_provides_a_dataset_and_a_metric(installed, tmp_path):
    bin_dir, _ = installed
    project = tmp_path / "plugin"
    project.mkdir()
    for name, text in PLUGIN_PROJECT.items():
        (project / name).write_text(text)
    _run([bin_dir / "python", "-m", "pip", "install", "--quiet", "--no-deps", project], cwd=tmp_path)
    work = _empty_folder(tmp_path)
    assert "Blobs" in _run([bin_dir / "mlhidden", "datasets", "list"], cwd=work).stdout
    _run([bin_dir / "mlhidden", "run", "-d", "blobs", "-m", "BR", "--splits", "2", "--out", "run", "-q"], cwd=work)
    report = _run([bin_dir / "mlhidden", "report", "run", "--metric", "recall"], cwd=work)
    row = next(line for line in report.stdout.splitlines() if line.startswith("Blobs"))
    assert 0 < float(row.split()[1]) <= 1


@pytest.mark.slow
def test_an_editable_install_finds_the_clones_datasets_and_configs(installed, tmp_path):
    """``pip install -e .`` (the Makefile's install) maps nothing: the clone's own folders are read."""
    bin_dir, _ = installed
    source = _source_copy(tmp_path).resolve()
    _run([bin_dir / "python", "-m", "pip", "install", "--quiet", "--no-deps", "-e", source], cwd=tmp_path)
    try:
        work = _empty_folder(tmp_path)
        where = _run([bin_dir / "python", "-c", "from mlhidden.shipped import config_folder, shipped_folder; "
                      "print(shipped_folder('datasets')); print(config_folder())"], cwd=work)
        assert where.stdout.split() == [str(source / "datasets"), str(source / "configs")]
        _run(
            [bin_dir / "mlhidden", "run", "-d", "Music", "-m", "BR", "--splits", "1", "--out", "music", "-q"], cwd=work
        )
    finally:
        _run(
            [bin_dir / "python", "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", installed[1]],
            cwd=tmp_path,
        )
