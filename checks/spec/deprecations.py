"""Pack `spec`: what a server uses that MCP 2026-07-28 deprecates, recorded as notes (never judged)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from mcp_review.checks.spec.common import SEED
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

REMOVAL = "2027-07-28"  # deprecated features stay at least 12 months: the first revision on or after this date
SOURCE = f"{SEED} Protocol layer: version negotiation"  # the seed judges by revision; this is 2026-07-28's
ANNOUNCING = ("deprecation", "sunset")  # RFC 9745 and RFC 8594 response headers
HEADERS_SHOWN = 4  # distinct announcements noted; a hostile server may send a new value on every answer


def _said(feature: str, how: str) -> str:
    return f"{feature} ({how}) is deprecated in MCP 2026-07-28; removal comes no earlier than {REMOVAL}"


def _requests(ctx: CheckContext) -> Iterator[tuple[str, Any, int]]:
    """(method, params, seq) of every request the server made of the client: JSON-RPC requests it sent, and the
    `inputRequests` of a 2026-07-28 `input_required` result (MRTR)."""
    for entry in ctx.wire.messages("recv"):
        message = entry.message
        if not isinstance(message, dict):
            continue
        if entry.method and "id" in message:
            yield entry.method, message.get("params"), entry.seq
        result = message.get("result")
        asked = result.get("inputRequests") if isinstance(result, dict) else None
        for request in asked.values() if isinstance(asked, dict) else ():
            if isinstance(request, dict) and isinstance(request.get("method"), str):
                yield request["method"], request.get("params"), entry.seq


def _announced(ctx: CheckContext) -> Iterator[tuple[str, str, int]]:
    """(header, value, seq) of each `Deprecation` or `Sunset` header the server answered with, once per value."""
    seen: set[tuple[str, str]] = set()
    for entry in ctx.wire.entries:
        headers = (entry.http or {}).get("response_headers") or {}
        for name, value in headers.items():
            key = (name.lower(), str(value))
            if key[0] in ANNOUNCING and key not in seen:
                seen.add(key)
                yield name, str(value), entry.seq


@rule("spec.deprecated-features", concern="protocol", severity="low", modes=("static", "observe"), source=SOURCE)
def deprecated_features(ctx: CheckContext) -> Iterator[Finding]:
    """What the server uses that MCP 2026-07-28 deprecates is recorded, with the earliest removal date (2027-07-28).

    What it checks: static and observe (the whole wire log, after every other rule): `capabilities.logging`
    declared, and `notifications/message` sent (Logging); `roots/list` asked of the client (Roots);
    `sampling/createMessage` asked (Sampling), and with `includeContext` `thisServer` or `allServers`; each as a
    JSON-RPC request or as an `inputRequests` entry of an `input_required` result (MRTR); a review over the legacy
    HTTP+SSE transport; and each distinct `Deprecation` (RFC 9745) or `Sunset` (RFC 8594) response header, quoted
    (the first 4). Each is a `note`, never a fail: the features stay at least 12 months, until the first revision
    on or after 2027-07-28.

    Spec: 2026-07-28 (deprecated.mdx; SEP-2577 for roots, sampling and logging)

    Why: a server that depends on what the next revisions may remove should know it before its clients do; a note
    keeps it in every export without changing the verdict.

    Dynamic client registration: an authorization server whose metadata (as review.resource-server-metadata
    fetched it, same origin only) offers a `registration_endpoint`.

    Known false positives: none for what is recorded (each is on the wire). Not seen: dynamic client registration
    when pack review did not run or the authorization server is on another origin (never contacted), and a
    feature the server uses only on a path this review did not take (a tool not called). An authorization server
    that offers registration beside Client ID Metadata Documents is noted too: clients may still register.

    Passes: nothing deprecated seen. Notes: each deprecated feature in use.
    """
    hello = ctx.snapshot.hello_seq
    found: list[Finding] = []
    if "logging" in ctx.snapshot.capabilities:
        found.append(ctx.note("logging", _said("Logging", "capabilities.logging declared"), [hello]))
    logs = [e.seq for e in ctx.wire.messages("recv") if e.method == "notifications/message"]
    if logs and not found:
        found.append(ctx.note("logging", _said("Logging", f"{len(logs)} notifications/message sent"), logs[:3]))
    asked: dict[str, list[int]] = {}
    for method, params, seq in _requests(ctx):
        asked.setdefault(method, []).append(seq)
        context = params.get("includeContext") if isinstance(params, dict) else None
        if method == "sampling/createMessage" and context in ("thisServer", "allServers"):
            asked.setdefault(f"includeContext {context}", []).append(seq)
    features = {"roots/list": "Roots", "sampling/createMessage": "Sampling"}
    for method, seqs in asked.items():
        if method in features:
            name = features[method]
            found.append(ctx.note(name.lower(), _said(name, f"{method} asked of the client"), seqs[:3]))
        elif method.startswith("includeContext"):
            found.append(ctx.note("includeContext", _said("includeContext", f"{method} in a request"), seqs[:3]))
    if ctx.target.kind == "sse":
        found.append(ctx.note("http+sse", _said("The HTTP+SSE transport", "this review speaks it"), [hello]))
    for issuer, (metadata, seqs) in ctx.authorization_servers.items():
        if isinstance(metadata.get("registration_endpoint"), str):
            how = f"{issuer[:200]} offers a registration_endpoint"
            found.append(ctx.note("dynamic client registration", _said("Dynamic client registration", how), seqs))
    for name, value, seq in itertools.islice(_announced(ctx), HEADERS_SHOWN):
        said = f"the server announces {name}: {value[:120]!r} (RFC 9745/8594): a removal it plans"
        found.append(ctx.note(name.lower(), said, [seq]))
    yield from found or [ctx.passed(None, "nothing deprecated in MCP 2026-07-28 was seen on the wire")]
