"""The real CLI through Click's runner: outputs written, errors as one line with exit code 2."""

import re

import pytest
from click.testing import CliRunner

from mlhidden.cli import cli


@pytest.fixture
def runner():
    return CliRunner()


def test_run_writes_store_and_tables_and_report_rebuilds_them(runner, tmp_path):
    out = tmp_path / "smoke"
    result = runner.invoke(
        cli, ["run", "--config", "configs/smoke.yaml", "--out", str(out), "--n-jobs", "1", "--splits", "3", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    for name in ("store.sqlite", "units.csv", "exact_match.csv", "exact_match.tex", "exact_match.md",
                 "hamming_score.tex", "total_seconds.tex", "tables.md"):
        assert (out / name).is_file(), name
    assert "avg rank" in result.output and "Logical" in result.output
    tex = (out / "exact_match.tex").read_text()
    (out / "exact_match.tex").unlink()
    again = runner.invoke(cli, ["report", str(out)])
    assert again.exit_code == 0, again.output
    assert (out / "exact_match.tex").read_text() == tex


def test_run_builds_one_typed_options_object_and_python_runs_the_same_with_it(runner, tmp_path, monkeypatch):
    from mlhidden.experiment.run_options import RunOptions
    from mlhidden.runs.store import load_results

    given, execute = [], RunOptions.execute

    def recorded(options, *args, **kwargs):
        given.append(options)
        return execute(options, *args, **kwargs)

    monkeypatch.setattr(RunOptions, "execute", recorded)
    out = tmp_path / "cli"
    result = runner.invoke(cli, ["run", "-d", "Logical", "-m", "BR", "-m", "CC", "--label", "", "--label", "chain",
                                 "--splits", "2", "--out", str(out), "--n-jobs", "1", "--quiet", "--std"])
    assert result.exit_code == 0, result.output
    assert given == [RunOptions(datasets=("Logical",), methods=("BR", "CC"), method_labels=("", "chain"), splits=2,
                                out=str(out), n_jobs=1, quiet=True, std=True)]
    from_python = RunOptions(datasets=("Logical",), methods=("BR", "CC"), method_labels=("", "chain"), splits=2,
                             out=tmp_path / "python", n_jobs=1)
    summary = from_python.run()
    assert (summary.n_done, summary.n_failed) == (4, 0)
    columns = ["dataset", "method", "split", "seed", "exact_match", "hamming_score"]
    ran, ours = load_results(out).units[columns], load_results(tmp_path / "python").units[columns]
    assert set(ran["method"]) == {"BR", "chain"}
    assert ran.sort_values(columns).values.tolist() == ours.sort_values(columns).values.tolist()


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["run", "--config", "nope.yaml"], "nope.yaml: config file not found"),
        (["report", "/nonexistent/run"], "no results store here"),
        (["datasets", "info", "NoSuchData"], "NoSuchData"),
    ],
)
def test_user_errors_are_one_line_with_exit_code_2(runner, args, fragment):
    result = runner.invoke(cli, args)
    assert result.exit_code == 2
    assert fragment in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_bad_config_names_the_valid_methods(runner, tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text("datasets: [Logical]\nmethods: [BR, XCC]\n")
    result = runner.invoke(cli, ["run", "--config", str(config), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert f"{config}:2: unknown method 'XCC' (did you mean 'CC'? valid methods: BR, CC" in result.output
    assert not (tmp_path / "out").exists(), "nothing is written for an invalid config"


def test_methods_lists_the_registry(runner):
    result = runner.invoke(cli, ["methods"])
    assert result.exit_code == 0
    assert "BR" in result.output and "order=None" in result.output and "logistic" in result.output
    assert re.search(r"^\| BR +\| mlhidden +\|", result.output, re.MULTILINE)
    assert "sklearn.neighbors.KNeighborsClassifier" in result.output


EXPECTED_TABLE = {
    # name: (N, L, D, LC)
    "Music": (592, 6, 71, "1.87"), "Scene": (2407, 6, 294, "1.07"), "Yeast": (2417, 14, 103, "4.24"),
    "Medical": (978, 45, 1449, "1.25"), "Enron": (1702, 53, 1001, "3.38"), "Reuters": (6000, 103, 500, "1.46"),
    "OHSUMED": (13929, 23, 1002, "1.66"), "Bibtex": (7395, 159, 1836, "2.40"), "Corel5k": (5000, 374, 499, "3.52"),
}


def test_datasets_list_reproduces_the_catalog_table(runner, mirror_dir):
    result = runner.invoke(cli, ["datasets", "list", "--data-dir", str(mirror_dir)])
    assert result.exit_code == 0, result.output
    lines = {line.split("|")[1].strip(): line for line in result.output.splitlines() if line.startswith("|")}
    for name, (n, n_labels, d, lc) in EXPECTED_TABLE.items():
        cells = [c.strip() for c in lines[name].split("|")]
        assert str(n) in cells and str(n_labels) in cells and str(d) in cells and lc in cells, lines[name]
    assert "not available (put MediaMill.arff in the data path)" in lines["MediaMill"]


def test_datasets_verify_and_fetch(runner, mirror_dir, tmp_path):
    fetched = runner.invoke(
        cli, ["datasets", "fetch", "Music", "--mirror", str(mirror_dir), "--data-dir", str(tmp_path)]
    )
    assert fetched.exit_code == 0, fetched.output
    assert (tmp_path / "Music.arff").read_bytes() == (mirror_dir / "Music.arff").read_bytes()
    verified = runner.invoke(cli, ["datasets", "verify", "Music", "--data-dir", str(tmp_path)])
    assert verified.exit_code == 0 and "ok" in verified.output
    (tmp_path / "Music.arff").write_bytes(b"@relation broken\n")
    corrupted = runner.invoke(cli, ["datasets", "verify", "Music", "--data-dir", str(tmp_path)])
    assert corrupted.exit_code == 1 and "mismatch" in corrupted.output


def test_report_with_statistics_writes_tests_and_diagrams(runner, tmp_path, mirror_dir):
    config = tmp_path / "two.yaml"
    config.write_text("name: two\ndatasets: [Logical, Music, Scene]\nmethods: [BR, CC]\nsplits: 2\n")
    out = tmp_path / "two"
    result = runner.invoke(
        cli,
        ["run", "--config", str(config), "--out", str(out), "--data-dir", str(mirror_dir), "--quiet", "--n-jobs", "2"],
    )
    assert result.exit_code == 0, result.output
    stats = runner.invoke(cli, ["report", str(out), "--stats", "--control", "CC"])
    assert stats.exit_code == 0, stats.output
    text = (out / "statistics.md").read_text()
    assert "Friedman" in text and "Nemenyi" in text and "Wilcoxon" in text
    assert (out / "cd_exact_match.png").read_bytes().startswith(b"\x89PNG")
    bad = runner.invoke(cli, ["report", str(out), "--stats", "--control", "NOPE"])
    assert bad.exit_code == 2 and "unknown control method 'NOPE'" in bad.output


@pytest.mark.parametrize(
    "command", [["run"], ["splits"], ["reproduce"], ["sensitivity"], ["multiverse"], ["datasets", "list"]]
)
def test_data_dir_help_names_the_lookup_order_the_catalog_uses(runner, command):
    from mlhidden.data.catalog import SHIPPED_DIR, data_path

    assert data_path(None)[-1] == SHIPPED_DIR, "the shipped datasets come last"
    result = runner.invoke(cli, [*command, "--help"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "--data-dir DIRECTORY Dataset folder, searched first; then $MLHIDDEN_DATA, then the datasets shipped" in text
    assert "./datasets" not in text


def test_fetch_help_names_where_the_files_go(runner, tmp_path, monkeypatch):
    from mlhidden.data.catalog import resolve_data_dir

    monkeypatch.setenv("MLHIDDEN_DATA", str(tmp_path))
    assert resolve_data_dir(None) == tmp_path
    text = " ".join(runner.invoke(cli, ["datasets", "fetch", "--help"]).output.split())
    assert "--data-dir DIRECTORY Folder the files go to (default: $MLHIDDEN_DATA, else the folder of the" in text
