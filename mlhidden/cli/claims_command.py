"""``mlhidden claims FILE RUN_DIR...``: a claims file checked against stored runs."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("claims_file", type=click.Path(dir_okay=False))
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Also write claims.csv and claims.json into this folder (default: write no file).")
@click.option("--multiverse", is_flag=True,
              help="Each RUN_DIR is one world (a folder of runs: one setting and seed); decide every claim in each "
                   "world under each declared reading and multiplicity method, and give each verdict's share; "
                   "with --out, also multiverse.csv and one specification curve per claim.")
def claims(claims_file, run_dirs, out, multiverse):
    """Check the claims in CLAIMS_FILE on the runs in RUN_DIRS: a verdict per claim and sub-claim.

    Each RUN_DIR is a run directory, or a folder of them; a sub-claim's ``run:`` names one by its
    folder name (by its path, as given, where two runs given share a folder name). Each verdict comes
    with its deciding statistic, tested over the sub-claim's unit of replication. The paper's
    evidence extractors are available to the file. `mlhidden init --from claims` writes the paper's
    claims file, commented, into the current folder to start from ('Checking claims' in the
    documentation describes every key).
    """
    from mlhidden.claims.check import check_claims
    from mlhidden.claims.result_files import text_table, write_outputs
    from mlhidden.escaping import terminal_escape
    from mlhidden.paper.calibration import calibration_checker
    from mlhidden.paper.claim_evidence import EXTRACTORS, NOTES

    if multiverse:
        _multiverse(claims_file, run_dirs, out)
        return
    results = check_claims(claims_file, run_dirs, EXTRACTORS, NOTES, calibration_checker)
    click.echo(text_table(results), nl=False)
    if out is not None:
        paths = write_outputs(results, Path(out))
        click.echo(terminal_escape(f"wrote {', '.join(str(p) for p in paths)}"))


def _multiverse(claims_file, worlds, out) -> None:
    from mlhidden.claims.multiverse import check_multiverse, curve_frame, multiverse_lines, write_curve_frame
    from mlhidden.escaping import terminal_escape
    from mlhidden.paper.claim_evidence import EXTRACTORS, NOTES
    from mlhidden.report.specification_curve import write_specification_curves

    decided = check_multiverse(claims_file, worlds, EXTRACTORS, NOTES)
    click.echo("\n".join(map(terminal_escape, multiverse_lines(decided))))
    if out is not None:
        frame = curve_frame(decided)
        paths = [write_curve_frame(frame, Path(out)), *write_specification_curves(frame, Path(out))]
        click.echo(terminal_escape(f"wrote {', '.join(str(p) for p in paths)}"))
