"""The headline every face leads with (issue 39): security first, then the concerns that fail, each with its verdict,
then the overall verdict and the gate's. One text for the markdown's first lines (the job summary and the PR comment
are the short markdown), stderr, the app's Overview and status line, JUnit's properties and the fleet's table.

    security ⛔ BLOCKED (4 blocking) · contract ❌ FAIL (1 fail: a known SDK behaviour) · protocol ✅ PASS · …

A concern whose fails are all known SDK behaviours (`mcp_review.known`) says so: it stays FAIL, and the reader sees
at once that it is the SDK's default, said once below, not this server's own defect.
"""

from __future__ import annotations

from mcp_review import known
from mcp_review.concerns import CONCERNS
from mcp_review.review import EXIT_CODES, Review
from mcp_review.verdicts import VERDICTS

ICONS = {"FAIL": "❌", "BLOCKED": "⛔", "PASS_WITH_WARNINGS": "⚠️", "PASS": "✅", "NOT_CHECKED": "…"}
WORDS = {"NOT_CHECKED": "not reviewed"}  # a concern no rule of the run belongs to


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def concerns(review: Review) -> list[tuple[str, str, str]]:
    """(concern, verdict, what decided it) for every concern: security first, then the others worst first (the
    order of CONCERNS among equals). What decided it: how many fails (and how many are known SDK behaviours), or
    how many are blocking, or warn."""
    verdicts = review.verdicts()
    counted: dict[str, dict[str, int]] = {c: {} for c in CONCERNS}
    for f in review.findings:
        if f.concern in counted:
            seen = counted[f.concern]
            seen[f.effective] = seen.get(f.effective, 0) + 1
            if f.effective == "fail" and f.known is not None:
                seen["known"] = seen.get("known", 0) + 1
    out = []
    for concern in CONCERNS:
        verdict, seen = verdicts[concern], counted[concern]
        if verdict == "FAIL":
            fails, sdk = seen.get("fail", 0), seen.get("known", 0)
            why = _plural(fails, "fail")
            if sdk == fails:
                why += ": a known SDK behaviour" if sdk == 1 else ": known SDK behaviours"
            elif sdk:
                why += f", {sdk} a known SDK behaviour" if sdk == 1 else f", {sdk} known SDK behaviours"
        elif verdict == "BLOCKED":
            why = f"{seen.get('blocking', 0)} blocking"
        elif verdict == "PASS_WITH_WARNINGS":
            why = _plural(seen.get("warn", 0), "warning")
        else:
            why = ""
        out.append((concern, verdict, why))
    rest = sorted(out[1:], key=lambda c: -VERDICTS.index(c[1]) if c[1] in VERDICTS else 1)  # stable: ties keep order
    return [out[0], *rest]


def line(review: Review, icons: bool = True, lead: str = "") -> str:
    """Every concern's verdict in one line, security first (`lead` wraps security's, e.g. "**" in markdown)."""
    said = []
    for i, (concern, verdict, why) in enumerate(concerns(review)):
        icon = f"{ICONS[verdict]} " if icons else ""
        text = f"{concern} {icon}{WORDS.get(verdict, verdict)}" + (f" ({why})" if why else "")
        said.append(f"{lead}{text}{lead}" if i == 0 else text)
    return " · ".join(said)


def security(review: Review, icons: bool = True, detail: bool = True) -> str:
    """Security's verdict alone (`detail`: with what decided it): the first words every face shows."""
    concern, verdict, why = concerns(review)[0]
    said = f"{concern} {ICONS[verdict] + ' ' if icons else ''}{WORDS.get(verdict, verdict)}"
    return said + (f" ({why})" if why and detail else "")


def gate(review: Review, icons: bool = True) -> str | None:
    """The gate's verdict and the exit code it makes: `gate security,blocking: BLOCKED (exit 3)` (None: no gate)."""
    verdict = review.gate()
    if verdict is None or review.fail_on is None:
        return None
    icon = f"{ICONS[verdict]} " if icons else ""
    return f"gate {','.join(review.fail_on)}: {icon}{verdict} (exit {int(EXIT_CODES[verdict])})"


def known_line(review: Review) -> str | None:
    """The known SDK behaviours the fails follow from, in a few words (None: none)."""
    found = known.listed(review)
    if not found:
        return None
    said = [f"{k['behaviour']} ({k['sdkName'].split(' (')[0]}, {_plural(k['fails'], 'fail')})" for k in found]
    return "known SDK behaviours: " + ", ".join(said)


DECISION_WORDS = {"live": "live", "stale": "stale (made on an earlier version)", "unused": "unused"}


def decided_counts(review: Review) -> str:
    """How many decisions are live and stale, and how many were bound on first use ("" when there is none)."""
    counts = review.decision_counts()
    said = [f"{counts[k]} {w}" for k, w in DECISION_WORDS.items() if counts.get(k)]
    first = counts.get("boundOnFirstUse")
    return ", ".join(said) + (f"; {first} bound on first use (written without a digest)" if first else "")
