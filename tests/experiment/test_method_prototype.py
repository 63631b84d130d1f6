"""A method's values are worked out once, when the config is read: the base learner's default C comes
from one constant, and each method is built and checked once (its prototype), which every unit copies."""

import dataclasses

from mlhidden.experiment.config import parse_config
from mlhidden.experiment.runner import run_experiment
from mlhidden.methods import BR
from mlhidden.methods.base_learners import BASE_LEARNERS, DEFAULT_C
from mlhidden.methods.registry import METHODS, MethodEntry
from mlhidden.runs.store import load_results

UNSET_C = ["BR", {"name": "CC", "base": "standard_logistic"}, {"name": "PCC", "params": {"base.max_iter": 200}}]


def _base_C(estimator):
    return estimator.estimator.get_params()["C"]


def test_a_base_learner_without_C_takes_the_one_default_from_config_to_unit():
    assert BASE_LEARNERS["logistic"][1]["C"] == BASE_LEARNERS["standard_logistic"][1]["C"] == DEFAULT_C
    for method in parse_config({"datasets": ["Logical"], "methods": UNSET_C}).methods:
        stored = dataclasses.replace(method, entry=None, prototype=None)
        assert method.resolved.base["params"]["C"] == DEFAULT_C
        assert _base_C(method.prototype) == _base_C(method.make(0)) == _base_C(stored.make(0)) == DEFAULT_C


def test_the_default_C_followed_everywhere_is_the_base_learner_table(monkeypatch):
    monkeypatch.setitem(BASE_LEARNERS["logistic"][1], "C", 0.25)
    monkeypatch.setitem(BASE_LEARNERS["standard_logistic"][1], "C", 0.25)
    for method in parse_config({"datasets": ["Logical"], "methods": UNSET_C}).methods:
        stored = dataclasses.replace(method, entry=None, prototype=None)
        assert method.resolved.base["params"]["C"] == 0.25
        assert _base_C(method.prototype) == _base_C(method.make(0)) == _base_C(stored.make(0)) == 0.25


class CountedBR(BR):
    """BR counting, in this process, its constructions and, among them, its clones (``sklearn.clone``
    constructs too)."""

    constructed = 0
    cloned = 0

    def __init__(self, estimator=None, *, n_jobs=None, random_state=None):
        CountedBR.constructed += 1
        super().__init__(estimator, n_jobs=n_jobs, random_state=random_state)

    def __sklearn_clone__(self):
        CountedBR.cloned += 1
        return super().__sklearn_clone__()


def test_a_run_builds_each_method_once_and_each_unit_copies_it(tmp_path, monkeypatch):
    monkeypatch.setitem(METHODS, "CountedBR", MethodEntry(CountedBR, "BR, its constructions counted"))
    monkeypatch.setattr(CountedBR, "constructed", 0)
    monkeypatch.setattr(CountedBR, "cloned", 0)
    config = parse_config({"datasets": ["Logical"], "methods": ["CountedBR"], "splits": 3})
    summary = run_experiment(config, tmp_path, n_jobs=1)
    assert summary.n_done == 3 and (load_results(tmp_path).units["status"] == "ok").all()
    assert CountedBR.constructed - CountedBR.cloned == 1
    assert CountedBR.cloned >= 3


def test_a_stored_method_builds_its_prototype_once(monkeypatch):
    import mlhidden.runs.specs as specs

    built = []
    original = specs.make_resolved_method
    monkeypatch.setattr(specs, "make_resolved_method", lambda *args: built.append(args[1].name) or original(*args))
    method = parse_config({"datasets": ["Logical"], "methods": ["CC"]}).methods[0]
    stored = dataclasses.replace(method, entry=None, prototype=None)
    assert stored == method
    models = [stored.make(seed) for seed in (1, 2)]
    assert built == ["CC"] and [model.random_state for model in models] == [1, 2]
    assert repr(models[0]) == repr(method.make(1))
