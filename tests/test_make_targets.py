"""``git status`` stays clean after ``make smoke``, ``make reproduce QUICK=1`` and ``make bench
BENCH_ARGS=--quick``: what they write is ignored by the repository's .gitignore.

Checked in a scratch repository holding only that .gitignore, so the test runs where CI copies the
checkout without its .git folder.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from benchmarks.results_file import QUICK_RESULTS

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not (shutil.which("git") and shutil.which("make")), reason="needs git and make")


def make_commands(*args: str) -> str:
    """The commands ``make ARGS`` would run, without building the virtualenv first."""
    return subprocess.run(
        ["make", "-n", "-o", ".venv/.installed", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture(scope="module")
def ignored(tmp_path_factory):
    scratch = tmp_path_factory.mktemp("repository")
    subprocess.run(["git", "init", "-q", str(scratch)], check=True)
    shutil.copy(ROOT / ".gitignore", scratch / ".gitignore")

    def check(path: str) -> bool:
        return subprocess.run(["git", "-C", str(scratch), "check-ignore", "-q", path]).returncode == 0

    return check


def test_make_smoke_writes_where_git_ignores_it(ignored):
    (out,) = re.findall(r"mlhidden run --config configs/smoke.yaml --out (\S+)", make_commands("smoke"))
    for name in ("store.sqlite", "run.json", "exact_match.csv", "exact_match.tex", "units.csv"):
        assert ignored(f"{out}/{name}"), f"{out}/{name}"
    assert not ignored("results/paper/exact_match.csv"), "the committed results stay tracked"


def test_make_reproduce_quick_writes_where_git_ignores_it(ignored):
    assert "mlhidden reproduce --quick" in make_commands("reproduce", "QUICK=1")
    for name in ("REPORT.md", "index.html", "paper/store.sqlite", "paper/exact_match.csv", "figures/logical.png"):
        assert ignored(f"results/quick/{name}"), name


def test_make_bench_quick_writes_where_git_ignores_it(ignored):
    commands = make_commands("bench", "BENCH_ARGS=--quick")
    for module in (
        "benchmarks.run",
        "benchmarks.dispatch",
        "benchmarks.shared_fits",
        "benchmarks.cost_priors",
        "benchmarks.single_exp",
    ):
        assert re.search(rf"-m {re.escape(module)} .*--quick", commands), module
    assert ignored(str(QUICK_RESULTS.relative_to(ROOT)))
    assert not ignored("benchmarks/results.md"), "a full make bench updates the committed figures"
    assert "--quick" not in make_commands("bench")


def test_the_readmes_first_run_writes_where_git_ignores_it(ignored):
    """A newcomer's first command in a clone leaves ``git status`` clean."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (out,) = re.findall(r"writes the run\s+directory `(results/[^`/]+)/`", readme)
    for name in ("store.sqlite", "run.json", "index.html", "exact_match.csv", "tables.md"):
        assert ignored(f"{out}/{name}"), f"{out}/{name}"


def test_make_multiverse_keeps_its_units_files_and_leaves_make_reproduce_as_it_was(ignored):
    assert re.search(r"mlhidden multiverse +--n-jobs", make_commands("multiverse"))
    assert re.search(r"mlhidden multiverse --quick --dry-run", make_commands("multiverse", "QUICK=1", "DRY_RUN=1"))
    assert "multiverse" not in make_commands("reproduce"), "the multiverse is its own target"
    piece = "results/multiverse/j_paper_era/seed1/logical"
    assert ignored(f"{piece}/store.sqlite") and ignored(f"{piece}/shared_fits/fit.npz")
    assert not ignored(f"{piece}/units.csv.gz") and not ignored("results/multiverse/multiverse.json"), "committed"
    assert not ignored("results/multiverse/claims_multiverse.csv")
    assert ignored("results/quick/multiverse/j_paper_era/seed1/logical/units.csv.gz")
