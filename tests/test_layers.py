"""The package's layers import strictly downward, and the general half never imports the study or the CLI.

From the bottom: the package root, ``errors``, ``escaping``, ``io``, ``yaml_lines`` and ``lazy_exports``; ``data``;
``methods``; ``runs`` (the stored-run model: specs, splits, the store, measures, provenance); ``stats`` (intervals, the
units of replication, the rank rule and tests, under both the report and the claims); ``experiment`` (configs,
planning, execution); ``report`` (the general tool, the user's half); ``claims`` (claims files checked on stored runs);
``paper`` (the study of the paper, on top of it);
``cli``. A module may import its own layer and those below, but the claims stand beside the report and
import nothing of it (:data:`SIBLINGS`). Every import counts, wherever it
sits (module level, inside a function, under ``TYPE_CHECKING``, relative, ``from mlhidden import
x``, ``importlib.import_module("...")``, a package's table of names to import on first use), because
a lazy import is still a dependency.

The one exception is the package root's public API (``PUBLIC_API`` in ``mlhidden/__init__.py``):
it names packages of the general half, whose names it imports on first use, so that a user (and
the study) can write ``mlhidden.run_experiment``. The root may import (for type checkers) from the
packages its table names, and nothing else above it. So importing the root is importing those
packages: only a module above them all may (the version is read from the leaf ``mlhidden._version``).
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mlhidden"
LAYERS = ("base", "data", "methods", "runs", "stats", "experiment", "report", "claims", "paper", "cli")
GENERAL = ("data", "methods", "runs", "stats", "experiment", "report", "claims")
BASE_MODULES = (
    "mlhidden", "mlhidden._version", "mlhidden.blas_kernel", "mlhidden.errors", "mlhidden.escaping", "mlhidden.io",
    "mlhidden.imports", "mlhidden.lazy_exports", "mlhidden.shipped", "mlhidden.yaml_lines",
)


def layer_of(module: str) -> str:
    """The layer of a module of the package, by its dotted name."""
    if module in BASE_MODULES:
        return "base"
    if module == "mlhidden.__main__":
        return "cli"
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in LAYERS[1:]:
        return parts[1]
    raise ValueError(f"{module} is in no layer: put it in a layer's package, or add a layer in {Path(__file__).name}")


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The module a ``from ... import`` reads from, with relative levels resolved."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imported_modules(
    tree: ast.AST, module: str, is_package: bool, modules: frozenset[str] = frozenset(), tables: bool = True
) -> list[tuple[int, str]]:
    """``(line, module)`` for every module of the package that ``tree`` imports.

    ``from package import name`` names the submodule ``package.name`` where it is one of ``modules``.
    ``tables=False`` leaves out the tables of names a package imports on first use (its public API).
    """
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, module, is_package)
            if source == "mlhidden":  # from mlhidden import paper: a layer, or a name of the root
                for alias in node.names:
                    found.append((node.lineno, f"mlhidden.{alias.name}" if alias.name in LAYERS[1:] else "mlhidden"))
            else:
                for alias in node.names:
                    submodule = f"{source}.{alias.name}"
                    found.append((node.lineno, submodule if submodule in modules else source))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module":
            argument = node.args[0] if node.args else None
            if isinstance(argument, ast.JoinedStr) and argument.values:
                argument = argument.values[0]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                found.append((node.lineno, argument.value.rstrip(".")))
        elif tables and isinstance(node, ast.Dict):  # names -> the modules they load on first use
            found += [(value.lineno, value.value) for value in node.values if isinstance(value, ast.Constant)
                      and isinstance(value.value, str) and value.value.startswith("mlhidden.")]
    return [(line, name) for line, name in found if name == "mlhidden" or name.startswith("mlhidden.")]


def public_api_packages(tree: ast.AST) -> set[str]:
    """The packages the root's ``PUBLIC_API`` table (a name -> package dict) imports its names from."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "PUBLIC_API" for t in node.targets):
            if isinstance(node.value, ast.Dict):
                return {v.value for v in node.value.values if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    return set()


def layer_violations(package_dir: Path) -> list[str]:
    """Every import in ``package_dir`` (a folder named ``mlhidden``) that goes up a layer, one line each."""
    root = package_dir.parent
    loaded_by_root = sorted(public_api_packages(ast.parse((package_dir / "__init__.py").read_text(encoding="utf-8"))))
    problems = []
    for path in sorted(package_dir.rglob("*.py")):
        module = _module_name(path, root)
        own = layer_of(module)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        public = public_api_packages(tree) if module == "mlhidden" else set()
        for line, imported in imported_modules(tree, module, path.name == "__init__.py"):
            via_root = imported == "mlhidden" and module != "mlhidden"
            for target in loaded_by_root if via_root else [imported]:
                theirs = layer_of(target)
                if LAYERS.index(theirs) <= LAYERS.index(own):
                    continue
                if theirs in GENERAL and any(target == p or target.startswith(f"{p}.") for p in public):
                    continue
                if own in GENERAL and theirs in ("paper", "cli"):
                    why = "the general half must not import the study or the command line"
                else:
                    why = "a layer imports only itself and the layers below"
                if via_root:
                    target, why = f"mlhidden, whose public API loads {target}", f"{why} (the version: _version)"
                problems.append(f"{path.relative_to(root)}:{line}: {module} ({own}) imports {target} ({theirs}): {why}")
    return problems


def test_the_package_imports_only_downward():
    assert layer_violations(PACKAGE) == []


def test_every_layer_holds_modules():
    layers = {layer_of(_module_name(path, PACKAGE.parent)) for path in PACKAGE.rglob("*.py")}
    assert layers == set(LAYERS)
    assert LAYERS.index("methods") < LAYERS.index("runs") < LAYERS.index("experiment"), "the stored-run model"


SIBLINGS = (("claims", "report"),)
"""Layers that stand side by side: the first imports nothing of the second, though it sits above it (both read
the stored runs and the statistics below them)."""


def sibling_imports(package_dir: Path) -> list[str]:
    """Every import by a layer of :data:`SIBLINGS` of its sibling, one line each."""
    root = package_dir.parent
    problems = []
    for path in sorted(package_dir.rglob("*.py")):
        module = _module_name(path, root)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, target in imported_modules(tree, module, path.name == "__init__.py"):
            if (layer_of(module), layer_of(target)) in SIBLINGS:
                problems.append(f"{path.relative_to(root)}:{line}: {module} imports {target}: siblings import neither")
    return problems


def test_the_claims_stand_beside_the_report():
    assert sibling_imports(PACKAGE) == []


def test_a_sibling_import_is_caught(tmp_path):
    modules = {"mlhidden.claims.check": "from mlhidden.report.tables import METRICS\nfrom mlhidden.stats import holm\n"}
    problems = sibling_imports(_tree(tmp_path, modules))
    assert len(problems) == 1 and "mlhidden.claims.check imports mlhidden.report.tables" in problems[0], problems


def import_cycles(package_dir: Path) -> list[list[str]]:
    """The groups of modules in ``package_dir`` that import each other, each sorted, counting every import
    :func:`imported_modules` finds but two kinds: a package's public-API table (a facade over the modules it
    names, read once the package has loaded) and a module's own parent packages (loaded before it); neither
    closes a circle of the modules themselves."""
    root = package_dir.parent
    paths = {_module_name(path, root): path for path in sorted(package_dir.rglob("*.py"))}
    modules = frozenset(paths)
    imports = {
        module: {
            target
            for _, target in imported_modules(
                ast.parse(path.read_text(encoding="utf-8")), module, path.name == "__init__.py", modules, tables=False
            )
            if target in modules and target != module and not module.startswith(f"{target}.")
        }
        for module, path in paths.items()
    }
    reached = {}
    for module in imports:
        seen, todo = set(), [module]
        while todo:
            for target in imports[todo.pop()] - seen:
                seen.add(target)
                todo.append(target)
        reached[module] = seen
    cycles = {tuple(sorted(m for m in reached[module] if module in reached[m])) for module in imports}
    return sorted(list(cycle) for cycle in cycles if len(cycle) > 1)




def test_no_two_modules_import_each_other():
    assert import_cycles(PACKAGE) == []


def test_an_import_cycle_is_caught(tmp_path):
    modules = {
        "mlhidden.runs.store": "def f():\n    from mlhidden.runs import specs\n",
        "mlhidden.runs.specs": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .splits import Split\n",
        "mlhidden.runs.splits": "import importlib\nimportlib.import_module('mlhidden.runs.store')\n",
        "mlhidden.runs.metrics": "from mlhidden.runs.store import f\n",
    }
    assert import_cycles(_tree(tmp_path, modules)) == [
        ["mlhidden.runs.specs", "mlhidden.runs.splits", "mlhidden.runs.store"]
    ]


def _tree(tmp_path: Path, modules: dict) -> Path:
    """A fake ``mlhidden`` package: dotted name -> source; a layer's name is its package's ``__init__.py``."""
    for name, source in {"mlhidden": "", **modules}.items():
        parts = name.split(".")
        is_package = parts[-1] in ("mlhidden", *LAYERS)
        path = tmp_path.joinpath(*parts, "__init__.py") if is_package else tmp_path.joinpath(*parts).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    for folder in (tmp_path / "mlhidden").rglob("*"):
        if folder.is_dir() and not (folder / "__init__.py").exists():
            (folder / "__init__.py").write_text("", encoding="utf-8")
    return tmp_path / "mlhidden"


# (importing module, its source, the import the checker must name)
UPWARD = {
    "general half imports the study": (
        "mlhidden.report.tables", "from mlhidden.paper.claims import CLAIMS\n", "mlhidden.paper.claims (paper)"
    ),
    "a layer imported by name": ("mlhidden.experiment.runner", "from mlhidden import cli\n", "mlhidden.cli (cli)"),
    "relative import": ("mlhidden.report.tables", "from ..paper import claims\n", "mlhidden.paper (paper)"),
    "plain import": ("mlhidden.methods.br", "import mlhidden.runs.store\n", "imports mlhidden.runs.store"),
    "import inside a function": (
        "mlhidden.data.catalog",
        "def f():\n    from mlhidden.methods.registry import METHODS\n",
        "mlhidden.methods.registry (methods)",
    ),
    "import by importlib": (
        "mlhidden.report.formats",
        "import importlib\nimportlib.import_module('mlhidden.cli.commands')\n",
        "mlhidden.cli.commands (cli)",
    ),
    "study imports the CLI": (
        "mlhidden.paper.reproduction", "from mlhidden.cli.progress import RunProgress\n", "mlhidden.cli.progress (cli)"
    ),
    "base imports a layer": ("mlhidden.errors", "from mlhidden.data import Dataset\n", "mlhidden.data (data)"),
    "a lazy table names a higher layer": (
        "mlhidden.report", '_EXPORTS = {"CLAIMS": "mlhidden.paper.claims"}\n', "mlhidden.paper.claims (paper)"
    ),
    "the root's public API names the study": (
        "mlhidden", 'PUBLIC_API = {"reproduce": "mlhidden.paper"}\n', "mlhidden.paper (paper)"
    ),
    "the root imports outside its public API": (
        "mlhidden",
        'PUBLIC_API = {"load_dataset": "mlhidden.data"}\nfrom mlhidden.experiment.runner import run_experiment\n',
        "mlhidden.experiment.runner (experiment)",
    ),
    "a public API table outside the root": (
        "mlhidden.errors", 'PUBLIC_API = {"load_dataset": "mlhidden.data"}\n', "mlhidden.data (data)"
    ),
}


@pytest.mark.parametrize("importer, source, named", UPWARD.values(), ids=UPWARD.keys())
def test_an_upward_import_is_caught(tmp_path, importer, source, named):
    problems = layer_violations(_tree(tmp_path, {importer: source}))
    assert len(problems) == 1 and named in problems[0], problems


def test_importing_the_root_is_importing_what_its_public_api_loads(tmp_path):
    root = 'PUBLIC_API = {"run_experiment": "mlhidden.experiment"}\nfrom mlhidden._version import __version__\n'
    modules = {"mlhidden": root, "mlhidden._version": "", "mlhidden.runs.provenance": "import mlhidden\n"}
    problems = layer_violations(_tree(tmp_path, modules))
    assert len(problems) == 1 and "mlhidden, whose public API loads mlhidden.experiment" in problems[0], problems
    modules["mlhidden.runs.provenance"] = "from mlhidden._version import __version__\n"
    modules["mlhidden.paper.reference"] = "from mlhidden import RunConfig, __version__\n"
    assert layer_violations(_tree(tmp_path, modules)) == []


def test_downward_and_sideways_imports_pass(tmp_path):
    modules = {
        "mlhidden.cli.commands": "from mlhidden.paper.reproduction import reproduce\nfrom . import progress\n",
        "mlhidden.paper.claims": "from mlhidden.report.tables import METRICS\nfrom . import evidence\n",
        "mlhidden.report.tables": "from mlhidden import __version__\nfrom mlhidden.runs.status import OK\n",
        "mlhidden.data.arff": "from mlhidden.errors import UserError\nfrom mlhidden.io import write_atomically\n",
        "mlhidden.methods.br": "from mlhidden.data import Dataset\nfrom .base import MultiLabelClassifier\n",
        "mlhidden.__main__": "from mlhidden.cli import main\n",
        "mlhidden": (
            'PUBLIC_API = {"run_experiment": "mlhidden.experiment", "BR": "mlhidden.methods"}\n'
            "from mlhidden.experiment.runner import run_experiment\nfrom mlhidden.methods import BR\n"
        ),
        "mlhidden.experiment": '_EXPORTS = {"run_experiment": "mlhidden.experiment.runner"}\n',
    }
    assert layer_violations(_tree(tmp_path, modules)) == []


def test_a_module_outside_every_layer_is_refused(tmp_path):
    with pytest.raises(ValueError, match="mlhidden.plugins is in no layer"):
        layer_violations(_tree(tmp_path, {"mlhidden.plugins": ""}))


def test_an_import_added_to_the_real_package_is_caught(tmp_path):
    copy = tmp_path / "mlhidden"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    tables = copy / "report" / "tables.py"
    added = "\nfrom mlhidden.paper.reference import REPORT_FILE\n"
    tables.write_text(tables.read_text(encoding="utf-8") + added, encoding="utf-8")
    problems = layer_violations(copy)
    assert len(problems) == 1, problems
    assert problems[0].startswith("mlhidden/report/tables.py:") and "general half" in problems[0]
