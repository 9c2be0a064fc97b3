"""Pack `registry`: the per-tool module pattern of a Rust MCP server (seed 004_0d5a3e89099f134a.txt).

Honest `additionalProperties`, a trimmed wire (no `docs`, `$schema`, schema titles or prose
defaults), token ceilings for the whole `tools/list` (3500 cl100k_base tokens) and each description
(50), and the schemars `#`-heading quirk.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

from mcp_review.catalog import Item
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.rules.proof import outcome, refused
from mcp_review.rules.util import input_schema, invalid_arguments, properties, walk_schema

SEED = "004"


def _tools(ctx: CheckContext) -> list[Item]:
    return [t for t in ctx.snapshot.tools if t.name]


@rule(
    "registry.no-false-strict",
    concern="conventions",
    severity="medium",
    modes=("static", "call"),
    source=f"{SEED} Required exports per tool: #1052",
)
async def no_false_strict(ctx: CheckContext) -> AsyncIterator[Finding]:
    """A schema that says `additionalProperties: false` is not contradicted by a runtime that accepts unknown fields.

    What it checks: static: tools whose inputSchema claims top-level `additionalProperties: false`; call: each is
    called with arguments generated from its schema plus an unknown field (`mcp_review_unknown_field`); success
    means the wire schema lies (false strict). Tools that claim nothing pass statically.

    Why: seed 004 #1052 wire truthfulness: the wire schema must not advertise `additionalProperties: false` while
    the runtime tolerates unknown fields; clients build arguments by what it advertises.

    Known false positives: a call that timed out or lost its connection carries neither an error nor `isError` and
    counts as a success (fail). Nested objects' strictness is not probed.

    Passes: no strictness claimed, or an unknown field refused. Fails: a strict schema whose tool accepted an
    unknown field. Blocking: strict tools that may not be called.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and openWorldHint: false),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """
    for tool in _tools(ctx):
        if (input_schema(tool) or {}).get("additionalProperties") is not False:
            yield ctx.passed(tool, "claims no strictness")
            continue
        _, args = next(c for c in invalid_arguments(tool, ctx.arguments(tool)) if c[0] == "unknown extra field")
        record = await ctx.try_call(tool, args, "whether unknown fields are really refused", share="refusal")
        if isinstance(record, Finding):
            yield record
            continue
        if blocked := await ctx.not_the_point(tool, record, "whether an unknown field is refused"):
            yield blocked
        elif refused(record):
            yield ctx.passed(tool, f"an unknown field was refused ({outcome(record).quote()})", [record.seq])
        else:
            yield ctx.fail(
                tool, "additionalProperties: false, yet a call with an unknown field succeeded", [record.seq]
            )


@rule(
    "registry.list-budget",
    concern="conventions",
    severity="medium",
    modes=("static",),
    source=f"{SEED} Wire trimmer behavior: C5 3500-token ceiling",
)
def list_budget(ctx: CheckContext) -> Iterator[Finding]:
    """The whole `tools/list` stays under its token ceiling (default 3500 cl100k_base tokens; option list_budget).

    What it checks: static: the canonical JSON of the whole `tools` array as sent (every page), counted with the
    cl100k_base encoding shipped with mcp-review, against option list_budget (default 3500).

    Why: seed 004 wire trimmer, C5 ceiling: the tool list is paid for in every conversation before any work is done.

    Known false positives: none for the count. The ceiling is seed 004's; a server with many tools may exceed it by
    design (raise list_budget). Hosts wrap tool definitions in their own way, so a model's real cost differs from
    the count.

    Passes: at or under the ceiling. Fails: over it, with the count.
    """
    total = ctx.costs.of(ctx.counter.encoding).total
    ceiling = ctx.options.list_budget
    seqs = ctx.snapshot.tools.seqs[:1]
    if total > ceiling:
        yield ctx.fail(
            None, f"tools/list costs {total} {ctx.counter.encoding} tokens, over the ceiling of {ceiling}", seqs
        )
    else:
        yield ctx.passed(None, f"tools/list costs {total} {ctx.counter.encoding} tokens (ceiling {ceiling})", seqs)


@rule(
    "registry.description-budget",
    concern="conventions",
    severity="low",
    modes=("static",),
    source=f"{SEED} Wire trimmer behavior: short description",
)
def description_budget(ctx: CheckContext) -> Iterator[Finding]:
    """Each tool description stays under its ceiling (default 50 cl100k_base tokens; option description_budget).

    What it checks: static: each tool's top-level description, counted with cl100k_base, against option
    description_budget (default 50 tokens).

    Why: the short description is the only prose on the bare wire (seed 004 trims the rest); a long one costs tokens
    in every conversation.

    Known false positives: none for the count. A server that does not follow seed 004's trimmed wire (its
    descriptions carry the usage text other seeds ask for, e.g. seed 000's template) fails by design: raise
    description_budget or leave the pack out.

    Passes: within the ceiling. Fails: a description over the ceiling, with its cost.
    """
    ceiling = ctx.options.description_budget
    costs = ctx.costs.descriptions(ctx.counter.encoding)
    for tool in _tools(ctx):
        cost = costs[tool.index]
        if cost > ceiling:
            yield ctx.fail(tool, f"description costs {cost} tokens, over {ceiling}")
        else:
            yield ctx.passed(tool, f"description costs {cost} tokens")


@rule(
    "registry.wire-trimmed",
    concern="conventions",
    severity="low",
    modes=("static",),
    source=f"{SEED} Wire trimmer behavior: stripped from the wire",
)
def wire_trimmed(ctx: CheckContext) -> Iterator[Finding]:
    """No `docs` field, `$schema`, schema `title` or long prose defaults on the wire.

    What it checks: static: each tool's wire object for `docs`; its inputSchema for `$schema` and a top-level
    `title`; every sub-schema (walked) for a string `default` longer than 32 characters.

    Why: seed 004 wire trimmer: generators emit these, they cost tokens on every `tools/list`, and none helps a
    caller build arguments.

    Known false positives: the 32-character test cannot tell prose from data: a long default that is a value (a URL,
    a path, a query) fails. A top-level `title` emitted by a schema generator (FastMCP's `<tool>Arguments`) fails:
    seed 004 strips it.

    Passes: trimmed. Fails: a tool with `docs`; an inputSchema with `$schema` or a top-level `title`; a string
    `default` longer than 32 characters anywhere in the schema.
    """
    for tool in _tools(ctx):
        schema = input_schema(tool) or {}
        problems = [
            f"has {k}"
            for k, present in (
                ("docs", "docs" in tool.raw),
                ("inputSchema.$schema", "$schema" in schema),
                ("inputSchema.title", "title" in schema),
            )
            if present
        ]
        problems += [  # prose: long and made of words; a long URL, path or id is a value, not prose
            f"{path or '(root)'}.default is {len(s['default'])} characters of prose"
            for path, s in walk_schema(schema)
            if isinstance(s.get("default"), str) and len(s["default"]) > 32 and s["default"].count(" ") >= 4
        ]
        yield ctx.fail(tool, "; ".join(problems)) if problems else ctx.passed(tool, "trimmed")


@rule(
    "registry.heading-quirk",
    concern="conventions",
    severity="low",
    modes=("static",),
    source=f"{SEED} Schemars #-prefix description quirk",
)
def heading_quirk(ctx: CheckContext) -> Iterator[Finding]:
    """No property whose `title` swallowed a description that began with `#`.

    What it checks: static: each top-level property of the inputSchema: a `title` that starts with `#`, or a
    property with a `title` but no `description` whose title is not the one generators derive from its name
    (`repo_path` -> "Repo Path").

    Why: seed 004 schemars quirk: schemars reads a doc comment starting with `#` as a heading and moves it to
    `title`, leaving the property without its description.

    Known false positives: the second test infers the quirk from a prose title: a hand-written title on a property
    without a description (`repo` titled "Repository") fails though no `#` was involved, and so does a generator
    that derives titles another way than pydantic (pydantic's "Repo Path" for `repo_path` is not the quirk). Nested
    properties are not read.

    Passes: no swallowed descriptions. Fails: a title starting with `#`, or a property with no description whose
    title is prose rather than the derived one.
    """
    for tool in _tools(ctx):
        props = properties(input_schema(tool))
        titled = {name: sub["title"] for name, sub in props.items() if isinstance(sub.get("title"), str)}
        swallowed = [name for name, title in titled.items() if title.startswith("#")]  # the quirk's own mark
        maybe = [  # a hand-written title and no description: perhaps the quirk, perhaps a choice
            name
            for name, title in titled.items()
            if name not in swallowed and "description" not in props[name] and title != _derived_title(name)
        ]
        if swallowed:
            yield ctx.fail(tool, f"a title that begins with # swallowed a description: {', '.join(swallowed[:6])}")
        elif maybe:
            yield ctx.warn(
                tool,
                f"a title and no description (maybe the heading quirk): {', '.join(maybe[:6])}; "
                "a description that began with # would prove it",
            )
        else:
            yield ctx.passed(tool, "no swallowed descriptions")


def _derived_title(name: str) -> str:
    """The title schema generators derive from a property name (pydantic: repo_path -> "Repo Path")."""
    return name.replace("_", " ").replace("-", " ").title()
