"""The unit cost model: priors, rescaled by the units that finish."""

import os

import pytest

from mlhidden.experiment.cost_priors import GENERIC_PRIORS, MIN_UNIT_SECONDS
from mlhidden.experiment.costs import CostModel

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
expected_seconds = GENERIC_PRIORS.expected_seconds


def paper_shapes():
    from mlhidden.data import catalog_entries

    return {e.name: (e.n_samples, e.n_features, e.n_labels) for e in catalog_entries()}


def test_the_generic_priors_order_the_paper_run_as_its_recorded_times_do():
    """On the committed paper run, the generic curves' order of the dataset x method cells agrees with
    the measured one far more often than not (Kendall's tau > 0.8), without its table of cells."""
    import json

    import pandas as pd
    from scipy.stats import kendalltau

    from mlhidden.experiment.cost_priors import learner_of, work_seconds

    units = pd.read_csv(os.path.join(PROJECT_ROOT, "results", "paper", "units.csv"))
    units = units[units.dataset != "Logical"]
    units = units.assign(seconds=[work_seconds(row) for row in units.to_dict("records")])
    cells = units.groupby(["dataset", "registry_name", "params_json"]).seconds.mean().reset_index()
    shapes = paper_shapes()
    prior = [
        expected_seconds(shapes[d], m, learner_of(json.loads(p)))
        for d, m, p in zip(cells.dataset, cells.registry_name, cells.params_json)
    ]
    assert kendalltau(prior, cells.seconds).statistic > 0.8


def test_a_method_without_a_prior_gets_the_median_curve_and_grows_with_the_dataset():
    small, large = (
        expected_seconds((100, 10, 5), "my_pkg:Method"),
        expected_seconds((10_000, 1000, 50), "my_pkg:Method"),
    )
    assert 0 < small < large
    assert expected_seconds((1000, 100, 10), "MBR") == expected_seconds((1000, 100, 10), "BR")


def test_the_cost_model_rescales_priors_by_the_finished_units():
    model = CostModel([(("A", "BR"), 1.0), (("B", "BR"), 4.0), (("B", "CC"), 2.0)])
    assert model.expected(("B", "BR")) == 4.0
    for _ in range(20):  # this machine is 3 times slower than the priors
        model.finished(("A", "BR"), 3.0)
        model.finished(("B", "CC"), 6.0)
    assert model.expected(("A", "BR")) == 3.0
    assert model.expected(("B", "BR")) == pytest.approx(12.0, rel=0.1)


def test_a_unit_that_reused_another_fit_does_not_make_its_method_free():
    """A unit whose chain was fitted by another took next to nothing: the method's other cells are
    priced by the ratio of the summed seconds, not by a mean of log ratios that the near-zero one drags down."""
    model = CostModel([(("A", "CC"), 1.0), (("B", "CC"), 1.0), (("C", "CC"), 1.0)])
    model.finished(("A", "CC"), 1e-6)
    model.finished(("B", "CC"), 2.0)
    assert 0.3 < model.expected(("C", "CC")) < 2.0


def test_the_points_of_a_method_sweep_share_its_effect():
    model = CostModel([(("D1", "MLP [n_hidden=2]"), 1.0), (("D2", "MLP [n_hidden=8]"), 1.0), (("D2", "BR"), 1.0)])
    for _ in range(5):
        model.finished(("D1", "MLP [n_hidden=2]"), 5.0)
        model.finished(("D2", "BR"), 1.0)
    assert model.expected(("D2", "MLP [n_hidden=8]")) > 2.0


def test_a_group_learns_from_its_first_units_what_its_priors_miss():
    """Generated datasets dearer than their size: the first finished units of the run price its
    others, the more so the more methods agree (one slow method may be slow by itself)."""
    model = CostModel([(("Scene", "BR"), 1.0)])
    model.add(
        [((f"complex [random_state={k}]", m), 0.1) for k in range(10) for m in ("BR", "CC", "CCASL")], group="synthetic"
    )
    for _ in range(3):
        model.finished(("Scene", "BR"), 1.0)
    for k in range(4):
        model.finished((f"complex [random_state={k}]", "BR"), 0.4)
    one_method = model.expected(("complex [random_state=9]", "CCASL"))
    for k in range(4):
        model.finished((f"complex [random_state={k}]", "CC"), 0.4)
    assert model.expected(("complex [random_state=9]", "BR")) > 0.3
    assert model.expected(("complex [random_state=9]", "CCASL")) > max(0.18, 1.2 * one_method)  # near twice its prior


def test_a_unit_costs_at_least_its_floor_and_its_overhead():
    from mlhidden.experiment.costs import UNIT_OVERHEAD_SECONDS

    assert expected_seconds((20, 2, 3), "Majority") >= MIN_UNIT_SECONDS
    model = CostModel([(("Logical", "Majority"), expected_seconds((20, 2, 3), "Majority"))])
    assert model.wall(("Logical", "Majority")) >= MIN_UNIT_SECONDS + UNIT_OVERHEAD_SECONDS


def test_a_run_not_started_is_paced_as_the_latest_run():
    """The machine's load moves during a long reproduction: a later run is priced at the pace of
    the run computing now, as far as its compute so far is worth, not at the mean of all units."""
    model = CostModel()
    model.add([((f"A{k}", "BR"), 1.0) for k in range(100)], group=0)
    methods = ("BR", "CC", "PCC", "CCASL")
    model.add([((f"B{k}", m), 1.0) for k in range(25) for m in methods], group=1)
    model.add([(("C", "BR"), 1.0)], group=2)
    for k in range(100):
        model.finished((f"A{k}", "BR"), 1.0)
    for k in range(25):  # the machine got faster: 0.4 s where the prior says 1 s
        for m in methods:
            model.finished((f"B{k}", m), 0.4)
    assert model.expected(("C", "BR")) < 0.65  # all units alone: 140 s for 200 s of priors, 0.7


def test_a_study_cell_is_priced_by_its_table_and_another_shape_by_the_curve():
    """A study's table prices its own cells (dataset, shape, method label); a user's dataset that
    shares a name but not the shape is not one of them."""
    priors = GENERIC_PRIORS.with_cells({("D", (100, 10, 5), "BR"): 2.5}, "a study")
    assert priors.expected_seconds((100, 10, 5), "BR", "", ("D", "BR")) == 2.5
    assert priors.basis((100, 10, 5), "BR", ("D", "BR")) == "a study: its cell"
    other = (101, 10, 5)
    assert priors.expected_seconds(other, "BR", "", ("D", "BR")) == GENERIC_PRIORS.expected_seconds(other, "BR")
    assert priors.basis(other, "BR", ("D", "BR")) == "a study: BR curve"


def test_a_learner_factor_prices_the_same_family_on_another_solver():
    import math

    from mlhidden.experiment.cost_priors import LEARNER_FACTORS

    shape = (2000, 100, 10)
    liblinear = expected_seconds(shape, "CC", "logistic:liblinear")
    assert liblinear == expected_seconds(shape, "CC", "a learner no run has timed")
    lbfgs = expected_seconds(shape, "CC", "logistic")
    factor = LEARNER_FACTORS["logistic"]
    assert factor != 0 and lbfgs == pytest.approx(liblinear * math.exp(factor))


def test_a_forest_is_priced_by_its_trees():
    """A forest of 100 trees does ten times the work of one of 10, which no learner factor can price
    when a config changes their number; a learner that is no ensemble is priced as it is."""
    from mlhidden.experiment.cost_priors import ensemble_scale, learner_of

    def cost(trees):
        resolved = {"name": "BR_RF", "base": {"name": "random_forest", "params": {"n_estimators": trees}}}
        return expected_seconds((2000, 300, 10), "BR_RF", learner_of(resolved), scale=ensemble_scale(resolved))

    assert cost(100) == pytest.approx(10 * cost(10)) and cost(200) == pytest.approx(2 * cost(100))
    assert ensemble_scale('{"name": "BR", "base": {"name": "logistic", "params": {"C": 1.0}}}') == 1.0
    assert ensemble_scale({"name": "MLP", "params": {"n_hidden": 20}}) == 1.0


def test_a_forest_base_is_priced_by_the_committed_forest_runs_not_by_the_logistic_curve():
    """BR on a forest base fits one forest per label, as CC_RF (CC on a forest base) does: it is priced
    above BR on the reference learner by about what the committed units of CC_RF took over BR's, on
    each committed dataset that timed both with the same trees, not by the logistic curve times the trees."""
    from importlib import resources

    from mlhidden.experiment.cost_priors import read_cell_table

    cells = read_cell_table(resources.files("mlhidden.paper").joinpath("unit_costs.csv").read_text())
    measured = {(dataset, shape): {} for dataset, shape, _ in cells}
    for (dataset, shape, label), seconds in cells.items():
        measured[dataset, shape][label] = seconds
    pairs = [(shape, c["CC_RF"] / c["BR"]) for (_, shape), c in measured.items() if {"BR", "CC_RF"} <= c.keys()]
    assert len(pairs) >= 5
    for shape, committed in pairs:
        priced = expected_seconds(shape, "BR", "random_forest") / expected_seconds(shape, "BR", "logistic:liblinear")
        assert committed / 2 < priced < committed * 2, (shape, priced, committed)
    assert expected_seconds((2407, 294, 6), "BR_RF", "random_forest") == GENERIC_PRIORS.curve_seconds(
        (2407, 294, 6), "BR_RF"
    ), "a forest family's own curve prices its forest already"


def test_a_dataset_cheaper_than_its_size_for_one_method_is_priced_cheaper_for_the_others():
    """One dataset's units all run faster than their curves (sparse, easy): the first finished one
    prices the other methods' units there, not only the machine's pace."""

    def model_after(d_mlp_seconds):
        model = CostModel([(("D", "MLP"), 10.0), (("D", "BR"), 1.0), (("E", "MLP"), 10.0), (("E", "BR"), 1.0)])
        for _ in range(3):
            model.finished(("E", "MLP"), 10.0)
            model.finished(("E", "BR"), 1.0)
            model.finished(("D", "MLP"), d_mlp_seconds)
        return model

    cheap, as_priced = model_after(2.0), model_after(10.0)
    assert cheap.expected(("D", "BR")) < 0.8 * as_priced.expected(("D", "BR"))
    assert cheap.expected(("E", "BR")) == as_priced.expected(("E", "BR")) == 1.0


def test_finished_units_that_took_less_overhead_than_the_prior_teach_it_and_a_loaded_machine_a_slowdown():
    from mlhidden.experiment.costs import UNIT_OVERHEAD_SECONDS

    quiet = CostModel([(("A", "BR"), 0.01)])
    quiet.wall_seen(worker_seconds=100 * 0.011, units=100, compute_seconds=100 * 0.01)
    assert quiet.overhead < UNIT_OVERHEAD_SECONDS / 5 and quiet.slowdown == 1.0
    assert quiet.wall(("A", "BR")) < 0.01 + UNIT_OVERHEAD_SECONDS / 5
    loaded = CostModel([(("A", "BR"), 1.0)])
    loaded.wall_seen(worker_seconds=100 * 3.0, units=100, compute_seconds=100 * 1.0)
    assert loaded.overhead == UNIT_OVERHEAD_SECONDS and loaded.slowdown > 2.5
