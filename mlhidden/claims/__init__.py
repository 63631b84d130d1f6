"""Claims checked against stored runs: a claims file, its checker, and its outputs (docs/claims.md).

The names below are imported on first use (:func:`mlhidden.lazy_exports.lazy_names`).
"""

from typing import TYPE_CHECKING

from mlhidden.lazy_exports import lazy_names

if TYPE_CHECKING:  # the names of the table below, for type checkers
    from mlhidden.claims.check import Checker as Checker
    from mlhidden.claims.check import Extractor as Extractor
    from mlhidden.claims.check import check_claims as check_claims
    from mlhidden.claims.check import statistic as statistic
    from mlhidden.claims.multiverse import check_multiverse as check_multiverse
    from mlhidden.claims.multiverse import curve_frame as curve_frame
    from mlhidden.claims.multiverse import decide_multiverse as decide_multiverse
    from mlhidden.claims.multiverse import multiverse_lines as multiverse_lines
    from mlhidden.claims.multiverse import verdict_shares_line as verdict_shares_line
    from mlhidden.claims.multiverse import world_setting as world_setting
    from mlhidden.claims.multiverse import write_curve_frame as write_curve_frame
    from mlhidden.claims.result_files import text_table as text_table
    from mlhidden.claims.result_files import write_outputs as write_outputs
    from mlhidden.claims.runs import TIME_CONVENTION as TIME_CONVENTION
    from mlhidden.claims.runs import StoredRuns as StoredRuns
    from mlhidden.claims.runs import standalone_times as standalone_times
    from mlhidden.claims.spec import PRIMARY as PRIMARY
    from mlhidden.claims.spec import ClaimSpec as ClaimSpec
    from mlhidden.claims.spec import SubClaim as SubClaim
    from mlhidden.claims.spec import read_claims as read_claims
    from mlhidden.claims.verdicts import CALIBRATION_BASIS as CALIBRATION_BASIS
    from mlhidden.claims.verdicts import CANNOT_CONFIRM as CANNOT_CONFIRM
    from mlhidden.claims.verdicts import ClaimResult as ClaimResult

__getattr__, __all__ = lazy_names(__name__, {
    "check_claims": "mlhidden.claims.check",
    "Checker": "mlhidden.claims.check",
    "ClaimResult": "mlhidden.claims.verdicts",
    "statistic": "mlhidden.claims.check",
    "text_table": "mlhidden.claims.result_files",
    "write_outputs": "mlhidden.claims.result_files",
    "standalone_times": "mlhidden.claims.runs",
    "StoredRuns": "mlhidden.claims.runs",
    "ClaimSpec": "mlhidden.claims.spec",
    "read_claims": "mlhidden.claims.spec",
    "SubClaim": "mlhidden.claims.spec",
    "CALIBRATION_BASIS": "mlhidden.claims.verdicts",
    "CANNOT_CONFIRM": "mlhidden.claims.verdicts",
    "Extractor": "mlhidden.claims.check",
    "PRIMARY": "mlhidden.claims.spec",
    "TIME_CONVENTION": "mlhidden.claims.runs",
    "check_multiverse": "mlhidden.claims.multiverse",
    "curve_frame": "mlhidden.claims.multiverse",
    "decide_multiverse": "mlhidden.claims.multiverse",
    "multiverse_lines": "mlhidden.claims.multiverse",
    "verdict_shares_line": "mlhidden.claims.multiverse",
    "write_curve_frame": "mlhidden.claims.multiverse",
    "world_setting": "mlhidden.claims.multiverse",
})
