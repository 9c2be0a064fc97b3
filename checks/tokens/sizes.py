"""Pack `tokens`, seed 000 §3 Smart truncation and §4 Output budget guard: what a sample result may weigh."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from mcp_review.calls import CallRecord
from mcp_review.catalog import Item
from mcp_review.checks.tokens.common import SEED, named_tools
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.rules.util import result_text


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


@rule(
    "tokens.smart-truncation",
    concern="conventions",
    severity="low",
    modes=("call",),
    source=f"{SEED} §3 Smart truncation",
)
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

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and openWorldHint: false),
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


@rule(
    "tokens.output-budget",
    concern="conventions",
    severity="low",
    modes=("call",),
    source=f"{SEED} §4 Output budget guard",
)
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

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and openWorldHint: false),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """
    names = {t.name for t in named_tools(ctx)}

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
