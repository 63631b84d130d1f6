"""The states a stored unit and a table cell can be in, named once.

A unit (one method on one split) ends :data:`OK` or :data:`FAILED`. A table cell (one method on
one dataset, over its splits) is :data:`OK`, :data:`PARTIAL` (some splits failed), :data:`FAILED`
(every split failed), :data:`MISSING` (no unit yet) or :data:`UNAVAILABLE` (the dataset could not
be run). They are plain strings, as the store and the CSV files hold them.
"""

OK = "ok"
FAILED = "failed"
PARTIAL = "partial"
MISSING = "missing"
UNAVAILABLE = "unavailable"

UNIT_STATUSES = (OK, FAILED)
