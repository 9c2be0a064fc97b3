"""`check --era both`: one dual-era server reviewed under each era, and where the rules' verdicts differ (issue 24).

MCP 2026-07-28 defines two eras a server may serve at once: legacy (`initialize`, 2025-11-25 and before) and modern
(stateless, `server/discover`). A dual-era server is two servers to its clients; a review under one era says
nothing of the other. `run_both` (in `mcp_review.checking`) runs the whole review twice, on fresh connections, one per
era; this module compares the two reviews rule by rule.

The review that `run_both` returns is the modern one (the current revision) with `eras` set: each era's revision,
verdict and counts, and every rule whose verdict (its worst finding) differs, then every subject whose status
differs, with the message of that finding in each era. The verdict is the worse of the two (`Review.verdict`), so a
fail under either era fails the check.
"""

from __future__ import annotations

from typing import Any

from mcp_review.review import STATUSES, Review

ERAS = ("legacy", "modern")
SHOWN = "modern"  # the era whose findings the review holds
MESSAGE = 300  # characters of each era's message kept per difference
NOT_RUN = ("not run", "")


def _verdicts(review: Review) -> dict[tuple[str, str | None], tuple[str, str]]:
    """(rule, subject) -> its worst effective status and that finding's message; (rule, None) for the rule as a
    whole (its verdict: the worst over every subject)."""
    order = (*STATUSES[:3], "waived", *STATUSES[3:])
    out: dict[tuple[str, str | None], tuple[str, str]] = {}
    for f in review.findings:
        for key in {(f.rule, None), (f.rule, f.subject)}:
            known = out.get(key)
            if known is None or order.index(f.effective) < order.index(known[0]):
                out[key] = (f.effective, f.message)
    return out


def summary(review: Review) -> dict[str, Any]:
    """An era's revision, verdict, each concern's verdict, the gate's (when the run chose one) and counts."""
    out = {"revision": review.revision, "verdict": review.verdict, "verdicts": review.verdicts()}
    gate = review.gate()
    return {**out, **({"gate": gate} if gate else {}), "counts": review.counts()}


def compare(legacy: Review, modern: Review) -> dict[str, Any]:
    """Both eras' summaries, and every rule whose verdict differs between them, then every subject of a rule whose
    status differs (`subject` None: the rule as a whole). A rule or subject only one era has is `not run` in the
    other."""
    old, new = _verdicts(legacy), _verdicts(modern)
    differ = []
    keys = sorted(set(old) | set(new), key=lambda k: (k[1] is not None, k[0], k[1] or ""))
    for rule, subject in keys:
        (a, why_a), (b, why_b) = old.get((rule, subject), NOT_RUN), new.get((rule, subject), NOT_RUN)
        if a != b:
            said = {"legacyMessage": why_a[:MESSAGE], "modernMessage": why_b[:MESSAGE]}
            differ.append({"rule": rule, "subject": subject, "legacy": a, "modern": b, **said})
    return {"shown": SHOWN, "legacy": summary(legacy), "modern": summary(modern), "differ": differ}


def unserved(review: Review, era: str, why: str) -> dict[str, Any]:
    """`review` was made under one era; the other could not be reviewed (a server that serves one era only)."""
    other = next(e for e in ERAS if e != era)
    return {"shown": other, other: summary(review), era: {"unserved": why[:MESSAGE]}, "differ": []}
