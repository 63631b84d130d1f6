"""LICENSE and CITATION.cff: the licence pyproject.toml declares, and a citation of the tool and the paper."""

from __future__ import annotations

import datetime
import re
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


def _bibtex_entries(text: str) -> dict[str, tuple[str, dict[str, str]]]:
    """Key -> (entry type, fields) of a BibTeX file whose fields are written ``name = {value},`` one a line."""
    entries = {}
    for kind, key, body in re.findall(r"^@(\w+)\{([^,\s]+),\n(.*?)\n\}", text, flags=re.MULTILINE | re.DOTALL):
        fields = dict(re.findall(r"^\s+(\w+) = \{(.*)\},?$", body, flags=re.MULTILINE))
        entries[key] = (kind, fields)
    return entries


def test_the_bibtex_export_has_a_key_title_year_and_version_and_says_why_it_has_no_url():
    """cffconvert 2.0.0's BibTeX of CITATION.cff is keyed `YourReferenceHere` with no version: CITATION.bib
    gives the same entries with keys, and the citation files and the README say there is no repository URL."""
    citation = yaml.safe_load((PROJECT / "CITATION.cff").read_text(encoding="utf-8"))
    entries = _bibtex_entries((PROJECT / "CITATION.bib").read_text(encoding="utf-8"))
    assert set(entries) == {"mlhidden", "read2017labels"}
    kind, tool = entries["mlhidden"]
    assert kind == "software" and tool["author"] == "{the mlhidden developers}"  # one name, not a person's
    assert tool["title"] == citation["title"] and tool["version"] == citation["version"]
    assert (tool["year"], tool["month"]) == (str(citation["date-released"].year), str(citation["date-released"].month))
    assert "url" not in tool and not {"url", "repository-code"} & set(citation)
    kind, paper = entries["read2017labels"]
    cited = citation["preferred-citation"]
    assert kind == "article" and paper["title"] == cited["title"] and paper["year"] == str(cited["year"])
    assert paper["author"] == " and ".join(f"{a['family-names']}, {a['given-names']}" for a in cited["authors"])
    assert paper["url"] == cited["url"]
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    assert "[CITATION.bib](CITATION.bib)" in readme and "there is no public\nrepository yet" in readme
