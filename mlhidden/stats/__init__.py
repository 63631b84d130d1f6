"""Statistics: intervals and the verdict rule (``uncertainty``), the units of replication and their tests
(``replication``), the rank rule (``ranks``) and the Friedman test (``friedman``).

The layer under both the report (:mod:`mlhidden.report`) and the claims (:mod:`mlhidden.claims`): each
reads its vocabulary (``Target``, ``Comparison``, the verdict words) from here, not from the other.
"""
