"""The JSON review: a documented, stable shape (see README: "The JSON review").

{"tool": {"name", "version"}, "server": {...}, "target": {...}, "revision", "era", "transport", "packs",
 "verdict", "verdicts": {concern: verdict}, "failOn"?, "gate"?, "counts", "findings": [{"rule", "pack", "status",
 "subject", "subjectKind", "message", "source", "mode", "evidence": [wire seq, ...], "concern", "severity",
 "known"?: {"behaviour", "sdk"}, "lapsed"?}], "waivers", "attestations" (each with its binding: "digest",
 "version", "parts", "bound", "state"), "coverage", "tools", "tokens", "notes",
 "remarks": [{"by", "text", "rule", "subject", "at"}], "exchanges": {"seq": wire entry}, "created",
 "eras"?: {"shown", "legacy", "modern", "differ": [...]}}  (`--era both`: README, The JSON review),
 "verdictWithClaims"?: the verdict with the repository's decisions that were not applied (`decisions.added`),
 "knownBehaviours"?: [{"behaviour", "rule", "concern", "sdk", "sdkName", "since", "spec", "fix", "waive", "fails",
 "waived", "subjects"}], "subjects"?, "ruleVersions"?, "decisionCounts"?
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from mcp_review import claims, known
from mcp_review.output import inert_json
from mcp_review.review import Review

BLOCK = 1 << 16  # characters handed to the sink at once


class _Lazy(list):  # type: ignore[type-arg]
    """A list the JSON encoder walks while its items are made one at a time: a review of 10,000 tools
    has 100,000 findings, and holding each as a dict beside the whole text would triple the memory."""

    def __init__(self, count: int, make: Callable[[int], Any]) -> None:
        super().__init__()
        self._count = count
        self._make = make

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Any]:
        return (self._make(i) for i in range(self._count))


def chunks(review: Review) -> Iterator[str]:
    """The JSON review as blocks of text, the same bytes as `render`, never held whole.

    Blocks end between the encoder's own pieces, so a string (and any secret in it) is never split: each
    block can be masked on its own by the sink.
    """
    findings = review.findings
    doc = review.to_json(findings=_Lazy(len(findings), lambda i: findings[i].to_json()))
    if claims.of(review):  # the repository's decisions not applied: the verdict they would make (mcp_review.claims)
        doc["verdictWithClaims"] = claims.verdict_with(review)
    if found := known.listed(review):  # the fails an SDK's default explains, each behaviour once (mcp_review.known)
        doc["knownBehaviours"] = found
    pending: list[str] = []
    size = 0
    # indent=2 uses the pure-Python encoder anyway (CPython's C encoder only serves indent=None).
    for piece in json.JSONEncoder(indent=2, ensure_ascii=False, allow_nan=False).iterencode(doc):
        pending.append(piece)
        size += len(piece)
        if size >= BLOCK:
            yield inert_json("".join(pending))
            pending, size = [], 0
    pending.append("\n")
    yield inert_json("".join(pending))


def render(review: Review) -> str:
    return "".join(chunks(review))
