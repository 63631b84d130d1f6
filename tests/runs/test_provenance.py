"""run.json: written at the start and the end of every run, checked field by field against the real things."""

import hashlib
import json
import os
import platform
import shutil
import subprocess
from datetime import datetime
from importlib import metadata
from pathlib import Path

import pytest
from click.testing import CliRunner

import mlhidden
from mlhidden.cli import cli
from mlhidden.data import catalog_entries, make_logical
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import run_experiment
from mlhidden.runs.provenance import RUN_JSON, SOURCE_PATHS, git_revision, provenance_line, read_run_json
from mlhidden.runs.splits import method_seed
from mlhidden.runs.store import load_results

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CONFIG = {"name": "prov", "datasets": ["Music", "Logical"], "methods": ["BR"], "splits": 2, "seed": 7}


def git(*args):
    done = subprocess.run(["git", *args], cwd=PROJECT_ROOT, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


@pytest.fixture(scope="module")
def provenance_run(tmp_path_factory, mirror_dir):
    """A real run of Music and Logical, with the run.json seen when the first unit is about to start."""
    run_dir = tmp_path_factory.mktemp("prov")
    config = parse_config(CONFIG, data_dir=mirror_dir)
    at_start = []
    summary = run_experiment(
        config,
        run_dir,
        n_jobs=1,
        on_start=lambda total, skipped, pending, workers=None: at_start.append(read_run_json(run_dir)),
    )
    return config, summary, at_start[0], read_run_json(run_dir), run_dir


def test_run_json_is_written_before_the_first_unit(provenance_run):
    config, _, at_start, _, _ = provenance_run
    assert at_start["status"] == "running" and at_start["finished_at"] is None
    assert at_start["units"] == {"total": 0, "done": 0, "failed": 0, "skipped": 0, "not_run": 0}
    assert at_start["config_hash"] == config.config_hash


def test_run_json_records_the_config_code_data_seeds_machine_and_counts(provenance_run, mirror_dir):
    config, summary, _, record, run_dir = provenance_run
    assert record["format"] == 1 and record["status"] == "finished"
    assert record["config"] == json.loads(json.dumps(config.record()))
    assert record["config_hash"] == config.config_hash == record["config"]["config_hash"]

    head = git("rev-parse", "HEAD")
    assert record["mlhidden"] == {
        "version": mlhidden.__version__,
        "git_commit": head,
        "git_dirty": None
        if head is None
        else bool(git("status", "--porcelain", "--untracked-files=no", "--", *SOURCE_PATHS)),
    }
    assert record["python"]["version"] == platform.python_version()
    for package in ("numpy", "scipy", "scikit-learn", "joblib", "pandas", "liac-arff"):
        assert record["packages"][package] == metadata.version(package)

    music_sha = hashlib.sha256((mirror_dir / "Music.arff").read_bytes()).hexdigest()
    assert music_sha == next(e.sha256 for e in catalog_entries() if e.name == "Music")
    assert record["datasets"] == {"Music": music_sha, "Logical": make_logical().checksum}
    assert record["unavailable"] == {}

    units = load_results(run_dir).units
    seeds = record["seeds"]
    assert (seeds["run_seed"], seeds["train_fraction"]) == (7, 0.6)
    for dataset in ("Music", "Logical"):
        stored = units[units.dataset == dataset].sort_values("split")["seed"].tolist()
        assert seeds["split_seeds"][dataset] == stored
        assert seeds["method_seeds"][dataset] == [method_seed(7, dataset, i) for i in range(2)]

    assert record["machine"]["cores"] == os.cpu_count()
    assert record["machine"]["memory_bytes"] > 2**28
    assert {key: record["backend"][key] for key in ("name", "cores")} == {"name": "loky", "cores": os.cpu_count()}
    blas = record["backend"]["blas"]
    assert blas["threads_per_unit"] == 1
    assert {(library["user_api"], library["internal_api"]) for library in blas["libraries"]} >= {("blas", "openblas")}
    assert all(library["version"] for library in blas["libraries"] if library["user_api"] == "blas")
    started, finished = (datetime.fromisoformat(record[key]) for key in ("started_at", "finished_at"))
    assert started <= finished and started.tzinfo is not None
    assert record["units"] == summary.unit_counts() == {"total": 4, "done": 4, "failed": 0, "skipped": 0, "not_run": 0}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_modified_means_changed_sources_not_rewritten_results(tmp_path):
    def run_git(*args):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True, capture_output=True
        )

    files = [
        "mlhidden/__init__.py",
        "configs/paper.yaml",
        "Makefile",
        "pyproject.toml",
        "results/paper/units.csv",
        "README.md",
    ]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("original\n")
    run_git("init", "-q")
    run_git("add", ".")
    run_git("commit", "-q", "-m", "initial")
    assert git_revision(tmp_path)["git_dirty"] is False

    (tmp_path / "results/paper/units.csv").write_text("rewritten by make reproduce\n")
    (tmp_path / "README.md").write_text("edited\n")
    assert git_revision(tmp_path)["git_dirty"] is False
    for name in files[:4]:
        (tmp_path / name).write_text("changed\n")
        assert git_revision(tmp_path)["git_dirty"] is True, name
        run_git("checkout", "--", name)


def test_a_resumed_run_counts_stored_units_as_skipped(provenance_run, mirror_dir, tmp_path):
    config, _, _, first, run_dir = provenance_run
    resumed = tmp_path / "resumed"
    shutil.copytree(run_dir, resumed)
    run_experiment(parse_config({**CONFIG, "methods": ["BR", "CC"]}, data_dir=mirror_dir), resumed, n_jobs=1)
    again = read_run_json(resumed)
    assert again["units"] == {"total": 8, "done": 4, "failed": 0, "skipped": 4, "not_run": 0}
    assert again["started_at"] >= first["started_at"]


def test_an_invocation_with_nothing_to_compute_keeps_the_record_of_the_one_that_computed(
    provenance_run, mirror_dir, tmp_path
):
    """Re-running a finished run only rebuilds tables; its run.json still says how the units were made."""
    _, _, _, first, run_dir = provenance_run
    finished = tmp_path / "finished"
    shutil.copytree(run_dir, finished)
    before = (finished / RUN_JSON).read_bytes()
    summary = run_experiment(parse_config(CONFIG, data_dir=mirror_dir), finished, n_jobs=1)
    assert summary.n_skipped == summary.n_units == 4 and summary.n_done == 0
    assert (finished / RUN_JSON).read_bytes() == before and first["units"]["done"] == 4


def test_an_interrupted_run_says_so(tmp_path):
    def interrupt(row, done, total):
        raise KeyboardInterrupt

    summary = run_experiment(
        parse_config({"datasets": ["Logical"], "methods": ["BR"], "splits": 3}), tmp_path, n_jobs=1, on_unit=interrupt
    )
    record = read_run_json(tmp_path)
    assert summary.interrupted and record["status"] == "interrupted"
    assert record["units"]["done"] == 1 and record["finished_at"] is not None


def test_report_prints_provenance_and_latex_tables_carry_it(tmp_path):
    out = tmp_path / "smoke"
    runner = CliRunner()
    ran = runner.invoke(
        cli, ["run", "--config", "configs/smoke.yaml", "--out", str(out), "--n-jobs", "1", "--splits", "2", "--quiet"]
    )
    assert ran.exit_code == 0, ran.output
    line = provenance_line(read_run_json(out))
    assert line.startswith("run smoke (config ") and "4 units: 4 done, 0 failed, 0 skipped, 0 not run" in line
    assert line.isascii(), "LaTeX comments should stay ASCII"

    reported = runner.invoke(cli, ["report", str(out)])
    assert reported.exit_code == 0
    assert f"provenance: {line}" in reported.output.splitlines()
    for table in ("exact_match.tex", "hamming_score.tex", "total_seconds.tex"):
        tex = (out / table).read_text()
        assert tex.startswith(f"% {line}\n\\begin{{table}}")
    tables_md = (out / "tables.md").read_text()
    assert tables_md.rstrip().endswith("## Provenance\n\n- " + line.replace("_", "\\_"))
    assert (out / RUN_JSON).is_file()
