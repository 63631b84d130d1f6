"""The paper's claims over the multiverse's runs: every claim decided in every world (a distinct setting at a
split seed), under each declared reading and multiplicity method, written once as a table and a figure per
claim that REPORT.md and the page read.

``mlhidden multiverse`` runs the pieces (:mod:`mlhidden.paper.multiverse_runs`) and then calls
:func:`write_multiverse_claims`; the table it writes (``claims_multiverse.csv``, the rows of
:func:`~mlhidden.claims.multiverse.curve_frame`) is small and committed, so a report never decides the
multiverse again, and ``mlhidden claims configs/claims.yaml --multiverse WORLD...`` re-derives it from a
clone. The primary specification is the primary setting's world at seed 0, the primary reading and Holm.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mlhidden.claims import (
    PRIMARY,
    curve_frame,
    decide_multiverse,
    verdict_shares_line,
    world_setting,
    write_curve_frame,
)
from mlhidden.escaping import markdown_escape
from mlhidden.paper.claim_evidence import EXTRACTORS, NOTES
from mlhidden.paper.claims import claims_path, paper_claims
from mlhidden.paper.multiverse_runs import MULTIVERSE_DIR, load_multiverse, read_manifest
from mlhidden.report import curve_stem, pipe_table, write_specification_curves
from mlhidden.shipped import shipped_folder
from mlhidden.stats import HOLM

CLAIMS_MULTIVERSE_FILE = "claims_multiverse.csv"
FIGURES_DIR = "figures"
MULTIVERSE_CONFIG = "multiverse.yaml"


def multiverse_worlds(out_dir: Path, primary: str | None) -> list[Path]:
    """The worlds of the multiverse under ``out_dir`` (``<setting>/seed<k>`` folders of its manifest's finished
    pieces), the primary setting's seed 0 first, then in the manifest's order."""
    manifest = read_manifest(out_dir) or {"pieces": []}
    worlds = dict.fromkeys(
        out_dir / piece["setting"] / f"seed{piece['seed']}" for piece in manifest["pieces"]
        if piece.get("status") == "finished"
    )
    first = [world for world in worlds if primary is not None and world == out_dir / primary / "seed0"]
    return first + [world for world in worlds if world not in first]


def write_multiverse_claims(out_dir: str | Path, primary: str | None) -> list[Path]:
    """Decide every claim over the multiverse under ``out_dir`` and write its table and specification curves;
    the paths written (none when no piece is finished)."""
    out_dir = Path(out_dir)
    worlds = multiverse_worlds(out_dir, primary)
    if not worlds:
        return []
    decided = decide_multiverse(paper_claims(), worlds, claims_path(), EXTRACTORS, NOTES)
    frame = curve_frame_relative(decided, out_dir)
    return [write_curve_frame(frame, out_dir, CLAIMS_MULTIVERSE_FILE),
            *write_specification_curves(frame, out_dir / FIGURES_DIR)]


def curve_frame_relative(decided, out_dir: Path) -> pd.DataFrame:
    """The specification rows with each world named by its path under ``out_dir`` (``j_paper_era/seed0``)."""
    frame = curve_frame(decided)
    relative = [Path(world).relative_to(out_dir).as_posix() for world in frame["world"]]
    return frame.assign(world=relative, setting=[world_setting(world) for world in relative])


def read_multiverse_claims(out_dir: str | Path) -> pd.DataFrame | None:
    """The committed table of the multiverse's specifications, or None when the multiverse was not decided."""
    path = Path(out_dir) / CLAIMS_MULTIVERSE_FILE
    return pd.read_csv(path, keep_default_na=False, na_values=[""]) if path.is_file() else None


def claim_lines(frame: pd.DataFrame, closest: str | None) -> dict[str, str]:
    """Per claim in one short line: its verdict shares over the evaluated specifications and its verdict under
    the setting closest to the paper (its seed-0 world, the primary reading, Holm)."""
    lines = {}
    for claim, rows in frame.groupby("claim", sort=False):
        text = verdict_shares_line(list(rows["verdict"]))
        if closest is not None:
            chosen = rows[(rows["world"] == f"{closest}/seed0") & (rows["reading"] == PRIMARY)
                          & (rows["multiplicity"] == HOLM)]
            text += f"; under {closest}: {chosen['verdict'].iloc[0] if len(chosen) else 'not run'}"
        lines[str(claim)] = text
    return lines


def declared_closest() -> str | None:
    """The setting the shipped multiverse config declares closest to the paper (None when it declares none)."""
    return load_multiverse(shipped_folder("configs") / MULTIVERSE_CONFIG).closest


def multiverse_section(out_dir: str | Path) -> tuple[str, dict[str, str] | None]:
    """REPORT.md's section on the multiverse (its table and each claim's specification curve) and the first
    screen's line per claim; (a line saying how to make it, None) before ``mlhidden multiverse`` has decided it."""
    folder = Path(out_dir) / MULTIVERSE_DIR
    title = "## The claims over the multiverse\n\n"
    frame = read_multiverse_claims(folder)
    if frame is None:
        return title + "Not decided: `mlhidden multiverse` runs the settings and seeds and decides every claim.\n", None
    closest = declared_closest()
    lines = claim_lines(frame, closest)
    worlds = frame["world"].nunique()
    parts = [
        title,
        f"Each claim decided in each of {worlds} worlds (a distinct base-learner setting at a split seed, "
        f"`{MULTIVERSE_DIR}/<setting>/seed<k>/`), under each reading the claims file declares and with Holm and "
        "Bonferroni across its core sub-claims. A world without the runs a claim needs (a run not asked for at "
        f"that seed, or one merged into an identical setting's: `{MULTIVERSE_DIR}/multiverse.json`) is 'not "
        "evaluated' for it, so no computation counts twice. "
        f"Rows: `{MULTIVERSE_DIR}/{CLAIMS_MULTIVERSE_FILE}`; re-derive them with `mlhidden claims claims.yaml "
        "--multiverse` on the worlds. Each curve puts every specification's deciding effect as its distance from "
        "the claimed boundary (above 0: the claimed side), sorted, over the choices it makes.\n\n",
        pipe_table([[markdown_escape(claim), markdown_escape(text)] for claim, text in lines.items()],
                   ["claim", "over the multiverse" + (f" (and under {closest}, seed 0)" if closest else "")]),
        "\n\n",
    ]
    for claim in lines:
        figure = f"{FIGURES_DIR}/{curve_stem(claim)}.png"
        if (folder / figure).is_file():
            parts.append(f"![Specification curve, {markdown_escape(claim)}]({MULTIVERSE_DIR}/{figure})\n\n")
    return "".join(parts), lines
