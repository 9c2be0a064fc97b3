"""Every definition a server gave for each tool name during one review, on any connection.

A server can list one name twice: read-only and closed-world on page 1, destructive and open-world on page 2,
or in a later listing only. Consent (`calls.consent_reason`) follows the most dangerous of them, so the index
keeps, per name, each distinct set of the annotations consent reads and the wire entry that first carried it.
It is fed by the wire log (`WireLog`), which sees every `tools/list` response of the review: every page, every
re-listing, probe connections too. It only ever grows, so a definition seen can only ask for more consent.
"""

from __future__ import annotations

from typing import Any

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
Hints = tuple[bool | None, ...]  # each hint of HINTS as sent (None: absent or not a boolean)


def hints_of(tool: Any) -> Hints:
    ann = tool.get("annotations") if isinstance(tool, dict) else None
    ann = ann if isinstance(ann, dict) else {}
    return tuple(ann[h] if isinstance(ann.get(h), bool) else None for h in HINTS)


class Definitions:
    """Tool name -> {the hints of one definition: the wire entry that first carried it} (at most 3^4 per name)."""

    def __init__(self) -> None:
        self._by_name: dict[str, dict[Hints, int]] = {}

    def see(self, result: Any, seq: int) -> None:
        """Record the tools of one `tools/list` result that came in wire entry `seq`."""
        tools = result.get("tools") if isinstance(result, dict) else None
        for tool in tools if isinstance(tools, list) else ():
            name = tool.get("name") if isinstance(tool, dict) else None
            if isinstance(name, str):
                self._by_name.setdefault(name, {}).setdefault(hints_of(tool), seq)

    def of(self, name: str) -> list[tuple[dict[str, bool], int]]:
        """Each distinct definition of `name` seen, as its annotations (only those sent) and its wire entry."""
        return [
            ({h: v for h, v in zip(HINTS, hints, strict=True) if v is not None}, seq)
            for hints, seq in self._by_name.get(name, {}).items()
        ]
