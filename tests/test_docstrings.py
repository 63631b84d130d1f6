"""Docstrings say what and why; what was measured, and when, belongs in benchmarks/results.md.

Every docstring of the package (a module's, a class's, a function's, and the string under an
assignment that documents it) is read for a lab note: a date, a speed-up ("3x faster", "8 to 17
times slower"), a measured time ("0.05 ms a row", "took 14 s"), a measured size change, or the path
of a benchmark or a test fixture given as evidence.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mlhidden"
_NUMBER = r"\d+(?:[.,]\d+)?"
_COUNT = rf"(?:{_NUMBER}|two|three|four|five|six|seven|eight|nine|ten)"
_TIME = r"(?:ms|µs|s|seconds?|minutes?|min|hours?|h)\b"
LAB_NOTES = {
    "a date": re.compile(r"\b(?:19|20)\d\d-[01]\d-[0-3]\d\b"),
    "a speed-up": re.compile(
        rf"\b{_COUNT}(?: to {_COUNT})? ?(?:x|×|times) (?:faster|slower|quicker)\b|\bspeed-?ups? of\b", re.IGNORECASE
    ),
    "a measured time": re.compile(
        rf"\b{_NUMBER}(?: to {_NUMBER})? ?{_TIME}(?: a row| per row| for \d| of \w+'s| on a\b)"
        rf"|\b(?:took|measured)\b[^.]{{0,40}}\b{_NUMBER} ?{_TIME}"
        rf"|\b{_NUMBER} ?{_TIME}[^.]{{0,60}}\bmeasured\b",
        re.IGNORECASE,
    ),
    "a measured size": re.compile(rf"\b{_NUMBER} ?(?:[KMGT]i?B) ?(?:->|→) ?{_NUMBER}"),
    "a benchmark or fixture path": re.compile(r"\bbenchmarks[./]\w|\btests/fixtures\b|\bfixtures/\w"),
}


def docstrings(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of every string that stands as a statement of its own: the docstrings."""
    return [
        (node.lineno, node.value.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    ]


def lab_notes(source: str, name: str) -> list[str]:
    """One line per lab note found in ``source``'s docstrings: where, what kind, and the words."""
    found = []
    for line, text in docstrings(source):
        flat = " ".join(text.split())
        for kind, pattern in LAB_NOTES.items():
            found += [f"{name}:{line}: {kind}: '{match.group(0)}'" for match in pattern.finditer(flat)]
    return found


def test_no_docstring_of_the_package_carries_a_lab_note():
    found = [
        note for path in sorted(PACKAGE.rglob("*.py"))
        for note in lab_notes(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE.parent)))
    ]
    assert found == [], "move what was measured to benchmarks/results.md:\n" + "\n".join(found)


NOTES = {
    "a dated measurement": '"""Took 0.1 to 0.2 s, measured on 2026-11-27."""',
    "a speed-up in words": 'def f():\n    """Sorting once is two to four times faster than roc_auc_score."""',
    "a speed-up in figures": 'class C:\n    """Numpy\'s exp (3x slower here)."""',
    "a time per row": 'X = 1\n"""scikit-learn ranks a row at a time (0.05 to 0.8 ms a row)."""',
    "a benchmark path": '"""``python -m benchmarks.ranking_metrics`` measures both."""',
    "a fixture path": '"""As tests/fixtures/bad/cases.yaml shows."""',
    "a size before and after": '"""The same predictions (2.2 GB -> 20 MB on Corel5k)."""',
}


@pytest.mark.parametrize("source", NOTES.values(), ids=NOTES.keys())
def test_a_lab_note_is_found(source):
    assert len(lab_notes(source, "m.py")) >= 1


def test_what_and_why_pass():
    source = (
        '"""Times get whole seconds from 10 s up, one decimal from 1 s.\n\n'
        "The real datasets expand 3 to 12 times; BLAS products are several times faster than sparse ones.\n"
        '``[ 3/40] Music · BR · split 2: ok (0.52 s)`` is a progress line."""\n'
        "# a comment may say 2026-11-27\n"
        'x = "measured on 2026-11-27"\n'
    )
    assert lab_notes(source, "m.py") == []
