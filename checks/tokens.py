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
from inspector.calls import CallRecord, annotations
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

    What it checks: static: list-style tools (a list/search/find/query/browse word in the name, or any tool with an
    `action` parameter) must take `limit` and `cursor`. call: the tool is called with arguments generated from its
    schema and `limit: 1000`; it must not reject it (clamp, do not reject) and must answer `{items, next_cursor,
    total}` with at most 100 items. n/a: no list-style tools.

    Why: seed 000 §1 Pagination: agents have small context windows; an unpaginated list floods them, and rejecting
    an out-of-range limit costs a turn where clamping costs nothing.

    Known false positives: "list-style" is a name heuristic: a tool named `find_replace` or `query_sql` that returns
    no list fails for taking no limit/cursor, and so does every domain tool with `action`, whatever its actions. The
    call judges whatever the generated arguments produce: a call refused for another reason (a made-up id, an
    `action` whose first enum value is not a list action) fails as "limit 1000 was rejected" or "not {items,
    next_cursor, total}", and so does a call that timed out. The pack is for seed 000's one-tool-per-domain servers
    only.

    Passes: limit and cursor taken, limit 1000 clamped to at most 100 items in the canonical shape. Fails: a
    list-style tool without limit or cursor, limit 1000 rejected, another result shape, more than 100 items.
    Blocking: the call part when calls are not allowed.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and not open-world),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """
    listy = [t for t in _tools(ctx) if _listy(t)]
    if not listy:
        yield ctx.na(None, "no list-style tools")
        return
    for tool in listy:
        props = properties(input_schema(tool))
        missing = [p for p in ("limit", "cursor") if p not in props]
        if missing:  # list-style by its name or an action parameter: suggestive, not proof that it lists
            yield ctx.warn(
                tool,
                f"looks list-style but takes no {' or '.join(missing)}: if it returns a list, seed 000 asks "
                "for limit and cursor",
            )
            continue
        record = await ctx.try_call(
            tool, {**valid_arguments(tool), "limit": 1000}, "clamping and the {items, next_cursor, total} shape"
        )
        if isinstance(record, Finding):
            yield record
            continue
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

    What it checks: static: every tool's input has a `fields` array property. call: the tool is called with
    arguments generated from its schema and `fields: ["id"]`; objects in the result (the result itself, or its
    `items`) must have no other keys than `id` (and `_meta`/underscore keys).

    Why: seed 000 §2 Field selection: all actions MUST accept `fields` so an agent fetches only the keys it needs.

    Known false positives: a call refused for another reason than `fields` (generated arguments a correct tool
    rejects) fails as "gave no JSON result", and so does a call that timed out, though `fields` may be honoured on a
    valid call. Every tool must take `fields`, including those whose result has nothing to project (seed 000: all
    actions). The pack is for seed 000's servers only.

    Passes: `fields: ["id"]` returned only id. Fails: no `fields` array, no JSON result, other keys returned.
    Blocking: the call part when calls are not allowed.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and not open-world),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """
    for tool in _tools(ctx):
        prop = properties(input_schema(tool)).get("fields")
        if not prop or prop.get("type") != "array":
            yield ctx.fail(tool, "takes no `fields` array")
            continue
        record = await ctx.try_call(tool, {**valid_arguments(tool), "fields": ["id"]}, "whether `fields` is honoured")
        if isinstance(record, Finding):
            yield record
            continue
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
def smart_truncation(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Strings over 2 KB come back as a truncation envelope with `full_action` and `full_params`.

    What it checks: call: each callable tool is called once with arguments from its schema (the shared sample call);
    every string in its JSON result (or its plain text, when it returns no JSON) over 2 KB (option truncation_bytes)
    fails, and every `{"_truncated": true}` envelope needs `full_action`, `full_params` and a preview of at most 500
    characters. Arrays are read up to 200 items.

    Why: seed 000 §3 Smart truncation: one multi-KB string poisons a small context window; the envelope keeps a
    preview and tells the agent how to fetch the whole value.

    Known false positives: a tool that returns plain text over 2 KB fails, including one whose whole purpose is that
    text (a file reader): seed 000 wants the envelope there too. A pass covers the one sample result only.

    Passes: no untruncated long strings and well-formed envelopes in the sample. Fails: a string over the limit, an
    envelope without full_action/full_params or with a long preview. Blocking: tools that may not be called.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and not open-world),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """

    def judge(tool: Item, record: CallRecord, data: Any) -> Finding:
        long = list(
            _long_strings(data if data is not None else result_text(record.result), ctx.options.truncation_bytes)
        )
        bad = [
            e
            for e in _envelopes(data)
            if not {"full_action", "full_params"} <= set(e) or len(str(e.get("preview", ""))) > 500
        ]
        if long:
            return ctx.fail(
                tool,
                f"strings over {ctx.options.truncation_bytes} bytes not truncated: {', '.join(long[:5])}",
                [record.seq],
            )
        if bad:
            return ctx.fail(
                tool, "a truncation envelope lacks full_action/full_params or has a long preview", [record.seq]
            )
        return ctx.passed(tool, "no untruncated long strings in the sample result", [record.seq])

    return ctx.samples("long-string truncation", judge)


@rule("tokens.output-budget", modes=("call",), source=f"{SEED} §4 Output budget guard")
def output_budget(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Responses over 8 KB carry `_overflow: true` and a valid `_overflow_action`.

    What it checks: call: each callable tool's sample result (the whole result object, serialized); over 8 KB
    (option output_budget_bytes) without `_overflow: true` in its JSON fails, and an `_overflow_action` must name a
    listed tool or an action of one (the part before its first dot is a tool name).

    Why: seed 000 §4 Output budget guard: a response over budget must be stripped to ids, names and status and say
    where the rest is, or it floods the agent's context.

    Known false positives: the size is the whole result object, so the text mirror of structuredContent and base64
    images count too. The action test only knows tool names, not the action catalog: a correct seed 000 server whose
    action names do not start with a tool name (tool `example`, action `item.get`, the seed's own example) fails as
    "names no listed tool or action".

    Passes: within budget, or marked with a valid action. Fails: over budget without `_overflow`, an
    `_overflow_action` that names no listed tool or action. Blocking: tools that may not be called.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and not open-world),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """
    names = {t.name for t in _tools(ctx)}

    def judge(tool: Item, record: CallRecord, data: Any) -> Finding:
        size = len(json.dumps(record.result or {}).encode())
        flagged = isinstance(data, dict) and data.get("_overflow") is True
        action = data.get("_overflow_action") if isinstance(data, dict) else None
        if size > ctx.options.output_budget_bytes and not flagged:
            return ctx.fail(
                tool, f"{size} bytes with no _overflow marker (budget {ctx.options.output_budget_bytes})", [record.seq]
            )
        if flagged and not (isinstance(action, str) and (action in names or action.split(".")[0] in names)):
            return ctx.fail(tool, f"_overflow_action {action!r} names no listed tool or action", [record.seq])
        return ctx.passed(tool, f"{size} bytes, within budget or marked", [record.seq])

    return ctx.samples("the output budget", judge)


@rule("tokens.tool-registration", modes=("static",), source=f"{SEED} §5 Tool registration")
def tool_registration(ctx: CheckContext) -> Iterator[Finding]:
    """One tool per domain, the canonical `{action, params, fields, limit, cursor}` schema, the help catalog described.

    What it checks: static: tools are grouped by the first word of their name (the domain); each tool's input
    properties, whether `action` is required, and whether its description mentions actions.

    Why: seed 000 §5 Tool registration: one tool per domain with the canonical five-field schema keeps the tool list
    small, and the embedded help catalog lets agents see every action without a separate call.

    Known false positives: the domain is the name's first word, so unrelated tools that share it (`get_user`,
    `get_invoice`) count as one domain split over tools and fail. The catalog test is the word "action" anywhere in
    the description. A server not built on seed 000's one-tool-per-domain model fails every tool (seed 001
    prescribes the opposite): select this pack only for such servers.

    Passes: one domain tool, canonical schema (the five fields, or a subset with `action`), `action` required,
    catalog described. Fails: several tools of one domain (`example_list`, `example_get`), a schema that is not the
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

    What it checks: call (only with the reviewer's consent, `--calls all`): each tool annotated destructiveHint:
    true (and not read-only) is called with arguments generated from its schema; the server must send an elicitation
    request (mcp-review declares elicitation and declines it) before any result. n/a: no tool is annotated
    destructive.

    Why: seed 000 §5: a destructive action triggers an elicited confirmation before executing, so nothing is
    destroyed on the model's word alone.

    Known false positives: a tool that refuses the generated arguments before reaching its confirmation step (an id
    that does not exist), or a call that timed out, fails as "completed without asking", though a real request might
    have been confirmed. A server that confirms another way (a `confirm` parameter, a two-step token) fails by seed
    000's choice of elicitation. Only annotated tools are called: an unannotated destructive tool is not found here
    (see review.annotations-set).

    Passes: asked for confirmation through elicitation. Fails: the tool completed without asking. Blocking: no
    consent to call destructive tools.

    To verify when blocking: `--calls all` (the reviewer's consent to call destructive tools: the call really runs
    if the server does not ask), and the tool in calls.allow when an allow-list is set.
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
        before = len(ctx.wire.entries)
        record = await ctx.try_call(tool, valid_arguments(tool), "whether it asks for confirmation")
        if isinstance(record, Finding):
            yield record
            continue
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

    What it checks: the reviewed target itself must not be legacy HTTP+SSE; for a Streamable HTTP server,
    `GET {origin}/sse` must not open an SSE stream with an `endpoint` event.
    Why: seed 000 §6 Transport: SSE is deprecated in the MCP spec; the seed's servers ship stdio and
    Streamable HTTP only.
    Known false positives: a GET that sends no headers within the probe timeout only warns (suggestive of a
    stream, not proof). Only `/sse` at the origin's root is tried: SSE served elsewhere is not found.
    Passes: stdio, or no SSE stream at /sse. Fails: reviewed over HTTP+SSE, or /sse answers 200
    text/event-stream. Warns: /sse sent no answer in time.
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
def request_id(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Success envelopes carry `_meta.request_id`.

    What it checks: call: each callable tool's sample result (JSON in structuredContent or the text block) must have
    a non-empty `_meta.request_id`.

    Why: seed 000 §7: respond() stamps `_meta.request_id` into every success value so a failure report can be traced
    to the server's logs; a wrapper that strips it loses that.

    Known false positives: a sample call that timed out is not read as failed and fails as an envelope without
    request_id. The id is looked for inside the JSON payload (seed 000's envelope), not in the MCP result's own
    `_meta`: an id placed there fails. A failed sample call only warns.

    Passes: `_meta.request_id` present. Fails: a success without it. Warns: the sample call failed (no success
    envelope to read). Blocking: tools that may not be called.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and not open-world),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """

    def judge(tool: Item, record: CallRecord, data: Any) -> Finding:
        meta = data.get("_meta") if isinstance(data, dict) else None
        if rejected(record):
            return ctx.warn(
                tool, f"the sample call failed ({record.outcome}): no success envelope to read", [record.seq]
            )
        if isinstance(meta, dict) and meta.get("request_id"):
            return ctx.passed(tool, "success envelope has _meta.request_id", [record.seq])
        return ctx.fail(tool, "success envelope without _meta.request_id", [record.seq])

    return ctx.samples("the request_id", judge)


@rule("tokens.panic-isolation", modes=("manual",), source=f"{SEED} §8 stdio panic isolation")
def panic_isolation(ctx: CheckContext) -> Iterator[Finding]:
    """A failing handler returns a generic internal error, never a crash or leaked panic text.

    What it checks: manual: each tool dispatch is wrapped (catch_unwind in the seed's Rust server) and the error
    says only "tool handler panicked". Only the source shows it: mcp-review cannot make a handler panic; a reviewer
    attests.

    Why: seed 000 §8 stdio panic isolation: on stdio a panic kills the process and the session with it; panic text
    leaked into an error exposes internals.

    Known false positives: none: the rule never fails by itself; only a reviewer's attestation decides.

    Passes: attested. Fails: a reviewer attests an unwrapped dispatch. Blocking: until attested.

    To verify when blocking: an [[attest]] entry for tokens.panic-isolation in mcp-review.toml (or the TUI), by a
    reviewer who read the dispatch code.
    """
    yield from ctx.manual("every tool dispatch is wrapped so a panic becomes a generic internal error.")


@rule("tokens.description-template", modes=("static",), source=f"{SEED} §9 Tool description: 4-element template")
def description_template(ctx: CheckContext) -> Iterator[Finding]:
    """Descriptions have a purpose sentence, "When to use", "Parameters" and "Limitations".

    What it checks: static: each tool description must be non-empty (the purpose) and contain "When to use",
    "Parameters:" and "Limitations:" (case-insensitive, singular allowed).

    Why: seed 000 §9: the four-element template (purpose, when to use, parameters, limitations) answers what agents
    most often get wrong about a tool (arXiv 2602.14878: 97.1% of MCP tools have description deficiencies).

    Known false positives: the headings are matched literally: a description that covers the same ground in other
    words ("Use this to ...", "Caveats:") fails, since the seed asks for its template. The purpose is only tested
    for being non-empty. The pack is for seed 000's servers only.

    Passes: all four elements. Fails: any of the four elements missing (listed).
    """
    for tool in _tools(ctx):
        text = tool.description or ""
        missing = ([] if text.strip() else ["purpose"]) + [n for n, pattern in TEMPLATE if not pattern.search(text)]
        yield ctx.fail(tool, f"missing: {', '.join(missing)}") if missing else ctx.passed(tool, "all four elements")
