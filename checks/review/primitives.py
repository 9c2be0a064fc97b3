"""Pack `review` (seed 003): primitive design: a capability uses the primitive that matches its purpose, once."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

from mcp_review.calls import tool_annotations
from mcp_review.catalog import Item
from mcp_review.checks.review.common import SEED, named_tools
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.rules.proof import outcome
from mcp_review.rules.util import (
    VERBS,
    input_schema,
    properties,
    words,
)


@rule(
    "review.primitive-by-purpose",
    concern="conventions",
    severity="low",
    modes=("static", "call"),
    source=f"{SEED} Primitive design: primitive-by-purpose",
)
async def primitive_by_purpose(ctx: CheckContext) -> AsyncIterator[Finding]:
    """A tool that only returns static data should be a resource.

    Why: resources are for read-only context the client or user selects; tools are for model-controlled
    actions. A tool that takes no input and always returns the same thing costs tokens on every turn.
    What it checks: static: tools with no input properties that claim read-only are candidates; call: each
    candidate is called twice.
    Passes: tools with inputs, tools that are not read-only, or a candidate whose results differ.
    Warns: a parameterless read-only tool that returned the same content twice. Two equal answers only
    suggest static data: a tool that reports live state (the client's roots, a knowledge graph, the
    allowed directories, the environment) answers the same while that state does not change. What proves
    it is the source, or the same answer across a change of that state: the reviewer attests it.
    Blocking: a candidate that may not be called; `--calls read-only` verifies it.
    Known false positives: never a fail for that reason; the warning can name a tool that reads state
    which did not change during the review (waive it, saying what state it reads).
    To verify when blocking: `--calls read-only` (a candidate claims read-only; `--calls all` if it is
    open-world), and the tool in calls.allow when an allow-list is set.
    """
    for tool in named_tools(ctx):
        schema = input_schema(tool) or {}
        if properties(schema) or tool_annotations(tool.raw).get("readOnlyHint") is not True:
            yield ctx.passed(tool, "takes input or acts: a tool is the right primitive")
            continue
        what = "whether this parameterless read-only tool returns static data"
        # the first answer may be any earlier call's with no arguments; the second is a call of its own, made now:
        # the rule compares two answers over time, so a shared one would always agree with itself
        first = await ctx.try_call(tool, {}, what, share="answer")
        second = first if isinstance(first, Finding) else await ctx.try_call(tool, {}, what)
        if isinstance(second, Finding):
            yield second
            continue
        assert not isinstance(first, Finding)
        if first.result is not None and first.result == second.result and outcome(first).accepted:
            yield ctx.warn(
                tool,
                "takes no input and returned the same result twice: if it is static data, it belongs in a "
                "resource; if it reads state that did not change meanwhile (roots, environment, a store), "
                "waive this with what it reads",
                [first.seq, second.seq],
            )
        else:
            yield ctx.passed(tool, "results differ between calls (dynamic data)", [first.seq, second.seq])


@rule(
    "review.no-overlap",
    concern="conventions",
    severity="low",
    modes=("static",),
    source=f"{SEED} Primitive design: no-overlap",
)
def no_overlap(ctx: CheckContext) -> Iterator[Finding]:
    """The same data is not exposed as both a tool and a resource or prompt without reason.

    What it checks: static: a read-only tool whose name, stripped of its verbs, names a resource, template or prompt
    (e.g. tool `get_index` and resource `index`) is paired with it. Only the listings are read.

    Why: seed 003 no-overlap: the same data exposed through two primitives without a stated reason doubles what the
    model has to choose between and what the server has to keep consistent.

    Known false positives: the pairing is a name match, not a content match: a tool and a resource that share a stem
    but serve different data warn (say how they differ in the description, or waive it). The mere word "resource" or
    "prompt" in the description clears the pair, even without a reason. It only warns.

    Passes: no such pairs. Warns: each pair (a stated reason in the description clears it: "unlike the resource
    ...").
    """
    others: dict[str, Item] = {}
    for item in [*ctx.snapshot.resources, *ctx.snapshot.templates, *ctx.snapshot.prompts]:
        label = item.name or item.key
        others.setdefault("_".join(w for w in words(label) if w not in VERBS), item)
    for tool in named_tools(ctx):
        stem = "_".join(w for w in words(tool.name or "") if w not in VERBS)
        twin = others.get(stem) if stem else None
        reason = "resource" in (tool.description or "").lower() or "prompt" in (tool.description or "").lower()
        if twin is not None and tool_annotations(tool.raw).get("readOnlyHint") is True and not reason:
            yield ctx.warn(tool, f"exposes the same data as {twin.kind} {twin.key!r} without saying why", [twin.seq])
        else:
            yield ctx.passed(tool, "no other primitive exposes the same data")
