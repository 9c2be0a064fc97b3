"""`--era both` in the exports: each era's verdict, and the rules whose verdicts differ (`Review.eras`, made by
`mcp_review.eras`). Markdown shows a table; JUnit carries properties; SARIF and JSON carry the record itself."""

from __future__ import annotations

from typing import Any

from mcp_review.report.common import cell, code
from mcp_review.review import Review

ROWS = 60  # rules listed in the markdown table; the rest are counted (JSON and SARIF hold them all)


def _era(said: dict[str, Any]) -> str:
    if "unserved" in said:
        return f"not reviewed: {cell(said['unserved'], 200)}"
    counts = ", ".join(f"{n} {status}" for status, n in sorted((said.get("counts") or {}).items()))
    return f"**{said.get('verdict')}** (revision {said.get('revision')}; {counts})"


def section(review: Review, rows: int = ROWS) -> list[str]:
    """The markdown section (none for a review of one era)."""
    eras = review.eras
    if not eras:
        return []
    differ = eras.get("differ", [])
    out = [
        "## Both eras: where the verdicts differ",
        "",
        f"Reviewed under each era on connections of its own; the findings above are the {eras.get('shown')} era's, "
        "and the verdict is the worse of the two.",
        "",
        f"- legacy (initialize): {_era(eras.get('legacy') or {})}",
        f"- modern (2026-07-28, stateless): {_era(eras.get('modern') or {})}",
        "",
    ]
    if not differ:
        served = all("unserved" not in (eras.get(era) or {}) for era in ("legacy", "modern"))
        return [*out, "Every rule has the same verdict under both eras." if served else "One era only.", ""]
    out += ["| rule | subject | legacy | modern | why (legacy / modern) |", "|---|---|---|---|---|"]
    for d in differ[:rows]:
        why = f"{cell(d['legacyMessage'], 160) or '-'} / {cell(d['modernMessage'], 160) or '-'}"
        subject = code(d["subject"], 60) if d.get("subject") is not None else "(the rule)"
        out.append(f"| {code(d['rule'], 80)} | {subject} | {d['legacy']} | {d['modern']} | {why} |")
    if len(differ) > rows:
        out.append(f"\n{len(differ) - rows} more differ (the JSON review lists them all).")
    return [*out, ""]


def properties(review: Review) -> list[tuple[str, str]]:
    """(name, value) pairs for JUnit: each era's verdict, then each rule that differs."""
    eras = review.eras
    if not eras:
        return []
    out = []
    for era in ("legacy", "modern"):
        said = eras.get(era) or {}
        out.append(
            (
                f"mcp-review.era.{era}",
                f"not reviewed: {said['unserved']}" if "unserved" in said else str(said.get("verdict")),
            )
        )
    out += [
        (
            f"mcp-review.era.differs.{d['rule']}" + (f".{d['subject']}" if d.get("subject") is not None else ""),
            f"legacy {d['legacy']}; modern {d['modern']}",
        )
        for d in eras.get("differ", [])
    ]
    return out
