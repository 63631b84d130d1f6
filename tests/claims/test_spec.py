"""A claims file's declared alternative readings: parsed as the sub-claim with their keys in its place, each
mistake at its line, and the claim's readings dimension; a ranks sub-claim's test."""

from __future__ import annotations

import math

import pytest

from mlhidden.claims.spec import PRIMARY, read_claims
from mlhidden.errors import UserError

READINGS = """\
claims:
  - id: A
    about: a basis expansion lets BR learn Logical
    subclaims:
      - id: A.1
        says: BR_phi solves Logical
        metric: exact_match
        value: BR_phi
        size: 0.95
        reading: "'solves' read as exact match above 0.95"
        unit: splits
        alternatives:
          - name: lenient
            words: "'solves': a model that gets most rows right"
            reading: "'solves' read as exact match above 0.90"
            size: 0.90
          - name: strict
            words: "'solves': every row right"
            reading: "'solves' read as exact match above 0.99"
            size: 0.99
      - id: A.2
        says: BR_phi beats BR
        metric: exact_match
        difference: [BR_phi, BR]
        smallest_effect: 0.01
        unit: splits
        alternatives:
          - name: lenient
            words: "'beats': ahead on Hamming score too"
            reading: "'beats' read on Hamming score"
            metric: hamming_score
      - id: A.3
        says: BR_phi ranks first
        metric: exact_match
        methods: [BR_phi, BR, CC]
        ranks: {control: BR_phi}
        unit: datasets
        alternatives:
          - name: per dataset
            words: "'ranks first': above each method on the datasets"
            reading: "'ranks first' read dataset by dataset"
            test: per dataset
"""


def _read(tmp_path, text: str = READINGS):
    path = tmp_path / "my_claims.yaml"
    path.write_text(text)
    return read_claims(path)


def test_alternatives_are_the_sub_claim_with_their_keys_in_its_place(tmp_path):
    (claim,) = _read(tmp_path)
    solves, beats, ranks = claim.subclaims
    assert claim.readings == (PRIMARY, "lenient", "strict", "per dataset")
    assert [a.name for a in solves.alternatives] == ["lenient", "strict"]
    lenient = solves.under("lenient")
    assert lenient.target.low == pytest.approx(0.90) and lenient.target.reading.endswith("above 0.90")
    assert (lenient.id, lenient.metric, lenient.unit, lenient.says) == (solves.id, "exact_match", "splits", solves.says)
    assert solves.alternatives[0].words == "'solves': a model that gets most rows right"
    assert solves.under(PRIMARY) is solves and solves.under("per dataset") is solves
    assert beats.under("lenient").metric == "hamming_score" and beats.under("strict") is beats
    assert beats.under("lenient").target.smallest_effect == pytest.approx(0.01)
    assert ranks.rank_test == "average rank" and ranks.under("per dataset").rank_test == "per dataset"
    assert ranks.under("per dataset").sides == ranks.sides and math.isinf(ranks.target.high)


def test_an_alternative_naming_a_statistic_replaces_the_primarys(tmp_path):
    text = READINGS.replace("            metric: hamming_score\n", "            ratio: [BR_phi, BR]\n"
                            "            size: 1.5\n            smallest_effect: 1.1\n")
    (claim,) = _read(tmp_path, text)
    beats = claim.subclaims[1].under("lenient")
    assert beats.statistic == "ratio" and beats.target.low == pytest.approx(math.log(1.5))


@pytest.mark.parametrize(
    "change, line, fragment",
    [
        (("            words: \"'solves': every row right\"\n", ""), 17, "alternative reading lacks 'words'"),
        (("            reading: \"'solves' read as exact match above 0.90\"\n", ""), 13,
         "alternative reading lacks 'reading'"),
        (("name: strict", "name: lenient"), 17, "alternative 'lenient' is named twice in this sub-claim"),
        (("name: strict", "name: primary"), 17, "'primary' is the sub-claim's own reading"),
        (("            size: 0.99\n", "            size: 0.99\n            says: other words\n"), 21,
         "unknown key 'says' in alternative reading"),
        (("            size: 0.99\n", "            size: [0.9, 1]\n"), 20, "'size' must be a finite number"),
        # the primary's size with the alternative's direction: a combination, blamed at the alternative
        (("            size: 0.90\n", "            direction: within\n"), 13, "direction 'within' needs size"),
        (("            metric: hamming_score\n", "            unit: split\n"), 31, "unknown unit 'split'"),
        (("            test: per dataset\n", "            test: per datset\n"), 42,
         "unknown test 'per datset' (did you mean 'per dataset'?"),
        (("        smallest_effect: 0.01\n        unit: splits\n",
          "        smallest_effect: 0.01\n        test: per dataset\n        unit: splits\n"), 26,
         "'test' is for a ranks sub-claim"),
        (("        alternatives:\n          - name: lenient\n"
          "            words: \"'beats': ahead on Hamming score too\"\n"
          "            reading: \"'beats' read on Hamming score\"\n            metric: hamming_score\n",
          "        alternatives: []\n"), 27, "'alternatives' must be a non-empty list"),
    ],
)
def test_a_mistake_in_an_alternative_is_one_error_at_its_line(tmp_path, change, line, fragment):
    assert change[0] in READINGS
    with pytest.raises(UserError) as raised:
        _read(tmp_path, READINGS.replace(*change, 1))
    assert f"my_claims.yaml:{line}: " in str(raised.value) and fragment in str(raised.value), str(raised.value)


TOP_SHARE = READINGS.replace("            test: per dataset\n", """\
            test: per dataset
          - name: top share
            words: "'ranks first': first on most datasets"
            reading: "'ranks first' read as first on more than half the datasets"
            test: top share
            size: 0.5
""")


def test_a_top_share_test_reads_its_size_as_the_share_of_datasets_claimed(tmp_path):
    (claim,) = _read(tmp_path, TOP_SHARE)
    top = claim.subclaims[2].under("top share")
    assert top.rank_test == "top share" and top.target.low == pytest.approx(0.5) and math.isinf(top.target.high)
    assert claim.readings == (PRIMARY, "lenient", "strict", "per dataset", "top share")


@pytest.mark.parametrize(
    "change, line, fragment",
    [
        (("            size: 0.5\n", ""), 46, "a 'top share' test needs size: the share of datasets"),
        (("            size: 0.5\n", "            size: 1.5\n"), 47, "a 'top share' test needs size: the share of"),
        (("            size: 0.5\n", "            size: 0\n"), 47, "between 0 and 1"),
    ],
)
def test_a_top_share_test_without_a_share_is_one_error_at_its_line(tmp_path, change, line, fragment):
    with pytest.raises(UserError) as raised:
        _read(tmp_path, TOP_SHARE.replace(*change, 1))
    assert f"my_claims.yaml:{line}: " in str(raised.value) and fragment in str(raised.value), str(raised.value)
