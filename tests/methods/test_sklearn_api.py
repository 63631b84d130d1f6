"""The private scikit-learn and joblib names mlhidden relies on still exist and behave as it uses them.

scikit-learn and joblib may move or change these in any release: this file is the one place that
says so, loudly, before a method or a dask run fails in a confusing way. pyproject.toml admits the
releases these tests passed on (the newest installed by ``make venv``, the lowest by ``.ci/run``).
"""

from __future__ import annotations

import inspect
import re
import warnings
from numbers import Real
from pathlib import Path

import joblib
import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression

from mlhidden.methods.base_learners import make_base_learner
from mlhidden.methods.sklearn_api import PENALTY_FROM_L1_RATIO, SKLEARN_VERSION, HasMethods, Interval, StrOptions, Tree
from mlhidden.methods.solvers.logistic_models import batchable_logistic

ROOT = Path(__file__).resolve().parents[2]


def version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:2])


def declared_range(package: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """pyproject.toml's ``>=low,<high`` for ``package``, as (major, minor) pairs."""
    found = re.search(rf'"{package}>=([\d.]+),<([\d.]+)"', (ROOT / "pyproject.toml").read_text())
    assert found, f"pyproject.toml pins no tested range for {package}"
    return version(found[1]), version(found[2])


@pytest.mark.parametrize("package, installed", [("scikit-learn", sklearn.__version__), ("joblib", joblib.__version__)])
def test_the_installed_release_is_in_the_tested_range(package, installed):
    low, high = declared_range(package)
    assert low <= version(installed) < high, (
        f"{package} {installed} is outside the tested range declared in pyproject.toml"
    )


class Constrained(ClassifierMixin, BaseEstimator):
    _parameter_constraints = {
        "alpha": [Interval(Real, 0, 1, closed="left")],
        "kind": [StrOptions({"a", "b"})],
        "estimator": [HasMethods(["fit"]), None],
    }

    def __init__(self, alpha=0.5, kind="a", estimator=None):
        self.alpha, self.kind, self.estimator = alpha, kind, estimator


@pytest.mark.parametrize("params", [{"alpha": 1.0}, {"kind": "c"}, {"estimator": object()}])
def test_param_validation_refuses_what_its_constraints_refuse(params):
    Constrained()._validate_params()
    with pytest.raises(ValueError, match="parameter of Constrained must be"):
        Constrained(**params)._validate_params()


def test_tree_is_built_as_the_compact_forest_builds_it():
    """``Tree(n_features, n_classes per output, n_outputs)``; its ``__setstate__`` takes the node arrays."""
    tree = Tree(3, np.array([1], dtype=np.intp), 1)
    assert tree.n_features == 3 and tree.n_outputs == 1
    assert {"max_depth", "node_count", "nodes", "values"} <= set(tree.__getstate__())


def test_the_logistic_api_switch_matches_the_release():
    """scikit-learn 1.8 deprecated ``penalty``; the batched solvers pick their attributes by this switch."""
    assert PENALTY_FROM_L1_RATIO == (SKLEARN_VERSION >= (1, 8))
    assert LogisticRegression().get_params()["penalty"] == ("deprecated" if PENALTY_FROM_L1_RATIO else "l2")
    assert batchable_logistic(make_base_learner("logistic")) and batchable_logistic(make_base_learner("logistic_cv"))


def test_the_default_logistic_cv_fits_without_scikit_learns_warnings():
    """Our defaults are the ones this release neither deprecates nor ignores (``l1_ratios`` before 1.8, say)."""
    rng = np.random.RandomState(0)
    X, y = rng.normal(size=(60, 3)), np.tile([0, 1], 30)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make_base_learner("logistic_cv").fit(X, y)
    assert [str(w.message) for w in caught] == []


def test_joblibs_dask_backend_has_what_the_resilient_backend_overrides():
    pytest.importorskip("distributed")
    from joblib._dask import DaskDistributedBackend

    from mlhidden.experiment.dask_backend import ResilientDaskBackend

    assert issubclass(ResilientDaskBackend, DaskDistributedBackend)
    assert {"client", "wait_for_workers_timeout"} <= set(inspect.signature(DaskDistributedBackend.__init__).parameters)
    assert list(inspect.signature(DaskDistributedBackend.submit).parameters) == ["self", "func", "callback"]
    assert "data_futures" in inspect.getsource(DaskDistributedBackend)
    assert callable(DaskDistributedBackend.effective_n_jobs)



def test_the_lowest_constraints_are_pyprojects_floors():
    """``.ci/lowest-constraints.txt`` pins each dependency (and the test tools) at its floor, so CI tests what is
    claimed."""
    floors = dict(re.findall(r'"([A-Za-z][\w.-]*)(?:\[[\w,]+\])?>=([\d.]+)', (ROOT / "pyproject.toml").read_text()))
    pins = dict(re.findall(r"^([\w.-]+)==([\d.]+)$", (ROOT / ".ci" / "lowest-constraints.txt").read_text(), re.M))
    dependencies = re.search(r"^dependencies = \[(.*?)\]", (ROOT / "pyproject.toml").read_text(), re.S | re.M)[1]  # type: ignore[index]
    required = {name for name in floors if f'"{name}>=' in dependencies} | {"pytest", "hypothesis"}
    assert required <= set(pins)
    assert {name: version(pins[name]) for name in required} == {name: version(floors[name]) for name in required}
