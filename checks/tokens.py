"""Pack `tokens`: the token-consciousness checklist for one-tool-per-domain servers (seed 000_71e9b31231f74ece.txt).

Its model: one MCP tool per domain with the canonical `{action, params, fields, limit, cursor}` input,
every handler ending in a central `respond()` that paginates, filters fields, truncates long strings,
guards an 8 KB output budget and stamps `_meta.request_id`. Rules that read results call the tools
(only as the calling policy allows).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

from checks.context import CheckContext
from checks.core import rule
from checks.util import (
    input_schema,
    properties,
    rejected,
    required,
    result_json,
    result_text,
    valid_arguments,
    words,
)
from inspector.calls import annotations
from inspector.catalog import Item
from inspector.review import Finding

SEED = "000"
LISTY = re.compile(r"^(list|search|find|query|browse)$")
CANONICAL_KEYS = {"action", "params", "fields", "limit", "cursor"}
TEMPLATE = (
    ("when to use", re.compile(r"when to use", re.I)),
    ("parameters", re.compile(r"parameters?:", re.I)),
    ("limitations", re.compile(r"limitations?:", re.I)),
)


def _tools(ctx: CheckContext) -> list[Item]:
    return [t for t in ctx.snapshot.tools if t.name]


def _listy(tool: Item) -> bool:
    props = properties(input_schema(tool))
    return "action" in props or any(LISTY.match(w) for w in words(tool.name or ""))


@rule("tokens.pagination", modes=("static", "call"), source=f"{SEED} §1 Pagination")
async def pagination(ctx: CheckContext) -> AsyncIterator[Finding]:
    """List-style actions take `limit` and `cursor`, clamp out-of-range limits, return `{items, next_cursor, total}`.

    How: static: list-style tools (a list/search/find verb in the name, or a domain tool with `action`)
    must take `limit` and `cursor`. call: the tool is called with `limit: 1000`; it must not reject it
    (clamp, do not reject) and must answer `{items, next_cursor, total}` with at most 100 items.
    Blocking: the call part when calls are not allowed. n/a: no list-style tools.
    """
    listy = [t for t in _tools(ctx) if _listy(t)]
    if not listy:
        yield ctx.na(None, "no list-style tools")
        return
    for tool in listy:
        props = properties(input_schema(tool))
        missing = [p for p in ("limit", "cursor") if p not in props]
        if missing:
            yield ctx.fail(tool, f"list-style but takes no {' or '.join(missing)}")
            continue
        if ctx.may_call(tool) is not None:
            yield ctx.blocking_call(tool, "clamping and the {items, next_cursor, total} shape")
            continue
        record = await ctx.call(tool, {**valid_arguments(tool), "limit": 1000})
        assert record is not None
        data = result_json(record.result)
        if rejected(record):
            yield ctx.fail(
                tool, f"limit 1000 was rejected ({record.outcome}): out-of-range limits are clamped", [record.seq]
            )
        elif not (isinstance(data, dict) and {"items", "next_cursor", "total"} <= set(data)):
            yield ctx.fail(tool, "the result is not {items, next_cursor, total}", [record.seq])
        elif not isinstance(data["items"], list) or len(data["items"]) > 100:
            yield ctx.fail(tool, "limit 1000 was not clamped to 100 items", [record.seq])
        else:
            yield ctx.passed(
                tool, f"limit and cursor accepted; {len(data['items'])} items for limit 1000", [record.seq]
            )


@rule("tokens.field-selection", modes=("static", "call"), source=f"{SEED} §2 Field selection")
async def field_selection(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Every action accepts `fields` and honours it.

    How: static: every tool's input has a `fields` array property. call: the tool is called with
    `fields: ["id"]`; objects in the result (the result itself, or its `items`) must have no other keys
    than `id` (and `_meta`/underscore keys). Blocking: the call part when calls are not allowed.
    """
    for tool in _tools(ctx):
        prop = properties(input_schema(tool)).get("fields")
        if not prop or prop.get("type") != "array":
            yield ctx.fail(tool, "takes no `fields` array")
            continue
        if ctx.may_call(tool) is not None:
            yield ctx.blocking_call(tool, "whether `fields` is honoured")
            continue
        record = await ctx.call(tool, {**valid_arguments(tool), "fields": ["id"]})
        assert record is not None
        data = result_json(record.result)
        rows = data.get("items") if isinstance(data, dict) and isinstance(data.get("items"), list) else [data]
        extra = sorted({k for row in rows if isinstance(row, dict) for k in row if k != "id" and not k.startswith("_")})
        if rejected(record) or not isinstance(data, dict | list):
            yield ctx.fail(tool, f"fields: ['id'] gave no JSON result ({record.outcome})", [record.seq])
        elif extra:
            yield ctx.fail(tool, f"fields: ['id'] still returned {', '.join(extra[:6])}", [record.seq])
        else:
            yield ctx.passed(tool, "fields: ['id'] returned only id", [record.seq])


def _long_strings(value: Any, limit: int, path: str = "") -> Iterator[str]:
    if isinstance(value, str) and len(value.encode()) > limit:
        yield path or "(root)"
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _long_strings(v, limit, f"{path}.{k}" if path else k)
    elif isinstance(value, list):
        for i, v in enumerate(value[:200]):
            yield from _long_strings(v, limit, f"{path}[{i}]")


def _envelopes(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        if value.get("_truncated") is True:
            yield value
        for v in value.values():
            yield from _envelopes(v)
    elif isinstance(value, list):
        for v in value[:200]:
            yield from _envelopes(v)


@rule("tokens.smart-truncation", modes=("call",), source=f"{SEED} §3 Smart truncation")
async def smart_truncation(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Strings over 2 KB come back as a truncation envelope with `full_action` and `full_params`.

    How: each callable tool is called once with arguments from its schema; every string in its JSON
    result (or its plain text, when it returns no JSON) over 2 KB fails, and every `{"_truncated": true}`
    envelope needs `full_action`, `full_params` and a preview of at most 500 characters.
    Blocking: tools that may not be called.
    """
    async for tool, record, blocked in ctx.samples("long-string truncation"):
        if blocked:
            yield blocked
            continue
        data = result_json(record.result)
        long = list(
            _long_strings(data if data is not None else result_text(record.result), ctx.options.truncation_bytes)
        )
        bad = [
            e
            for e in _envelopes(data)
            if not {"full_action", "full_params"} <= set(e) or len(str(e.get("preview", ""))) > 500
        ]
        if long:
            yield ctx.fail(
                tool,
                f"strings over {ctx.options.truncation_bytes} bytes not truncated: {', '.join(long[:5])}",
                [record.seq],
            )
        elif bad:
            yield ctx.fail(
                tool, "a truncation envelope lacks full_action/full_params or has a long preview", [record.seq]
            )
        else:
            yield ctx.passed(tool, "no untruncated long strings in the sample result", [record.seq])


@rule("tokens.output-budget", modes=("call",), source=f"{SEED} §4 Output budget guard")
async def output_budget(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Responses over 8 KB carry `_overflow: true` and a valid `_overflow_action`.

    How: each callable tool's sample result; over 8 KB of content without `_overflow` fails, and an
    `_overflow_action` must name a listed tool or an action of one. Blocking: tools that may not be called.
    """
    names = {t.name for t in _tools(ctx)}
    async for tool, record, blocked in ctx.samples("the output budget"):
        if blocked:
            yield blocked
            continue
        size = len(json.dumps(record.result or {}).encode())
        data = result_json(record.result)
        flagged = isinstance(data, dict) and data.get("_overflow") is True
        action = data.get("_overflow_action") if isinstance(data, dict) else None
        if size > ctx.options.output_budget_bytes and not flagged:
            yield ctx.fail(
                tool, f"{size} bytes with no _overflow marker (budget {ctx.options.output_budget_bytes})", [record.seq]
            )
        elif flagged and not (isinstance(action, str) and (action in names or action.split(".")[0] in names)):
            yield ctx.fail(tool, f"_overflow_action {action!r} names no listed tool or action", [record.seq])
        else:
            yield ctx.passed(tool, f"{size} bytes, within budget or marked", [record.seq])


@rule("tokens.tool-registration", modes=("static",), source=f"{SEED} §5 Tool registration")
def tool_registration(ctx: CheckContext) -> Iterator[Finding]:
    """One tool per domain, the canonical `{action, params, fields, limit, cursor}` schema, the help catalog described.

    Fails: several tools of one domain (`example_list`, `example_get`), a schema that is not the
    canonical five fields with `action` required, a description without the action catalog.
    """
    domains: dict[str, list[str]] = {}
    for tool in _tools(ctx):
        domains.setdefault(words(tool.name or "")[0], []).append(tool.name or "")
    for tool in _tools(ctx):
        schema = input_schema(tool) or {}
        problems = []
        siblings = domains[words(tool.name or "")[0]]
        if len(siblings) > 1:
            problems.append(f"domain shared by {len(siblings)} tools ({', '.join(siblings[:4])})")
        keys = set(properties(schema))
        if keys != CANONICAL_KEYS and not (keys <= CANONICAL_KEYS and "action" in keys):
            problems.append(f"schema fields {sorted(keys)} are not the canonical {sorted(CANONICAL_KEYS)}")
        elif "action" not in required(schema):
            problems.append("`action` is not required")
        if "action" not in (tool.description or "").lower():
            problems.append("the description embeds no action catalog (help output)")
        yield ctx.fail(tool, "; ".join(problems)) if problems else ctx.passed(tool, "one domain tool, canonical schema")


@rule("tokens.destructive-elicitation", modes=("call", "manual"), source=f"{SEED} §5 Tool registration: destructive")
async def destructive_elicitation(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Destructive actions ask for confirmation through elicitation before acting.

    How: call (only with the reviewer's consent, `--calls all`): each tool annotated destructive is
    called; the server must send an elicitation request (mcp-review declines it) before any result.
    Fails: the tool completed without asking. Blocking: no consent to call destructive tools.
    n/a: no tool is annotated destructive.
    """
    destructive = [
        t
        for t in _tools(ctx)
        if annotations(t.raw).get("destructiveHint") is True and annotations(t.raw).get("readOnlyHint") is not True
    ]
    if not destructive:
        yield ctx.na(None, "no tool is annotated destructive")
        return
    for tool in destructive:
        if ctx.may_call(tool) is not None:
            yield ctx.blocking_call(tool, "whether it asks for confirmation")
            continue
        before = len(ctx.wire.entries)
        record = await ctx.call(tool, valid_arguments(tool))
        assert record is not None
        asked = [
            e.seq
            for e in ctx.wire.entries[before:]
            if e.method == "elicitation/create"
            or (e.direction == "recv" and "elicitation/create" in json.dumps(e.message)[:100000])
        ]
        if asked:
            yield ctx.passed(tool, "asked for confirmation through elicitation", asked[:1])
        else:
            yield ctx.fail(tool, f"completed ({record.outcome}) without asking for confirmation", [record.seq])


@rule("tokens.transport", modes=("probe",), source=f"{SEED} §6 Transport")
async def transport(ctx: CheckContext) -> AsyncIterator[Finding]:
    """No SSE transport is offered (stdio or Streamable HTTP only).

    How: the reviewed target itself must not be legacy HTTP+SSE; for a Streamable HTTP server,
    `GET {origin}/sse` must not open an SSE stream with an `endpoint` event.
    """
    if ctx.target.kind == "sse":
        yield ctx.fail(None, "the server is reviewed over the legacy HTTP+SSE transport")
        return
    if ctx.target.kind == "stdio":
        yield ctx.passed(None, "stdio")
        return
    from urllib.parse import urlsplit

    parts = urlsplit(ctx.target.url or "")
    url = f"{parts.scheme}://{parts.netloc}/sse"
    async with ctx.probe() as p:
        import asyncio

        try:
            ex = await asyncio.wait_for(
                p.http("GET", url, headers={"Accept": "text/event-stream"}, omit=["Content-Type"]),
                ctx.probe_timeout,
            )
        except TimeoutError:  # no headers at all: suggestive of a stream, not proof of one
            yield ctx.warn(
                None,
                f"GET {url} sent no answer within {ctx.probe_timeout:g}s: maybe an SSE stream that waits for "
                "events; a response with Content-Type text/event-stream would prove it",
            )
            return
    if ex.status == 200 and "text/event-stream" in (ex.header("content-type") or ""):
        yield ctx.fail(None, f"GET {url} serves an SSE stream", [ex.exchange])
    else:
        yield ctx.passed(None, f"Streamable HTTP only (GET {url} -> {ex.status})")


@rule("tokens.request-id", modes=("call",), source=f"{SEED} §7 request_id in success envelope")
async def request_id(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Success envelopes carry `_meta.request_id`.

    How: each callable tool's sample result (JSON in structuredContent or the text block) must have
    `_meta.request_id`. Blocking: tools that may not be called.
    """
    async for tool, record, blocked in ctx.samples("the request_id"):
        if blocked:
            yield blocked
            continue
        data = result_json(record.result)
        meta = data.get("_meta") if isinstance(data, dict) else None
        if rejected(record):
            yield ctx.warn(
                tool, f"the sample call failed ({record.outcome}): no success envelope to read", [record.seq]
            )
        elif isinstance(meta, dict) and meta.get("request_id"):
            yield ctx.passed(tool, "success envelope has _meta.request_id", [record.seq])
        else:
            yield ctx.fail(tool, "success envelope without _meta.request_id", [record.seq])


@rule("tokens.panic-isolation", modes=("manual",), source=f"{SEED} §8 stdio panic isolation")
def panic_isolation(ctx: CheckContext) -> Iterator[Finding]:
    """A failing handler returns a generic internal error, never a crash or leaked panic text.

    Each tool dispatch is wrapped (catch_unwind in the seed's Rust server) and the error says only
    "tool handler panicked". Only the source shows it: a reviewer attests.
    """
    yield from ctx.manual("every tool dispatch is wrapped so a panic becomes a generic internal error.")


@rule("tokens.description-template", modes=("static",), source=f"{SEED} §9 Tool description: 4-element template")
def description_template(ctx: CheckContext) -> Iterator[Finding]:
    """Descriptions have a purpose sentence, "When to use", "Parameters" and "Limitations".

    Fails: any of the four elements missing (listed).
    """
    for tool in _tools(ctx):
        text = tool.description or ""
        missing = ([] if text.strip() else ["purpose"]) + [n for n, pattern in TEMPLATE if not pattern.search(text)]
        yield ctx.fail(tool, f"missing: {', '.join(missing)}") if missing else ctx.passed(tool, "all four elements")
