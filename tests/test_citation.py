"""LICENSE and CITATION.cff: the licence pyproject.toml declares, and a citation of the tool and the paper."""

from __future__ import annotations

import datetime
from pathlib import Path

import yaml
from click.testing import CliRunner

from mlhidden.cli import cli

PROJECT = Path(__file__).resolve().parents[1]


def test_license_file_is_the_bsd_3_clause_text_pyproject_declares():
    assert '\nlicense = "BSD-3-Clause"\n' in (PROJECT / "pyproject.toml").read_text(encoding="utf-8")
    text = (PROJECT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License\n\nCopyright (c) the mlhidden developers\n")
    assert "3. Neither the name of the copyright holder nor the names of its" in text


def test_citation_cites_the_tool_at_its_version_and_prefers_the_paper():
    citation = yaml.safe_load((PROJECT / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["cff-version"] == "1.2.0" and citation["type"] == "software"
    assert {"message", "title", "authors"} <= set(citation)
    version = CliRunner().invoke(cli, ["--version"]).output.split()[-1]
    assert citation["version"] == version, "CITATION.cff names the version `mlhidden --version` prints"
    assert citation["license"] == "BSD-3-Clause"
    # A BibTeX entry made from the file (cffconvert) takes its year from date-released.
    assert isinstance(citation.get("date-released"), datetime.date) and citation["date-released"].year >= 2026
    paper = citation["preferred-citation"]
    assert paper["title"] == "Multi-label Classification using Labels as Hidden Nodes"
    assert [(a["given-names"], a["family-names"]) for a in paper["authors"]] == [
        ("Jesse", "Read"), ("Jaakko", "Hollmén"),
    ]
    assert "doi" not in paper
