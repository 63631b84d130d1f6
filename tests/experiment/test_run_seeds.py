"""A run directory holds one run seed: a second seed is refused, and stored units a config does
not ask for are reported, never silently left out of the tables."""

import sqlite3

from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.runs.store import STORE_FILE

CONFIG = "name: seeds\ndatasets: [Logical]\nmethods: [BR]\nsplits: 2\nseed: 0\n"


def run(tmp_path, *extra):
    return CliRunner().invoke(
        cli,
        [
            "run",
            "--config",
            str(tmp_path / "seeds.yaml"),
            "--out",
            str(tmp_path / "run"),
            "--n-jobs",
            "1",
            "-q",
            *extra,
        ],
    )


def stored_seeds(run_dir):
    with sqlite3.connect(run_dir / STORE_FILE) as conn:
        return sorted(seed for (seed,) in conn.execute("SELECT seed FROM units"))


def test_a_second_run_seed_into_the_same_directory_is_refused_in_one_line(tmp_path):
    (tmp_path / "seeds.yaml").write_text(CONFIG)
    assert run(tmp_path).exit_code == 0
    before = stored_seeds(tmp_path / "run")
    refused = run(tmp_path, "--seed", "1")
    assert refused.exit_code == 2
    (line,) = refused.stderr.strip().splitlines()[-1:]
    assert "the stored units were made with run seed 0; this run asks for seed 1" in line
    assert "give each run seed its own --out" in line
    assert stored_seeds(tmp_path / "run") == before
    assert run(tmp_path, "--seed", "1", "--fresh").exit_code == 0
    assert stored_seeds(tmp_path / "run") != before


def test_stored_units_of_another_seed_are_reported_not_silently_dropped(tmp_path):
    (tmp_path / "seeds.yaml").write_text(CONFIG)
    assert run(tmp_path).exit_code == 0
    with sqlite3.connect(tmp_path / "run" / STORE_FILE) as conn:  # a directory made before seeds were checked
        columns = [row[1] for row in conn.execute("PRAGMA table_info(units)")]
        copied = ", ".join("seed + 1" if column == "seed" else column for column in columns)
        conn.execute(f"INSERT INTO units ({', '.join(columns)}) SELECT {copied} FROM units")
    report = CliRunner().invoke(cli, ["report", str(tmp_path / "run")])
    assert report.exit_code == 0, report.output
    assert "2 stored unit(s) are not in these tables: the config does not ask for them" in report.output
    assert "2 stored unit(s) are not in these tables" in (tmp_path / "run" / "tables.md").read_text()


def test_report_metric_says_what_it_leaves_out_of_its_tables(tmp_path):
    (tmp_path / "seeds.yaml").write_text(CONFIG)
    assert run(tmp_path).exit_code == 0
    with sqlite3.connect(
        tmp_path / "run" / STORE_FILE
    ) as conn:  # units and predictions of seed 1 beside those of seed 0
        for table in ("units", "predictions", "test_labels"):
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
            copied = ", ".join("seed + 1" if column == "seed" else column for column in columns)
            conn.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {copied} FROM {table}")
    report = CliRunner().invoke(
        cli, ["report", str(tmp_path / "run"), "--metric", "ranking_loss", "--metric", "exact_match"]
    )
    assert report.exit_code == 0, report.output
    assert "Ranking loss" in report.output and "Exact match" in report.output
    assert report.output.count("2 stored unit(s) are not in these tables: the config does not ask for them") == 1
