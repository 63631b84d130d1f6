import pytest

from mlhidden.errors import UserError
from mlhidden.experiment.config import load_config, parse_config


def write(tmp_path, text):
    path = tmp_path / "run.yaml"
    path.write_text(text)
    return path


def test_valid_config_resolves_defaults_and_overrides(tmp_path):
    path = write(tmp_path, """
name: demo
datasets: [Logical, {name: Logical, label: Logical2, params: {jitter: 0.1}}]
methods:
  - name: BR
  - name: CC
    label: CC good
    params: {order: [0, 1, 2]}
    base: {name: logistic, params: {C: 2.0}}
splits: 3
""")
    config = load_config(path, seed=5)
    assert config.name == "demo" and config.splits == 3 and config.seed == 5
    assert [m.label for m in config.methods] == ["BR", "CC good"]
    assert config.methods[1].resolved.base == {"name": "logistic", "params": {"C": 2.0}}
    assert config.datasets[1].params == {"jitter": 0.1}


def test_writing_a_default_explicitly_keeps_the_method_identity(tmp_path):
    implicit = load_config(write(tmp_path, "datasets: [Logical]\nmethods: [BR]\n")).methods[0]
    explicit = load_config(
        write(tmp_path, "datasets: [Logical]\nmethods: [{name: BR, base: {name: logistic, params: {C: 1.0}}}]\n")
    ).methods[0]
    assert implicit.params_hash == explicit.params_hash


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("datasets: [Logical]\nmethods: [BR]\nsplit: 3\n", 3, "unknown key 'split'"),
        (
            "datasets: [Logical]\nmethods:\n  - name: BR\n  - name: Nope\n",
            4,
            "unknown method 'Nope' (valid methods: BR, CC",
        ),
        (
            "datasets: [Logical]\nmethods:\n  - name: CC\n    params: {depth: 3}\n",
            4,
            "method 'CC' has no parameter(s) depth",
        ),
        ("datasets: [Logical]\nmethods:\n  - name: BR\n    base: svm\n", 4, "unknown base learner 'svm'"),
        ("datasets: [Logical]\nmethods: [BR]\nsplits: 0\n", 3, "'splits' must be an integer >= 1"),
        ("datasets: [Logical]\nmethods: [BR]\nsplits: ten\n", 3, "'splits' must be an integer"),
        ("datasets: []\nmethods: [BR]\n", 1, "'datasets' must be a non-empty list"),
        ("datasets: [Logical]\nmethods: [BR, BR]\n", 2, "method 'BR' appears twice"),
        ("datasets: [Logical\nmethods: [BR]\n", 2, "invalid YAML"),
        ("- just\n- a list\n", 1, "a config must be a mapping"),
        ("", None, "a config must be a mapping"),
        (
            "datasets: [Logical]\nmethods:\n  - name: BR\n    preprocess: robust\n",
            4,
            "unknown preprocessing 'robust' (use standard, maxabs",
        ),
        (
            "datasets: [Logical]\nmethods:\n  - name: LP\n    base: {name: logistic, params: {solver: liblinear}}\n",
            4,
            "LP fits one multi-class model, and LogisticRegression with solver='liblinear' is binary only",
        ),
    ],
)
def test_bad_configs_fail_with_one_line_naming_file_and_line(tmp_path, text, line, fragment):
    path = write(tmp_path, text)
    with pytest.raises(UserError) as info:
        load_config(path)
    message = str(info.value)
    assert fragment in message
    assert "\n" not in message
    assert message.startswith(f"{path}:{line}: " if line else f"{path}: ")


def test_missing_config_file(tmp_path):
    with pytest.raises(UserError, match="config file not found"):
        load_config(tmp_path / "absent.yaml")


def test_sweeps_expand_methods_and_datasets(tmp_path):
    path = write(tmp_path, """
datasets:
  - {name: Scene, sweep: {first_labels: [1, 3]}}
  - {name: Logical, label: Jittered, params: {jitter: 0.1}}
  - {name: Logical, sweep: {random_state: {range: [0, 3]}}, params: {jitter: 0.2}}
methods:
  - {name: CC, sweep: {order: [[0, 1, 2], [2, 1, 0]]}}
""")
    config = load_config(path)
    labels = [d.label for d in config.datasets]
    assert labels == ["Scene [first_labels=1]", "Scene [first_labels=3]", "Jittered",
                      "Logical [random_state=0]", "Logical [random_state=1]", "Logical [random_state=2]"]
    assert config.datasets[1].transform == {"first_labels": 3} and config.datasets[1].params == {}
    assert config.datasets[4].params == {"jitter": 0.2, "random_state": 1}
    assert [m.label for m in config.methods] == ["CC [order=[0, 1, 2]]", "CC [order=[2, 1, 0]]"]
    assert {m.group for m in config.methods} == {"CC"}
    assert config.methods[0].params_hash != config.methods[1].params_hash


def test_sweep_over_an_unknown_parameter_names_the_sweep_line(tmp_path):
    path = write(tmp_path, "datasets: [Logical]\nmethods:\n  - name: CC\n    sweep:\n      depth: [1, 2]\n")
    with pytest.raises(UserError, match=r"run.yaml:4: method 'CC' has no parameter\(s\) depth"):
        load_config(path)


def test_transform_sweep_runs_end_to_end(tmp_path, mirror_dir):
    from mlhidden.experiment.config import parse_config
    from mlhidden.experiment.runner import run_experiment
    from mlhidden.runs.store import load_results

    config = parse_config(
        {"datasets": [{"name": "Music", "sweep": {"first_labels": [1, 2]}}], "methods": ["BR"], "splits": 1},
        data_dir=mirror_dir,
    )
    run_experiment(config, tmp_path, n_jobs=1)
    results = load_results(tmp_path)
    assert results.datasets == ["Music [first_labels=1]", "Music [first_labels=2]"]
    assert len(results.units) == 2 and results.units["exact_match"].notna().all()


def test_a_config_read_builds_each_method_once(monkeypatch):
    import mlhidden.methods.registry as registry

    built = []
    original = registry.make_resolved_method
    monkeypatch.setattr(
        registry,
        "make_resolved_method",
        lambda *args, **kwargs: built.append(args[1].name) or original(*args, **kwargs),
    )
    parse_config({"datasets": ["Logical"], "methods": ["BR", "PCC", {"name": "LP", "base": "logistic"}]})
    assert built == ["BR", "PCC", "LP"]


def test_an_overlay_rebases_methods_as_the_config_parser_reads_them():
    from mlhidden.experiment.overlay import ONE_VS_REST, BaseOverlay

    liblinear = {"name": "logistic", "params": {"solver": "liblinear"}}
    overlay = BaseOverlay({"logistic": liblinear}, ["standard"])
    config = parse_config({"name": "x", "datasets": ["Logical"], "methods": ["BR", "LP", "MLP"]}, overlay=overlay)
    br, lp, mlp = config.methods
    assert (
        br.resolved
        == parse_config(
            {"datasets": ["Logical"], "methods": [{"name": "BR", "base": liblinear, "preprocess": "standard"}]}
        )
        .methods[0]
        .resolved
    )
    assert lp.resolved.base["name"] == ONE_VS_REST and config.adjustments == (
        f"x: LP fits its multi-class model with {ONE_VS_REST}",
    )
    assert mlp.resolved == parse_config({"datasets": ["Logical"], "methods": ["MLP"]}).methods[0].resolved
