"""Pack `tokens`, seed 000 §5 Tool registration: one canonical tool per domain, destructive actions confirmed."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator

from checks.context import CheckContext
from checks.core import rule
from checks.tokens.common import SEED, named_tools
from checks.util import input_schema, properties, required, words
from inspector.calls import annotations
from inspector.review import Finding

CANONICAL_KEYS = {"action", "params", "fields", "limit", "cursor"}


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
    for tool in named_tools(ctx):
        domains.setdefault(words(tool.name or "")[0], []).append(tool.name or "")
    for tool in named_tools(ctx):
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
        for t in named_tools(ctx)
        if annotations(t.raw).get("destructiveHint") is True and annotations(t.raw).get("readOnlyHint") is not True
    ]
    if not destructive:
        yield ctx.na(None, "no tool is annotated destructive")
        return
    for tool in destructive:
        before = len(ctx.wire.entries)
        record = await ctx.try_call(tool, ctx.arguments(tool), "whether it asks for confirmation")
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
