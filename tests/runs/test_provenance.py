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
    def interrupt(unit, result, done, total):
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


# run.json edited by hand or by another tool: each field the footer shows, given another JSON type (or
# an object lacking what the footer reads), and a value of the wrong type per field for the CLI cases.
MISTYPED = {
    "config": [None, [1], 3, "Logical_BR", {"name": 3}],
    "config_hash": [None, [1], 3, {}],
    "seeds": [None, [1], 3, "7", {"run_seed": "7"}],
    "mlhidden": [None, [1], 3, "0.1.0", {"version": 1}],
    "python": [None, [1], 3, "3.11", {"version": None}],
    "packages": [None, [1], 3, "numpy 2.0", {"numpy": 2}],
    "machine": [None, [1], 3, "laptop", {"cores": "two"}, {"cores": 2, "memory_bytes": "8G"}],
    "backend": [None, [1], 3, "loky", {"name": "dask"}, {"name": "loky", "blas": {"libraries": 3}}],
    "started_at": [None, [1], 3, {}],
    "finished_at": [[1], 3, {}],
    "status": [None, [1], 3, {}],
    "units": [None, [1], 3, "2", {"total": 2}],
}
RUN = ["-d", "Logical", "-m", "BR", "--splits", "2", "--n-jobs", "1", "-q"]


def invoke(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("small") / "run"
    ran = invoke("run", *RUN, "--out", run_dir)
    assert ran.exit_code == 0, ran.output
    return run_dir


@pytest.fixture
def edit_run_json(small_run, tmp_path):
    """A copy of the small run whose run.json gets ``edit``'s fields (each written as given)."""
    copy = tmp_path / "run"
    shutil.copytree(small_run, copy)

    def edit(**fields) -> Path:
        record = json.loads((copy / RUN_JSON).read_text())
        (copy / RUN_JSON).write_text(json.dumps({**record, **fields}))
        return copy

    return edit


@pytest.mark.parametrize(
    ("field", "value"), [(field, value) for field, values in MISTYPED.items() for value in values]
)
def test_the_footer_calls_a_mistyped_field_unreadable_and_keeps_the_others(small_run, field, value):
    record = read_run_json(small_run)
    footer = provenance_line({**record, field: value})
    assert f"{field} unreadable" in footer
    assert len(set(provenance_line(record).split("; ")) - set(footer.split("; "))) == 1


# Through the CLI: each field as null (a list for finished_at), and as a list, a number or text in turn.
REPORTED = [(field, values[i]) for k, (field, values) in enumerate(MISTYPED.items()) for i in (0, 1 + k % 3)]


@pytest.mark.parametrize(("field", "value"), REPORTED)
def test_report_on_a_mistyped_descriptive_field_keeps_the_tables(small_run, edit_run_json, field, value):
    run_dir = edit_run_json(**{field: value})
    reported = invoke("report", run_dir)
    assert reported.exit_code == 0, (reported.output, reported.exception)
    footer = next(line for line in reported.output.splitlines() if line.startswith("provenance: "))
    assert f"{field} unreadable" in footer and "Traceback" not in reported.output
    for table in ("exact_match.md", "exact_match.csv", "hamming_score.md", "units.csv"):
        assert (run_dir / table).read_bytes() == (small_run / table).read_bytes()
    assert (run_dir / "exact_match.tex").read_text().startswith(f"% {footer.removeprefix('provenance: ')}\n")


def test_the_page_and_a_rerun_read_a_run_json_with_mistyped_fields(edit_run_json):
    run_dir = edit_run_json(packages=None, units=None)
    page = invoke("report", "--html", run_dir)
    assert page.exit_code == 0, (page.output, page.exception)
    assert "packages unreadable" in (run_dir / "index.html").read_text()
    rerun = invoke("run", *RUN, "--out", run_dir)  # nothing left to compute, so it only rewrites run.json
    assert rerun.exit_code == 0, (rerun.output, rerun.exception)
    record = read_run_json(run_dir)
    assert record["units"]["skipped"] == 2 and isinstance(record["packages"], dict)


@pytest.mark.parametrize("precision", ["3", 1.5, True, -1, 13, [3], {"decimals": 3}])
def test_a_mistyped_precision_is_refused_in_one_line_since_the_tables_show_it(edit_run_json, precision):
    run_dir = edit_run_json(precision=precision)
    for command in (["report", run_dir], ["run", *RUN, "--out", run_dir]):
        refused = invoke(*command)
        assert refused.exit_code == 2 and refused.stderr.count("\n") == 1, (refused.output, refused.exception)
        assert refused.stderr == (
            f"error: {run_dir / RUN_JSON}: its 'precision' is {json.dumps(precision)}, not a whole number of "
            "decimals from 0 to 12 (correct it, or remove it for the default decimals, or give --precision N, "
            "which `run` keeps in its place)\n"
        )
    assert invoke("report", "--precision", 3, run_dir).exit_code == 0
    assert invoke("run", *RUN, "--precision", 3, "--out", run_dir).exit_code == 0
    assert read_run_json(run_dir)["precision"] == 3
