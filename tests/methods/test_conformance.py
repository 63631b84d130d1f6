"""scikit-learn's own estimator checks on the registered methods: one per family by default, all under ``-m slow``.

Each check that cannot apply to a multi-label classifier is listed with its reason; scikit-learn
then requires it to fail (an expected failure that passes is reported), so the list stays true.

The checks test the estimator contract (parameters, cloning, pickling, input validation, fitted
attributes, output shapes, determinism). That contract lives in ``MultiLabelClassifier`` and in
each family's own ``fit`` and ``predict``; the members of a family share both and differ only in
parameters (base learner, inference, options) whose results other tests check. So each family's
representative is the member whose code path is the family's widest; ``make test-all`` runs the
checks on every method.
"""

from __future__ import annotations

import pytest
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
    "check_classifiers_multilabel_output_format_predict": (
        "predictions are int8 0/1 whatever Y's dtype (compact for hundreds of labels)"
    ),
}
MONTE_CARLO_CHECKS = {
    "check_methods_sample_order_invariance": "Monte-Carlo inference: a row's samples depend on its position in X",
    "check_methods_subset_invariance": "Monte-Carlo inference: a row's samples depend on its position in X",
    "check_classifiers_multilabel_output_format_predict_proba": (
        "Monte-Carlo marginals are sample frequencies: exactly 0 or 1 when every sample agrees"
    ),
}


FOREST_CHECKS = {
    "check_classifiers_multilabel_output_format_predict_proba": (
        "a forest's leaf frequencies are exactly 0 or 1 where its trees agree; the check wants (0, 1)"
    ),
}


# All-zero predicts no label whatever its predict_proba (the training label frequencies) says.
ALL_ZERO_CHECKS = {
    "check_classifier_multioutput": (
        "all-zero's prediction is fixed at 0; its predict_proba gives the label frequencies"
    ),
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


# Each registered method's family, named by its representative (which checks the family by default).
FAMILY = {
    # per-label models (BR's fit and predict)
    "BR": "BR",
    # per-label models on expanded features (BasisBR): ELM's random hidden layer and BR_phi's RBF basis
    "ELM": "ELM",
    "BR_phi": "ELM",
    # forests grown in compact groups (ForestBR); CC_RF is a chain and checked with the chains
    "BR_RF": "BR_RF",
    # classifier chains: PCC is CC's fit plus its Monte-Carlo inference; CC_RF is CC with forests as links
    "CC": "PCC",
    "PCC": "PCC",
    "CC_RF": "PCC",
    # chains through synthetic hidden labels (CCASL), greedy or Monte-Carlo
    "CCASL": "CCASL",
    "PCCASL": "CCASL",
    # stacked BR (StackedBR): CCASL+AML adds the synthetic labels and their selection to CCASL+BR and MBR's stack
    "MBR": "CCASL+AML",
    "CCASL+BR": "CCASL+AML",
    "CCASL+AML": "CCASL+AML",
    "LP": "LP",
    "MLP": "MLP",
    # label-frequency baselines (_LabelFrequencies)
    "AllZero": "MostFrequentSet",
    "Majority": "MostFrequentSet",
    "MostFrequentSet": "MostFrequentSet",
}


def registered_methods(representatives: bool) -> list:
    """The family representatives (or the other methods) with their defaults and a seed; 10 trees
    per forest and 50 MLP epochs keep the suite fast (the checks are about the contract, not accuracy)."""
    estimators = []
    for name in METHODS:
        if (FAMILY.get(name) == name) != representatives:
            continue
        estimator = make_method(name, random_state=0)
        if name == "MLP":
            estimator.set_params(n_epochs=50)
        if isinstance(getattr(estimator, "estimator", None), RandomForestClassifier):
            estimator.set_params(estimator__n_estimators=10)
        estimators.append(estimator)
    return estimators


def test_every_method_has_a_family_whose_representative_is_a_member():
    assert set(FAMILY) == set(METHODS)
    assert all(FAMILY[representative] == representative for representative in FAMILY.values())


@parametrize_with_checks(registered_methods(representatives=True), expected_failed_checks=expected_failed_checks)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.slow
@parametrize_with_checks(registered_methods(representatives=False), expected_failed_checks=expected_failed_checks)
def test_scikit_learn_estimator_checks_on_the_other_members(estimator, check):
    check(estimator)
