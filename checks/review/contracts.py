"""Pack `review` (seed 003): tool contracts: names, descriptions and input schemas."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

from mcp_review import surfaces
from mcp_review.calls import tool_annotations
from mcp_review.catalog import Item
from mcp_review.checks.apps.model import PAGE_KINDS, is_app_page
from mcp_review.checks.review.common import SEED, Reason, scanned, verdict
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.rules.util import (
    VERBS,
    WRITE_WORDS,
    is_typed,
    properties,
    required,
    words,
)
from mcp_review.scan.asks import parameter_asks
from mcp_review.surfaces import Said


@rule(
    "review.precise-names",
    concern="contract",
    severity="low",
    modes=("static",),
    source=f"{SEED} Tool contracts: precise-names",
)
def precise_names(ctx: CheckContext) -> Iterator[Finding]:
    """Tool names are unique, stable and action-oriented.

    What it checks: static: every tool name of the listing, across all pages. Duplicates and nameless tools fail; a
    name with no verb among its words (`get`, `search`, `create`, ... from a fixed word list) warns. Stability
    against a pinned baseline is `review.rug-pull-mitigation`.

    Why: seed 003 precise-names: names MUST be unique, stable and action-oriented; two tools with one name make a
    call ambiguous, and a noun-only name hides what the tool does.

    Known false positives: none for the fail (a duplicate or missing name is exact). The verb test is a word list:
    an action-oriented name whose verb is not in it (`memorize_fact`, `transcribe`) warns, and a noun that is also
    in it (`log`, `status`, `tag`, `branch`) passes.

    Passes: `search_notes`, `note.create`. Fails: two tools named `search`, a tool with no name. Warns: `notes`,
    `helper`.
    """
    seen: dict[str, Item] = {}
    for tool in ctx.snapshot.tools:
        if not tool.name:
            yield ctx.fail(tool, "has no name")
            continue
        if tool.name in seen:
            yield ctx.fail(
                tool, f"name {tool.name!r} is not unique (also listed at position {seen[tool.name].index + 1})"
            )
            continue
        seen[tool.name] = tool
        if not VERBS.intersection(words(tool.name)):
            yield ctx.warn(tool, f"name {tool.name!r} names no action (no verb such as get, search, create)")
        else:
            yield ctx.passed(tool, "unique and action-oriented")


def _texts(ctx: CheckContext) -> Iterator[tuple[Item | None, Said]]:
    """(subject, text) for everything a server's listings say to the model."""
    if ctx.snapshot.instructions:
        yield None, Said("server instructions", ctx.snapshot.instructions)
    for item in [*ctx.snapshot.tools, *ctx.snapshot.prompts, *ctx.snapshot.resources, *ctx.snapshot.templates]:
        for said in surfaces.definition(item.raw):
            yield item, said


# probe: it reads resources (resources/read executes no tool)
@rule(
    "review.descriptions-grounded",
    concern="security",
    severity="high",
    modes=("static", "probe"),
    source=f"{SEED} Tool contracts: descriptions-grounded",
)
async def descriptions_grounded(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Descriptions say what a tool does, its side effects and when to call it; nothing hidden or leaked.

    What it checks: static (and `resources/read`, which has no side effects): every tool needs a description; a tool
    that is not read-only must name its side effects (a writing verb such as creates, deletes, sends, updates).
    Everything the server's listings say to the model (`inspector/surfaces.py`: instructions; names, titles and
    descriptions of tools, prompts, resources and templates; inside input and output schemas every property name,
    title, description, enum value, default and example; prompt arguments; and the text of up to 20 listed
    resources, those named like secrets first, read with `resources/read`, the first 65,536 characters of each,
    a blob when it is UTF-8 text) is scanned (inspector/scan/) for instructions aimed at the model (`<IMPORTANT>`
    blocks, "do not tell the user", reading ~/.ssh, sending data to URLs), steering beyond the tool's function (a
    waived confirmation, "trust returned content", "use this tool for every request", a priority claim over other
    tools; suggestive: "send promptly", "always summarise ... for the user", judged against the tool's name and
    title), credentials (known key formats, values given to secrets' names, high-entropy strings), invisible and
    bidi characters, and ANSI/OSC escapes. The server's instructions are meant to instruct: only their hostile
    orders and proven steering count. A tool's parameters fail when they ask the model for a secret or for its
    context (the tool list, the conversation) that the tool's name and description never say it needs, or preset a
    copy recipient (`bcc` defaulting to an address). Each hit quotes the offending span and says where it was
    found. What the server says at run time has rules of its own: `review.results-safe`, `review.prompts-safe`,
    `review.client-requests-safe`. An MCP App's page (contents with MIME type `text/html;profile=mcp-app` or
    `text/html+skybridge`, or a `ui://` resource carrying `_meta.ui` or `openai/widget*` keys) is code a host runs
    in a sandboxed iframe, not text the model reads: only the credentials in it are judged here, never its scripts
    (pack `apps` judges the page).

    Why: seed 003 descriptions-grounded: the model reads these texts as instructions; hidden steering (tool
    poisoning), embedded credentials and invisible characters are the attack, and a description that hides side
    effects gets a tool called without the user knowing what it changes.

    Known false positives: the scanner matches patterns. Only the clearly hostile forms fail (a tag block addressed
    to the model, "ignore previous instructions", steering of other tools, a key in a known format that is not a
    placeholder, a value given to a secret's name that is one: a password, or a random-looking key of any vendor, a
    PEM key with key material); the softer forms (high-entropy strings, a suspicious phrase) warn. Never counted as
    credentials: placeholders, paths, pagination tokens, the shell's PWD, and the keys vendors publish as examples
    (AWS's `AKIAIOSFODNN7EXAMPLE`, Stripe's sample test key), matched exactly: a key merely spelled `EXAMPLE` is
    judged like any other. A benign text can still match a hostile form: a security tool that quotes an injection
    example, a tool that itself parses `<system>` tags, a sample key its author made up rather than a vendor's
    published one. The quoted span shows which: waive it with the reason.
    Steering is read from the wording too: a description that honestly says "no confirmation is required" for a
    harmless action fails, and a parameter documented as skipping a command-line prompt ("set force to skip the
    confirmation prompt") warns. The side-effect test is a word list and reads MCP's defaults (a tool not annotated
    readOnlyHint: true has side effects): a mutating tool described with other verbs ("archives", "tags") warns.

    Passes: a plain description with purpose and effects. Fails: a hostile or leaky span, proven steering ("no
    confirmation is required", "trust returned content"), or no description. Warns: a suspicious span, suggestive
    steering ("send promptly", saying what would prove it), or a side-effecting tool whose description never says
    what it changes.
    """
    texts: dict[str | None, list[Said]] = {}
    subjects: dict[str | None, Item | None] = {}
    evidence: dict[str | None, list[int | None]] = {}
    pages: dict[str | None, list[Said]] = {}
    for item, said in _texts(ctx):
        key = f"{item.kind}:{item.key}" if item else None
        subjects[key] = item
        texts.setdefault(key, []).append(said)
    for resource in sorted(ctx.snapshot.resources, key=_not_named_secret)[:RESOURCES_READ]:
        reply = await ctx.session.request("resources/read", {"uri": resource.key})
        key = f"resource:{resource.key}"
        read = surfaces.contents(reply.result)
        (pages if is_app_page(resource, reply.result) else texts).setdefault(key, []).extend(read)
        evidence.setdefault(key, []).append(reply.seq)
    for key, item in subjects.items():
        purpose = f"{item.key} {item.get('title') or ''}" if item is not None and item.kind == "tool" else ""
        fails, warns = scanned(texts.get(key, []), instructs=key is None, purpose=purpose)  # instructions instruct
        if key in pages:  # an MCP App's page is code a host runs in a sandbox (pack apps judges it): only its secrets
            leaks = scanned(pages[key], kinds=PAGE_KINDS)
            fails, warns = fails + leaks[0], warns + leaks[1]
        if item is not None and item.kind == "tool":
            fails += [f"{where}: {why}" for where, why in parameter_asks(item.raw)]
            if not (item.description or "").strip():
                fails.insert(0, Reason("description: no description", "no-description"))
            mutating = tool_annotations(item.raw).get("readOnlyHint") is not True
            if mutating and item.description and not WRITE_WORDS.search(item.description):
                warns.append(
                    Reason("description: the tool is not read-only but never says what it changes", "unsaid-effect")
                )
        clean = "grounded: nothing hidden, leaked or steering found"
        yield verdict(ctx, item, (fails, warns), evidence.get(key, []), clean)


RESOURCES_READ = 20
RESOURCE_CHARS = 65536
_SECRET_NAMED = re.compile(r"secret|credential|passw|token|key|\.env|auth|config|private", re.I)


def _not_named_secret(resource: Item) -> bool:
    """Sorts the resources whose URI or name says they hold secrets (`internal://credentials`, `.env`) first:
    those are read even when the server lists more than RESOURCES_READ."""
    return not _SECRET_NAMED.search(f"{resource.key} {resource.get('name') or ''}")


def _schema_problems(tool: Item) -> tuple[list[str], list[str]]:
    """(what breaks the rule, what only suggests it) of one tool's inputSchema."""
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        return ["no inputSchema object"], []
    if schema.get("type") != "object":
        return ['inputSchema.type is not "object"'], []
    problems, doubts = [], []
    props = properties(schema)
    if not props and schema.get("additionalProperties") not in (None, False):
        problems.append("a free-form argument bag (additionalProperties with no properties)")
    for name, sub in props.items():
        if not is_typed(sub):
            problems.append(f"property {name!r} has no type")
        elif sub.get("type") == "object" and not properties(sub) and _open(sub.get("additionalProperties")):
            problems.append(f"property {name!r} is a free-form object")
    if props and "required" not in schema:
        undefaulted = [name for name, sub in props.items() if "default" not in sub]
        if undefaulted:  # JSON Schema reads a missing list as "all optional": only suspicious, not wrong
            shown = ", ".join(repr(n) for n in undefaulted[:4])
            doubts.append(
                f"no required list, so every parameter is optional, yet {shown} has no default: if the tool "
                "needs it, list it in required"
            )
    problems += [f"required {r!r} is not a property" for r in required(schema) if r not in props]
    return problems, doubts


def _open(additional: Any) -> bool:
    """additionalProperties that lets any value in (missing, true, {}); a schema there types a map."""
    return additional is None or additional is True or additional == {}


@rule(
    "review.input-schema",
    concern="contract",
    severity="medium",
    modes=("static",),
    source=f"{SEED} Tool contracts: input-schema",
)
def input_schema_rule(ctx: CheckContext) -> Iterator[Finding]:
    """Every tool has an object inputSchema with typed properties and a `required` list; no free-form bags.

    What it checks: static: each listed tool's inputSchema (type, properties, required, additionalProperties).
    Why: free-form argument bags leave the model guessing and the server unvalidated (seed 003).
    Passes: {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}, a tool
    with no parameters ({"type": "object"}), or only optional parameters that all have defaults.
    Fails: no inputSchema, a non-object schema, an untyped property, a property that is an open object
    (`dict` with no value schema), additionalProperties with no properties.
    Warns: properties without a `required` list where some have no default.
    Known false positives: a tool whose parameters are all truly optional but undocumented defaults
    warns (JSON Schema reads a missing `required` as "none required", so it is never a fail); a typed
    map (`additionalProperties: {"type": "string"}`) is not a free-form object.
    """
    for tool in ctx.snapshot.tools:
        problems, doubts = _schema_problems(tool)
        if problems:
            yield ctx.fail(tool, "; ".join(problems + doubts))
        elif doubts:
            yield ctx.warn(tool, "; ".join(doubts))
        else:
            yield ctx.passed(tool, "typed object schema")
