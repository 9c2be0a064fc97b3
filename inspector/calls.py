"""Calling tools safely: the consent policy, and a record of every call made.

A tool may only be called without explicit consent when its annotations say it is read-only and closed-world
(`openWorldHint: false`: MCP's default for an absent hint is open-world) and not destructive. Annotations are the
server's claims, not proof, but a tool that does not even claim to be harmless is never called behind the
reviewer's back. A name the server defined more than once is judged by its most dangerous definition.
"""

from __future__ import annotations

import base64
import binascii
import json
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from mcp_review.connection.session import Session
from mcp_review.targets import Target
from mcp_review.untrusted import original_length

if TYPE_CHECKING:
    from mcp_review.catalog import Item
    from mcp_review.connection.wire import WireLog
    from mcp_review.tokens import Figure, TokenCounter

Consent = Literal["read-only", "reviewer"]

# Spec defaults (2025-03-26 on) for a tool that does not say.
HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


def tool_annotations(tool: Any) -> dict[str, Any]:
    ann = tool.get("annotations") if isinstance(tool, dict) else None
    return ann if isinstance(ann, dict) else {}


def effective_hints(tool: Any) -> dict[str, tuple[bool, bool]]:
    """Each hint's value after defaults, and whether the server set it explicitly."""
    ann = tool_annotations(tool)
    return {
        hint: (ann[hint], True) if isinstance(ann.get(hint), bool) else (default, False)
        for hint, default in HINT_DEFAULTS.items()
    }


def is_destructive(tool: Any) -> bool:
    """Destructive by its annotations read with the spec's defaults: not read-only, and not destructiveHint: false."""
    hints = effective_hints(tool)
    return not hints["readOnlyHint"][0] and hints["destructiveHint"][0]


def side_effect_reasons(tool: Any) -> list[str]:
    """Why calling this tool needs consent (every reason that applies); none when it claims to be read-only and
    closed-world."""
    ann = tool_annotations(tool)
    world = ann.get("openWorldHint")
    return [
        *(["it is not annotated readOnlyHint: true"] if ann.get("readOnlyHint") is not True else []),
        *(["it is annotated destructiveHint: true"] if ann.get("destructiveHint") is True else []),
        *(["it is annotated openWorldHint: true"] if world is True else []),
        # MCP's default for an absent openWorldHint is true: such a tool may reach hosts nobody named
        *(["it does not say openWorldHint: false (open-world is MCP's default)"] if world is None else []),
    ]


def consent_reason(tool: Item) -> str | None:
    """Why calling `tool` needs consent, read from every definition the server gave for its name in the review
    (`tool.definitions`: all pages, every re-listing): a second definition that asks for more is named, and
    consent follows the most dangerous. None when every definition claims read-only and closed-world."""
    reasons = side_effect_reasons(tool.raw)
    others: list[int] = []
    seen = tool.definitions.of(tool.name) if tool.definitions is not None and tool.name is not None else []
    for hints, seq in seen:
        more = [r for r in side_effect_reasons({"annotations": hints}) if r not in reasons]
        if more:
            reasons += more
            others.append(seq)
    if not reasons:
        return None
    if not others:
        return "; ".join(reasons)
    wires = ", ".join(f"#{seq}" for seq in others)
    return (
        f"{'; '.join(reasons)} (the server gave this name a second definition that asks for more, wire {wires}: "
        "consent follows the most dangerous definition of a name)"
    )


@dataclass
class CallRecord:
    """One tool call, as review coverage: what was sent, on whose authority, what came back."""

    tool: str
    arguments: Any
    consent: Consent
    purpose: str = "reviewer"  # who asked: the reviewer, or a rule id
    result: Any = None  # the raw result object
    error: dict[str, Any] | None = None  # a JSON-RPC error, as sent
    failure: str | None = None  # the connection failed or timed out
    latency_ms: float = 0.0
    seq: int | None = None  # wire entry of the reply
    at: float = field(default_factory=time.time)

    @property
    def is_error(self) -> bool:
        return bool(isinstance(self.result, dict) and self.result.get("isError") is True)

    @property
    def outcome(self) -> str:
        if self.failure:
            return f"failed: {self.failure}"
        if self.error is not None:
            return f"JSON-RPC error {self.error.get('code')}"
        return "isError: true" if self.is_error else "ok"

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "arguments": self.arguments,
            "consent": self.consent,
            "purpose": self.purpose,
            "outcome": self.outcome,
            "latencyMs": round(self.latency_ms, 1),
            "seq": self.seq,
        }


def reply_tokens(record: CallRecord, wire: WireLog | None, counter: TokenCounter) -> Figure | None:
    """The tokens of a call's reply as the Wire shows them on its row (`TokenCounter.count_sent` of the message
    and its bytes): extrapolated where mcp-review cut it. A reply not in the wire log is counted from its result
    as kept; a call that got none has no figure."""
    entry = wire.get(record.seq) if wire is not None and record.seq is not None else None
    if entry is not None and entry.message is not None:
        return counter.count_sent(entry.message, entry.size)
    kept = record.result if record.error is None else {"error": record.error}
    return None if kept is None else counter.count_sent(kept, 0)


def refused_call(tool: str, arguments: Any) -> dict[str, Any]:
    """Coverage of a call the reviewer was asked to consent to and refused: wanted, not made."""
    return {
        "tool": tool,
        "arguments": arguments,
        "consent": "refused",
        "purpose": "reviewer",
        "outcome": "not called",
        "latencyMs": 0,
        "seq": None,
    }


def call_command(call: dict[str, Any], target: Target) -> str:
    """A call kept in coverage as an `mcp-review call` command line, with no secret in it."""
    parts = ["mcp-review", "call", call["tool"], "--args", json.dumps(call["arguments"], ensure_ascii=False)]
    if call.get("consent") == "reviewer":
        parts.append("--yes")
    return " ".join(shlex.quote(p) for p in parts + target.cli_args())


async def call_tool(
    session: Session,
    name: str,
    arguments: Any,
    *,
    consent: Consent,
    purpose: str = "reviewer",
    timeout: float | None = None,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
) -> CallRecord:
    """Call one tool and record it. The caller has already applied the policy (see `consent_reason`)."""
    from mcp_review.connection.errors import ConnectionFailed

    record = CallRecord(name, arguments, consent, purpose)
    started = time.monotonic()
    try:
        reply = await session.complete(
            "tools/call", {"name": name, "arguments": arguments}, timeout=timeout, on_progress=on_progress
        )
    except ConnectionFailed as e:
        record.failure = str(e)
    else:
        record.seq = reply.seq
        if reply.error is not None:
            record.error = reply.error if isinstance(reply.error, dict) else {"message": repr(reply.error)}
        else:
            record.result = reply.result
    record.latency_ms = (time.monotonic() - started) * 1000
    return record


def _b64_size(data: Any) -> str:
    if not isinstance(data, str):
        return "no data"
    length = original_length(data)
    if length != len(data):  # cut at the wire boundary: its size is all that is left of it
        return f"about {length * 3 // 4:,} bytes (base64 of {length:,} characters; not kept whole)"
    try:
        return f"{len(base64.b64decode(data, validate=True))} bytes"
    except (binascii.Error, ValueError):
        return f"invalid base64, {len(data)} characters"


def describe_block(block: Any) -> tuple[str, str | None]:
    """(heading, text) for one content block; binary content is described by type and size only."""
    if not isinstance(block, dict):
        return ("invalid block", json.dumps(block)[:200])
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return ("text", text if isinstance(text, str) else repr(text))
    if kind in ("image", "audio"):
        return (f"{kind} {block.get('mimeType', '?')}, {_b64_size(block.get('data'))}", None)
    if kind == "resource_link":
        return (f"resource link {block.get('uri')} ({block.get('name', '')})", block.get("description"))
    if kind == "resource":
        res = block.get("resource")
        res = res if isinstance(res, dict) else {}
        if "blob" in res:
            return (
                f"embedded resource {res.get('uri')} {res.get('mimeType', '')}, {_b64_size(res['blob'])}",
                None,
            )
        return (f"embedded resource {res.get('uri')} {res.get('mimeType', '')}", str(res.get("text", "")))
    return (f"{kind} block", json.dumps(block, ensure_ascii=False)[:2000])
