"""The house's sizes: no function of mlhidden over 80 lines, no module over 400 (docs/design.md, STYLE.md).

A function's lines run from its ``def`` (decorators apart) to its last line, docstring included.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "mlhidden"
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 400


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_function_is_over_80_lines():
    long = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                name = f"{path.relative_to(PACKAGE).as_posix()}:{node.name}"
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{name} ({lines} lines)")
    assert long == []


def test_no_module_is_over_400_lines():
    long = [
        f"{path.relative_to(PACKAGE).as_posix()} ({lines} lines)"
        for path in _modules()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert long == []
