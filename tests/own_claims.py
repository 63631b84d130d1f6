"""A user's own claims file, as docs/claims.md teaches it: one difference and one ratio sub-claim."""

USER_CLAIMS = """\
claims:
  - id: A
    about: a basis expansion lets BR learn Logical
    subclaims:
      - id: A.1
        says: BR_phi beats BR on exact match
        metric: exact_match
        difference: [BR_phi, BR]
        smallest_effect: 0.01
        unit: splits
  - id: B
    about: CC is no slower than twice BR
    subclaims:
      - id: B.1
        says: CC takes less than twice BR's time
        metric: total_seconds
        ratio: [CC, BR]
        direction: below
        size: 2
        reading: "'no slower than 2x' read as a time ratio below 2"
        unit: splits
"""
