"""The results page: `report --html` on a real run, and the reproduction's page with its setting selector."""

from __future__ import annotations

import collections
import html
import io
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from browser import CHROMIUM, Browser
from click.testing import CliRunner
from paper_jobs import page_jobs
from PIL import Image

from mlhidden.cli import cli
from mlhidden.data import make_logical, write_arff
from mlhidden.escaping import markdown_escape
from mlhidden.paper.parallel_jobs import run_jobs
from mlhidden.paper.reproduction import report_and_page_jobs
from mlhidden.report.html import HTML_FILE
from mlhidden.report.markdown_pages import markdown_html
from mlhidden.report.tables import metric_table
from mlhidden.runs.metrics import UNIT_METRICS
from mlhidden.runs.store import load_results

METHODS = ("BR", "CC", "AllZero")
REPORT_DIR = Path(__file__).parents[2] / "results"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """Logical and Music, 2 splits, BR, CC and AllZero, run and reported with --html through the CLI."""
    run_dir = tmp_path_factory.mktemp("html") / "run"
    args = ["run", "-d", "Logical", "-d", "Music", *(a for m in METHODS for a in ("-m", m)), "--splits", "2"]
    result = CliRunner().invoke(cli, [*args, "--out", str(run_dir), "--n-jobs", "1", "-q"])
    assert result.exit_code == 0, result.output
    assert not (run_dir / HTML_FILE).exists()
    result = CliRunner().invoke(cli, ["report", str(run_dir), "--html"])
    assert result.exit_code == 0, result.output
    return run_dir


@pytest.fixture(scope="module")
def page(run_dir) -> str:
    return (run_dir / HTML_FILE).read_text(encoding="utf-8")


def section(page: str, section_id: str) -> str:
    return page.split(f"<section id='{section_id}'>", 1)[1].split("</section>", 1)[0]


def test_the_page_is_one_file_that_loads_nothing(page):
    assert page.startswith("<!DOCTYPE html>") and page.count("<script>") == 1
    assert not re.search(r"<(link|img|iframe|object)\b", page)
    assert not re.search(r"""\b(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert not re.search(r"@import|url\(\s*['\"]?https?:", page)


def test_one_sortable_table_per_metric_holding_the_stored_means(run_dir, page):
    results = load_results(run_dir)
    for column in UNIT_METRICS:
        html_table = page.split(f"id='run-{column}'>", 1)[1].split("</table>", 1)[0]
        headers = re.findall(r"<th data-sort='num'[^>]*>([^<]*)</th>", html_table)
        assert headers == list(METHODS)
        table = metric_table(results.units, column, results.datasets, results.methods)
        for dataset in ("Logical", "Music"):
            row = html_table.split(f"<th>{dataset}</th>", 1)[1].split("</tr>", 1)[0]
            values = [float(v) for v in re.findall(r"data-v='([^']+)'", row)]
            assert values == [float(table.means.at[dataset, m]) for m in METHODS], (column, dataset)
    # Scores carry their full value for the precision toggle; times do not change with it.
    exact = page.split("id='run-exact_match'>", 1)[1].split("</table>", 1)[0]
    digits = metric_table(results.units, "exact_match", results.datasets, results.methods).metric.digits
    assert len(re.findall(rf"<span data-p='[^']+' data-d='{digits}'>\d\.\d{{{digits}}}</span>", exact)) == 6
    assert "data-p=" not in page.split("id='run-total_seconds'>", 1)[1].split("</table>", 1)[0]
    assert "<select id='precision'><option value='auto'>auto</option><option value='2'>2</option>" in page


def test_plots_of_the_splits_ranks_and_times_are_inline_svg(page):
    splits = section(page, "splits")
    assert splits.count("<svg") == 2
    assert all(re.search(rf"<text[^>]*>{name}</text>|>{name}<", splits) for name in ("Logical", "Music"))
    ranks = section(page, "ranks")
    assert ranks.count("<svg") == 3 and len(re.findall(r">CD = 1\.39</text>", ranks)) == 3  # 2 ranked, 2 datasets
    assert "AllZero left out of the ranks: a trivial baseline" in ranks
    time = section(page, "time")
    assert time.count("<svg") == 1 and "N·D·L" in time and all(m in time for m in METHODS)


def shared_ids(page: str) -> list:
    ids = collections.Counter(re.findall(r"""\sid=["']([^"']+)["']""", page))
    assert ids
    return [name for name, n in ids.items() if n > 1]


def test_no_two_elements_share_an_id(page):
    assert shared_ids(page) == []


def test_provenance_and_warnings_come_from_the_run(run_dir, page):
    record = json.loads((run_dir / "run.json").read_text())
    provenance = section(page, "provenance")
    assert record["config_hash"] in provenance and "run.json</summary>" in provenance
    assert "12 units: 12 done, 0 failed" in provenance


def test_html_with_metric_is_a_one_line_error(run_dir):
    result = CliRunner().invoke(cli, ["report", str(run_dir), "--html", "--metric", "ranking_loss"])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "drop --metric" in result.output and len(result.output.strip().splitlines()) == 1


DOLLAR_NAMES = ("$\\undefinedcmd$", "$x^$", "$\\alpha$")  # invalid mathtext twice, then valid mathtext


def test_names_with_dollars_are_drawn_letter_for_letter_in_every_plot(tmp_path):
    """A dataset file ``$x^$.arff`` and methods labelled ``$\\undefinedcmd$`` and ``$\\alpha$``: ``run --html`` and
    ``report --stats --html`` write the page and the diagrams, and every plot shows the names as typed."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    write_arff(make_logical(), data_dir / "$x^$.arff")
    run_dir = tmp_path / "run"
    run = ["run", "-d", "$x^$", "-d", "Logical", "-m", "BR", "-m", "CC", "-m", "AllZero", "--data-dir", str(data_dir),
           "--label", DOLLAR_NAMES[0], "--label", DOLLAR_NAMES[2], "--splits", "2", "--n-jobs", "1", "-q"]
    for command in ([*run, "--out", str(run_dir), "--html"], ["report", str(run_dir), "--stats", "--html"]):
        (run_dir / HTML_FILE).unlink(missing_ok=True)
        result = CliRunner().invoke(cli, command)
        assert result.exit_code == 0, result.output
        page = (run_dir / HTML_FILE).read_text(encoding="utf-8")
        for section_id, names in (("splits", DOLLAR_NAMES), ("ranks", DOLLAR_NAMES[::2]), ("time", DOLLAR_NAMES[::2])):
            drawn = " ".join(map(html.unescape, re.findall(r"<text\b[^>]*>([^<]*)</text>", section(page, section_id))))
            assert all(name in drawn for name in names) and "α" not in drawn, (section_id, drawn)
    assert (run_dir / "cd_exact_match.png").stat().st_size > 1000


def test_escaped_markdown_shows_its_text_once_on_the_page(tmp_path):
    """Text markdown_escape made literal for REPORT.md (entities, backslashes) is the same text on the page,
    escaped once for HTML: in a heading, a table cell, a list item and a missing image's note."""
    hostile = '<img src="http://example.invalid/x.png"> & <b>a_b</b> | (u) &amp;'
    escaped = markdown_escape(hostile)
    report = f"## {escaped}\n\n| a |\n|:--|\n| {escaped} |\n\n- {escaped}\n\n![{escaped}](gone.png)\n"
    page = markdown_html(report, tmp_path)
    assert page.count(html.escape(hostile)) == 4, page
    assert "<img" not in page and "&amp;lt;" not in page and "&amp;amp;amp;" not in page


def test_a_fold_of_the_report_is_a_fold_on_the_page_and_text_inside_it_stays_escaped(tmp_path):
    """REPORT.md folds its longest table in ``<details>``; the page folds the same blocks, never shows the tags."""
    hostile = markdown_escape("<b>cells</b>")
    report = f"Before.\n<details><summary>Every {hostile}</summary>\n\n| a |\n|:--|\n| 1 |\n\n</details>\nAfter.\n"
    page = markdown_html(report, tmp_path)
    start = "<p>Before.</p><details><summary>Every &lt;b&gt;cells&lt;/b&gt;</summary><div class='scroll'>"
    assert page.startswith(start), page
    assert page.endswith("</table></div></details><p>After.</p>") and "&lt;details&gt;" not in page, page


@pytest.fixture(scope="module")
def reproduction_dir(run_dir, tmp_path_factory):
    """A reproduction folder: the run as the paper run and as two settings, and a comparison.csv with an audit mark."""
    out_dir = tmp_path_factory.mktemp("reproduction")
    shutil.copytree(run_dir, out_dir / "paper")
    for setting in ("s_one", "s_two"):
        shutil.copytree(run_dir, out_dir / "sensitivity" / setting / "paper")
    comparisons = pd.DataFrame(
        [["results", "exact_match", "Music", "BR", 0.27, 0.52, -0.25, True, "below a trivial baseline"],
         ["results", "exact_match", "Music", "CC", 0.27, 0.30, -0.03, False, "no defect found"]],
        columns=["table", "metric", "dataset", "method", "ours", "paper", "difference", "flagged", "audit"],
    )
    comparisons.to_csv(out_dir / "comparison.csv", index=False)
    shutil.copy(REPORT_DIR / "REPORT.md", out_dir)  # the committed reproduction's report and its figures
    shutil.copytree(REPORT_DIR / "figures", out_dir / "figures")
    shutil.copytree(REPORT_DIR / "multiverse" / "figures", out_dir / "multiverse" / "figures")
    assert run_jobs(page_jobs(out_dir))[1] == out_dir / HTML_FILE
    return out_dir


def test_reproduction_page_has_claims_first_comparisons_and_a_setting_selector(reproduction_dir):
    """One view per setting, the first shown; claims first in each; the audit marks kept in every view."""
    page = (reproduction_dir / HTML_FILE).read_text(encoding="utf-8")
    options = re.findall(r"<option value='([^']+)'>", page.split("<select id='view'>", 1)[1].split("</select>", 1)[0])
    assert options == ["main runs", "s_one", "s_two"]
    views = re.findall(r"<div class='view' data-view='([^']+)'( hidden)?>", page)
    assert views == [("main runs", ""), ("s_one", " hidden"), ("s_two", " hidden")]
    assert shared_ids(page) == []
    report_md = (reproduction_dir / "REPORT.md").read_text(encoding="utf-8")
    sections = len(re.findall(r"^## ", report_md, flags=re.MULTILINE))
    for i, view in enumerate(page.split("<div class='view'")[1:]):
        ids = re.findall(r"<section id='v\d-([\w-]+)'>", view)
        report = [f"report-{k}" for k in range(sections)] if i == 0 else []  # REPORT.md's sections: in the main view
        assert ids[: 3 + len(report)] == ["claims", "comparison", *report, "tables"], ids
        claims = view.split("<section id=", 2)[1]
        assert all(f">C{k}<" in claims for k in range(1, 12))
        comparison = view.split(f"<section id='v{i}-comparison'>", 1)[1].split("</section>", 1)[0]
        assert "reference remarked (1)" in comparison and "below a trivial baseline" in comparison
    # A setting compares every score of Table 'results' the paper has: 2 metrics, BR and CC, 2 datasets.
    setting = page.split("data-view='s_one'", 1)[1].split("</section>", 2)[1]
    assert "of 8 compared scores" in setting


needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("MLHIDDEN_REQUIRE_BROWSER"),
    reason="chromium is not installed: `apt-get install -y chromium` (.ci/run installs it and requires the test)",
)


def row_order(browser: Browser, table_id: str) -> list:
    return browser.evaluate(f"Array.from(document.querySelectorAll('#{table_id} tbody th')).map(e => e.textContent)")


@needs_chromium
def test_the_browser_harness_sees_console_errors(tmp_path):
    broken = tmp_path / "broken.html"
    broken.write_text("<!DOCTYPE html><script>console.error('shown'); undefinedFunction();</script>", encoding="utf-8")
    with Browser() as browser:
        browser.open(broken.as_uri())
        assert len(browser.errors) == 2 and "undefinedFunction" in " ".join(browser.errors)


@needs_chromium
def test_the_page_renders_in_chromium_and_its_tables_sort(run_dir, tmp_path):
    results = load_results(run_dir)
    means = metric_table(results.units, "exact_match", results.datasets, results.methods).means
    with Browser() as browser:
        browser.open((run_dir / HTML_FILE).as_uri())
        assert browser.errors == []
        assert row_order(browser, "run-exact_match") == ["Logical", "Music"]
        for column, method in ((2, "BR"), (3, "CC")):
            best_first = list(means[method].sort_values(ascending=False, kind="stable").index)
            browser.click(f"#run-exact_match thead th:nth-child({column})")  # a score: best (highest) first
            assert row_order(browser, "run-exact_match") == best_first
            browser.click(f"#run-exact_match thead th:nth-child({column})")
            assert row_order(browser, "run-exact_match") == best_first[::-1]
        browser.click("#run-total_seconds thead th:nth-child(2)")  # a time: best (lowest) first
        times = metric_table(results.units, "total_seconds", results.datasets, results.methods).means
        fastest = list(times["BR"].sort_values(kind="stable").index)
        assert row_order(browser, "run-total_seconds") == fastest
        cell = "document.querySelector('#run-exact_match [data-p]')"
        browser.choose("#precision", "4")
        browser.click("#unfold")  # the plots' sections are folded at first
        assert re.fullmatch(r"\d\.\d{4}", browser.evaluate(f"{cell}.textContent"))
        widths = browser.evaluate("Array.from(document.querySelectorAll('svg')).map(s => s.getBBox().width)")
        assert len(widths) == 6 and min(widths) > 50  # 2 per-split plots, 3 CD diagrams, 1 time plot
        png = browser.screenshot()
        assert browser.errors == []
    (tmp_path / "page.png").write_bytes(png)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.height > 2000 and len(image.getcolors(maxcolors=1 << 24)) > 256  # tables, text and coloured plots


@needs_chromium
def test_the_setting_selector_switches_every_section(reproduction_dir):
    shown = "Array.from(document.querySelectorAll('div.view')).filter(d => d.offsetParent).map(d => d.dataset.view)"
    with Browser() as browser:
        browser.open((reproduction_dir / HTML_FILE).as_uri())
        assert browser.evaluate(shown) == ["main runs"]
        browser.choose("#view", "s_two")
        assert browser.evaluate(shown) == ["s_two"]
        browser.click("#unfold")
        browser.click("#setting1-exact_match thead th:nth-child(2)")
        assert row_order(browser, "setting1-exact_match") == ["Music", "Logical"]
        assert browser.errors == []


def rank_tables(browser: Browser, section_id: str) -> list:
    """Each average-rank table of a rank section as read in the page: ``{method: rank}``."""
    return browser.evaluate(
        f"Array.from(document.querySelectorAll('#{section_id} table')).map(t => Object.fromEntries("
        "Array.from(t.tBodies[0].rows).map(r => [r.cells[0].textContent, parseFloat(r.cells[1].dataset.v)])))"
    )


@needs_chromium
def test_the_claims_rank_as_the_rank_section_does(reproduction_dir):
    """The report's average ranks (those its claims and rank rows use: the trivial baseline AllZero left out)
    are the ones the page's rank section shows."""
    from mlhidden.claims.runs import StoredRuns
    from mlhidden.paper.evidence import ranked_methods
    from mlhidden.report.html import RANK_METRICS
    from mlhidden.report.tables import metric_table

    run = StoredRuns.under(reproduction_dir)["paper"]
    with Browser() as browser:
        browser.open((reproduction_dir / HTML_FILE).as_uri())
        shown = dict(zip(RANK_METRICS, rank_tables(browser, "v0-ranks")))
        assert browser.errors == []
    for metric in ("exact_match", "hamming_score"):
        table = metric_table(run.units, metric, run.datasets, ranked_methods(run), run.unavailable)
        assert shown[metric] == pytest.approx(table.avg_rank.to_dict()), metric
        assert "AllZero" not in shown[metric]


def many_methods_page(tmp_path, n_methods: int = 14):
    """The run sections of 14 made-up methods on 2 datasets of 3 splits, as a page."""
    from mlhidden.report.html import render_page, run_sections
    from mlhidden.runs.run_results import RunResults

    methods = [f"Method{i:02d}" for i in range(n_methods)]
    rng = np.random.default_rng(0)
    units = pd.DataFrame(
        [
            {"dataset": d, "method": m, "split": s, "status": "ok", "error": "", "exact_match": rng.uniform(0, 1),
             "hamming_score": rng.uniform(0.5, 1), "total_seconds": rng.uniform(0.1, 50)}
            for d in ("Small", "Large") for m in methods for s in range(3)
        ]
    )
    results = RunResults(units, ["Small", "Large"], methods, {}, {"name": "many"}, 0)
    path = tmp_path / HTML_FILE
    path.write_text(render_page("many", run_sections(results, {"Small": 1e3, "Large": 1e6})), encoding="utf-8")
    return path, methods


STYLES = """Array.from(document.querySelectorAll("svg")).map(svg => {
  var styles = {};
  svg.querySelectorAll("g[id*='method-']").forEach(g => {
    var use = g.querySelector("use"), shape = document.querySelector(use.getAttribute("xlink:href"));
    var key = g.id.replace(/.*method-/, "");
    styles[key] = getComputedStyle(use).fill + " " + shape.getAttribute("d");
  });
  return styles;
}).filter(styles => Object.keys(styles).length)"""


@needs_chromium
def test_14_methods_differ_in_colour_and_marker_in_every_plot_and_tables_scroll_at_1024_px(tmp_path):
    path, methods = many_methods_page(tmp_path)
    with Browser(width=1024, height=800) as browser:
        browser.open(path.as_uri())
        plots = browser.evaluate(STYLES)
        assert len(plots) == 3  # the per-split plot of each dataset (2 panels each) and the time plot
        for styles in plots:
            methods_drawn = {key.split("-")[-1] for key in styles}
            assert len(methods_drawn) == len(methods)
            by_method = {}
            for key, style in styles.items():
                by_method.setdefault(key.split("-")[-1], set()).add(style)
            assert all(len(s) == 1 for s in by_method.values())  # one style per method, in every panel
            assert len({next(iter(s)) for s in by_method.values()}) == len(methods)
        assert browser.evaluate("document.documentElement.scrollWidth") <= 1024
        boxes = browser.evaluate(
            "Array.from(document.querySelectorAll('table')).map(t => { var box = t.parentElement;"
            " return [box.className, getComputedStyle(box).overflowX, box.scrollWidth > box.clientWidth,"
            " box.getBoundingClientRect().right <= 1024]; })"
        )
        assert all(box[0] == "scroll" and box[1] == "auto" and box[3] for box in boxes), boxes
        assert any(box[2] for box in boxes)  # a 14-method table is wider than the page: its box scrolls
        assert browser.errors == []


def test_every_section_of_report_md_is_on_the_page_with_its_figures_inside(reproduction_dir):
    text = (reproduction_dir / "REPORT.md").read_text(encoding="utf-8")
    page = (reproduction_dir / HTML_FILE).read_text(encoding="utf-8")
    main = page.split("<div class='view'", 2)[1]
    titles = re.findall(r"^## (.*)$", text, flags=re.MULTILINE)
    shown = re.findall(r"<section id='v0-report-\d+'><details><summary><h2>([^<]*)</h2>", main)
    assert [html.unescape(t) for t in shown] == titles
    required = ["Audit of the paper's numbers", "Table 3: the Logical problem", "Table 4: synthetic data",
                "Which claims survive which settings", "A second implementation: scikit-multilearn and scikit-learn"]
    assert set(required) <= set(titles)
    figures = re.findall(r"^!\[[^\]]*\]\(([^)]+)\)$", text, flags=re.MULTILINE)
    assert figures and main.count("src='data:image/png;base64,") == len(figures)
    audit = main.split("<h2>Audit of the paper&#x27;s numbers</h2>", 1)[1].split("</section>", 1)[0]
    assert "<table>" in audit and "<li>" in audit
    assert "<a id='report-claim-c1'></a>" in main


@needs_chromium
def test_table_results_on_the_paper_page_follows_the_decimals_selector(reproduction_dir):
    cells = (
        "Array.from(document.querySelectorAll('div.view:not([hidden]) table.paper-results [data-p]'))"
        ".map(e => e.textContent)"
    )
    with Browser() as browser:
        browser.open((reproduction_dir / HTML_FILE).as_uri())
        assert browser.evaluate(cells), "Table 'results' has no number the selector rewrites"
        browser.choose("#precision", "4")
        shown = browser.evaluate(cells)
        assert shown and all(re.fullmatch(r"\d\.\d{4}", text) for text in shown), shown
        assert browser.errors == []


@pytest.fixture(scope="module")
def generated_data_dir(reproduction_dir, tmp_path_factory):
    """The reproduction folder with the committed runs of generated data (Tables 3 and 4, the figures' sweeps)."""
    out_dir = tmp_path_factory.mktemp("generated") / "reproduction"
    shutil.copytree(reproduction_dir, out_dir)
    for name in ("logical", "synthetic", "synthetic_2d", "hidden_nodes", "label_count"):
        shutil.copytree(REPORT_DIR / name, out_dir / name)
    assert run_jobs(page_jobs(out_dir))[1] == out_dir / HTML_FILE
    return out_dir


SECTION_CELLS = """(title => {
  const h2 = Array.from(document.querySelectorAll('div.view:not([hidden]) section h2'))
    .find(h => h.textContent === title);
  return Array.from(h2.closest('section').querySelectorAll('table')).map(t =>
    Array.from(t.querySelectorAll('tbody tr > :not(:first-child)')).map(td => td.textContent));
})"""


@needs_chromium
@pytest.mark.parametrize(
    "title, tables",
    [("Table 3: the Logical problem", 1), ("Table 4: synthetic data", 1),
     ("Fig. 'results_syn1': two-dimensional synthetic data", 2), ("Fig. 'contrast': hidden nodes on Logical", 1),
     ("Fig. 'labup': Scene with its first L labels", 1)],
)
def test_tables_3_and_4_and_the_figures_tables_follow_the_decimals_selector(generated_data_dir, title, tables):
    """At 4 decimals every one of our numbers in the section's first tables has 4 (the paper's keep its own)."""
    ours = r"-?\d+\.\d{4}( ± \d+\.\d{4})?( \(\d\.\d{2,3}\))?( ⚠)?"
    with Browser(width=1280, height=800) as browser:
        browser.open((generated_data_dir / HTML_FILE).as_uri())
        before = browser.evaluate(f"{SECTION_CELLS}({json.dumps(title)})")[:tables]
        browser.choose("#precision", "4")
        after = browser.evaluate(f"{SECTION_CELLS}({json.dumps(title)})")[:tables]
        assert browser.errors == []
    numbers = [cell for table in after for cell in table if not re.fullmatch(r"\d+|—|", cell)]
    assert numbers and all(re.fullmatch(ours, cell) for cell in numbers), numbers
    assert before != after


@needs_chromium
def test_every_compared_cell_follows_the_decimals_selector(reproduction_dir):
    cells = (
        "Array.from(document.querySelectorAll('div.view:not([hidden]) #v0-comparison table tbody tr'))"
        ".map(r => [r.cells[4].textContent, r.cells[5].textContent, r.cells[6].textContent])"
    )
    with Browser(width=1280, height=800) as browser:
        browser.open((reproduction_dir / HTML_FILE).as_uri())
        browser.choose("#precision", "4")
        shown = browser.evaluate(cells)
        assert browser.errors == []
    assert shown and all(
        re.fullmatch(r"\d\.\d{4}", ours) and re.fullmatch(r"\d\.\d{2,3}", paper)
        and re.fullmatch(r"[+-]\d\.\d{4}", difference)
        for ours, paper, difference in shown
    ), shown



@pytest.fixture(scope="module")
def committed_reproduction_dir(tmp_path_factory):
    """The committed reproduction (results/: REPORT.md with every run it was made from), its page rebuilt."""
    out_dir = tmp_path_factory.mktemp("committed") / "reproduction"
    shutil.copytree(REPORT_DIR, out_dir)
    assert run_jobs(report_and_page_jobs(out_dir))[2] == out_dir / HTML_FILE
    return out_dir


SECTION_TABLES = """(title => {
  const h2 = Array.from(document.querySelectorAll('section h2'))
    .find(h => h.textContent === title && h.closest('div.view[hidden]') === null);
  const text = cell => { const copy = cell.cloneNode(true); copy.querySelectorAll('.rank').forEach(r => r.remove());
    return copy.textContent; };
  return Array.from(h2.closest('section').querySelectorAll('table')).map(t => ({id: t.id,
    head: Array.from(t.querySelectorAll('thead th')).map(th => th.textContent),
    rows: Array.from(t.querySelectorAll('tbody tr')).map(r => Array.from(r.children).map(text))}));
})"""
"""Each table of the section named: its id, its headings and its rows' cell texts, a cell's rank left out."""
TIME_TABLES = tuple(f"main-{time}" for time in ("train_seconds", "test_seconds", "total_seconds"))
MEASURED_CELL = re.compile(r"[-+]?\d+\.\d+(%| ± \d+\.\d+| / [-+]?\d+\.\d+)?( \(\d+\.\d+\))?( ⚠)?")
"""A cell that is one of our numbers (with its half-width, or a second number after a slash), perhaps
followed by the paper's in parentheses: the cells the decimals selector rewrites. Cells of prose (the
claims' numbers and statistics inside sentences), counts (no decimal point), p-values in scientific
notation and the "(paper's)" part of a cell are not such cells or parts."""


@needs_chromium
@pytest.mark.parametrize(
    "title, exempt",
    [
        pytest.param("Which claims survive which settings", ("wall minutes",), id="sensitivity"),
        pytest.param("Audit of the paper's numbers", ("paper",), id="audit"),
        pytest.param("Every deviation, diagnosed", ("paper",), id="deviations"),
        pytest.param("Table 'results' and Table 'scalability': the real datasets", (), id="results"),
        pytest.param("Statistical significance of the rank differences (Demšar 2006)",
                     ("Wilcoxon p", "Holm p", "R+ / R- vs CCASL+AML"), id="significance"),
        pytest.param("Table 3: the Logical problem", (), id="table-3"),
        pytest.param("Table 4: synthetic data", (), id="table-4"),
        pytest.param("Fig. 'results_syn1': two-dimensional synthetic data", ("Paper's dataset",), id="results_syn1"),
        pytest.param("Fig. 'contrast': hidden nodes on Logical", (), id="contrast"),
        pytest.param("Fig. 'labup': Scene with its first L labels", (), id="labup"),
        pytest.param("Medical: per-label accuracy along the chain", (), id="medical"),
        pytest.param("A second implementation: scikit-multilearn and scikit-learn", (), id="crosscheck"),
        pytest.param("Tables", TIME_TABLES, id="run-tables"),
        pytest.param("Average ranks and critical differences", (), id="run-ranks"),
    ],
)
def test_every_measured_number_of_a_section_shows_the_decimals_the_selector_asks_for(
    committed_reproduction_dir, title, exempt
):
    """At 4 decimals every measured number in every table of the section has 4; ``exempt`` names the
    columns (by heading) and the tables (by id, or by their first heading) that keep their digits: p-values,
    rank sums, the paper's printed values, and times, which the page shows at a time's own precision."""
    with Browser(width=1280, height=800) as browser:
        browser.open((committed_reproduction_dir / HTML_FILE).as_uri())
        browser.choose("#precision", "4")
        tables = browser.evaluate(f"{SECTION_TABLES}({json.dumps(title)})")
        assert browser.errors == []
    measured = [
        (head, cell)
        for table in tables
        for row in table["rows"]
        for head, cell in zip(table["head"], row)
        if head not in exempt and table["id"] not in exempt and table["head"][0] not in exempt
        and MEASURED_CELL.fullmatch(cell)
    ]
    short = [(head, cell) for head, cell in measured
             if any(len(n) != 4 for n in re.findall(r"\.(\d+)", cell.split(" (")[0]))]
    assert short == [], short

def test_a_cells_hover_names_its_sd_and_keeps_plus_minus_for_the_95_percent_half_width(run_dir):
    page = (run_dir / HTML_FILE).read_text(encoding="utf-8")
    tips = re.findall(r"title='(mean [^']+)'", page)
    assert tips and all(re.fullmatch(r"mean \S+(, sd \S+)? over \d+ splits?", tip) for tip in tips), tips[:3]


def test_the_comparison_legend_names_only_what_is_red(reproduction_dir):
    page = (reproduction_dir / HTML_FILE).read_text(encoding="utf-8")
    assert "(red);" not in page
    assert "(the red points in the plots; in the table of every compared cell, a difference beyond ±0.05)" in page
    assert "#d62728" in page  # the plots do draw the points outside the band red


def test_a_one_dataset_page_has_no_rank_section_and_no_one_point_time_plot(tmp_path):
    run = tmp_path / "one"
    args = ["run", "-d", "Logical", "-m", "BR", "-m", "CC", "--splits", "2", "--out", str(run), "--n-jobs", "1", "-q"]
    assert CliRunner().invoke(cli, [*args, "--html"]).exit_code == 0
    page = (run / HTML_FILE).read_text(encoding="utf-8")
    titles = re.findall(r"<h2>([^<]+)</h2>", page)
    assert "Average ranks and critical differences" not in titles and "Time against dataset size" not in titles
    assert "Significance over the splits" in titles
    assert "No ranks and no time-against-size plot: they need 2 or more datasets, this run has 1." in page


SHOWN_SECTIONS = "Array.from(document.querySelectorAll('section > details')).filter(d => d.offsetParent)"
LAYOUT = f"""({{width: document.documentElement.scrollWidth, window: window.innerWidth,
  client: document.documentElement.clientWidth,
  opening_ms: performance.getEntriesByType('navigation')[0].loadEventEnd,
  folded: {SHOWN_SECTIONS}.filter(d => !d.open).length,
  open: {SHOWN_SECTIONS}.filter(d => d.open).map(d => d.parentElement.id)}})"""


def first_screen_text(browser: Browser, selector: str) -> str:
    """The text of the elements matching ``selector`` that lie wholly within the first 800 px."""
    return browser.evaluate(
        f"Array.from(document.querySelectorAll({json.dumps(selector)})).filter(e => e.offsetParent"
        " && e.getBoundingClientRect().bottom <= 800).map(e => e.textContent).join(' | ')"
    )


def assert_fits(browser: Browser) -> dict:
    """The page at 1280 x 800 is no wider than its window, with its sections folded or unfolded."""
    layout = browser.evaluate(LAYOUT)
    assert layout["width"] == layout["client"] == layout["window"] == 1280, layout
    browser.click("#unfold")
    unfolded = browser.evaluate(LAYOUT)
    assert unfolded["width"] == 1280 and unfolded["folded"] == 0, unfolded  # wide figures scaled, tables scroll
    return layout


@needs_chromium
def test_the_run_page_fits_a_laptop_screen_and_opens_on_its_scope_and_tables(run_dir):
    with Browser(width=1280, height=800) as browser:
        browser.open((run_dir / HTML_FILE).as_uri())
        height = browser.evaluate("document.documentElement.scrollHeight")
        layout = assert_fits(browser)
        browser.open((run_dir / HTML_FILE).as_uri())
        scope = first_screen_text(browser, "p.scope")
        assert browser.errors == []
    assert layout["open"] == ["tables"] and layout["folded"] == 4, layout  # the plots and provenance folded
    assert layout["opening_ms"] < 1000 and height < 3 * 800, (layout, height)
    assert "2 datasets, 3 methods; 2 splits of each dataset (train fraction 0.6, shuffled labels), run seed 0" in scope


@pytest.fixture(scope="module")
def quick_reproduction_dir(reproduction_dir, tmp_path_factory):
    """The reproduction folder as ``reproduce --quick`` leaves it: its reproduction.json says quick."""
    out_dir = tmp_path_factory.mktemp("quick") / "quick"
    shutil.copytree(reproduction_dir, out_dir)
    log = {**json.loads((REPORT_DIR / "reproduction.json").read_text()), "quick": True}
    (out_dir / "reproduction.json").write_text(json.dumps(log), encoding="utf-8")
    assert run_jobs(page_jobs(out_dir))[1] == out_dir / HTML_FILE
    return out_dir


@needs_chromium
def test_the_quick_page_fits_a_laptop_screen_whose_first_screen_is_the_scope_and_every_verdict(
    quick_reproduction_dir,
):
    from mlhidden.paper.reference import QUICK

    page = quick_reproduction_dir / HTML_FILE
    with Browser(width=1280, height=800) as browser:
        browser.open(page.as_uri())
        layout = assert_fits(browser)
        browser.open(page.as_uri())
        scope = first_screen_text(browser, "p.scope")
        verdicts = first_screen_text(browser, "#v0-claims p")
        browser.click("details.toc summary")
        browser.click("a[href='#v0-report-3']")  # a link to a folded section unfolds it
        unfolded = browser.evaluate("document.querySelector('#v0-report-3 > details').open")
        assert browser.errors == []
    assert layout["open"] == ["v0-claims"] and layout["opening_ms"] < 1000, layout
    assert f"Quick mode (mlhidden reproduce --quick): {QUICK.describe()}" in scope
    assert "2 splits of each dataset" in scope and "run seed 0" in scope and "j_paper_era" in scope
    verdict = "holds|does not hold|inconclusive|no practical difference|not evaluated"
    assert [f"C{k}" for k in range(1, 12)] == re.findall(rf"(C\d+) (?:{verdict})\b", verdicts), verdicts
    assert unfolded
