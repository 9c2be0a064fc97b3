"""Known SDK behaviours: fails that follow from what an SDK does by default, said once per server (issue 39).

Most servers are built on an SDK, and an SDK's default decides some findings for every server built on it: on 37
real setups, 29 of 92 fails were one fact, "an unknown tool is answered with an `isError` result", the default of
the TypeScript SDK, FastMCP and mcp. Such a fail is true (the rule is right, the exchange proves it) and stays a
`fail` of its concern; what changes is how it is said: once per server, as that SDK's behaviour, with what the
spec says, how to fix it in that SDK and how to waive it for the whole review, so that it no longer reads as the
headline of every review of every server on that SDK.

`BEHAVIOURS` is the table. Each row names the rule whose fail it explains, the message that fail has when the
behaviour is all it found (a fail that says more is not this behaviour alone, and is left as it is), and the
markers that tell the SDK apart by what the server answered (the text of a cited answer: "MCP error -32602: Tool X
not found" is the TypeScript SDK's McpServer, "Unknown tool: X" the Python SDK's). A behaviour with no marker of its
own (a foreign Origin served with 200 shows no text) takes the SDK another row told apart on the same server. A new
row is a `Behaviour` here, with the real server it was seen on in `tests/thirdparty` and the evidence quoted.

`mark(review)` stamps each fail a row explains with `Known(behaviour, sdk)`; `listed(review)` gives one entry per
behaviour for the exports and the app; a waiver with `known = "<behaviour>"` covers every fail stamped with it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mcp_review.review import Finding, Known, Review


@dataclass(frozen=True)
class Sdk:
    id: str
    name: str
    within: str | None = None  # the broader SDK it is a version of: told apart on the same server, it is the one


@dataclass(frozen=True)
class Behaviour:
    id: str
    rule: str  # the rule whose fail it explains
    message: re.Pattern[str]  # that fail's whole message when the behaviour is all it found
    what: str  # the behaviour, in one sentence
    spec: str  # what the spec (and the seed the rule cites) says
    fix: str  # how a server on that SDK does it right
    markers: tuple[tuple[str, re.Pattern[str]], ...] = ()  # (SDK id, what its answer says), first match wins
    since: tuple[tuple[str, str], ...] = ()  # (SDK id, since which version, where known)


SDKS = {
    s.id: s
    for s in (
        Sdk("typescript", "the TypeScript SDK (@modelcontextprotocol/sdk)"),
        Sdk("python", "the Python SDK (mcp: FastMCP in 1.x, MCPServer in 2.x)"),
        Sdk("python-1", "the Python SDK 1.x (mcp)", within="python"),
        Sdk("fastmcp", "FastMCP 2+ (the fastmcp package)"),
    )
}

BEHAVIOURS = (
    Behaviour(
        "unknown-tool-as-result",
        "review.error-channel-correct",
        re.compile(r"unknown tool answered as a tool result with isError: true\b.*", re.DOTALL),
        "a call of a tool that does not exist is answered with an `isError: true` tool result, not a JSON-RPC error",
        "MCP lists an unknown tool under protocol errors (JSON-RPC -32602 in its example); seed 003: protocol "
        "failures (unknown tool, malformed arguments) MUST be JSON-RPC errors",
        "look the name up before the tool handler runs and raise the SDK's JSON-RPC error for an unknown one "
        "(TypeScript: McpError(ErrorCode.InvalidParams) outside the tool callback's catch)",
        (
            ("typescript", re.compile(r"MCP error -32602: Tool .{1,300} not found")),
            ("fastmcp", re.compile(r"Unknown tool: '")),
            ("python", re.compile(r"Unknown tool: [^'\s]")),
        ),
        (("typescript", "seen on 1.32.2"), ("python", "seen on 1.30.0 and 2.x"), ("fastmcp", "seen on 4.1.2")),
    ),
    Behaviour(
        "unknown-method-as-invalid-params",
        "spec.unknown-method",
        re.compile(r"unknown method -> -32602, not -32601"),
        "a request for a method that does not exist is answered -32602 (Invalid params), not -32601",
        "JSON-RPC 2.0: -32601 Method not found for a method that does not exist; -32602 is for invalid parameters",
        "upgrade to mcp 2.x, which answers -32601 (python-sdk#2836)",
        (("python-1", re.compile(r'"Invalid request parameters"')),),
        (
            (
                "python-1",
                "mcp 1.x: its session validates a request against the methods it knows before dispatch "
                "(python-sdk#1561, reported on 1.2.0); fixed in 2.0",
            ),
        ),
    ),
    Behaviour(
        "null-id-on-transport-error",
        "spec.wire-schema",
        re.compile(r"1 schema problem\(s\) against \S+: #\d+ JSONRPCErrorResponse id: None is not of type .*"),
        "an HTTP request the transport rejects (no session yet, a session it does not know) is answered with a "
        "JSON-RPC error whose `id` is null, though the request's id was readable",
        "MCP's schema types a response's id as a string or an integer; JSON-RPC 2.0 allows null only when the "
        "request's id could not be read",
        "answer the transport's rejections with the request's id, or with the HTTP status alone",
        (
            (
                "typescript",
                re.compile(r'"(?:Bad Request|Not Acceptable|Conflict|Unsupported Media Type|Session not found)\b'),
            ),
        ),
        (("typescript", "its Streamable HTTP transport's error responses (createJsonErrorResponse), seen on 1.32.2"),),
    ),
    Behaviour(
        "origin-not-validated",
        "spec.http-transport",
        re.compile(r"Origin \S{1,200} -> HTTP 200, not 403"),
        "a request with a foreign `Origin` header is served",
        "MCP (2025-06-18 on): a Streamable HTTP server MUST validate Origin (403 for a foreign one) against DNS "
        "rebinding",
        "turn the SDK's check on (TypeScript: enableDnsRebindingProtection with allowedOrigins and allowedHosts; "
        "mcp: TransportSecuritySettings) or check Origin in the web framework",
        (),
        (
            (
                "typescript",
                "its Streamable HTTP transport checks Origin only with enableDnsRebindingProtection, off by "
                "default (seen on 1.32.2)",
            ),
        ),
    ),
)
BY_ID = {b.id: b for b in BEHAVIOURS}
_BY_RULE = {b.rule: b for b in BEHAVIOURS}


def _answers(review: Review, f: Finding) -> Iterator[str]:
    for seq in f.evidence:
        entry = review.exchanges.get(seq)
        if entry is not None:
            payload = entry.get("message", entry.get("text"))
            yield payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)


def _told(behaviour: Behaviour, review: Review, f: Finding) -> str | None:
    """The SDK the finding's own evidence tells apart, if any."""
    for text in _answers(review, f):
        for sdk, marker in behaviour.markers:
            if marker.search(text):
                return sdk
    return None


def mark(review: Review) -> None:
    """Stamp every fail a row of the table explains (its whole message is the behaviour) with the behaviour and
    the SDK told apart by its answer, else by another behaviour's on the same server. In place; a fail stamped
    before is stamped again (a re-run's evidence may tell more)."""
    found: list[tuple[Finding, Behaviour, str | None]] = []
    for f in review.findings:
        behaviour = _BY_RULE.get(f.rule)
        if behaviour is not None and f.status == "fail" and behaviour.message.fullmatch(f.message):
            found.append((f, behaviour, _told(behaviour, review, f)))
    told = {sdk for _, _, sdk in found if sdk}
    narrower = {SDKS[s].within: s for s in told if SDKS[s].within in told}  # python and python-1: python-1
    server = next((narrower.get(sdk, sdk) for _, _, sdk in found if sdk), None)  # the SDK this server was told as
    for f, behaviour, sdk in found:
        f.known = Known(behaviour.id, narrower.get(sdk, sdk) if sdk else server)


def since(behaviour: Behaviour, sdk: str | None) -> str | None:
    """Since which version the SDK (or the broader one it is a version of) does this, where known."""
    known = dict(behaviour.since)
    return known.get(sdk or "") or known.get(SDKS[sdk].within or "" if sdk in SDKS else "")


def waiver(behaviour: Behaviour) -> str:
    """The mcp-review.toml entry that waives the behaviour for the whole review (every subject it was found on)."""
    return f'[[waive]]\nrule = "{behaviour.rule}"\nknown = "{behaviour.id}"\nreason = "…"\nby = "…"\n'


def listed(review: Review) -> list[dict[str, Any]]:
    """One entry per behaviour the review's fails follow from: the behaviour, the SDK, since when, what the spec
    says, the fix, how to waive it, and the fails (how many, on what, how many waived)."""
    out: dict[str, dict[str, Any]] = {}
    for f in review.findings:
        if f.known is None or f.known.behaviour not in BY_ID or f.status != "fail":
            continue
        behaviour = BY_ID[f.known.behaviour]
        entry = out.setdefault(
            behaviour.id,
            {
                "behaviour": behaviour.id,
                "rule": behaviour.rule,
                "concern": f.concern,
                "what": behaviour.what,
                "sdk": f.known.sdk,
                "sdkName": SDKS[f.known.sdk].name if f.known.sdk in SDKS else "an SDK this review could not tell",
                "since": since(behaviour, f.known.sdk),
                "spec": behaviour.spec,
                "fix": behaviour.fix,
                "waive": waiver(behaviour),
                "fails": 0,
                "waived": 0,
                "subjects": [],
            },
        )
        entry["fails"] += 1
        entry["waived"] += f.effective == "waived"
        entry["subjects"].append(f.subject)
    return list(out.values())
