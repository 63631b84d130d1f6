"""The paper reproduction: synthetic generators, quick mode, figures, claims and REPORT.md.

The claims are checked on stores written through the real store API with chosen numbers, so that
each claim can be made to hold and to fail; a slice of the quick reproduction runs end to end on
the real datasets (the whole quick run is marked slow).
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from paper_jobs import report_jobs
from sklearn.linear_model import LogisticRegression

from mlhidden.cli import cli
from mlhidden.cli.progress import RunProgress
from mlhidden.data import load_dataset, make_logical
from mlhidden.data.generators import GENERATORS
from mlhidden.data.random_networks import draw_network, make_synthetic_complex, make_synthetic_simple
from mlhidden.errors import UserError
from mlhidden.experiment.config import load_config, parse_config
from mlhidden.paper.claims import decide_claims
from mlhidden.paper.evidence import sweep_frame
from mlhidden.paper.parallel_jobs import run_jobs
from mlhidden.paper.reference import (
    LABEL_ACCURACY_FILE,
    PAPER_CONFIGS,
    QUICK,
    TRIVIAL_BASELINE_METHODS,
    reference_results,
)
from mlhidden.paper.reproduction import reproduce, write_outputs
from mlhidden.paper.significance_section import paper_units
from mlhidden.report.figures import plot_sweep
from mlhidden.report.significance_tests import significance_report
from mlhidden.report.tables import metric_table
from mlhidden.runs.record import RunRecord
from mlhidden.runs.splits import split_seed
from mlhidden.runs.store import ResultStore
from mlhidden.runs.units import UnitResult
from mlhidden.stats.uncertainty import FAILS, HOLDS, INCONCLUSIVE, NOT_EVALUATED, NOT_TESTABLE, VERDICTS

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CONFIGS = PROJECT_ROOT / "configs"
SCORES = ("exact_match", "hamming_score", "micro_f1", "macro_f1", "example_f1", "jaccard")


# ------------------------------------------------------------------------------ synthetic data


def test_synthetic_generators_are_registered_seeded_and_leave_the_global_rng_alone():
    state = np.random.get_state()[1].copy()
    assert GENERATORS["SyntheticComplex"] is make_synthetic_complex
    assert GENERATORS["SyntheticSimple"] is make_synthetic_simple
    first = load_dataset("SyntheticComplex", params={"n_samples": 500, "random_state": 3})
    again = make_synthetic_complex(n_samples=500, random_state=3)
    other = make_synthetic_complex(n_samples=500, random_state=4)
    np.testing.assert_array_equal(first.X, again.X)
    np.testing.assert_array_equal(first.Y, again.Y)
    assert not np.array_equal(first.Y, other.Y)
    assert first.X.shape == (500, 10) and first.Y.shape == (500, 10) and first.Y.dtype == np.int8
    assert first.label_names == tuple(f"y{j}" for j in range(1, 11))
    np.testing.assert_array_equal(np.random.get_state()[1], state)


def test_synthetic_labels_are_the_network_of_the_stored_params():
    data = make_synthetic_complex(n_samples=300, n_features=2, n_labels=2, n_hidden=10, random_state=1)
    X, network = draw_network(**data.params)
    np.testing.assert_array_equal(X, data.X)
    np.testing.assert_array_equal(network.labels(data.X), data.Y)
    assert network.hidden_weights.shape == (3, 10)
    # Thresholds near the activation's mean keep every label far from constant.
    assert np.all((data.Y.mean(axis=0) > 0.1) & (data.Y.mean(axis=0) < 0.9))


def test_simple_data_is_linearly_separable_and_complex_data_is_not():
    simple = make_synthetic_simple(n_samples=2000, random_state=0)
    complex_ = make_synthetic_complex(n_samples=2000, random_state=0)
    assert simple.params["n_hidden"] == 0

    def worst_training_accuracy(data):
        return min(LogisticRegression(C=1e4, max_iter=5000).fit(data.X, y).score(data.X, y) for y in data.Y.T)

    assert worst_training_accuracy(simple) > 0.99
    assert worst_training_accuracy(complex_) < 0.95


@pytest.mark.parametrize(
    "params, message",
    [
        ({"n_samples": 1}, "n_samples"),
        ({"n_labels": 0}, "n_labels"),
        ({"n_hidden": 0}, "n_hidden"),
        ({"n_features": 2.5}, "n_features"),
    ],
)
def test_bad_synthetic_parameters_are_user_errors(params, message):
    with pytest.raises(UserError, match=message):
        load_dataset("SyntheticComplex", params=params)


# --------------------------------------------------------------------------- configs, quick mode


def test_every_paper_config_is_valid_and_as_the_issue_asks():
    configs = {name: load_config(CONFIGS / f"{name}.yaml") for name in PAPER_CONFIGS}
    paper = configs["paper"]
    assert [d.name for d in paper.datasets] == [
        "Logical", "Music", "Scene", "Yeast", "Medical", "Enron", "Reuters", "OHSUMED", "MediaMill", "Bibtex", "Corel5k"
    ]
    assert [m.label for m in paper.methods] == [
        "BR", "CC", "PCC", "CCASL", "CCASL+BR", "CCASL+AML", "ELM", "BR_RF", "MLP", *TRIVIAL_BASELINE_METHODS
    ]
    assert paper.splits == 10
    synthetic = configs["synthetic"]
    assert (
        sum(d.group == "complex" for d in synthetic.datasets)
        == sum(d.group == "simple" for d in synthetic.datasets)
        == 150
    )
    assert synthetic.train_fraction == 0.5
    assert {d.params["n_samples"] for d in synthetic.datasets} == {10000}
    assert [d.transform["first_labels"] for d in configs["label_count"].datasets] == [1, 2, 3, 4, 5, 6]
    hidden = configs["hidden_nodes"]
    assert {m.group for m in hidden.methods} == {"CCASL", "CCASL+BR", "CCASL+AML", "PCCASL", "ELM", "MLP"}
    assert all(len(m.sweep) == 1 for m in hidden.methods)


def test_quick_mode_shrinks_splits_datasets_and_sweeps():
    paper = QUICK.shrink(load_config(CONFIGS / "paper.yaml"))
    assert paper.splits == 3
    assert [d.name for d in paper.datasets] == ["Logical", "Music", "Scene", "Yeast", "Medical"]
    synthetic = QUICK.shrink(load_config(CONFIGS / "synthetic.yaml"))
    assert [d.sweep["random_state"] for d in synthetic.datasets if d.group == "complex"] == list(range(10))
    assert len(synthetic.datasets) == 20 and synthetic.splits == 1
    assert len(QUICK.shrink(load_config(CONFIGS / "label_count.yaml")).datasets) == 6


def test_make_reproduce_passes_quick_to_the_cli():
    dry_run = subprocess.run(
        ["make", "-n", "reproduce", "QUICK=1"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    assert "mlhidden reproduce --quick" in dry_run.stdout
    full = subprocess.run(["make", "-n", "reproduce"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    assert "mlhidden reproduce" in full.stdout and "--quick" not in full.stdout


def test_reproduce_without_configs_is_a_one_line_user_error(tmp_path):
    result = CliRunner().invoke(
        cli, ["reproduce", "--configs", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 2
    missing = tmp_path / "nowhere" / "paper.yaml"
    assert result.output.strip().splitlines() == [
        f"error: {missing}: paper config not found (run from the project root or pass --configs DIR)"
    ]


def test_reference_csv_holds_the_shared_paper_numbers():
    # tests/fixtures/paper_reference_results.csv: shared/paper/reference_results.csv, copied byte for byte
    with open(PROJECT_ROOT / "tests" / "fixtures" / "paper_reference_results.csv", newline="") as stream:
        shared = [tuple(row) for row in csv.reader(stream)][1:]
    reference = reference_results()
    ours = reference[reference["table"].isin(["results", "scalability"])]
    assert len(ours) == len(shared)
    spelled = {"OHSUMED": "Ohsumed", "MediaMill": "M.Mill"}
    for row, (metric, dataset, method, value, rank) in zip(ours.itertuples(), shared):
        assert (row.metric, spelled.get(row.dataset, row.dataset), row.method) == (metric, dataset, method)
        assert row.value == float(value) and row.rank == float(rank)


# ------------------------------------------------------------------------------------ figures


def test_sweep_frame_and_plot(tmp_path):
    config = parse_config(
        {
            "datasets": ["Logical"],
            "methods": [
                {"name": "CCASL", "sweep": {"n_synthetic": [1, 2]}},
                {"name": "ELM", "sweep": {"n_hidden": [1, 2]}},
            ],
            "splits": 2,
        }
    )
    record = config.record()
    units = pd.DataFrame(
        [
            {
                "dataset": "Logical",
                "method": m.label,
                "split": s,
                "status": "ok",
                "exact_match": 0.25 * m.sweep[next(iter(m.sweep))] + 0.1 * s,
            }
            for m in config.methods
            for s in range(2)
        ]
    )
    frame = sweep_frame(units, RunRecord.from_record(record), "exact_match")
    assert frame[["line", "x"]].values.tolist() == [["CCASL", 1], ["CCASL", 2], ["ELM", 1], ["ELM", 2]]
    np.testing.assert_allclose(frame["mean"], [0.3, 0.55, 0.3, 0.55])
    np.testing.assert_allclose(frame["std"], np.sqrt(0.005))
    paths = plot_sweep(frame, tmp_path / "sweep", y_label="Exact match", x_label="K")
    assert [p.suffix for p in paths] == [".png", ".pdf"]
    assert paths[0].read_bytes().startswith(b"\x89PNG") and paths[1].read_bytes().startswith(b"%PDF")
    record["methods"][0]["sweep"] = {}
    with pytest.raises(ValueError, match="exactly one"):
        sweep_frame(units, RunRecord.from_record(record), "exact_match")


def test_a_sweep_plot_draws_names_with_dollars_as_typed(tmp_path, monkeypatch):
    """Panels, lines and labels named like mathtext (``$x^$`` does not parse, ``$\\alpha$`` would be α) are text."""
    from matplotlib.mathtext import MathTextParser

    parsed, parse = [], MathTextParser.parse
    monkeypatch.setattr(MathTextParser, "parse", lambda self, text, *a: parsed.append(text) or parse(self, text, *a))
    frame = pd.DataFrame({"panel": "$x^$", "line": ["$\\undefinedcmd$"] * 2 + ["$\\alpha$"] * 2, "x": [1, 2] * 2,
                          "mean": [0.2, 0.4, 0.3, 0.5], "std": 0.05})
    paths = plot_sweep(frame, tmp_path / "sweep", y_label="$y$", x_label="$K$", title="$\\alpha$ sweep")
    assert [p.suffix for p in paths] == [".png", ".pdf"] and parsed == []


# ------------------------------------------------------------------------------------- claims


def fake_run(out_dir, name, config_data, value, shapes=None, reverse=False):
    """Store a run of ``config_data`` under ``out_dir/name`` whose units score ``value(dataset, method, split)``.

    ``value`` returns a dict of metric values (missing scores default to the exact match, times
    to 1 s). ``shapes`` gives (n_samples, n_labels, n_features) per dataset (default (20, 3, 2)).
    ``reverse`` stores the units in the reverse of config order, as units arriving out of order do.
    """
    config = parse_config({"name": name, **config_data})
    run_dir = Path(out_dir) / name
    shapes = shapes or {}
    units = []
    with ResultStore(run_dir) as store:
        store.set_meta("config", config.record())
        store.set_meta("unavailable", {})
        names = [spec.label or spec.name for spec in config.datasets]
        store.set_meta("dataset_order", names)
        for dataset in names:
            n_samples, n_labels, n_features = shapes.get(dataset, (20, 3, 2))
            store.record_dataset(
                dataset,
                sha256=f"sha-{dataset}",
                n_samples=n_samples,
                n_labels=n_labels,
                n_features=n_features,
                label_cardinality=1.0,
            )
            for method in config.methods:
                for split in range(config.splits):
                    values = value(dataset, method.label, split)
                    metrics = {score: values.get(score, values["exact_match"]) for score in SCORES}
                    key = (
                        dataset, f"sha-{dataset}", method.name, method.params_hash, split,
                        split_seed(config.seed, dataset, split),
                    )
                    result = UnitResult(
                        label=method.label, params_json="{}", method_seed=None, label_order=None, status="ok",
                        **metrics, train_seconds=values.get("seconds", 1.0), test_seconds=0.0,
                    )
                    units.append((key, result))
        for key, result in reversed(units) if reverse else units:
            store.write_unit(key, result)
    return run_dir


def claims_of(out_dir) -> dict:
    return {claim.key: claim for claim in decide_claims(out_dir)}


PAPER_METHODS = ["BR", "CC", "PCC", "CCASL", "CCASL+BR", "CCASL+AML", "ELM", "BR_RF", "MLP"]


def paper_run(out_dir, exact_order, hamming_best, seconds):
    """A paper run on Music and Reuters whose exact match ranks the methods in ``exact_order``."""
    def value(dataset, method, split):
        return {
            "exact_match": 0.9 - 0.05 * exact_order.index(method),
            "hamming_score": 0.95 if method == hamming_best else 0.9,
            "seconds": seconds[method],
        }

    return fake_run(
        out_dir, "paper", {"datasets": ["Music", "Reuters"], "methods": PAPER_METHODS, "splits": 10}, value,
        shapes={"Music": (592, 6, 71), "Reuters": (6000, 103, 500)},
    )


TIMES = {
    "BR": 10.0,
    "CC": 10.0,
    "PCC": 40.0,
    "CCASL": 20.0,
    "CCASL+BR": 20.0,
    "CCASL+AML": 20.0,
    "ELM": 1.0,
    "BR_RF": 2.0,
    "MLP": 400.0,
}


def verdicts(claim) -> dict:
    """Sub-claim id -> verdict."""
    return {result.spec.id: result.verdict for result in claim.subclaims}


def test_time_claim_holds_on_the_large_dataset_and_rank_claims_on_two_datasets_stay_inconclusive(tmp_path):
    order = ["CCASL+AML", "CCASL+BR", "PCC", "CC", "CCASL", "BR_RF", "MLP", "BR", "ELM"]
    paper_run(tmp_path, order, "BR_RF", TIMES)
    claims = claims_of(tmp_path)
    # In the paper's order, but over 2 datasets no rank gap is significant against the control.
    assert [claims[key].verdict for key in ("C3", "C4")] == [INCONCLUSIVE, INCONCLUSIVE]
    assert "Friedman" in claims["C4"].deciding and "Bonferroni-Dunn CD" in claims["C4"].deciding
    # CCASL / BR,CC is 2x on Reuters, the one large dataset; MLP / CCASL is 20x on each of 2 datasets,
    # which the dataset as the unit cannot make significant.
    assert verdicts(claims["C7"]) == {"C7.1": HOLDS, "C7.2": INCONCLUSIVE}
    assert "Reuters 2.00x" in claims["C7"].subclaims[0].deciding
    assert "n = 2 datasets" in claims["C7"].subclaims[1].deciding


def test_time_claim_fails_on_results_that_contradict_the_paper(tmp_path):
    order = ["ELM", "CCASL+BR", "CCASL+AML", "PCC", "CC", "CCASL", "BR_RF", "MLP", "BR"]
    paper_run(tmp_path, order, "BR", {**TIMES, "MLP": 30.0})
    claims = claims_of(tmp_path)
    # ELM first on both datasets refutes its last place, which is supporting; two datasets refute no core rank
    # sub-claim, and MLP's 1.5x misses "an order of magnitude" by its interval, not by a test over two datasets.
    assert [claims[key].verdict for key in ("C3", "C4", "C7")] == [INCONCLUSIVE, INCONCLUSIVE, INCONCLUSIVE]
    assert verdicts(claims["C3"])["C3.3"] == FAILS and verdicts(claims["C7"])["C7.2"] == FAILS
    assert "C7.2 does not hold by the interval or its own test alone" in claims["C7"].refutation_line()
    assert claims["C7"].subclaims[1].deciding.startswith("MLP / mean(CCASL, CCASL+BR, CCASL+AML), total_seconds: 1.50x")
    run_jobs(report_jobs(tmp_path))
    report = (tmp_path / "REPORT.md").read_text(encoding="utf-8")
    c3 = next(line for line in report.splitlines() if line.startswith("| [C3](#claim-c3) "))
    assert "**inconclusive**" in c3
    detail = report.split('<a id="claim-c3"></a>')[1].split("<a id=")[0]
    assert "**does not hold**" in detail and "- **C3.3** " in detail and "ELM below BR" in detail
    # The other runs are absent: their claims say so instead of guessing.
    assert "**not evaluated**" in next(line for line in report.splitlines() if line.startswith("| [C2](#claim-c2) "))
    first_screen = report.split("## The claims in detail")[0]
    assert ("the paper's 11 claims: **holds** 0, **does not hold** 0, **no practical difference** 0, "
            "**inconclusive** 4, **not evaluated** 7.") in " ".join(first_screen.split())
    assert max(len(line) for line in report.splitlines() if not line.startswith("|")) <= 200


def test_time_claim_needs_a_large_dataset(tmp_path):
    fake_run(tmp_path, "paper", {"datasets": ["Music"], "methods": PAPER_METHODS, "splits": 2},
             lambda d, m, s: {"exact_match": 0.5, "seconds": TIMES[m]}, shapes={"Music": (592, 6, 71)})
    first = claims_of(tmp_path)["C7"].subclaims[0]
    assert first.verdict == NOT_EVALUATED and "no result on the datasets chosen (N ≥ 5000)" in first.why


def synthetic_run(out_dir, complex_means):
    config = {
        "datasets": [
            {
                "name": "SyntheticComplex",
                "label": "complex",
                "params": {"n_samples": 50},
                "sweep": {"random_state": list(range(8))},
            },
            {
                "name": "SyntheticSimple",
                "label": "simple",
                "params": {"n_samples": 50},
                "sweep": {"random_state": list(range(8))},
            },
        ],
        "methods": ["BR", "CC", "CCASL"],
        "splits": 1,
    }
    simple_means = {"BR": 0.91, "CC": 0.89, "CCASL": 0.88}
    return fake_run(
        out_dir,
        "synthetic",
        config,
        lambda d, m, s: {"exact_match": (complex_means if d.startswith("complex") else simple_means)[m]},
    )


@pytest.mark.parametrize(
    "complex_means, verdict",
    [({"BR": 0.55, "CC": 0.57, "CCASL": 0.64}, HOLDS), ({"BR": 0.55, "CC": 0.65, "CCASL": 0.60}, FAILS)],
)
def test_synthetic_claim(tmp_path, complex_means, verdict):
    synthetic_run(tmp_path, complex_means)
    claim = claims_of(tmp_path)["C2"]
    assert claim.verdict == verdict
    assert verdicts(claim)["C2.3"] == verdicts(claim)["C2.4"] == HOLDS  # the simple-data half
    first = claim.subclaims[0]
    assert f"CCASL − BR, exact_match: {complex_means['CCASL'] - 0.55:+.3f}" in first.deciding
    assert "n = 8 datasets" in first.deciding
    assert "BR's exact match is complex 0.550 (paper 0.558), simple 0.910 (paper 0.913)" in claim.evidence


def logical_run(out_dir, cc_xor_first):
    """Table 3 as the paper has it, except CC with XOR first in the chain (model c) scores ``cc_xor_first``."""
    paper = reference_results()
    paper = paper[paper["table"] == "logical"].pivot_table(index="method", columns="metric", values="value")

    def value(dataset, method, split):
        if method == "CC (c)":
            return {"exact_match": cc_xor_first, "hamming_score": cc_xor_first}
        return dict(paper.loc[method])

    return fake_run(
        out_dir,
        "logical",
        {"datasets": ["Logical"], "methods": LOGICAL_METHODS, "splits": 10, "shuffle_labels": False},
        value,
    )


LOGICAL_METHODS = [
    "BR",
    {"name": "CC", "label": "CC (b)", "params": {"order": [0, 1, 2]}},
    {"name": "CC", "label": "CC (c)", "params": {"order": [2, 0, 1]}},
    {"name": "PCC", "label": "PCC (c)", "params": {"inference": "exact", "order": [2, 0, 1]}},
    "LP",
    "BR_phi",
]


def test_logical_claim_is_the_behaviour_and_the_twelve_values_its_own_subclaim(tmp_path):
    logical_run(tmp_path / "agree", cc_xor_first=0.47)
    logical_run(tmp_path / "differ", cc_xor_first=1.0)
    agree, differ = claims_of(tmp_path / "agree")["C1"], claims_of(tmp_path / "differ")["C1"]
    # The behaviour holds; only CC (c)'s Hamming score (0.47 against 0.83) misses the printed values.
    assert verdicts(agree) == {**{f"C1.{i}": HOLDS for i in range(1, 8)}, "C1.8": FAILS}
    assert "CC (c) hamming score -0.360" in agree.subclaims[-1].deciding
    # CC (c) solving XOR contradicts the behaviour and the twofold gap.
    assert [verdicts(differ)[key] for key in ("C1.1", "C1.2", "C1.7")] == [HOLDS, FAILS, FAILS]


def test_logical_config_fixes_the_paper_models_chain_orders():
    config = load_config(CONFIGS / "logical.yaml")
    assert not config.shuffle_labels
    assert [m.label for m in config.methods] == [
        m if isinstance(m, str) else m["label"] for m in LOGICAL_METHODS
    ] + list(TRIVIAL_BASELINE_METHODS)
    xor = make_logical().label_names.index("XOR")
    orders = {m.label: m.params.get("order") for m in config.methods}
    assert orders["CC (b)"][-1] == xor and orders["CC (c)"][0] == xor and orders["PCC (c)"] == orders["CC (c)"]


def hidden_nodes_run(out_dir, aml_at_one):
    Ks = [1, 2, 4]
    methods = [
        {"name": name, "sweep": {key: Ks}}
        for name, key in (("CCASL+AML", "n_synthetic"), ("ELM", "n_hidden"), ("MLP", "n_hidden"))
    ]

    def value(dataset, method, split):
        K = int(method.split("=")[1].rstrip("]"))
        if method.startswith("CCASL+AML"):
            return {"exact_match": aml_at_one if K == 1 else 1.0}
        return {"exact_match": 1.0 if K == 4 else 0.5}

    return fake_run(out_dir, "hidden_nodes", {"datasets": ["Logical"], "methods": methods, "splits": 10}, value)


@pytest.mark.parametrize("aml_at_one, verdict", [(1.0, HOLDS), (0.9, FAILS)])
def test_hidden_nodes_claim(tmp_path, aml_at_one, verdict):
    hidden_nodes_run(tmp_path, aml_at_one)
    claim = claims_of(tmp_path)["C5"]
    assert claim.verdict == verdict
    assert verdicts(claim)["C5.2"] == verdicts(claim)["C5.3"] == HOLDS
    assert f"CCASL+AML [n_synthetic=1], exact_match: {aml_at_one:+.3f}" in claim.subclaims[0].deciding


LABEL_COUNT_METHODS = ["BR", "CC", "PCC", "CCASL", "CCASL+AML", "PCCASL", "BR_RF", "CC_RF"]


@pytest.mark.parametrize("forest_at_one, verdict", [(0.9, HOLDS), (0.6, FAILS)])
def test_label_count_claim(tmp_path, forest_at_one, verdict):
    """Values that say what each sentence of C6 says (the forests ahead at L = 1 or not), with no spread."""
    config = {
        "datasets": [{"name": "Scene", "sweep": {"first_labels": [1, 2, 3, 6]}}],
        "methods": LABEL_COUNT_METHODS,
        "splits": 10,
    }

    def value(dataset, method, split):
        labels = int(dataset.split("=")[1].rstrip("]"))
        if method in ("BR_RF", "CC_RF"):
            score = forest_at_one if labels == 1 else 0.51 if method == "CC_RF" else 0.5
        else:
            score = {"CCASL+AML": 0.7, "PCC": 0.67 if labels == 6 else 0.65, "PCCASL": 0.66}.get(method, 0.65)
        return {"exact_match": score}

    fake_run(tmp_path, "label_count", config, value)
    claim = claims_of(tmp_path)["C6"]
    assert claim.verdict == verdict
    assert verdicts(claim) == {"C6.1": verdict, **{f"C6.{i}": HOLDS for i in range(2, 13)}}


def test_label_count_claim_on_a_run_without_some_methods_is_not_evaluated_for_them(tmp_path):
    config = {"datasets": [{"name": "Scene", "sweep": {"first_labels": [1, 6]}}], "methods": ["BR", "BR_RF"],
              "splits": 3}
    fake_run(tmp_path, "label_count", config, lambda d, m, s: {"exact_match": 0.5})
    claim = claims_of(tmp_path)["C6"]
    assert claim.subclaims[2].verdict == NOT_EVALUATED
    assert claim.subclaims[2].why.startswith("run 'label_count' has no method 'CCASL+AML'")


@pytest.mark.parametrize("rise, verdict", [(0.06, HOLDS), (-0.06, FAILS)])
def test_medical_chain_claim_reads_the_refits(tmp_path, rise, verdict):
    """CCASL's chain from 0.93 and CC's from 0.67, as in the paper; CCASL's last quarter varies a little over the
    splits."""
    run_dir = paper_run(tmp_path, PAPER_METHODS, "BR_RF", TIMES)
    starts, rises = {"CC": 0.67, "CCASL": 0.93}, {"CC": 0.08, "CCASL": rise}

    def accuracy(method, split, position):
        jitter = 0.004 * (split % 3 - 1) if method == "CCASL" and position >= 30 else 0.0
        return starts[method] + rises[method] / 30 * (position - 4.5) + jitter

    rows = [
        {"dataset": "Medical", "method": method, "split": split, "position": position, "label": position,
         "accuracy": accuracy(method, split, position), "exact_match": 0.5}
        for method in ("CC", "CCASL") for split in range(10) for position in range(40)
    ]
    pd.DataFrame(rows).to_csv(run_dir / LABEL_ACCURACY_FILE, index=False)
    claim = claims_of(tmp_path)["C8"]
    assert claim.verdict == verdict
    assert verdicts(claim)["C8.1"] == HOLDS and verdicts(claim)["C8.2"] == verdict
    assert "CC, value: +0.080" in claim.subclaims[0].deciding


# The paper's 'avg rank' rows (Tables 'results' and 'scalability'), as printed.
PAPER_AVG_RANKS = {
    "exact_match": [6.95, 4.55, 4.23, 4.05, 3.45, 2.55, 8.27, 5.09, 5.86],
    "hamming_score": [5.82, 6.27, 6.86, 5.64, 3.68, 3.50, 5.73, 1.32, 6.18],
    "total_seconds": [2.86, 3.23, 7.73, 4.86, 6.09, 6.73, 1.95, 2.64, 8.91],
}


def paper_significance(metric):
    units = paper_units(reference_results())
    table = metric_table(units, metric, list(dict.fromkeys(units["dataset"])), PAPER_METHODS)
    return significance_report(table, "CCASL+AML")


@pytest.mark.parametrize("metric", list(PAPER_AVG_RANKS))
def test_paper_numbers_as_units_rank_as_the_paper_does(metric):
    report = paper_significance(metric)
    assert len(report.datasets) == 11 and report.control == "CCASL+AML"
    np.testing.assert_allclose(report.avg_ranks.to_numpy(), PAPER_AVG_RANKS[metric], atol=0.005)
    # Only the ranks move: every shown value is the paper's.
    shown = report.table.means.map(report.table.metric.format)
    paper = reference_results().query("table in ('results', 'scalability')")
    paper = paper[paper["metric"] == ("time_seconds" if metric == "total_seconds" else metric)]
    assert all(shown.at[row.dataset, row.method] == report.table.metric.format(row.value) for row in paper.itertuples())


def test_report_states_which_of_the_paper_rank_differences_are_significant(tmp_path):
    run_jobs(report_jobs(tmp_path))
    report = (tmp_path / "REPORT.md").read_text(encoding="utf-8")
    section = report.split("## Statistical significance")[1].split("\n## ")[0]
    ours, theirs = section.split("### The paper's own numbers")
    assert "Not run: no results for run 'paper'" in ours
    exact = paper_significance("exact_match")
    assert exact.friedman.p_value < 0.05
    cd = exact.nemenyi[0].cd
    gap = exact.avg_ranks["ELM"] - exact.avg_ranks["CCASL+AML"]
    sentence = f"At α = 0.05, CCASL+AML ranks significantly better than ELM (avg ranks 2.55 vs 8.27, CD {cd:.2f})."
    assert (sentence in theirs) == (gap >= cd)
    assert f"p = {exact.friedman.p_value:.1e}" in theirs
    for title in ("Exact match", "Hamming score", "Time (s)"):
        assert f"#### {title}: significance over datasets" in theirs
    for metric in PAPER_AVG_RANKS:
        assert f"](figures/cd_reference_{metric}.png)" in theirs
        assert (tmp_path / "figures" / f"cd_reference_{metric}.pdf").is_file()


def test_report_tests_our_paper_run_against_the_control(tmp_path):
    order = ["CCASL+AML", "CCASL+BR", "PCC", "CC", "CCASL", "BR_RF", "MLP", "BR", "ELM"]
    paper_run(tmp_path, order, "BR_RF", TIMES)
    _, paths = run_jobs(report_jobs(tmp_path))
    ours = (
        (tmp_path / "REPORT.md").read_text(encoding="utf-8").split("### Our paper run")[1].split("### The paper's")[0]
    )
    assert "Friedman test over N = 2 datasets and k = 9 methods" in ours
    assert "R+ / R- vs CCASL+AML" in ours
    assert tmp_path / "figures" / "cd_paper_exact_match.png" in paths
    assert "](figures/cd_paper_total_seconds.png)" in ours


def test_report_command_std_flag_shows_the_spread(tmp_path):
    run_dir = fake_run(
        tmp_path, "spread", {"datasets": ["Music", "Scene"], "methods": ["BR", "CC"], "splits": 2},
        lambda dataset, method, split: {"exact_match": 0.2 + 0.2 * split},
    )
    result = CliRunner().invoke(cli, ["report", str(run_dir), "--std"])
    assert result.exit_code == 0, result.output
    spread = f"{np.std([0.2, 0.4], ddof=1):.2f}"
    assert f"0.30 ± {spread} 1.5" in result.output
    assert f"**0.30 ± {spread}** 1.5" in (run_dir / "tables.md").read_text(encoding="utf-8")
    plain = CliRunner().invoke(cli, ["report", str(run_dir)])
    assert plain.exit_code == 0 and "±" not in plain.output


def test_report_files_do_not_depend_on_the_order_units_were_stored(tmp_path):
    # Means of these three splits differ in the last digit with the order they are summed in.
    scores = (0.994, 0.982, 0.9)
    for order, reverse in (("config_order", False), ("reversed", True)):
        hidden_nodes = {
            "datasets": ["Logical"],
            "methods": [{"name": "ELM", "sweep": {"n_hidden": [1, 2]}}],
            "splits": 3,
        }
        fake_run(
            tmp_path / order, "hidden_nodes", hidden_nodes, lambda d, m, s: {"exact_match": scores[s]}, reverse=reverse
        )
        logical = {"datasets": ["Logical"], "methods": LOGICAL_METHODS, "splits": 3, "shuffle_labels": False}
        fake_run(
            tmp_path / order,
            "logical",
            logical,
            lambda d, m, s: {"exact_match": scores[s], "hamming_score": scores[2 - s]},
            reverse=reverse,
        )
        run_jobs(report_jobs(tmp_path / order))
    written = {
        path.relative_to(tmp_path / "config_order") for path in (tmp_path / "config_order").rglob("*")
        if path.suffix in (".md", ".csv", ".tex")
    }
    assert {Path("REPORT.md"), Path("tables/logical.csv"), Path("tables/hidden_nodes.csv")} <= written
    for path in written:
        assert (tmp_path / "config_order" / path).read_bytes() == (tmp_path / "reversed" / path).read_bytes(), path


def test_every_claim_is_not_evaluated_without_runs(tmp_path):
    claims = decide_claims(tmp_path)
    assert [c.key for c in claims] == [f"C{i}" for i in range(1, 12)]
    assert all(c.verdict == NOT_EVALUATED for c in claims)


def test_write_outputs_decides_each_run_folders_claims_once(tmp_path, monkeypatch):
    """REPORT.md and the page are handed the same claims: the main runs' and each finished setting's,
    each decided in one call (the page's views and the report's sensitivity matrix included); and the
    same audit and diagnoses of the paper's numbers, worked out once."""
    import sys

    import mlhidden.paper.audit as audit_module
    import mlhidden.paper.claims as paper_claims_module
    import mlhidden.paper.deviations as deviations_module
    import mlhidden.paper.report_md as report_md_module

    logical = {"datasets": ["Logical"], "methods": LOGICAL_METHODS, "splits": 2, "shuffle_labels": False}
    folders = [tmp_path, tmp_path / "sensitivity" / "a", tmp_path / "sensitivity" / "b"]
    for folder in folders:
        fake_run(folder, "logical", logical, lambda d, m, s: {"exact_match": 0.5 + 0.1 * s})
    (tmp_path / "sensitivity" / "settings.json").write_text(json.dumps({"a": {"C": 1}, "b": {"C": 100}}))
    calls: dict[str, list] = {}

    def counted(name, original):
        def call(*args, **kwargs):
            calls.setdefault(name, []).append(args[0])
            return original(*args, **kwargs)
        return call

    for name, home in [("decide_claims", paper_claims_module), ("audit_paper", audit_module),
                       ("trivial_baselines", deviations_module), ("diagnosed_cells", report_md_module)]:
        original = getattr(home, name)
        for module in list(sys.modules.values()):
            if module.__name__.startswith("mlhidden.paper") and getattr(module, name, None) is original:
                monkeypatch.setattr(module, name, counted(name, original))
    write_outputs(tmp_path, ["logical"], n_jobs=1)
    assert sorted(map(Path, calls["decide_claims"])) == sorted(folders)
    assert [len(calls[name]) for name in ("audit_paper", "trivial_baselines", "diagnosed_cells")] == [1, 1, 1]
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "<h2>Claims</h2>" in page and "| a " in (tmp_path / "REPORT.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- end to end


def assert_report_files(out_dir, runs):
    report = (out_dir / "REPORT.md").read_text(encoding="utf-8")
    for name in runs:
        assert (out_dir / name / "store.sqlite").is_file() and (out_dir / name / "exact_match.tex").is_file()
    for link in [line.split("](")[1].rstrip(")") for line in report.splitlines() if line.startswith("![")]:
        assert (out_dir / link).is_file() and (out_dir / link).with_suffix(".pdf").is_file()
    return report


def test_quick_reproduction_slice_end_to_end(tmp_path, mirror_dir):
    names = ("logical", "synthetic_2d", "hidden_nodes")
    stream, stages = io.StringIO(), []

    def progress(name, stage, estimate):
        stages.append(f"{stage}: {name}")
        return RunProgress(stream, bar=False, estimate=estimate, stage=stage)

    result = reproduce(
        tmp_path, quick=True, data_dir=mirror_dir, n_jobs=2, config_dir=CONFIGS, names=names, progress=progress
    )
    assert not result.interrupted and result.n_failed == 0
    # The report phase is the last stage, with its own line and estimate; no ETA says 0:00 before the end.
    assert stages[-1] == "stage 4/4: report" and len(stages) == 4
    lines = stream.getvalue().splitlines()
    # The report phase counts its steps (refits, tables, the report's sections, the page); one percentage
    # runs over every stage and reads 100 only at the end.
    last = re.fullmatch(r"progress: stage 4/4: (\d+)/(\d+) steps, 100% overall, .*ETA 0:00", lines[-1])
    assert last is not None and last[1] == last[2] and int(last[2]) > 5, lines[-1]
    assert any(line.startswith("progress: stage 4/4: 0/") for line in lines)
    percents = [int(m[1]) for line in lines if (m := re.search(r", (\d+)% overall", line))]
    assert percents == sorted(percents) and max(percents[:-1]) < 100
    assert not any(line.endswith("ETA 0:00") for line in lines[:-1]), lines
    report = assert_report_files(tmp_path, names)
    assert "**Quick mode**" in report
    assert tmp_path / "index.html" in result.paths and "<h2>Claims</h2>" in (tmp_path / "index.html").read_text()
    claims = claims_of(tmp_path)
    assert claims["C1"].verdict in (*VERDICTS, NOT_TESTABLE) and claims["C5"].verdict in (*VERDICTS, NOT_TESTABLE), (
        "K1 covers the logical and the hidden-nodes runs alike"
    )
    assert claims["C3"].verdict == NOT_EVALUATED
    for claim in claims.values():
        row = next(
            line for line in report.splitlines() if line.startswith(f"| [{claim.key}](#claim-{claim.key.lower()}) ")
        )
        assert f"**{claim.verdict}**" in row
    # The refits are the stored units again.
    accuracy = pd.read_csv(tmp_path / "synthetic_2d" / LABEL_ACCURACY_FILE)
    assert set(accuracy["method"]) == {"BR", "CC (1,2)", "CC (2,1)"} and accuracy["split"].nunique() == QUICK.max_splits
    assert "18 of 18 refits reproduce the stored exact match" in " ".join(report.split())
    for table in ("logical", "synthetic_2d_exact_match", "synthetic_2d_base_accuracy", "hidden_nodes"):
        assert all((tmp_path / "tables" / f"{table}.{suffix}").is_file() for suffix in ("csv", "md", "tex"))
    # A second call resumes: nothing runs again, the report is rebuilt, and the wall times still
    # count the invocation that computed the units.
    first_log = json.loads((tmp_path / "reproduction.json").read_text())
    assert first_log["report_seconds"] > 0  # the next invocation's estimate of its report phase
    for run in first_log["runs"].values():
        assert 0 <= run["worker_start_seconds"] < run["unit_phase_seconds"] <= run["wall_seconds"]
    again = reproduce(tmp_path, quick=True, data_dir=mirror_dir, n_jobs=2, config_dir=CONFIGS, names=names)
    assert all(s.n_done == 0 and s.n_skipped == s.n_units for s in again.summaries.values())
    second_log = json.loads((tmp_path / "reproduction.json").read_text())
    for name in names:
        for seconds in ("wall_seconds", "unit_phase_seconds", "worker_start_seconds"):
            assert second_log["runs"][name][seconds] == first_log["runs"][name][seconds]
    assert second_log["wall_seconds"] == first_log["wall_seconds"] > second_log["invocation_seconds"]


@pytest.mark.slow
def test_whole_quick_reproduction_through_the_cli(tmp_path, mirror_dir):
    out = tmp_path / "quick"
    result = CliRunner().invoke(
        cli,
        [
            "reproduce",
            "--quick",
            "--out",
            str(out),
            "--data-dir",
            str(mirror_dir),
            "--configs",
            str(CONFIGS),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    report = assert_report_files(out, PAPER_CONFIGS)
    claims = claims_of(out)
    assert all(claims[key].verdict != NOT_EVALUATED for key in ("C1", "C2", "C3", "C4", "C5", "C6", "C8"))
    assert claims["C7"].verdict == NOT_EVALUATED  # quick mode keeps no dataset with N >= 5000
    for name in PAPER_CONFIGS:  # each run's warning kinds are summed up in lines of its own
        warned = int((pd.read_csv(out / name / "units.csv")["n_warnings"] > 0).sum())
        assert any(line.startswith(f"{name}: ") for line in result.stderr.splitlines()) == (warned > 0), name
    assert "MediaMill" not in report.split("## Table 'results'")[1].split("###")[0]
