"""The share of public functions and methods whose every parameter and return is annotated.

Public: a name without a leading underscore (``__init__`` included) in a module and class without
one. ``python tests/typed_share.py mlhidden/data mlhidden/methods ...`` prints ``typed/total = share``
over the folders and files given (default: the general half), and with ``-v`` each module's count.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

GENERAL_HALF = [
    "mlhidden/data", "mlhidden/methods", "mlhidden/runs", "mlhidden/experiment", "mlhidden/report", "mlhidden/claims",
    "mlhidden/errors.py", "mlhidden/io.py", "mlhidden/imports.py", "mlhidden/lazy_exports.py", "mlhidden/shipped.py",
    "mlhidden/yaml_lines.py",
]
Function = ast.FunctionDef | ast.AsyncFunctionDef


def public_functions(path: Path) -> Iterator[Function]:
    def walk(body: list[ast.stmt], public: bool) -> Iterator[Function]:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if public and (not node.name.startswith("_") or node.name == "__init__"):
                    yield node
            elif isinstance(node, ast.ClassDef):
                yield from walk(node.body, public and not node.name.startswith("_"))

    yield from walk(ast.parse(path.read_text()).body, True)


def fully_typed(function: Function) -> bool:
    """Every parameter but ``self``/``cls`` annotated, and the return (mypy --strict's rule, ``__init__`` included)."""
    args = function.args.posonlyargs + function.args.args + function.args.kwonlyargs
    if args and args[0].arg in ("self", "cls"):
        args = args[1:]
    args += [a for a in (function.args.vararg, function.args.kwarg) if a]
    annotated = all(a.annotation is not None for a in args)
    return annotated and (function.returns is not None or (function.name == "__init__" and bool(args)))


def modules(roots: list[str]) -> Iterator[Path]:
    for root in roots:
        for path in [Path(root)] if root.endswith(".py") else sorted(Path(root).rglob("*.py")):
            if not any(part.startswith("_") and part != "__init__.py" for part in path.parts):
                yield path


def main(argv: list[str]) -> None:
    verbose = "-v" in argv
    roots = [a for a in argv if a != "-v"] or GENERAL_HALF
    typed = total = 0
    for path in modules(roots):
        functions = list(public_functions(path))
        done = sum(fully_typed(f) for f in functions)
        typed, total = typed + done, total + len(functions)
        if verbose and done < len(functions):
            print(f"{path}: {done}/{len(functions)}")
    print(f"{typed}/{total} = {typed / max(total, 1):.0%}")


if __name__ == "__main__":
    main(sys.argv[1:])
