"""Results reporting: means and ranks per dataset (``tables``), their written forms (``formats``, ``csv_files``),
significance tests.

The names below are loaded on first use (:func:`mlhidden.lazy_exports.lazy_names`), so that importing one
module of the package (say the claims, which need neither tabulate nor matplotlib) does not load every other.
"""

from typing import TYPE_CHECKING

from mlhidden.lazy_exports import lazy_names

if TYPE_CHECKING:  # the names of the table below, for type checkers
    from mlhidden.report.csv_files import write_csv as write_csv
    from mlhidden.report.csv_files import write_frame as write_frame
    from mlhidden.report.export import export_run as export_run
    from mlhidden.report.export import json_text as json_text
    from mlhidden.report.figures import literal as literal
    from mlhidden.report.figures import new_figure as new_figure
    from mlhidden.report.figures import plot_sweep as plot_sweep
    from mlhidden.report.figures import save_figure as save_figure
    from mlhidden.report.formats import TABLE_WRITERS as TABLE_WRITERS
    from mlhidden.report.formats import format_avg_rank as format_avg_rank
    from mlhidden.report.formats import format_interval as format_interval
    from mlhidden.report.formats import format_number as format_number
    from mlhidden.report.formats import format_rank as format_rank
    from mlhidden.report.formats import listing as listing
    from mlhidden.report.formats import markdown_frame as markdown_frame
    from mlhidden.report.formats import pipe_table as pipe_table
    from mlhidden.report.formats import render_terminal_summary as render_terminal_summary
    from mlhidden.report.formats import to_latex as to_latex
    from mlhidden.report.formats import to_markdown as to_markdown
    from mlhidden.report.formats import to_terminal as to_terminal
    from mlhidden.report.formats import write_reports as write_reports
    from mlhidden.report.formats import write_table as write_table
    from mlhidden.report.html import HTML_FILE as HTML_FILE
    from mlhidden.report.html import HtmlSection as HtmlSection
    from mlhidden.report.html import esc as esc
    from mlhidden.report.html import number as number
    from mlhidden.report.html import render_page as render_page
    from mlhidden.report.html import run_scope as run_scope
    from mlhidden.report.html import run_sections as run_sections
    from mlhidden.report.html import scroll_box as scroll_box
    from mlhidden.report.html import sortable_table as sortable_table
    from mlhidden.report.html_plots import agreement_svg as agreement_svg
    from mlhidden.report.markdown_pages import markdown_html as markdown_html
    from mlhidden.report.markdown_pages import split_sections as split_sections
    from mlhidden.report.prose import wrap_prose as wrap_prose
    from mlhidden.report.ranked_methods import unranked_methods as unranked_methods
    from mlhidden.report.run_files import report_runs as report_runs
    from mlhidden.report.significance_tests import SignificanceReport as SignificanceReport
    from mlhidden.report.significance_tests import check_control as check_control
    from mlhidden.report.significance_tests import significance_report as significance_report
    from mlhidden.report.significance_text import significance_rows as significance_rows
    from mlhidden.report.specification_curve import curve_stem as curve_stem
    from mlhidden.report.specification_curve import write_specification_curves as write_specification_curves
    from mlhidden.report.statistics_files import markdown_with_diagram as markdown_with_diagram
    from mlhidden.report.statistics_files import write_statistics as write_statistics
    from mlhidden.report.stored_metrics import write_score_metric_tables as write_score_metric_tables
    from mlhidden.report.tables import SUMMARY_METRICS as SUMMARY_METRICS
    from mlhidden.report.tables import MetricTable as MetricTable
    from mlhidden.report.tables import metric_table as metric_table

__getattr__, __all__ = lazy_names(__name__, {
    "write_csv": "mlhidden.report.csv_files",
    "write_frame": "mlhidden.report.csv_files",
    "export_run": "mlhidden.report.export",
    "json_text": "mlhidden.report.export",
    "literal": "mlhidden.report.figures",
    "new_figure": "mlhidden.report.figures",
    "plot_sweep": "mlhidden.report.figures",
    "save_figure": "mlhidden.report.figures",
    "format_avg_rank": "mlhidden.report.formats",
    "format_interval": "mlhidden.report.formats",
    "format_number": "mlhidden.report.formats",
    "format_rank": "mlhidden.report.formats",
    "listing": "mlhidden.report.formats",
    "markdown_frame": "mlhidden.report.formats",
    "pipe_table": "mlhidden.report.formats",
    "render_terminal_summary": "mlhidden.report.formats",
    "TABLE_WRITERS": "mlhidden.report.formats",
    "to_latex": "mlhidden.report.formats",
    "to_markdown": "mlhidden.report.formats",
    "to_terminal": "mlhidden.report.formats",
    "write_reports": "mlhidden.report.formats",
    "write_table": "mlhidden.report.formats",
    "esc": "mlhidden.report.html",
    "HTML_FILE": "mlhidden.report.html",
    "HtmlSection": "mlhidden.report.html",
    "number": "mlhidden.report.html",
    "render_page": "mlhidden.report.html",
    "run_scope": "mlhidden.report.html",
    "run_sections": "mlhidden.report.html",
    "scroll_box": "mlhidden.report.html",
    "sortable_table": "mlhidden.report.html",
    "agreement_svg": "mlhidden.report.html_plots",
    "markdown_html": "mlhidden.report.markdown_pages",
    "split_sections": "mlhidden.report.markdown_pages",
    "wrap_prose": "mlhidden.report.prose",
    "unranked_methods": "mlhidden.report.ranked_methods",
    "report_runs": "mlhidden.report.run_files",
    "markdown_with_diagram": "mlhidden.report.statistics_files",
    "write_statistics": "mlhidden.report.statistics_files",
    "check_control": "mlhidden.report.significance_tests",
    "significance_report": "mlhidden.report.significance_tests",
    "SignificanceReport": "mlhidden.report.significance_tests",
    "significance_rows": "mlhidden.report.significance_text",
    "write_score_metric_tables": "mlhidden.report.stored_metrics",
    "SUMMARY_METRICS": "mlhidden.report.tables",
    "MetricTable": "mlhidden.report.tables",
    "metric_table": "mlhidden.report.tables",
    "write_specification_curves": "mlhidden.report.specification_curve",
    "curve_stem": "mlhidden.report.specification_curve",
})
