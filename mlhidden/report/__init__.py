"""Results reporting: means and ranks per dataset (``tables``), their written forms (``formats``), significance tests."""

from mlhidden.report.formats import (
    TABLE_WRITERS,
    render_terminal_summary,
    to_latex,
    to_markdown,
    to_terminal,
    write_csv,
    write_reports,
)
from mlhidden.report.significance import write_statistics
from mlhidden.report.statistics import SignificanceReport, significance_report
from mlhidden.report.tables import HEADLINE_METRICS, METRICS, Metric, MetricTable, metric_table

__all__ = [
    "HEADLINE_METRICS",
    "METRICS",
    "Metric",
    "MetricTable",
    "TABLE_WRITERS",
    "metric_table",
    "render_terminal_summary",
    "to_latex",
    "to_markdown",
    "to_terminal",
    "write_csv",
    "write_reports",
    "write_statistics",
    "SignificanceReport",
    "significance_report",
]
