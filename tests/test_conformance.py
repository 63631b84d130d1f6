"""scikit-learn's own estimator checks on every registered method.

Each check that cannot apply to a multi-label classifier is listed with its reason; scikit-learn
then requires it to fail (an expected failure that passes is reported), so the list stays true.
"""

from __future__ import annotations

from sklearn.ensemble import RandomForestClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlhidden.methods.baselines import AllZero
from mlhidden.methods.registry import METHODS, make_method

ONE_D_Y = "Y is a label matrix: a 1-d y is one label, predicted as shape (n, 1), not (n,)"
ZERO_ONE = "labels are a 0/1 indicator matrix (scikit-learn's multi-label format); this check's labels are not 0/1"
MARGINALS = "predict_proba gives the (n, L) marginals P(y_j = 1 | x), as MLPClassifier's multi-label mode, not (n, 2)"

LABEL_MATRIX_CHECKS = {
    "check_classifiers_train": ONE_D_Y,
    "check_classifiers_one_label": ONE_D_Y,
    "check_estimator_sparse_array": MARGINALS,
    "check_estimator_sparse_matrix": MARGINALS,
    "check_classifiers_classes": ZERO_ONE,
    "check_classifier_data_not_an_array": ZERO_ONE,
    "check_estimators_dtypes": ZERO_ONE,
    "check_fit2d_1feature": ZERO_ONE,
    "check_classifiers_multilabel_output_format_predict": "predictions are int8 0/1 whatever Y's dtype (compact for hundreds of labels)",
}
MONTE_CARLO_CHECKS = {
    "check_methods_sample_order_invariance": "Monte-Carlo inference: a row's samples depend on its position in X",
    "check_methods_subset_invariance": "Monte-Carlo inference: a row's samples depend on its position in X",
    "check_classifiers_multilabel_output_format_predict_proba": "Monte-Carlo marginals are sample frequencies: exactly 0 or 1 when every sample agrees",
}


FOREST_CHECKS = {
    "check_classifiers_multilabel_output_format_predict_proba": "a forest's leaf frequencies are exactly 0 or 1 where its trees agree; the check wants (0, 1)",
}


# All-zero predicts no label whatever its predict_proba (the training label frequencies) says.
ALL_ZERO_CHECKS = {
    "check_classifier_multioutput": "all-zero's prediction is fixed at 0; its predict_proba gives the label frequencies",
}


def expected_failed_checks(estimator) -> dict:
    """The checks ``estimator`` is expected to fail, each with its one-line reason."""
    expected = dict(LABEL_MATRIX_CHECKS)
    if getattr(estimator, "inference", None) == "mc":
        expected.update(MONTE_CARLO_CHECKS)
    if isinstance(getattr(estimator, "estimator", None), RandomForestClassifier):
        expected.update(FOREST_CHECKS)
    if isinstance(estimator, AllZero):
        expected.update(ALL_ZERO_CHECKS)
    return expected


def registered_methods():
    """Every registry entry with its defaults and a seed; 10 trees per forest and 50 MLP epochs
    keep the suite fast (the checks are about the contract, not accuracy)."""
    estimators = []
    for name in METHODS:
        estimator = make_method(name, random_state=0)
        if name == "MLP":
            estimator.set_params(n_epochs=50)
        if isinstance(getattr(estimator, "estimator", None), RandomForestClassifier):
            estimator.set_params(estimator__n_estimators=10)
        estimators.append(estimator)
    return estimators


@parametrize_with_checks(registered_methods(), expected_failed_checks=expected_failed_checks)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)
