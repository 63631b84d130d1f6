"""The vectorised ranking measures (label ranking, micro and macro AUC) give scikit-learn's values, tie conventions
included."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.metrics import coverage_error, label_ranking_average_precision_score, label_ranking_loss, roc_auc_score

from mlhidden.data import load_dataset
from mlhidden.methods.registry import make_method
from mlhidden.runs import label_ranking
from mlhidden.runs.label_ranking import average_precision, one_error, ranking_loss
from mlhidden.runs.metrics import RANKING_METRICS, macro_auc, micro_auc
from mlhidden.runs.splits import SplitRecipe

OURS_AND_SKLEARN = [
    (ranking_loss, label_ranking_loss),
    (label_ranking.coverage_error, coverage_error),
    (average_precision, label_ranking_average_precision_score),
]
# sklearn's coverage_error fills masked float16 scores with 1e20.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
DTYPES = (np.float16, np.float32, np.float64)


def assert_as_sklearn(Y_true, scores):
    for ours, sklearn_metric in OURS_AND_SKLEARN:
        truth = Y_true.toarray() if sp.issparse(Y_true) and sklearn_metric is coverage_error else Y_true
        assert ours(Y_true, scores) == pytest.approx(sklearn_metric(truth, scores), abs=1e-12, rel=0), ours.__name__


def macro_auc_label_by_label(Y_true, scores) -> float:
    """The mean of sklearn's ROC AUC over the labels with both classes, one label at a time."""
    Y_true, scores = np.asarray(Y_true), np.asarray(scores)
    both = [j for j in range(Y_true.shape[1]) if Y_true[:, j].min() != Y_true[:, j].max()]
    return float(np.mean([roc_auc_score(Y_true[:, j], scores[:, j]) for j in both])) if both else float("nan")


def micro_auc_pooled(Y_true, scores) -> float:
    """sklearn's ROC AUC of every label decision pooled."""
    Y_true = np.asarray(Y_true)
    return (
        float("nan")
        if Y_true.min() == Y_true.max()
        else float(roc_auc_score(Y_true.ravel(), np.asarray(scores).ravel()))
    )


def one_error_row_by_row(Y_true, scores) -> float:
    """One-error as defined, one row at a time: wrong when a label sharing the top score is irrelevant."""
    wrong = [
        row.any() and not row[s == s.max()].all() for row, s in zip(np.asarray(Y_true, dtype=bool), np.asarray(scores))
    ]
    return float(np.mean(wrong))


@pytest.fixture(scope="module", params=["Scene", "Medical"])
def fitted_scores(request, mirror_dir):
    """A fitted BR's label probabilities on split 0's test part of a real dataset, and the true test labels."""
    data = load_dataset(request.param, data_dir=mirror_dir)
    split = SplitRecipe(0, 1).splits(data.name, data.Y)[0]
    Y = data.Y[:, split.label_order]
    model = make_method("BR", random_state=0).fit(data.X[split.train], Y[split.train])
    return Y[split.test], np.asarray(model.predict_proba(data.X[split.test]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_fitted_methods_scores_give_sklearns_values(fitted_scores, dtype):
    Y_test, scores = fitted_scores
    stored = scores.astype(dtype)
    assert_as_sklearn(Y_test, stored)
    assert_as_sklearn(sp.csr_matrix(Y_test), stored)
    assert one_error(Y_test, stored) == one_error_row_by_row(Y_test, stored)
    assert macro_auc(Y_test, stored) == pytest.approx(macro_auc_label_by_label(Y_test, stored), abs=1e-12, rel=0)
    assert micro_auc(Y_test, stored) == pytest.approx(micro_auc_pooled(Y_test, stored), abs=1e-12, rel=0)


@pytest.mark.parametrize("decimals", [1, 2])
def test_a_fitted_methods_rounded_scores_give_sklearns_values(fitted_scores, decimals):
    """Rounded, real probabilities tie within most rows: the conventions for ties meet real data."""
    Y_test, scores = fitted_scores
    rounded = np.round(scores, decimals)
    assert np.mean([len(np.unique(row)) < len(row) for row in rounded]) > 0.5
    assert_as_sklearn(Y_test, rounded)
    assert one_error(Y_test, rounded) == one_error_row_by_row(Y_test, rounded)
    assert macro_auc(Y_test, rounded) == pytest.approx(macro_auc_label_by_label(Y_test, rounded), abs=1e-12, rel=0)
    assert micro_auc(Y_test, rounded) == pytest.approx(micro_auc_pooled(Y_test, rounded), abs=1e-12, rel=0)


def test_each_tie_convention_by_hand():
    truth = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0], [1, 1, 1]])
    scores = np.array([[0.5, 0.5, 0.1], [0.2, 0.7, 0.7], [0.3, 0.3, 0.3], [0.1, 0.1, 0.1]])
    # Row 0: the tied pair (0, 1) is wrong; row 1: (0, 2) is wrong, (1, 2) tied so wrong too; rows 2, 3 have no pair.
    assert ranking_loss(truth, scores) == pytest.approx((1 / 2 + 2 / 2 + 0 + 0) / 4)
    # Depth to the lowest relevant label, ties included: 2, 3, 0 (no relevant label), 3.
    assert label_ranking.coverage_error(truth, scores) == pytest.approx((2 + 3 + 0 + 3) / 4)
    # Row 0: label 0 has rank 2 (tied), 1 relevant; row 1: label 1 ranks 2 with 1 relevant, label 0 ranks 3 with 2.
    assert average_precision(truth, scores) == pytest.approx((1 / 2 + (1 / 2 + 2 / 3) / 2 + 1 + 1) / 4)
    # Row 0's top ties a relevant and an irrelevant label: wrong; row 1's too; rows 2 and 3 are not errors.
    assert one_error(truth, scores) == pytest.approx(2 / 4)
    assert_as_sklearn(truth, scores)


@st.composite
def tied_scores(draw):
    """A 0/1 truth with empty and full rows, and scores drawn from a few values so that most rows tie."""
    n_rows, n_labels = draw(st.integers(1, 12)), draw(st.integers(2, 9))
    density = draw(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]))
    truth = draw(hnp.arrays(np.float64, (n_rows, n_labels), elements=st.floats(0, 1))) < density
    values = draw(st.lists(st.floats(0, 1, width=16), min_size=1, max_size=4))
    scores = np.array(values)[draw(hnp.arrays(np.int64, (n_rows, n_labels), elements=st.integers(0, len(values) - 1)))]
    return truth.astype(np.int64), scores.astype(draw(st.sampled_from(DTYPES)))


@settings(max_examples=200, deadline=None)
@given(tied_scores())
def test_heavily_tied_scores_give_sklearns_values(case):
    Y_true, scores = case
    assert_as_sklearn(Y_true, scores)
    assert_as_sklearn(sp.csr_matrix(Y_true), scores)
    assert macro_auc(Y_true, scores) == pytest.approx(
        macro_auc_label_by_label(Y_true, scores), abs=1e-12, rel=0, nan_ok=True
    )
    assert micro_auc(Y_true, scores) == pytest.approx(micro_auc_pooled(Y_true, scores), abs=1e-12, rel=0, nan_ok=True)


@settings(max_examples=200, deadline=None)
@given(tied_scores(), st.randoms(use_true_random=False))
def test_one_error_counts_ties_against_the_method_whatever_the_label_order(case, random):
    Y_true, scores = case
    order = list(range(Y_true.shape[1]))
    random.shuffle(order)
    assert one_error(Y_true, scores) == one_error_row_by_row(Y_true, scores)
    assert one_error(Y_true[:, order], scores[:, order]) == one_error(Y_true, scores)


def test_blocks_do_not_change_the_values(fitted_scores, monkeypatch):
    Y_test, scores = fitted_scores
    whole = [ranking_loss(Y_test, scores), average_precision(Y_test, scores)]
    monkeypatch.setattr(label_ranking, "BLOCK_COMPARISONS", 7)
    assert [ranking_loss(Y_test, scores), average_precision(Y_test, scores)] == whole


def test_the_stored_metrics_are_these():
    assert RANKING_METRICS["ranking_loss"] is ranking_loss
    assert RANKING_METRICS["coverage_error"] is label_ranking.coverage_error
    assert RANKING_METRICS["average_precision"] is average_precision
    assert RANKING_METRICS["one_error"] is one_error


def test_mismatched_shapes_are_refused():
    with pytest.raises(ValueError, match=r"label scores of shape \(2, 3\) do not match the truth's \(2, 4\)"):
        ranking_loss(np.zeros((2, 4)), np.zeros((2, 3)))
