"""Pack `tokens`, seed 000 §1 Pagination and §2 Field selection: list-style tools page, and every tool projects."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

from mcp_review.catalog import Item
from mcp_review.checks.tokens.common import SEED, named_tools
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.rules.proof import outcome, refused
from mcp_review.rules.util import input_schema, properties, result_json, words

LISTY = re.compile(r"^(list|search|find|query|browse)$")


def _listy(tool: Item) -> bool:
    props = properties(input_schema(tool))
    return "action" in props or any(LISTY.match(w) for w in words(tool.name or ""))


@rule(
    "tokens.pagination", concern="conventions", severity="low", modes=("static", "call"), source=f"{SEED} §1 Pagination"
)
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

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and openWorldHint: false),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """
    listy = [t for t in named_tools(ctx) if _listy(t)]
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
            tool, {**ctx.arguments(tool), "limit": 1000}, "clamping and the {items, next_cursor, total} shape"
        )
        if isinstance(record, Finding):
            yield record
            continue
        data = result_json(record.result)
        if blocked := await ctx.not_the_point(tool, record, "whether limit 1000 is clamped"):
            yield blocked
        elif refused(record):
            yield ctx.fail(
                tool,
                f"limit 1000 was rejected ({outcome(record).quote()}): out-of-range limits are clamped",
                [record.seq],
            )
        elif not (isinstance(data, dict) and {"items", "next_cursor", "total"} <= set(data)):
            yield ctx.fail(tool, "the result is not {items, next_cursor, total}", [record.seq])
        elif not isinstance(data["items"], list) or len(data["items"]) > 100:
            yield ctx.fail(tool, "limit 1000 was not clamped to 100 items", [record.seq])
        else:
            yield ctx.passed(
                tool, f"limit and cursor accepted; {len(data['items'])} items for limit 1000", [record.seq]
            )


@rule(
    "tokens.field-selection",
    concern="conventions",
    severity="low",
    modes=("static", "call"),
    source=f"{SEED} §2 Field selection",
)
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

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and openWorldHint: false),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """
    for tool in named_tools(ctx):
        prop = properties(input_schema(tool)).get("fields")
        if not prop or prop.get("type") != "array":
            yield ctx.fail(tool, "takes no `fields` array")
            continue
        record = await ctx.try_call(tool, {**ctx.arguments(tool), "fields": ["id"]}, "whether `fields` is honoured")
        if isinstance(record, Finding):
            yield record
            continue
        data = result_json(record.result)
        items = data.get("items") if isinstance(data, dict) else None
        rows = items if isinstance(items, list) else [data]
        extra = sorted({k for row in rows if isinstance(row, dict) for k in row if k != "id" and not k.startswith("_")})
        if blocked := await ctx.not_the_point(tool, record, "whether `fields` is honoured"):
            yield blocked
        elif refused(record) or not isinstance(data, dict | list):
            yield ctx.fail(tool, f"fields: ['id'] gave no JSON result ({record.outcome})", [record.seq])
        elif extra:
            yield ctx.fail(tool, f"fields: ['id'] still returned {', '.join(extra[:6])}", [record.seq])
        else:
            yield ctx.passed(tool, "fields: ['id'] returned only id", [record.seq])
