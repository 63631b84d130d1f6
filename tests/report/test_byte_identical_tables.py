"""A re-run writes byte-identical tables, whatever order its units were computed and stored in.

Means over splits are sums of floats, and a sum's last bit depends on its order; so the tables
must not depend on the order units arrive in (``--n-jobs``) or sit in the store. Timing columns
and the provenance (dates, commands) differ between runs by nature and are left out.
"""

from __future__ import annotations

import shutil
import sqlite3

import pandas as pd
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.runs.compact_results import COMPACT_FILES
from mlhidden.runs.store import STORE_FILE

CONFIG = """name: tables
datasets: [Logical, Music]
methods: [BR, CC, CCASL]
splits: 4
seed: 11
"""


def comparable_files(run_dir) -> dict:
    """Every table file of a run (CSV, LaTeX, Markdown) with timing and provenance removed."""
    files = {}
    for path in sorted(run_dir.iterdir()):
        if path.suffix not in (".csv", ".tex", ".md") or any(word in path.stem for word in ("seconds", "time")):
            continue
        if path.name in COMPACT_FILES:  # the run's compact copy, written by the run, not the report
            continue
        text = path.read_text()
        if path.name == "units.csv":
            units = pd.read_csv(path, dtype=str, keep_default_na=False)
            text = units.drop(
                columns=[c for c in units.columns if c.endswith("_seconds") or c == "finished_at"]
            ).to_csv(index=False)
        elif path.name == "avg_ranks.csv":
            ranks = pd.read_csv(path, dtype=str, keep_default_na=False)
            text = ranks[~ranks["metric"].str.endswith("_seconds")].to_csv(index=False)
        elif path.suffix == ".tex":
            text = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("%"))
        elif path.name == "tables.md":
            sections = text.split("\n## ")
            text = "\n## ".join(s for s in sections if not s.startswith(("Provenance", "Time")))
        files[path.name] = text
    return files


def test_tables_are_byte_identical_across_n_jobs_and_store_order(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG)
    runner = CliRunner()
    for n_jobs in (1, 2):
        result = runner.invoke(
            cli,
            ["run", "--config", str(config), "--out", str(tmp_path / f"jobs{n_jobs}"), "--n-jobs", str(n_jobs), "-q"],
        )
        assert result.exit_code == 0, result.output
    reversed_dir = tmp_path / "reversed"
    reversed_dir.mkdir()
    shutil.copyfile(tmp_path / "jobs2" / STORE_FILE, reversed_dir / STORE_FILE)
    with sqlite3.connect(reversed_dir / STORE_FILE) as conn:  # the same units, stored in the opposite order
        conn.execute("CREATE TEMP TABLE copy AS SELECT * FROM units ORDER BY rowid DESC")
        conn.execute("DELETE FROM units")
        conn.execute("INSERT INTO units SELECT * FROM copy")
    result = runner.invoke(cli, ["report", str(reversed_dir)])
    assert result.exit_code == 0, result.output

    reference = comparable_files(tmp_path / "jobs1")
    assert {
        "units.csv",
        "exact_match.csv",
        "exact_match.tex",
        "exact_match.md",
        "hamming_score.tex",
        "tables.md",
    } <= set(reference)
    for other in ("jobs2", "reversed"):
        files = comparable_files(tmp_path / other)
        assert list(files) == list(reference)
        for name, text in reference.items():
            assert files[name] == text, f"{other}/{name} differs from jobs1/{name}"
