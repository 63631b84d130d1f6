"""Results reporting: means and ranks per dataset (``tables``), their written forms (``formats``, ``csv_files``),
significance tests.

The names below are loaded on first use (:func:`mlhidden.lazy_exports.lazy_names`), so that importing one
module of the package (say the claims, which need neither tabulate nor matplotlib) does not load every other.
"""

from mlhidden.lazy_exports import lazy_names

__getattr__, __all__ = lazy_names(__name__, {
    "TABLE_WRITERS": "mlhidden.report.formats",
    "render_terminal_summary": "mlhidden.report.formats",
    "to_latex": "mlhidden.report.formats",
    "to_markdown": "mlhidden.report.formats",
    "to_terminal": "mlhidden.report.formats",
    "write_csv": "mlhidden.report.csv_files",
    "write_reports": "mlhidden.report.formats",
    "write_statistics": "mlhidden.report.significance_output",
    "SignificanceReport": "mlhidden.report.significance_tests",
    "significance_report": "mlhidden.report.significance_tests",
    "SUMMARY_METRICS": "mlhidden.report.tables",
    "METRICS": "mlhidden.runs.metrics",
    "UNIT_METRICS": "mlhidden.runs.metrics",
    "Metric": "mlhidden.runs.metrics",
    "MetricTable": "mlhidden.report.tables",
    "metric_table": "mlhidden.report.tables",
})
