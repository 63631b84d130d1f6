"""The public API (docs/api.md): importable from the package root, each name loaded on first use.

``import mlhidden`` must stay cheap and load no layer above the base (``PUBLIC_API``'s names are
imported when first used, PEP 562); type checkers see the same names through the root's
``TYPE_CHECKING`` imports; and the API runs a config, reads its store and checks claims on it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

import mlhidden
from mlhidden.errors import UserError

PROJECT = Path(__file__).resolve().parents[1]
LAYER_PACKAGES = ("data", "methods", "runs", "stats", "experiment", "report", "claims")


def modules_loaded_by(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    script = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(result.stdout.split())


def test_importing_the_package_loads_no_layer_above_the_base():
    loaded = modules_loaded_by("import mlhidden")
    above = {name for name in loaded if name.split(".")[:2][-1] in (*LAYER_PACKAGES, "paper", "cli")}
    assert above == set() and "numpy" not in loaded


def test_a_public_name_loads_its_module_when_first_used():
    loaded = modules_loaded_by("import mlhidden\nassert callable(mlhidden.run_experiment)")
    assert "mlhidden.experiment.runner" in loaded
    assert not any(name.startswith(("mlhidden.paper", "mlhidden.cli")) for name in loaded)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="module 'mlhidden' has no attribute 'run_experimnt'"):
        mlhidden.run_experimnt  # noqa: B018
    with pytest.raises(AttributeError, match="module 'mlhidden.experiment' has no attribute 'execute_plan'"):
        import_module("mlhidden.experiment").execute_plan  # noqa: B018  (internal: not exported)


def typed_imports(init: Path = PROJECT / "mlhidden" / "__init__.py") -> dict[str, str]:
    """Name -> module of a package's (by default the root's) imports under ``if TYPE_CHECKING:``."""
    tree = ast.parse(init.read_text(encoding="utf-8"))
    blocks = [node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"]
    return {
        alias.asname or alias.name: statement.module
        for block in blocks for statement in block.body if isinstance(statement, ast.ImportFrom)
        for alias in statement.names
    }


def test_type_checkers_see_each_public_name_where_it_is_defined():
    typed = typed_imports()
    assert sorted(typed) == sorted(mlhidden.PUBLIC_API)
    for name, module in typed.items():
        assert module.startswith(f"{mlhidden.PUBLIC_API[name]}."), name
        assert getattr(import_module(module), name) is getattr(mlhidden, name), name


@pytest.mark.parametrize("package", LAYER_PACKAGES)
def test_each_layer_package_exports_what_its_all_lists(package):
    module = import_module(f"mlhidden.{package}")
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert module.__all__ and missing == []
    exported_by_root = [name for name, source in mlhidden.PUBLIC_API.items() if source == module.__name__]
    assert set(exported_by_root) <= set(module.__all__)


def test_the_api_runs_a_config_reads_its_store_and_checks_a_claim(tmp_path):
    config = mlhidden.parse_config({"name": "mine", "datasets": ["Logical"], "methods": ["BR", "CC"], "splits": 2})
    summary = mlhidden.run_experiment(config, tmp_path / "mine", n_jobs=1)
    assert isinstance(summary, mlhidden.RunSummary) and summary.n_done == 4
    with mlhidden.ResultStore(tmp_path / "mine", create=False) as store:
        assert len(store.units()) == 4
    assert sorted(mlhidden.load_results(tmp_path / "mine").units["method"].unique()) == ["BR", "CC"]
    claims = tmp_path / "claims.yaml"
    claims.write_text(
        "claims:\n  - id: A\n    about: CC is as exact as BR\n    subclaims:\n      - id: A.1\n"
        "        says: CC and BR match\n        metric: exact_match\n        difference: [CC, BR]\n"
        "        smallest_effect: 0.5\n        unit: splits\n"
    )
    results = mlhidden.check_claims(claims, [tmp_path / "mine"])
    assert [result.key for result in results] == ["A"] and isinstance(results[0], mlhidden.ClaimResult)
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="no stored run here"):
        mlhidden.check_claims(claims, [tmp_path / "empty"])
