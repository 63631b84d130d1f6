"""The package's public face: each layer's package lists its public names in ``__all__``, and the study
(``mlhidden/paper/``) imports only those, the root's (``mlhidden.__all__``) and the base modules' (``errors``,
``io``, ...), never a module behind a package's face, which is internal and may move (docs/api.md).

The study is the package's first user: what it reads through the faces is what a user's study can read too.
Like :mod:`test_layers`, the check reads the source (every import counts, wherever it sits), and it is shown
to catch each way of reaching behind a face on a fake package.
"""

from __future__ import annotations

import ast
from importlib import import_module
from pathlib import Path

import pytest
from test_layers import GENERAL, PACKAGE, _absolute, _tree
from test_public_api import typed_imports


def face_names(init: Path) -> set[str]:
    """The names a package's ``__init__.py`` lists in ``__all__``: a list of strings, or the keys of the table
    it gives :func:`mlhidden.lazy_exports.lazy_names` (for the root, of ``PUBLIC_API``, its strings added)."""
    tree = ast.parse(init.read_text(encoding="utf-8"))
    tables = {}
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        targets = {t.id for target in node.targets for t in ast.walk(target) if isinstance(t, ast.Name)}
        value = node.value
        if isinstance(value, ast.Dict):
            tables.update(dict.fromkeys(targets, value))
        if "__all__" not in targets:
            continue
        if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "lazy_names" and len(value.args) > 1:
            value = tables.get(getattr(value.args[1], "id", ""), value.args[1])
        if isinstance(value, (ast.List, ast.Tuple)):
            names |= {e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        elif isinstance(value, ast.Dict):
            names |= {k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    if "PUBLIC_API" in tables:
        names |= {k.value for k in tables["PUBLIC_API"].keys if isinstance(k, ast.Constant)}
    return names


def _imported_by_name(node: ast.AST) -> str | None:
    """The module an ``importlib.import_module("...")`` call names, if ``node`` is one."""
    if not isinstance(node, ast.Call) or getattr(node.func, "attr", getattr(node.func, "id", "")) != "import_module":
        return None
    argument = node.args[0] if node.args else None
    return argument.value if isinstance(argument, ast.Constant) and isinstance(argument.value, str) else None


def private_imports(package_dir: Path, importer: str = "paper") -> list[str]:
    """Each import in ``package_dir/importer`` of a name no face lists, one line each with its fix."""
    faces = {f"mlhidden.{layer}": face_names(package_dir / layer / "__init__.py")
             for layer in GENERAL if (package_dir / layer / "__init__.py").exists()}
    faces["mlhidden"] = face_names(package_dir / "__init__.py") | set(GENERAL)
    base = {f"mlhidden.{path.stem}" for path in package_dir.glob("*.py") if not path.stem.startswith("_")}
    own = f"mlhidden.{importer}"

    def refused(line: int, where: Path, source: str, names: list[str]) -> list[str]:
        if source == own or source.startswith(f"{own}.") or source in base or not source.startswith("mlhidden"):
            return []
        if source in faces:
            return [f"{where}:{line}: {name} is not in {source}'s face: add it to its __all__"
                    for name in names if name not in faces[source]]
        package = ".".join(source.split(".")[:2])
        return [f"{where}:{line}: imports {source}, behind {package}'s face: import the name from {package}"]

    problems = []
    for path in sorted((package_dir / importer).rglob("*.py")):
        where = path.relative_to(package_dir.parent)
        module = ".".join(where.with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    problems += refused(node.lineno, where, alias.name, []) if alias.name not in faces else []
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(node, module.removesuffix(".__init__"), path.name == "__init__.py")
                problems += refused(node.lineno, where, source, [alias.name for alias in node.names])
            elif (named := _imported_by_name(node)) and named not in faces:
                problems += refused(node.lineno, where, named, [])
    return problems


def test_the_study_imports_only_public_names():
    assert private_imports(PACKAGE) == []


FACE = '__getattr__, __all__ = lazy_names(__name__, {"markdown_frame": "mlhidden.report.formats"})\n'
BEHIND = {
    "a module behind a face": ("from mlhidden.report.formats import markdown_frame\n", "behind mlhidden.report's face"),
    "a name no face lists": ("from mlhidden.report import pipe_table\n", "pipe_table is not in mlhidden.report's face"),
    "a name the root does not list": ("from mlhidden import plan_run\n", "plan_run is not in mlhidden's face"),
    "a plain import": ("import mlhidden.report.formats\n", "imports mlhidden.report.formats, behind"),
    "an import inside a function": ("def f():\n    from mlhidden.runs.store import now\n", "mlhidden.runs.store"),
    "an import by importlib": ("import importlib\nimportlib.import_module('mlhidden.report.html')\n", "report.html"),
    "a relative import out of the study": ("from ..report.formats import markdown_frame\n", "report.formats, behind"),
}


@pytest.mark.parametrize("source, named", BEHIND.values(), ids=BEHIND.keys())
def test_an_import_behind_a_face_is_caught(tmp_path, source, named):
    package = _tree(tmp_path, {"mlhidden.report": FACE, "mlhidden.paper.summary": source})
    problems = private_imports(package)
    assert len(problems) == 1 and named in problems[0], problems


def test_imports_of_faces_the_root_base_modules_and_the_study_pass(tmp_path):
    modules = {
        "mlhidden": 'PUBLIC_API = {"RunConfig": "mlhidden.experiment"}\n__all__ = ["__version__"]\n',
        "mlhidden.errors": "",
        "mlhidden.report": FACE,
        "mlhidden.data": '__all__ = ["Dataset"]\n',
        "mlhidden.paper.summary": (
            "from mlhidden import RunConfig, __version__, report\nfrom mlhidden.report import markdown_frame\n"
            "from mlhidden.data import Dataset\nfrom mlhidden.errors import UserError\nimport mlhidden.report\n"
            "from . import sections\nfrom mlhidden.paper.sections import write\nimport numpy\n"
        ),
    }
    assert private_imports(_tree(tmp_path, modules)) == []


@pytest.mark.parametrize("package", ("", *GENERAL))
def test_each_face_read_from_its_source_is_the_face_python_sees(package):
    name = f"mlhidden.{package}" if package else "mlhidden"
    init = PACKAGE / package / "__init__.py" if package else PACKAGE / "__init__.py"
    module = import_module(name)
    assert face_names(init) == set(module.__all__)
    assert [name for name in module.__all__ if not hasattr(module, name)] == []


def test_the_version_sits_in_a_leaf_module_the_build_reads():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mlhidden._version.__version__"}
    leaf = ast.parse((PACKAGE / "_version.py").read_text(encoding="utf-8"))
    assert not [node for node in ast.walk(leaf) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert import_module("mlhidden").__version__ == import_module("mlhidden._version").__version__


LAZY_FACES = [package for package in GENERAL if "lazy_names" in (PACKAGE / package / "__init__.py").read_text()]


@pytest.mark.parametrize("package", LAZY_FACES)
def test_type_checkers_see_each_name_of_a_lazy_face_where_it_is_defined(package):
    face = import_module(f"mlhidden.{package}")
    typed = typed_imports(PACKAGE / package / "__init__.py")
    assert sorted(typed) == sorted(face.__all__)
    loaded = {name: getattr(import_module(module), name) for name, module in typed.items()}
    assert [name for name, value in loaded.items() if value is not face.__getattr__(name)] == []


def test_no_name_of_a_face_is_also_one_of_its_modules():
    """A face's lazy name equal to a submodule's name is shadowed by the submodule once anything imports it."""
    import importlib
    import pkgutil

    for package in ("data", "methods", "runs", "stats", "experiment", "report", "claims"):
        face = importlib.import_module(f"mlhidden.{package}")
        modules = {info.name for info in pkgutil.iter_modules(face.__path__)}
        assert not set(face.__all__) & modules, package
