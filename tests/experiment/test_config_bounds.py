"""Config bounds and YAML hazards through the real CLI: what the bad-input corpus cannot show by a line alone.

A YAML bomb must be refused in seconds, a python tag must run nothing, ``n_jobs`` beyond the
machine or the cluster is capped with a warning, a run's name cannot lead out of ``results/``,
and method names match in any case as dataset names do.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import distributed
import joblib
import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.errors import InputWarning, UserError
from mlhidden.experiment.backends import ExecutionBackend, worker_count
from mlhidden.experiment.config import MAX_SPLITS, MAX_UNITS, config_from_options, load_config
from mlhidden.experiment.sweeps import MAX_ENTRIES
from mlhidden.methods import registry
from mlhidden.methods.registry import METHODS, MethodEntry, get_entry
from mlhidden.yaml_lines import MAX_NESTING, MAX_VALUES

PROJECT = Path(__file__).resolve().parents[2]
BAD = PROJECT / "tests" / "fixtures" / "bad"


def _mlhidden(*args, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """``python -m mlhidden ARGS`` from ``cwd``, importing this checkout's package."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    return subprocess.run(
        [sys.executable, "-m", "mlhidden", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout
    )


def test_a_billion_laughs_config_is_refused_without_expanding_it(tmp_path):
    process = _mlhidden(
        "run", "--config", str(BAD / "yaml_billion_laughs.yaml"), "--out", str(tmp_path / "run"), cwd=tmp_path
    )
    assert process.returncode == 2
    assert process.stderr.splitlines() == [
        f"error: {BAD}/yaml_billion_laughs.yaml:5: aliases expand this file by more than {MAX_VALUES:,} values "
        f"(aliases may add at most {MAX_VALUES:,} values: use fewer or smaller aliases *name)"
    ]
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("tagged", [
    "splits: !!python/object/apply:os.system ['touch pwned']",
    "methods: [!!python/object/apply:os.system ['touch pwned']]",
    "seed: !!python/name:os.system",
])
def test_a_python_tag_runs_nothing_and_is_one_line(tmp_path, tagged):
    config = tmp_path / "tagged.yaml"
    lines = {"datasets": "datasets: [Logical]", "methods": "methods: [BR]", "splits": "splits: 2", "seed": "seed: 0"}
    lines[tagged.split(":")[0]] = tagged
    config.write_text("\n".join(lines.values()) + "\n")
    line = list(lines).index(tagged.split(":")[0]) + 1
    process = _mlhidden("run", "--config", str(config), "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert process.returncode == 2, process.stderr
    [error] = process.stderr.splitlines()
    assert error.startswith(f"error: {config}:{line}: the YAML tag !!python/") and "Traceback" not in process.stderr
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "run").exists()


def test_aliases_and_anchors_still_read_with_their_lines(tmp_path):
    config = tmp_path / "aliased.yaml"
    config.write_text(
        "datasets: [Logical]\nmethods:\n  - {name: CCASL, sweep: {n_synthetic: &K [1, 2]}}\n"
        "  - {name: MLP, sweep: {n_hidden: *K}}\n"
    )
    loaded = load_config(config)
    assert [m.label for m in loaded.methods] == [
        "CCASL [n_synthetic=1]",
        "CCASL [n_synthetic=2]",
        "MLP [n_hidden=1]",
        "MLP [n_hidden=2]",
    ]
    nested = tmp_path / "nested.yaml"
    nested.write_text(
        "datasets: [Logical]\nmethods: [BR]\nseed: " + "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1) + "\n"
    )  # the file is one level
    with pytest.raises(UserError, match=f"{nested}:3: 'seed' must be an integer"):
        load_config(nested)


def test_n_jobs_beyond_the_cores_is_capped_with_a_warning(tmp_path):
    cores = joblib.cpu_count()
    config = tmp_path / "wide.yaml"
    config.write_text("datasets: [Logical]\nmethods: [BR]\nsplits: 2\nn_jobs: 100000\n")
    result = CliRunner().invoke(cli, ["run", "--config", str(config), "--out", str(tmp_path / "run"), "-q"])
    assert result.exit_code == 0, result.output
    capped = f"is more than the {cores} cores of this machine: running {cores} units at a time (-1 uses them all)"
    assert f"warning: {config}:4: n_jobs: 100000 {capped}" in result.stderr.splitlines()
    option = CliRunner().invoke(
        cli, ["run", "--config", str(config), "--out", str(tmp_path / "run"), "-q", "--n-jobs", "100000"]
    )
    assert option.exit_code == 0, option.output
    assert f"warning: --n-jobs 100000 {capped}" in option.stderr.splitlines()
    with pytest.warns(InputWarning):
        assert ExecutionBackend("loky").slots(100000) == cores
    assert [worker_count(n_jobs, cores) for n_jobs in (None, -1, 100000, 1)] == [cores, cores, cores, 1]


def test_n_jobs_beyond_the_dask_cluster_is_capped_to_its_threads():
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=3, processes=False, protocol="tcp://", host="127.0.0.1", dashboard_address=None
    ) as cluster, ExecutionBackend("dask", cluster.scheduler_address) as backend:
        with pytest.warns(
            InputWarning, match=f"more than the 3 worker threads of the dask cluster at {cluster.scheduler_address}"
        ):
            assert worker_count(100000, backend.slots(100000, "--n-jobs")) == 3
        assert worker_count(3, backend.slots(3)) == 3


@pytest.mark.parametrize("name", ["../escaped", "ABSOLUTE", "sub/../../escaped", "..", ""])
def test_a_run_name_cannot_lead_out_of_results(tmp_path, monkeypatch, name):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    written = str(tmp_path / "absolute") if name == "ABSOLUTE" else name
    config = work / "escape.yaml"
    config.write_text(f"name: '{written}'\ndatasets: [Logical]\nmethods: [BR]\nsplits: 2\n")
    result = CliRunner().invoke(cli, ["run", "--config", str(config), "-q", "--n-jobs", "1"])
    if name == "":  # an empty name falls back to the file's name
        assert result.exit_code == 0 and (work / "results" / "escape").is_dir()
        return
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        f"error: {config}:1: 'name' must be a folder name (it names the run directory results/NAME), got {written!r} "
        "(write a name without / or .., and give --out DIR to write the run elsewhere)"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work"] and sorted(p.name for p in work.iterdir()) == [
        "escape.yaml"
    ]


def test_method_names_match_in_any_case_like_dataset_names(tmp_path):
    result = CliRunner().invoke(
        cli,
        [
            "run",
            "-d",
            "logical",
            "-m",
            "br",
            "-m",
            "ccasl",
            "--splits",
            "2",
            "--n-jobs",
            "1",
            "--out",
            str(tmp_path),
            "-q",
        ],
    )
    assert result.exit_code == 0, result.output
    header = (tmp_path / "exact_match.csv").read_text().splitlines()[0]
    assert {"BR", "CCASL"} <= set(header.split(",")) and "ccasl" not in header and "br" not in header.split(",")
    typed, registered = config_from_options(["Logical"], ["ccasl+aml"]), config_from_options(["Logical"], ["CCASL+AML"])
    assert typed.methods[0].params_hash == registered.methods[0].params_hash and typed.methods[0].name == "CCASL+AML"


def test_a_method_name_two_registered_names_share_ignoring_case_must_be_exact(monkeypatch):
    monkeypatch.setattr(
        registry, "entry_point_methods", lambda: {"br": MethodEntry(METHODS["BR"].cls, "a plugin's br")}
    )
    assert get_entry("BR") is METHODS["BR"] and get_entry("br").summary == "a plugin's br"
    with pytest.raises(UserError, match="method 'Br' matches BR and br when case is ignored"):
        get_entry("Br")


def test_a_misspelt_dataset_gets_a_did_you_mean_everywhere(tmp_path):
    verify = CliRunner().invoke(cli, ["datasets", "verify", "muzic"])
    assert verify.exit_code == 2
    assert verify.stderr.startswith("error: unknown dataset 'muzic' (did you mean 'Music'? catalog datasets are ")
    method = CliRunner().invoke(cli, ["run", "-d", "Logical", "-m", "ccsal", "--out", str(tmp_path)])
    assert method.exit_code == 2 and "(did you mean 'CCASL'? valid methods: " in method.stderr


def test_the_config_docs_state_the_config_limits():
    section = (PROJECT / "docs" / "configs.md").read_text(encoding="utf-8")
    for limit in (MAX_SPLITS, MAX_ENTRIES, MAX_UNITS, MAX_VALUES, MAX_NESTING):
        assert f"{limit:,}" in section, limit
