"""The README and docs/ as a newcomer reads them: a short README whose links resolve, and Python
examples that run as printed. (`make docs` builds docs/ with every link and anchor checked.)"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from browser import CHROMIUM, Browser

PROJECT = Path(__file__).resolve().parents[1]
README = PROJECT / "README.md"
MAX_README_LINES = 200


def python_block(text: str) -> str:
    return re.search(r"```python\n(.*?)```", text, re.DOTALL).group(1)


def test_readme_is_a_short_quick_start_whose_links_resolve():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_README_LINES
    for command in ("make test", "make reproduce", "mlhidden run -d", "mlhidden reproduce --quick", "--html"):
        assert command in text, command
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [target for target in targets if "://" not in target]
    assert any(target.startswith("docs/") for target in local)
    missing = [target for target in local if not (PROJECT / target).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"


def test_readme_python_example_runs(monkeypatch):
    monkeypatch.delenv("MLHIDDEN_DATA", raising=False)  # the shipped copy, as a new user has it
    namespace: dict = {}
    exec(compile(python_block(README.read_text(encoding="utf-8")), "README.md", "exec"), namespace)
    assert namespace["model"].predict(namespace["music"].X[:5]).shape == (5, 6)


def test_own_methods_python_example_runs(mirror_dir, monkeypatch, capsys):
    """A paper method in a Pipeline inside cross_validate, as docs/own-methods.md prints it."""
    section = (PROJECT / "docs" / "own-methods.md").read_text(encoding="utf-8")
    monkeypatch.setenv("MLHIDDEN_DATA", str(mirror_dir))
    namespace: dict = {}
    exec(compile(python_block(section), "docs/own-methods.md", "exec"), namespace)
    scores = namespace["scores"]
    assert len(scores["test_accuracy"]) == 3 and np.all(
        (0.15 < scores["test_accuracy"]) & (scores["test_accuracy"] < 0.5)
    )
    assert np.all(scores["test_f1_micro"] > scores["test_accuracy"])
    assert capsys.readouterr().out.count("[") == 2


def test_python_api_example_runs(tmp_path, monkeypatch, capsys):
    """docs/api.md's example: a config run, its store read back, through the package's public names."""
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    example = python_block((PROJECT / "docs" / "api.md").read_text(encoding="utf-8"))
    exec(compile(example, "docs/api.md", "exec"), namespace)
    assert namespace["summary"].n_done == 4 and (tmp_path / "results" / "mine" / "store.sqlite").is_file()
    assert "4 units computed, 0 already stored" in capsys.readouterr().out


def nav_pages() -> dict:
    """mkdocs.yml's nav: file -> title, in order."""
    nav = yaml.safe_load((PROJECT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    return {file: title for entry in nav for title, file in entry.items()}


def test_the_docs_home_starts_a_newcomer_and_lists_every_page():
    """docs/index.md: install, a quick start to run, and a link to every page of the nav (with what it answers)."""
    home = (PROJECT / "docs" / "index.md").read_text(encoding="utf-8")
    for start in ("pip install", "mlhidden run -d", "--html", "mlhidden reproduce --quick", "mlhidden claims"):
        assert start in home, start
    linked = set(re.findall(r"\]\(([\w.-]+\.md)(?:#[^)]*)?\)", home))
    missing = [file for file in nav_pages() if file != "index.md" and file not in linked]
    assert not missing, f"docs/index.md does not list {missing}"
    assert "README" not in home  # not in the site: the home page is the start


LAYOUT = """(() => {
  var column = document.querySelector('.wy-nav-content').getBoundingClientRect();
  var boxes = Array.from(document.querySelectorAll('.rst-content table, .rst-content pre'));
  return {page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
          tables_wider: boxes.filter(e => e.tagName === 'TABLE' && e.scrollWidth > e.clientWidth + 1)
                             .map(e => e.textContent.trim().slice(0, 40)),
          past_the_column: boxes.filter(e => e.getBoundingClientRect().right > column.right + 1).length,
          code_not_scrolling: boxes.filter(e => e.tagName === 'PRE' && e.scrollWidth > e.clientWidth + 1
                                           && getComputedStyle(e).overflowX !== 'auto').length};
})()"""


def test_the_docs_site_fits_a_laptop_screen(tmp_path):
    """The built site at 1280 x 800 in Chromium: no page wider than the window, every table wraps
    its text inside the column, and a code line longer than the column scrolls inside its box."""
    pytest.importorskip("mkdocs", reason="mkdocs is not installed: `make docs` installs it (.ci/run runs this after)")
    if CHROMIUM is None and not os.environ.get("MLHIDDEN_REQUIRE_BROWSER"):
        pytest.skip("chromium is not installed: `apt-get install -y chromium`")
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "-d", str(site)], cwd=PROJECT, check=True)
    pages = [site / ("index.html" if file == "index.md" else f"{file[:-3]}/index.html") for file in nav_pages()]
    with Browser(width=1280, height=800) as browser:
        for page in pages:
            browser.open(page.as_uri())
            layout = browser.evaluate(LAYOUT)
            assert layout == {"page": [1280, 1280], "tables_wider": [], "past_the_column": 0,
                              "code_not_scrolling": 0}, page


def test_docs_and_the_paper_page_name_commands_a_wheel_has_not_checkout_paths_or_make():
    """A wheel user has no ``configs/`` folder and no Makefile: shipped configs go by name (``--config paper``)."""
    docs = [README, *sorted((PROJECT / "docs").glob("*.md"))]
    by_path = {path.name: re.findall(r"mlhidden \w+ [^`\n#]*configs/\w+\.yaml", path.read_text(encoding="utf-8"))
               for path in docs if path.name != "CHANGELOG.md"}
    assert not {name: found for name, found in by_path.items() if found}
    page_text = {path.name: re.findall(r"(?<!`)`make \w+", path.read_text(encoding="utf-8"))
                 for path in sorted((PROJECT / "mlhidden" / "paper").glob("*.py"))}
    assert not {name: found for name, found in page_text.items() if found}


def test_readme_first_run_prints_the_sample_it_shows(tmp_path, monkeypatch):
    """The README's first command, run as printed (in an empty folder), prints every line of its sample output."""
    from click.testing import CliRunner

    from mlhidden.cli import cli

    text = README.read_text(encoding="utf-8")
    first_run = r"```sh\n\.venv/bin/mlhidden (run [^\n]+)\n```.*?```\n(.*?)```"
    command, sample = re.search(first_run, text, re.DOTALL).groups()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLHIDDEN_DATA", raising=False)
    result = CliRunner().invoke(cli, [*command.split(), "--n-jobs", "1"])
    assert result.exit_code == 0, result.output
    printed = result.output
    for part in sample.split("...\n"):
        assert part.strip("\n") in printed, f"the README's sample is not what the command prints:\n{part}"
