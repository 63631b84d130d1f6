import numpy as np
import pytest

from mlhidden.runs.metrics import evaluate

Y_TRUE = np.array([[1, 0, 1], [0, 1, 0], [0, 0, 0], [1, 1, 0]])
Y_PRED = np.array([[1, 0, 1], [0, 0, 0], [0, 0, 0], [1, 0, 1]])


def test_scores_match_hand_computation():
    scores = evaluate(Y_TRUE, Y_PRED)
    assert scores["exact_match"] == pytest.approx(2 / 4)
    assert scores["hamming_score"] == pytest.approx(9 / 12)
    # pooled: tp=3, fp=1, fn=2
    assert scores["micro_f1"] == pytest.approx(6 / 9)
    # per label: (tp, fp, fn) = (2,0,0), (0,0,2), (1,1,0) -> F1 = 1, 0, 2/3
    assert scores["macro_f1"] == pytest.approx((1 + 0 + 2 / 3) / 3)
    # per example: F1 = 1, 0, 1 (both empty), 2/4 ; Jaccard = 1, 0, 1, 1/3
    assert scores["example_f1"] == pytest.approx((1 + 0 + 1 + 0.5) / 4)
    assert scores["jaccard"] == pytest.approx((1 + 0 + 1 + 1 / 3) / 4)


def test_perfect_prediction_scores_one_everywhere():
    assert all(v == 1.0 for v in evaluate(Y_TRUE, Y_TRUE).values())


def test_shape_mismatch_is_an_error():
    with pytest.raises(ValueError):
        evaluate(Y_TRUE, Y_PRED[:, :2])
