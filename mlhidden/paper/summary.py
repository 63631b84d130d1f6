"""REPORT.md's first screen: the answer in one paragraph, then one short row per claim.

Every word of it is computed: the verdict counts from the claims, robustness from the claims x
settings matrix (:func:`mlhidden.paper.sensitivity_report.claims_matrix`), closeness from the
comparisons with the paper. Each claim's long evidence is in its own section
(:func:`claims_detail`), which the short table links to.
"""

from __future__ import annotations

import pandas as pd

from mlhidden.paper.claim_terms import DEVIATION
from mlhidden.paper.sensitivity_report import ROBUST
from mlhidden.report.formats import markdown_escape, pipe_table
from mlhidden.report.uncertainty import FAILS, HOLDS, INCONCLUSIVE, NOT_EVALUATED

OVER_SETTINGS = "over all settings"


def claim_anchor(key: str) -> str:
    """The Markdown link target of a claim's own section."""
    return f"#claim-{key.lower()}"


def answer_paragraph(claims: list, matrix: pd.DataFrame | None, scores: pd.DataFrame, setting: dict | None) -> str:
    """How many claims hold, fail or are open under the main setting, which hold under every
    setting, and how close our scores are to the paper's (``scores``: compared score rows)."""
    counts = {
        verdict: sum(claim.verdict == verdict for claim in claims)
        for verdict in (HOLDS, FAILS, INCONCLUSIVE, NOT_EVALUATED)
    }
    if setting:
        chosen_by = "the primary setting" if setting.get("is_primary", True) else "a setting asked for with `--setting`"
        under = f"Under **{setting['name']}** ({chosen_by}: {setting.get('about') or 'see the settings section'})"
    else:
        under = "Under the configs as written (no base-learner setting applied)"
    parts = [
        f"{under}, {counts[HOLDS]} of the paper's {len(claims)} claims **hold**, {counts[FAILS]} "
        f"{'**does not hold**' if counts[FAILS] == 1 else '**do not hold**'} and {counts[INCONCLUSIVE]} "
        f"{'is' if counts[INCONCLUSIVE] == 1 else 'are'} **inconclusive**"
        + (f" ({counts[NOT_EVALUATED]} not evaluated)." if counts[NOT_EVALUATED] else ".")
    ]
    if matrix is None:
        parts.append("No base-learner setting of the sensitivity study has finished, so robustness is not assessed.")
    else:
        robust = [key for key in matrix.index if matrix.at[key, OVER_SETTINGS] == ROBUST]
        finished = len(matrix.columns) - 1
        every = "it" if finished == 1 else "every one"
        parts.append(
            f"Across the {finished} finished setting{'' if finished == 1 else 's'} of the sensitivity study, "
            + (
                f"the claims that hold under {every}: {', '.join(robust)}."
                if robust
                else f"no claim holds under {every}."
            )
        )
    differences = scores["difference"].abs()
    if len(differences):
        parts.append(
            f"Of {len(differences)} scores compared with the paper's, "
            f"{int(scores['beyond_deviation'].sum())} differ by more than {DEVIATION} and "
            f"{int(scores['flagged'].sum())} of those have the paper's value outside our 95 % interval; "
            f"the median absolute difference is {differences.median():.3f}."
        )
    return " ".join(parts) + "\n"


def claims_summary_table(claims: list, matrix: pd.DataFrame | None) -> str:
    """One row per claim: verdict, the deciding effect with its interval, robustness, a link to the details."""
    rows = []
    for claim in claims:
        robust = (
            matrix.at[claim.key, OVER_SETTINGS] if matrix is not None and claim.key in matrix.index else "not assessed"
        )
        rows.append(
            [
                f"[{claim.key}]({claim_anchor(claim.key)})",
                f"**{claim.verdict}**",
                markdown_escape(claim.deciding or "—"),
                markdown_escape(robust),
            ]
        )
    return pipe_table(rows, ["claim", "verdict", "deciding effect [95 % interval], test", "across settings"]) + "\n"


def claims_detail(claims: list) -> str:
    """Per claim, its own section: the paper's words and place, the verdict, and each sub-claim with its
    verdict and deciding statistic (``configs/claims.yaml`` holds the readings)."""
    parts = ["## The claims in detail\n"]
    for claim in claims:
        spec = claim.spec
        parts += [
            f'<a id="{claim_anchor(claim.key)[1:]}"></a>\n',
            f"### {claim.key}\n",
            f"{markdown_escape(claim.statement)}.\n",
            f"The paper ({markdown_escape(spec.source)}): “{markdown_escape(spec.quote)}”\n" if spec.quote else "",
            f"**{claim.verdict}**" + (f", decided by {markdown_escape(claim.deciding)}" if claim.deciding else "")
            + "\n",
            pipe_table(
                [[s.spec.id, markdown_escape(s.spec.says), f"**{s.verdict}**", markdown_escape(s.spec.unit),
                  markdown_escape(s.deciding)] for s in claim.subclaims],
                ["sub-claim", "says", "verdict", "unit", "deciding statistic (effect [95 % interval]; claimed; test)"],
            ) + "\n",
            *(f"{markdown_escape(note)}\n" for note in (spec.note, *claim.notes) if note),
        ]
    return "\n".join(part for part in parts if part)
