"""REPORT.md's first screen: the answer in a few sentences, then one short row per claim.

Every word of it is computed: the verdict counts from the claims and their sub-claims
(:class:`~mlhidden.claims.check.ClaimResult` s of ``configs/claims.yaml``), robustness from the
claims x settings matrix (:func:`mlhidden.paper.sensitivity_section.claims_matrix`), the audit's line
from :class:`~mlhidden.paper.audit.Audit`, closeness from the comparisons with the paper. Long text
(the paper's words, the full deciding statistic, every setting's name) goes to each claim's own
section (:func:`claims_detail`), which the short table links to, so that no line of the first screen
is wider than a screen.
"""

from __future__ import annotations

import re
from collections import Counter

import pandas as pd

from mlhidden.claims import CALIBRATION_BASIS, CANNOT_CONFIRM
from mlhidden.escaping import markdown_escape
from mlhidden.paper.audit import BELOW_BASELINE, FAILED_ROW, PRINTED_DIFFERENTLY, RUN_KEY, Audit
from mlhidden.paper.sensitivity_section import ROBUST
from mlhidden.paper.wording import DEVIATION, plain_latex
from mlhidden.report import pipe_table
from mlhidden.stats import NOT_EVALUATED, VERDICTS

OVER_SETTINGS = "over all settings"
VERDICT_ORDER = (*VERDICTS, NOT_EVALUATED)
"""The order verdicts are counted in; a verdict not listed here follows, in the order first met."""
SHORT_WIDTH = 72
"""The widest a cell of the claims table gets; the full text is in the claim's section."""


def _claim_anchor(key: str) -> str:
    """The Markdown link target of a claim's own section, ``#claim-c1`` for C1.

    The key comes from the claims file and the anchor is an HTML attribute and a URL fragment, so
    every character but a lower-case letter, a digit and ``-`` is written as ``_`` and its code point
    in hex: no quote or ``>`` ends the attribute, and two keys never share an anchor.
    """
    return "#claim-" + re.sub(r"[^a-z0-9-]", lambda match: f"_{ord(match.group()):x}", key.lower())


def _verdict_counts(verdicts) -> Counter:
    """How many of each verdict, in :data:`VERDICT_ORDER` and then the order first met."""
    counted = Counter(verdicts)
    order = [v for v in VERDICT_ORDER if v in counted] + [v for v in counted if v not in VERDICT_ORDER]
    return Counter({verdict: counted[verdict] for verdict in order})


def _counts_text(counts: Counter) -> str:
    """``counts`` as "**holds** 0, **does not hold** 6, ..." (every verdict of a test always shown)."""
    shown = {verdict: counts.get(verdict, 0) for verdict in VERDICTS} | dict(counts)
    return ", ".join(f"**{verdict}** {count}" for verdict, count in shown.items())


def shorten(text: str, width: int = SHORT_WIDTH) -> str:
    """``text`` cut to ``width``: up to the end of the effect's interval ("effect [low, high]") where
    that fits, else at a word, with "…"."""
    if len(text) <= width:
        return text
    end = _interval_end(text)
    if 0 < end <= width:
        return text[:end] + " …"
    return text[: text.rfind(" ", 0, width - 1)].rstrip(",;:") + " …"


def _interval_end(text: str) -> int:
    """Where the first interval ends (0 when none): the first bracket that opens with a number, so that
    a label's own brackets ("CCASL+AML [n_synthetic=1]") are passed over."""
    start = text.find(" [")
    while start != -1:
        first = text[start + 2 : start + 3]
        if first and (first.isdigit() or first in "+-−"):
            return text.find("]", start) + 1
        start = text.find(" [", start + 2)
    return 0


def answer_paragraph(claims: list, matrix: pd.DataFrame | None, scores: pd.DataFrame, setting: dict | None) -> str:
    """The verdicts of the claims and of their sub-claims under the main setting, which claims keep
    their verdict under every setting, and how close our scores are to the paper's (``scores``:
    compared score rows)."""
    if setting:
        chosen_by = "the primary setting" if setting.get("is_primary", True) else "a setting asked for with `--setting`"
        about = markdown_escape(setting.get("about") or "see the settings section")
        under = f"Under **{markdown_escape(setting['name'])}** ({chosen_by}: {about})"
    else:
        under = "Under the configs as written (no base-learner setting applied)"
    parts = [f"{under}, the paper's {len(claims)} claims: {_counts_text(_verdict_counts(c.verdict for c in claims))}."]
    parts += _sub_claims_sentence(claims)
    parts.append(settings_sentence(matrix))
    differences = scores["difference"].abs()
    if len(differences):
        parts.append(
            f"Of {len(differences)} scores compared with the paper's, "
            f"{int(scores['beyond_deviation'].sum())} differ by more than {DEVIATION} and "
            f"{int(scores['flagged'].sum())} of those have the paper's value outside our 95 % interval; "
            f"the median absolute difference is {differences.median():.3f}."
        )
    return " ".join(parts) + "\n"


def _sub_claims_sentence(claims: list) -> list:
    """The sub-claims' verdict counts in a sentence (none where no claim has sub-claims)."""
    parts = [subclaim for claim in claims for subclaim in claim.subclaims]
    if not parts:
        return []
    return [f"Their {len(parts)} sub-claims: {_counts_text(_verdict_counts(part.verdict for part in parts))}."]


def settings_sentence(matrix: pd.DataFrame | None) -> str:
    """Which claims keep one verdict under every finished setting (by verdict) and which depend on the setting."""
    if matrix is None:
        return "No base-learner setting of the sensitivity study has finished, so robustness is not assessed."
    verdicts = matrix.drop(columns=OVER_SETTINGS)
    finished = len(verdicts.columns)
    if finished == 1:
        return f"Across the 1 finished setting of the sensitivity study, {'; '.join(_steady(verdicts)) or 'none'}."
    steady = _steady(verdicts, f"under all {finished}")
    depending = [markdown_escape(key) for key in verdicts.index if verdicts.loc[key].nunique() > 1]
    parts = steady + ([f"depends on the setting: {', '.join(depending)}"] if depending else [])
    robust = [key for key in matrix.index if matrix.at[key, OVER_SETTINGS] == ROBUST]
    return (
        f"Across the {finished} finished settings of the sensitivity study: {'; '.join(parts)}"
        + ("" if robust else f" (no claim holds under all {finished})")
        + "."
    )


def _steady(verdicts: pd.DataFrame, under: str = "under it") -> list:
    """"<verdict> <under>: <claims>" for every verdict that some claims have under every setting."""
    steady: dict = {}
    for key in verdicts.index:
        if verdicts.loc[key].nunique() == 1:
            steady.setdefault(verdicts.loc[key].iloc[0], []).append(markdown_escape(key))
    return [f"**{verdict}** {under}: {', '.join(steady[verdict])}" for verdict in _verdict_counts(steady)]


def _settings_tally(verdicts: pd.Series) -> str:
    """One claim's verdicts over the settings, short: "does not hold under all 11", or the counts."""
    counts = _verdict_counts(verdicts)
    if len(counts) == 1:
        return f"{next(iter(counts))} under all {len(verdicts)}"
    return ", ".join(f"{verdict} {count}" for verdict, count in counts.items()) + f" (of {len(verdicts)})"


def claims_summary_table(claims: list, matrix: pd.DataFrame | None, multiverse: dict | None = None) -> str:
    """One short row per claim: verdict, the deciding effect with its interval, the verdicts over the
    settings, a link to the details (the full text); with ``multiverse`` (claim -> its line,
    :func:`~mlhidden.paper.multiverse_claims.claim_lines`), the verdict shares over the multiverse and the
    verdict under the setting closest to the paper."""
    rows = []
    for claim in claims:
        across = (
            _settings_tally(matrix.drop(columns=OVER_SETTINGS).loc[claim.key])
            if matrix is not None and claim.key in matrix.index
            else "not assessed"
        )
        rows.append([
            f"[{markdown_escape(claim.key)}]({_claim_anchor(claim.key)})",
            f"**{claim.verdict}**" + (f" ({CANNOT_CONFIRM})" if claim.cannot_confirm else ""),
            *map(markdown_escape, [shorten(claim.deciding or "—"), across]),
            *([markdown_escape(multiverse.get(claim.key, "not decided"))] if multiverse is not None else []),
        ])
    headers = ["claim", "verdict", "deciding effect [95 % interval]", "verdicts over the settings"]
    return pipe_table(rows, headers + (["over the multiverse"] if multiverse is not None else [])) + "\n"


def subclaims_by_claim(claims: list) -> str:
    """Each claim's sub-claim verdicts counted, in one wrapped line under the table (a table row cannot
    wrap, and these counts would widen it past a screen)."""
    counted = [
        f"{markdown_escape(claim.key)} "
        + ", ".join(f"{v} {n}" for v, n in _verdict_counts(s.verdict for s in claim.subclaims).items())
        for claim in claims
        if claim.subclaims
    ]
    return f"Sub-claims by claim: {'; '.join(counted)}.\n" if counted else ""


def audit_line(audit: Audit) -> str:
    """The audit of the paper's numbers in one line: what it found, with a link to its section."""
    marks = audit.marks
    failed = len(marks[marks["kind"] == FAILED_ROW].drop_duplicates(RUN_KEY))
    contradicted = audit.contradicted()
    words = (
        f"; {len(contradicted)} of {len(audit.statements)} sentences checked are contradicted by its own tables"
        + (f" ({'line' if len(contradicted) == 1 else 'lines'} {', '.join(str(line) for line in contradicted['line'])})"
           if len(contradicted) else "")
        if len(audit.statements)
        else ""
    )
    return (
        f"[Audit of the paper's numbers](#audit-of-the-papers-numbers): of its {len(audit.values)} printed scores, "
        f"{audit.impossible()} impossible (a pair counted once), {len(audit.cells(PRINTED_DIFFERENTLY))} printed "
        f"differently in two tables and {len(audit.cells(BELOW_BASELINE))} below a trivial baseline "
        f"({failed} rows look like failed runs){words}.\n"
    )


def claims_detail(claims: list, matrix: pd.DataFrame | None = None) -> str:
    """Per claim, its own section: the paper's words and place, the verdict and the full deciding
    statistic, each sub-claim with its verdict, unit and full deciding statistic (``configs/claims.yaml``
    holds the readings), its verdict over the settings, and our numbers behind it.

    The sub-claims are a list, not a table: a table row is never wrapped, and a full statistic beside
    the sub-claim's words would make the first screen's lines wider than a screen."""
    parts = ["## The claims in detail\n"]
    if any(s.calibrated for claim in claims for s in claim.subclaims):
        parts.append(f"Each verdict on the paper's own numbers is decided on {CALIBRATION_BASIS}.\n")
    for claim in claims:
        spec, title = claim.spec, shorten(claim.statement, 100)
        parts += [
            f'<a id="{_claim_anchor(claim.key)[1:]}"></a>\n',
            f"### {markdown_escape(claim.key)}: {markdown_escape(title)}\n",
            f"{markdown_escape(claim.statement)}.\n" if title != claim.statement else "",
            f"The paper ({markdown_escape(spec.source)}): “{markdown_escape(plain_latex(spec.quote))}”\n"
            if spec.quote else "",
            f"**{claim.verdict}**" + (f", decided by {markdown_escape(claim.deciding)}" if claim.deciding else "")
            + (f"; {markdown_escape(claim.calibrated)}" if claim.calibrated else "") + "\n",
            "\n".join(
                f"- **{markdown_escape(s.spec.id)}** {markdown_escape(s.spec.says)}: **{s.verdict}** "
                f"(unit: {markdown_escape(s.spec.unit)})" + (f"; {markdown_escape(s.deciding)}" if s.deciding else "")
                + (f"; {markdown_escape(s.calibrated)}" if s.calibrated else "")
                for s in claim.subclaims
            ) + "\n" if claim.subclaims else "",
            f"{markdown_escape(spec.note)}\n" if spec.note else "",
            f"Over the settings: {markdown_escape(matrix.at[claim.key, OVER_SETTINGS])}.\n"
            if matrix is not None and claim.key in matrix.index else "",
            f"Our numbers: {markdown_escape(' '.join(claim.notes))}\n" if claim.notes else "",
        ]
    return "\n".join(part for part in parts if part)
