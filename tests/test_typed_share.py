"""Every public function and method of the general half is fully typed (tests/typed_share.py's measure).

mypy's strict flags (pyproject.toml) hold the general half's modules throughout; this test holds their
public API too, so that a new untyped public function fails here rather than going unnoticed.
"""

from __future__ import annotations

from pathlib import Path

from typed_share import GENERAL_HALF, fully_typed, modules, public_functions

ROOT = Path(__file__).resolve().parents[1]


def untyped_public(roots: list[str]) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{function.lineno} {function.name}"
        for path in modules([str(ROOT / root) for root in roots])
        for function in public_functions(path)
        if not fully_typed(function)
    ]


def test_the_general_half_public_functions_are_fully_typed():
    assert untyped_public(GENERAL_HALF) == []


def test_an_untyped_public_function_is_found(tmp_path):
    module = tmp_path / "module.py"
    module.write_text(
        "def typed(x: int) -> int:\n    return x\n\n\ndef untyped(x):\n    return x\n\n\ndef _private(x):\n    pass\n"
    )
    assert [f.name for f in public_functions(module) if not fully_typed(f)] == ["untyped"]
