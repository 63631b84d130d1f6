"""A method's resolved identity, typed (mlhidden.methods.resolved_method): what the store keys its units on."""

import pytest

from mlhidden.experiment.config import parse_config
from mlhidden.methods import ResolvedMethod
from mlhidden.methods.registry import resolve_method
from mlhidden.runs.record import RunRecord
from mlhidden.runs.specs import canonical_hash


@pytest.mark.parametrize("method, preprocess, digest", [
    ("BR", None, "6a0e15847f7e041a"), ("MLP", None, "4fe9bf4084750516"), ("BR_RF", "standard", "9310f13ddcdcd510"),
])
def test_its_plain_form_keys_the_units_stored_before_it_was_typed(method, preprocess, digest):
    """The digests are those of the untyped description it replaced: stored runs keep their keys."""
    resolved = resolve_method(method, {}, None, preprocess)
    assert isinstance(resolved, ResolvedMethod) and canonical_hash(resolved.as_dict()) == digest
    assert ResolvedMethod.from_dict(resolved.as_dict()) == resolved


def test_a_stored_record_reads_back_the_identity_the_config_resolved():
    config = parse_config({"datasets": ["Logical"], "methods": ["BR", "MLP", {"name": "CC", "preprocess": "standard"}]})
    stored = RunRecord.from_record(config.record())
    assert [m.resolved for m in stored.methods] == [m.resolved for m in config.methods]
    assert [m.params_hash for m in stored.methods] == [m.params_hash for m in config.methods]
    br, mlp, cc = stored.methods
    assert br.resolved.base == {"name": "logistic", "params": br.resolved.base["params"]} and mlp.resolved.base is None
    assert cc.resolved.preprocess == [{"name": "standard", "params": {}}] and br.resolved.preprocess is None
