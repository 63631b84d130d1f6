"""The open method registry through the real runner and CLI: methods registered from Python, by
import path and by an installed package's entry point, run in worker processes like the built-in
ones (units, resume, identity, provenance, merging), and each way a method can be wrong."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import distributed
import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.calibration import CalibratedClassifierCV
from sklearn.linear_model import LinearRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import LinearSVC

from mlhidden.data import make_logical
from mlhidden.errors import UserError
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import run_experiment
from mlhidden.methods import BR, PCC
from mlhidden.methods.external import ExternalMethod
from mlhidden.methods.registry import METHODS, MethodEntry, entry_point_methods, get_entry
from mlhidden.runs.provenance import read_run_json
from mlhidden.runs.store import load_results


class LabelFrequency(ClassifierMixin, BaseEstimator):
    """Each label's training majority for every row: a user's method, registered from Python."""

    def __init__(self, threshold=0.5):
        self.threshold = threshold

    def fit(self, X, Y):
        self.frequency_ = np.asarray(Y).mean(axis=0)
        return self

    def predict(self, X):
        return np.tile(self.frequency_ >= self.threshold, (X.shape[0], 1)).astype(int)


PLUGIN = '''
import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.neighbors import KNeighborsClassifier


class SparseNeighbours(KNeighborsClassifier):
    """kNN returning sparse predictions, as scikit-multilearn's methods do."""

    def predict(self, X):
        return sp.csr_matrix(super().predict(X))


class Exploding(ClassifierMixin, BaseEstimator):
    """Raises in fit on every split."""

    def fit(self, X, Y):
        raise RuntimeError("exploded on purpose")

    def predict(self, X):
        return np.zeros((X.shape[0], 1))


class NoLabels(ClassifierMixin, BaseEstimator):
    def fit(self, X):
        return self

    def predict(self, X):
        return X
'''


@pytest.fixture
def plugin_site(tmp_path, monkeypatch):
    """An installed package, ``mlhidden-demo-plugin`` 1.2, that registers ``Neighbours`` in the
    ``mlhidden.methods`` entry-point group: real distribution metadata on ``sys.path``."""
    site = tmp_path / "site"
    (site / "demo_plugin").mkdir(parents=True)
    (site / "demo_plugin" / "__init__.py").write_text(PLUGIN)
    info = site / "mlhidden_demo_plugin-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mlhidden-demo-plugin\nVersion: 1.2\n")
    (info / "top_level.txt").write_text("demo_plugin\n")
    (info / "entry_points.txt").write_text("[mlhidden.methods]\nNeighbours = demo_plugin:SparseNeighbours\n")
    monkeypatch.syspath_prepend(str(site))
    entry_point_methods.cache_clear()
    yield site
    entry_point_methods.cache_clear()


def _mlhidden(site, *args, cwd):
    """``python -m mlhidden ...`` with the plugin installed (on PYTHONPATH, so workers see it too)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "mlhidden", *args], capture_output=True, text=True, timeout=600, cwd=cwd, env=env
    )


def test_a_method_registered_from_python_runs_in_worker_processes(tmp_path, monkeypatch):
    monkeypatch.setitem(METHODS, "Frequency", MethodEntry(LabelFrequency, "each label's training majority"))
    config = parse_config(
        {"datasets": ["Logical"], "methods": ["BR", {"name": "Frequency", "params": {"threshold": 0.4}}], "splits": 3}
    )
    summary = run_experiment(config, tmp_path / "run", n_jobs=2)
    units = load_results(tmp_path / "run").units
    assert summary.n_done == 6 and summary.n_failed == 0, units["error"].tolist()
    frequency = units[units["method"] == "Frequency"]
    assert len(frequency) == 3 and (frequency["status"] == "ok").all()
    assert json.loads(frequency["params_json"].iloc[0])["params"] == {"threshold": 0.4}
    assert read_run_json(tmp_path / "run")["config"]["methods"][1]["provider"]["module"] == __name__


def test_a_method_registered_from_python_runs_on_a_dask_cluster(tmp_path, monkeypatch):
    """The config carries the class to the cluster's workers; the numbers are those of loky's."""
    monkeypatch.setitem(METHODS, "Frequency", MethodEntry(LabelFrequency, "each label's training majority"))
    config = parse_config({"datasets": ["Logical"], "methods": ["Frequency", "CC"], "splits": 2})
    run_experiment(config, tmp_path / "loky", n_jobs=2)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ) as cluster:
        summary = run_experiment(config, tmp_path / "dask", backend="dask", scheduler=cluster.scheduler_address)
    assert summary.n_done == 4 and summary.n_failed == 0
    columns = ["method", "split", "status", "exact_match", "hamming_score"]
    on_dask, on_loky = (
        load_results(tmp_path / run).units[columns].sort_values(["method", "split"]).reset_index(drop=True)
        for run in ("dask", "loky")
    )
    pd.testing.assert_frame_equal(on_dask, on_loky, check_exact=True)


def test_an_entry_point_method_is_listed_run_resumed_and_merged(plugin_site, tmp_path):
    listing = _mlhidden(plugin_site, "methods", cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    row = next(line for line in listing.stdout.splitlines() if line.startswith("| Neighbours"))
    assert "mlhidden-demo-plugin 1.2 (entry point)" in row and "n_neighbors=5" in row

    config = tmp_path / "plugin.yaml"
    config.write_text(textwrap.dedent("""\
        datasets: [Logical]
        methods:
          - BR
          - {name: Neighbours, params: {n_neighbors: 3}}
          - {name: "demo_plugin:Exploding", label: Exploding}
        splits: 3
    """))
    first = _mlhidden(plugin_site, "run", "--config", str(config), "--out", "run", "--n-jobs", "2", "-q", cwd=tmp_path)
    assert first.returncode == 1 and "3 failed" in first.stderr, first.stderr  # the run went on past the failures
    units = load_results(tmp_path / "run").units
    assert units.groupby("method")["status"].agg(set).to_dict() == {
        "BR": {"ok"},
        "Neighbours": {"ok"},
        "Exploding": {"failed"},
    }
    assert units.loc[units["method"] == "Exploding", "error"].str.startswith("RuntimeError: exploded on purpose").all()
    assert "failed" in (tmp_path / "run" / "exact_match.md").read_text()
    record = read_run_json(tmp_path / "run")["config"]["methods"]
    assert record[1]["provider"] == {"module": "demo_plugin", "package": "mlhidden-demo-plugin", "version": "1.2"}
    assert record[1]["params"]["n_neighbors"] == 3 and "provider" not in record[0]

    again = _mlhidden(plugin_site, "run", "--config", str(config), "--out", "run", "--n-jobs", "2", "-q", cwd=tmp_path)
    assert (
        "0 unit(s) run" not in again.stderr and "6 already stored" in again.stderr
    )  # failed units are retried, the rest resumed

    other = tmp_path / "other.yaml"
    other.write_text("datasets: [Logical]\nmethods: [CC]\nsplits: 3\n")
    assert _mlhidden(plugin_site, "run", "--config", str(other), "--out", "other", "-q", cwd=tmp_path).returncode == 0
    merged = _mlhidden(plugin_site, "report", "run", "other", "--out", "merged", cwd=tmp_path)
    assert merged.returncode == 0, merged.stderr
    table = pd.read_csv(tmp_path / "merged" / "exact_match.csv")
    assert {"BR", "Neighbours", "CC"} <= set(table.columns)


def test_a_method_whose_fit_takes_no_labels_is_refused_before_anything_runs(plugin_site):
    with pytest.raises(UserError, match=r"method 'demo_plugin:NoLabels' has no fit\(X, Y\)"):
        parse_config({"datasets": ["Logical"], "methods": ["demo_plugin:NoLabels"]})


def test_unknown_names_suggest_the_nearest_method():
    with pytest.raises(UserError) as caught:
        get_entry("ccasl-aml")
    assert caught.value.hint.startswith("did you mean 'CCASL+AML'?")


def test_identity_is_the_class_path_and_every_parameter():
    knn = "sklearn.neighbors.KNeighborsClassifier"
    spelled_out = parse_config({"datasets": ["Logical"], "methods": [{"name": knn, "params": {"n_neighbors": 5}}]})
    default = parse_config({"datasets": ["Logical"], "methods": [knn]})
    other = parse_config({"datasets": ["Logical"], "methods": [{"name": knn, "params": {"n_neighbors": 3}}]})
    assert spelled_out.methods[0].params_hash == default.methods[0].params_hash != other.methods[0].params_hash
    assert default.methods[0].resolved.params["weights"] == "uniform"


def test_external_methods_get_constant_labels_and_label_matrices():
    data = make_logical()
    Y = np.column_stack([data.Y, np.ones(len(data.Y), dtype=int)])  # a label constant in training
    method = ExternalMethod(KNeighborsClassifier(n_neighbors=1)).fit(data.X, Y)
    assert method.predict(data.X).tolist() == Y.tolist()
    proba = method.predict_proba(data.X)  # kNN gives one (n, 2) array per label
    assert proba.shape == Y.shape and (proba[:, -1] == 1).all()
    single = ExternalMethod(KNeighborsClassifier(n_neighbors=1)).fit(
        data.X, Y[:, [0, 3]]
    )  # one varying label: a 1-d target
    assert single.predict(data.X).tolist() == Y[:, [0, 3]].tolist()
    assert single.predict_proba(data.X).tolist() == Y[:, [0, 3]].tolist()


class _KNNWithoutClasses(BaseEstimator):
    """Per-label probabilities like kNN's, but no ``classes_`` to say which column is y = 1."""

    def fit(self, X, Y):
        self.knn_ = KNeighborsClassifier(n_neighbors=1).fit(X, Y)
        return self

    def predict(self, X):
        return self.knn_.predict(X)

    def predict_proba(self, X):
        return self.knn_.predict_proba(X)


def test_external_probabilities_per_label_need_the_estimators_classes():
    data = make_logical()
    method = ExternalMethod(_KNNWithoutClasses()).fit(data.X, data.Y)
    assert method.predict(data.X).tolist() == data.Y.tolist()
    with pytest.raises(
        ValueError,
        match="_KNNWithoutClasses.predict_proba gives one array per label, but the estimator has no classes_",
    ):
        method.predict_proba(data.X)


def test_base_learners_must_be_classifiers_with_probabilities_where_read():
    data = make_logical()
    with pytest.raises(
        ValueError, match="PCC reads its base learner's probabilities, and LinearSVC has no predict_proba"
    ):
        PCC(LinearSVC()).fit(data.X, data.Y)
    assert (
        PCC(CalibratedClassifierCV(LinearSVC(), cv=2), random_state=0).fit(data.X, data.Y).predict(data.X).shape
        == data.Y.shape
    )
    with pytest.raises(ValueError, match="not a classifier"):
        BR(LinearRegression()).fit(data.X, data.Y)
    calibrated = {
        "name": "sklearn.calibration.CalibratedClassifierCV",
        "params": {"estimator": "sklearn.svm.LinearSVC", "cv": 2},
    }
    config = parse_config({"datasets": ["Logical"], "methods": [{"name": "PCC", "base": calibrated}]})
    assert config.methods[0].resolved.base["params"]["estimator"] == {"name": "sklearn.svm.LinearSVC", "params": {}}
    assert isinstance(config.methods[0].make(0).estimator.estimator, LinearSVC)
