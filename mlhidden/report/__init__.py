"""Results reporting: means and ranks per dataset (``tables``), their written forms (``formats``, ``csv_files``),
significance tests.

The names below are loaded on first use, so that importing one module of the package (say the
claims, which need neither tabulate nor matplotlib) does not load every other.
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "TABLE_WRITERS": "formats",
    "render_terminal_summary": "formats",
    "to_latex": "formats",
    "to_markdown": "formats",
    "to_terminal": "formats",
    "write_csv": "csv_files",
    "write_reports": "formats",
    "write_statistics": "significance_output",
    "SignificanceReport": "significance_tests",
    "significance_report": "significance_tests",
    "HEADLINE_METRICS": "tables",
    "METRICS": "tables",
    "Metric": "tables",
    "MetricTable": "tables",
    "metric_table": "tables",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'mlhidden.report' has no attribute '{name}'")
    return getattr(import_module(f"mlhidden.report.{_EXPORTS[name]}"), name)
