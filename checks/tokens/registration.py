"""Pack `tokens`, seed 000 §5 Tool registration: one canonical tool per domain, destructive actions confirmed."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator

from mcp_review.calls import CallRecord, effective_hints, is_destructive, tool_annotations
from mcp_review.catalog import Item
from mcp_review.checks.tokens.common import SEED, named_tools
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.rules.proof import outcome
from mcp_review.rules.util import acts_outward, input_schema, properties, required, words

CANONICAL_KEYS = {"action", "params", "fields", "limit", "cursor"}


@rule(
    "tokens.tool-registration",
    concern="conventions",
    severity="low",
    modes=("static",),
    source=f"{SEED} §5 Tool registration",
)
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


@rule(
    "tokens.destructive-elicitation",
    concern="security",
    severity="high",
    modes=("call", "manual"),
    source=f"{SEED} §5 Tool registration: destructive",
)
async def destructive_elicitation(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Destructive actions ask for confirmation through elicitation before acting.

    What it checks: call (only with the reviewer's consent, `--calls all`): each destructive tool is called with
    arguments generated from its schema; the server must send an elicitation request (mcp-review declares
    elicitation and declines it) before any result. Destructive is read with MCP's defaults: a tool that is not
    annotated readOnlyHint: true and not annotated destructiveHint: false is destructive (an absent readOnlyHint means
    false, an absent destructiveHint true). n/a: every tool is read-only or annotated destructiveHint: false.

    Why: seed 000 §5: a destructive action triggers an elicited confirmation before executing, so nothing is
    destroyed on the model's word alone. A tool with no annotations is destructive and open-world by the spec's
    defaults: leaving them out does not take it out of scope.

    Known false positives: none from a refusal: a call refused without asking (a JSON-RPC error, `isError`, or a
    refusal in plain text such as "Access denied - path outside allowed directories": `rules.proof`) proves neither
    an act nor its absence, so each value the tool's text offers is tried until a call is accepted, and a tool
    that refuses them all is blocking. A call that timed out is blocking too. A server that confirms another way
    (a `confirm` parameter, a two-step token) fails by seed 000's choice of elicitation. A tool destructive only by
    default (no destructiveHint) that completed without asking fails when the first word of its name or
    description says it sends, posts, publishes, transfers or deletes (an outbound action with no confirmation and
    no annotation); otherwise it warns, since it may only read and lack readOnlyHint: true.

    Passes: asked for confirmation through elicitation. Fails: a tool annotated destructive, or an unannotated one
    whose name or description says it sends or deletes, completed (accepted) without asking. Warns: a tool
    destructive only by default, whose name and description name no such action, completed without asking.
    Blocking: no consent to call destructive tools; every call refused without asking; a call with no answer.

    To verify when blocking: `--calls all` (the reviewer's consent to call destructive tools: the call really runs
    if the server does not ask), and the tool in calls.allow when an allow-list is set; for a tool that refused
    every call, a call the server accepts inside its own root (the reviewer's own `mcp-review call`, in a copy of
    its data) decides it.
    """
    destructive = [t for t in named_tools(ctx) if is_destructive(t.raw)]
    if not destructive:
        yield ctx.na(None, "no tool is destructive: each is read-only or annotated destructiveHint: false")
        return
    for tool in destructive:
        yield await _confirms(ctx, tool)


async def _confirms(ctx: CheckContext, tool: Item) -> Finding:
    """Whether `tool` asks before it acts: its sample calls (the same arguments answer as well: what matters is
    what the server asked while it ran, and a destructive tool called twice would act twice), with each value its
    text offers until one is accepted or asks."""
    if ctx.may_call(tool) is not None:
        return ctx.blocking_call(tool, "whether it asks for confirmation")
    made: list[CallRecord] = []
    for arguments in ctx.variants(tool):
        record = await ctx.try_call(tool, arguments, "whether it asks for confirmation", share="answer")
        if isinstance(record, Finding):
            return record
        made.append(record)
        asked = [
            e.seq
            for e in ctx.gate.during(record)
            if e.method == "elicitation/create"
            or (e.direction == "recv" and "elicitation/create" in json.dumps(e.message)[:100000])
        ]
        if asked:
            return ctx.passed(tool, "asked for confirmation through elicitation", asked[:1])
        if outcome(record).accepted:
            return _acted(ctx, tool, record)
    return ctx.blocking(
        tool,
        f"every call was refused without asking ({outcome(made[-1]).quote()}): a refusal proves neither that it "
        "acts without confirmation nor that it would ask; what would decide it: a call the server accepts, inside "
        "its own root (arguments that name something real it may change)",
        [r.seq for r in made],
    )


def _acted(ctx: CheckContext, tool: Item, record: CallRecord) -> Finding:
    """The finding for a destructive tool whose call was accepted without asking."""
    done = f"completed ({record.outcome}) without asking for confirmation"
    verb = acts_outward(tool)
    if effective_hints(tool.raw)["destructiveHint"][1]:
        return ctx.fail(tool, done, [record.seq])
    if verb:
        return ctx.fail(
            tool,
            f"{done}: an outbound or destructive action ({verb!r}) "
            + (
                "that sets no destructiveHint, so destructive by MCP's default"
                if tool_annotations(tool.raw)
                else "with no annotation, so destructive and open-world by MCP's defaults"
            ),
            [record.seq],
        )
    return ctx.warn(
        tool,
        f"{done}; it sets no destructiveHint, so it is destructive by MCP's default, though its name and description "
        "name no outbound or destructive action: annotate readOnlyHint: true if it only reads, or confirm through "
        "elicitation",
        [record.seq],
    )
