"""The unit cost model: priors fitted on a stored run, rescaled by the units that finish."""

import csv
import os

import pytest

from mlhidden.experiment.costs import MIN_UNIT_SECONDS, PRIORS, CostModel, expected_seconds, fit_priors

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def paper_shapes():
    from mlhidden.data import catalog_entries, make_logical

    shapes = {e.name: (e.n_samples, e.n_features, e.n_labels) for e in catalog_entries()}
    logical = make_logical()
    shapes["Logical"] = (logical.n_samples, logical.n_features, logical.n_labels)
    return shapes


def test_the_priors_are_the_fit_of_the_recorded_paper_run():
    with open(os.path.join(PROJECT_ROOT, "tests", "fixtures", "prior_units.csv"), newline="") as file:
        units = list(csv.DictReader(file))
    shapes = paper_shapes()
    del shapes["Logical"]  # its units time only overheads
    assert fit_priors(units, shapes) == PRIORS


def test_expected_seconds_orders_the_paper_run_as_its_recorded_times_do():
    """On the recorded run, the prior's order of the dataset x method cells agrees with the
    measured one far more often than not (Kendall's tau > 0.8)."""
    import pandas as pd
    from scipy.stats import kendalltau

    units = pd.read_csv(os.path.join(PROJECT_ROOT, "tests", "fixtures", "prior_units.csv"))
    units["seconds"] = units.train_seconds + units.test_seconds
    cells = units[units.dataset != "Logical"].groupby(["dataset", "method"]).seconds.mean().reset_index()
    shapes = paper_shapes()
    prior = [expected_seconds(shapes[d], m) for d, m in zip(cells.dataset, cells.method)]
    assert kendalltau(prior, cells.seconds).statistic > 0.8


def test_a_method_without_a_prior_gets_the_median_curve_and_grows_with_the_dataset():
    small, large = (
        expected_seconds((100, 10, 5), "my_pkg:Method"),
        expected_seconds((10_000, 1000, 50), "my_pkg:Method"),
    )
    assert 0 < small < large
    assert expected_seconds((1000, 100, 10), "PCCASL") == expected_seconds((1000, 100, 10), "CCASL")


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
    from mlhidden.experiment.costs import MIN_UNIT_SECONDS, UNIT_OVERHEAD_SECONDS

    assert expected_seconds((20, 2, 3), "Majority") > MIN_UNIT_SECONDS
    model = CostModel([(("Logical", "Majority"), expected_seconds((20, 2, 3), "Majority"))])
    assert model.wall(("Logical", "Majority")) > MIN_UNIT_SECONDS + UNIT_OVERHEAD_SECONDS


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


def test_a_paper_cell_is_priced_by_its_units_in_the_priors_run_and_another_shape_by_the_curve():
    """The shipped cells are the paper run's own (dataset, shape, method label); a user's dataset that
    shares a name but not the shape is not one of them."""
    from mlhidden.experiment.costs import measured_cells, measured_seconds

    (dataset, shape, label), seconds = next(iter(measured_cells().items()))
    assert measured_seconds(dataset, shape, label) == seconds
    assert expected_seconds(shape, label, (dataset, label)) == max(seconds, MIN_UNIT_SECONDS)
    other = (shape[0] + 1, shape[1], shape[2])
    assert measured_seconds(dataset, other, label) is None
    assert expected_seconds(other, "BR", (dataset, "BR")) == expected_seconds(other, "BR")


def test_the_measured_cells_cover_every_paper_dataset_and_method():
    from mlhidden.experiment.costs import measured_cells

    with open(os.path.join(PROJECT_ROOT, "tests", "fixtures", "prior_units.csv"), newline="") as file:
        paper_run = {row["dataset"] for row in csv.DictReader(file)}
    shapes = {dataset: shape for dataset, shape in paper_shapes().items() if dataset in paper_run}
    cells = {(dataset, label) for dataset, shape, label in measured_cells() if shapes.get(dataset) == shape}
    assert {(dataset, method) for dataset in shapes for method in PRIORS} <= cells


def test_finished_units_that_took_less_overhead_than_the_prior_teach_it_and_a_loaded_machine_a_slowdown():
    from mlhidden.experiment.costs import UNIT_OVERHEAD_SECONDS

    quiet = CostModel([(("A", "BR"), 0.01)])
    quiet.wall_seen(worker_seconds=100 * 0.011, units=100, compute_seconds=100 * 0.01)
    assert quiet.overhead < UNIT_OVERHEAD_SECONDS / 5 and quiet.slowdown == 1.0
    assert quiet.wall(("A", "BR")) < 0.01 + UNIT_OVERHEAD_SECONDS / 5
    loaded = CostModel([(("A", "BR"), 1.0)])
    loaded.wall_seen(worker_seconds=100 * 3.0, units=100, compute_seconds=100 * 1.0)
    assert loaded.overhead == UNIT_OVERHEAD_SECONDS and loaded.slowdown > 2.5
