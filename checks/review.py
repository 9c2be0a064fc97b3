"""Pack `review`: the MCP server review checklist (seed 003_7bd45472b514b87a.txt).

The seed pins MCP 2025-06-18 for tools and primitives and 2025-11-25 for authorization, and says:
"Mark items you cannot verify as blocking, not as passes."
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

from checks.context import CheckContext
from checks.core import rule
from checks.util import (
    DESTROY_WORDS,
    VERBS,
    WRITE_WORDS,
    input_schema,
    invalid_arguments,
    is_typed,
    properties,
    rejected,
    required,
    result_json,
    result_text,
    valid_arguments,
    walk_schema,
    words,
)
from inspector.baseline import definition_hash
from inspector.calls import annotations
from inspector.catalog import LISTS as CATALOG_LISTS
from inspector.catalog import Item, list_all
from inspector.review import Finding
from inspector.targets import Target, masked_args, secret_arg_positions

SEED = "003"
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _tools(ctx: CheckContext) -> list[Item]:
    return [t for t in ctx.snapshot.tools if t.name]


@rule("review.primitive-by-purpose", modes=("static", "call"), source=f"{SEED} Primitive design: primitive-by-purpose")
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
    for tool in _tools(ctx):
        schema = input_schema(tool) or {}
        if properties(schema) or annotations(tool.raw).get("readOnlyHint") is not True:
            yield ctx.passed(tool, "takes input or acts: a tool is the right primitive")
            continue
        what = "whether this parameterless read-only tool returns static data"
        first = await ctx.try_call(tool, {}, what)
        second = first if isinstance(first, Finding) else await ctx.try_call(tool, {}, what)
        if isinstance(second, Finding):
            yield second
            continue
        assert not isinstance(first, Finding)
        if first.result is not None and first.result == second.result and not rejected(first):
            yield ctx.warn(
                tool,
                "takes no input and returned the same result twice: if it is static data, it belongs in a "
                "resource; if it reads state that did not change meanwhile (roots, environment, a store), "
                "waive this with what it reads",
                [first.seq, second.seq],
            )
        else:
            yield ctx.passed(tool, "results differ between calls (dynamic data)", [first.seq, second.seq])


@rule("review.no-overlap", modes=("static",), source=f"{SEED} Primitive design: no-overlap")
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
    for tool in _tools(ctx):
        stem = "_".join(w for w in words(tool.name or "") if w not in VERBS)
        twin = others.get(stem) if stem else None
        reason = "resource" in (tool.description or "").lower() or "prompt" in (tool.description or "").lower()
        if twin is not None and annotations(tool.raw).get("readOnlyHint") is True and not reason:
            yield ctx.warn(tool, f"exposes the same data as {twin.kind} {twin.key!r} without saying why", [twin.seq])
        else:
            yield ctx.passed(tool, "no other primitive exposes the same data")


@rule("review.precise-names", modes=("static",), source=f"{SEED} Tool contracts: precise-names")
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


def _texts(ctx: CheckContext) -> Iterator[tuple[Item | None, str, str]]:
    """(subject, where, text) for everything a server says to the model."""
    if ctx.snapshot.instructions:
        yield None, "server instructions", ctx.snapshot.instructions
    for item in [*ctx.snapshot.tools, *ctx.snapshot.prompts, *ctx.snapshot.resources, *ctx.snapshot.templates]:
        for key in ("name", "title", "description"):
            value = item.get(key)
            if isinstance(value, str):
                yield item, key, value
        for path, sub in walk_schema(input_schema(item)) if item.kind == "tool" else ():
            for key in ("description", "title"):
                if isinstance(sub.get(key), str) and path:
                    yield item, f"inputSchema.{path}.{key}", sub[key]
        for arg in item.get("arguments") or [] if item.kind == "prompt" else []:
            if isinstance(arg, dict) and isinstance(arg.get("description"), str):
                yield item, f"argument {arg.get('name')!r}", arg["description"]


@rule(
    "review.descriptions-grounded",
    modes=("static", "probe"),  # probe: it reads resources (resources/read executes no tool)
    source=f"{SEED} Tool contracts: descriptions-grounded",
)
async def descriptions_grounded(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Descriptions say what a tool does, its side effects and when to call it; nothing hidden or leaked.

    What it checks: static (and `resources/read`, which has no side effects): every tool needs a description; a tool
    that is not read-only must name its side effects (a writing verb such as creates, deletes, sends, updates).
    Everything the server says to the model (instructions, names, titles, descriptions, schema and argument
    descriptions of tools, prompts and resources, and the text of up to 20 listed resources, read with
    `resources/read`, the first 65,536 characters of each) is scanned (inspector/scan.py) for instructions aimed at
    the model (`<IMPORTANT>` blocks, "do not tell the user", reading ~/.ssh, sending data to URLs), credentials
    (assignments, known key formats, high-entropy strings), invisible and bidi characters, and ANSI/OSC escapes.
    Each hit quotes the offending span.

    Why: seed 003 descriptions-grounded: the model reads these texts as instructions; hidden steering (tool
    poisoning), embedded credentials and invisible characters are the attack, and a description that hides side
    effects gets a tool called without the user knowing what it changes.

    Known false positives: the scanner matches patterns. Only the clearly hostile forms fail (a tag block addressed
    to the model, "ignore previous instructions", steering of other tools, a key in a known format that is not a
    placeholder, a credential assignment with a random-looking value, a PEM key with key material); the softer forms
    (high-entropy strings, a suspicious phrase) warn. A benign text can still match a hostile form: a security tool
    that quotes an injection example, a tool that itself parses `<system>` tags, a documented test key that does not
    look like a placeholder. The quoted span shows which: waive it with the reason. The side-effect test is a word
    list: a mutating tool described with other verbs ("archives", "tags") warns.

    Passes: a plain description with purpose and effects. Fails: a hostile or leaky span, or no description. Warns:
    a suspicious span, or a side-effecting tool whose description never says what it changes.
    """
    from inspector.scan import scan_text

    hits: dict[str | None, list[tuple[str, Any]]] = {}
    subjects: dict[str | None, Item | None] = {}
    texts = list(_texts(ctx))
    evidence: dict[str | None, list[int]] = {}
    for resource in list(ctx.snapshot.resources)[:RESOURCES_READ]:
        reply = await ctx.session.request("resources/read", {"uri": resource.key})
        contents = reply.result.get("contents") if isinstance(reply.result, dict) else None
        for part in contents if isinstance(contents, list) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append((resource, "contents", part["text"][:RESOURCE_CHARS]))
                evidence.setdefault(f"resource:{resource.key}", []).append(reply.seq)
    for item, where, text in texts:
        key = f"{item.kind}:{item.key}" if item else None
        subjects[key] = item
        for hit in scan_text(text):
            hits.setdefault(key, []).append((where, hit))
    for tool in ctx.snapshot.tools:
        key = f"tool:{tool.key}"
        subjects[key] = tool
        if not (tool.description or "").strip():
            hits.setdefault(key, []).append(("description", None))
    for key, item in subjects.items():
        found = hits.get(key, [])
        fails = [
            f"{where}: no description" if h is None else f"{where}: {h.message}: {h.quote}"
            for where, h in found
            if h is None or h.severity == "fail"
        ]
        warns = [f"{where}: {h.message}: {h.quote}" for where, h in found if h is not None and h.severity != "fail"]
        mutating = item is not None and item.kind == "tool" and annotations(item.raw).get("readOnlyHint") is not True
        if mutating and item.description and not WRITE_WORDS.search(item.description):
            warns.append("description: the tool is not read-only but never says what it changes")
        if fails:
            yield ctx.fail(item, "; ".join(fails + warns), evidence.get(key, []))
        elif warns:
            yield ctx.warn(item, "; ".join(warns), evidence.get(key, []))
        else:
            yield ctx.passed(item, "grounded: nothing hidden, leaked or steering found")


RESOURCES_READ = 20
RESOURCE_CHARS = 65536


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


@rule("review.input-schema", modes=("static",), source=f"{SEED} Tool contracts: input-schema")
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


@rule(
    "review.output-schema-and-structured",
    modes=("static", "call"),
    source=f"{SEED} Tool contracts: output-schema-and-structured",
    spec="2025-06-18 (structured content)",
)
async def output_schema(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Structured results declare an outputSchema, `structuredContent` conforms, and a text block mirrors it.

    What it checks: static: an outputSchema must be an object schema. call: tools with an outputSchema are called
    with arguments generated from their input schema; `structuredContent` is validated against the outputSchema
    (jsonschema) and a text block must parse to the same JSON. A callable tool without an outputSchema whose text
    result is a JSON object warns (it returns structured data undeclared); one that may not be called passes
    unverified.

    Why: seed 003 output-schema-and-structured (MCP 2025-06-18): clients validate structured results against the
    declared schema, so a result that does not conform breaks them; the text mirror keeps clients that predate
    structured content working.

    Known false positives: the fails are exact for the one generated call (a non-object outputSchema, no
    structuredContent, a schema violation at a JSON path). A call that did not succeed (the generated arguments may
    be meaningless to a correct tool, or it timed out) only warns, with nothing compared. A tool that returns JSON
    text on purpose without an outputSchema warns: the seed's SHOULD.

    Passes: structuredContent conforms and a text block mirrors it, or unstructured content without an outputSchema.
    Fails: an outputSchema that is not an object schema, a result without structuredContent, structuredContent that
    violates the outputSchema. Warns: the call did not succeed, JSON text without an outputSchema, no text block
    carrying the same JSON. Blocking: a tool with an outputSchema that may not be called (`--calls read-only` or
    consent).

    n/a before 2025-06-18 (no structured output). Validation is offline: an outputSchema that refers to a remote
    schema, or whose $refs form a cycle, leaves the result unverified (blocking), never fetched.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and not open-world),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml. An outputSchema with remote or cyclic $refs cannot be checked offline: the reviewer checks the
    result by hand and waives the finding with a note.
    """
    from inspector.localschema import validate

    if not ctx.revision_at_least("2025-06-18"):
        yield ctx.na(None, f"structured output arrived in 2025-06-18; this server speaks {ctx.revision}")
        return
    for tool in _tools(ctx):
        schema = tool.get("outputSchema")
        if schema is not None and not (isinstance(schema, dict) and schema.get("type") == "object"):
            yield ctx.fail(tool, 'outputSchema is not an object schema ({"type": "object", ...})')
            continue
        if ctx.may_call(tool) is not None:
            if schema is not None:
                yield ctx.blocking_call(tool, "whether structuredContent conforms to the outputSchema")
            else:
                yield ctx.passed(tool, "declares no outputSchema (not called: structured results unverified)")
            continue
        record = await ctx.try_call(tool, valid_arguments(tool), "whether structuredContent conforms")
        if isinstance(record, Finding):
            yield record
            continue
        result = record.result if isinstance(record.result, dict) else None
        if result is None or record.is_error:
            yield ctx.warn(tool, f"the probe call did not succeed ({record.outcome}): nothing to compare", [record.seq])
            continue
        if schema is None:
            data = result_json(result)
            if isinstance(data, dict):
                yield ctx.warn(tool, "returns a JSON object but declares no outputSchema", [record.seq])
            else:
                yield ctx.passed(tool, "returns unstructured content and declares no outputSchema", [record.seq])
            continue
        if "structuredContent" not in result:
            yield ctx.fail(tool, "declares an outputSchema but the result has no structuredContent", [record.seq])
            continue
        checked = validate(result["structuredContent"], schema)
        if checked.unverified:
            yield ctx.blocking(tool, f"structuredContent not validated: {checked.unverified}", [record.seq])
        elif checked.errors:
            yield ctx.fail(tool, f"structuredContent violates the outputSchema at {checked.errors[0]}", [record.seq])
        elif result_json({"content": result.get("content")}) != result["structuredContent"]:
            yield ctx.warn(tool, "no text block carries the same JSON as structuredContent", [record.seq])
        else:
            yield ctx.passed(tool, "structuredContent conforms and is mirrored in a text block", [record.seq])


@rule(
    "review.error-channel-correct",
    modes=("probe", "call"),
    source=f"{SEED} Tool contracts: error-channel-correct",
    spec="2025-06-18 / 2025-11-25 (SEP-1303: invalid arguments became tool-execution errors)",
)
async def error_channel(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Execution failures come back as `isError: true`; unknown tools and malformed requests as JSON-RPC errors.

    What it checks: probe: `tools/call` for a tool that does not exist, and a `tools/call` without `name`, on the
    review's session (neither can execute anything). call: each callable tool with constrained arguments gets one
    schema-invalid argument object (the first of: a wrong type for the first required property, that property
    missing, an unknown field under `additionalProperties: false`); judged by the negotiated revision: up to
    2025-06-18 invalid arguments are a protocol error (JSON-RPC -32602); from 2025-11-25 they are a tool-execution
    error (`isError: true`). Either is accepted with a note when the other is seen; silent success fails.

    Why: seed 003 error-channel-correct: execution failures MUST reach the model as `isError: true` so it can react;
    protocol failures MUST be JSON-RPC errors. Seed and spec disagree on unknown tools: seed 003 says MUST be a
    JSON-RPC error; the spec lists them under protocol errors with -32602 only as an example (no MUST), and the
    python and TypeScript SDKs answer `isError`. Such a refusal warns and cites both; success fails.

    Known false positives: none known for the fails. An unknown tool refused with `isError: true` only warns.
    Invalid arguments are checked against the tool's own schema before they are sent (a value the schema admits
    is never used as "invalid"), and a call that got no answer is blocking, never a silent success.

    Passes: JSON-RPC errors for the unknown tool and the nameless call; invalid arguments answered on the revision's
    channel. Fails: an unknown tool answered as a success, a nameless call not rejected as a JSON-RPC error,
    invalid arguments accepted as a success. Warns: an unknown tool refused with `isError: true`; invalid
    arguments refused on the other channel than the revision expects. Blocking: the invalid-argument part for
    tools that may not be called, or a call that got no answer.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and not open-world),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """
    reply = await ctx.session.request("tools/call", {"name": "mcp_review_no_such_tool", "arguments": {}})
    if reply.error is not None:
        yield ctx.passed(None, f"unknown tool -> JSON-RPC error {reply.error.get('code')}", [reply.seq])
    elif isinstance(reply.result, dict) and reply.result.get("isError") is True:
        # The seed says MUST; the spec of every revision lists unknown tools under protocol errors with -32602
        # as an example, with no MUST, and the SDKs answer isError: the server refused it, on the other channel.
        yield ctx.warn(
            None,
            f"unknown tool answered as a tool result with isError: true; seed 003 asks for a JSON-RPC error, "
            f"MCP {ctx.revision} lists unknown tools under protocol errors (-32602 as an example, no MUST)",
            [reply.seq],
        )
    else:
        yield ctx.fail(None, "calling a tool that does not exist succeeded", [reply.seq])
    reply = await ctx.session.request("tools/call", {"arguments": {}})
    if reply.error is not None:
        yield ctx.passed(
            "tools/call without name", f"malformed request -> JSON-RPC error {reply.error.get('code')}", [reply.seq]
        )
    else:
        yield ctx.fail(
            "tools/call without name", "a tools/call without a name was not rejected as a JSON-RPC error", [reply.seq]
        )
    modern_channel = ctx.revision_at_least("2025-11-25")
    for tool in _tools(ctx):
        cases = invalid_arguments(tool)
        if not cases:
            continue
        what, args = cases[0]
        record = await ctx.try_call(tool, args, "how invalid arguments are answered")
        if isinstance(record, Finding):
            yield record
            continue
        if not rejected(record):
            yield ctx.fail(tool, f"accepted invalid arguments ({what}) as a success", [record.seq])
        elif (record.error is not None) == (not modern_channel):
            yield ctx.passed(
                tool, f"invalid arguments ({what}) -> {record.outcome}, as {ctx.revision} says", [record.seq]
            )
        else:
            expected = "isError: true" if modern_channel else "a JSON-RPC error"
            yield ctx.warn(
                tool, f"invalid arguments ({what}) -> {record.outcome}; {ctx.revision} expects {expected}", [record.seq]
            )


@rule(
    "review.annotations-set",
    modes=("static",),
    source=f"{SEED} Tool contracts: annotations-set",
    spec="2025-03-26 (tool annotations)",
)
def annotations_set(ctx: CheckContext) -> Iterator[Finding]:
    """Each tool sets readOnlyHint, destructiveHint, idempotentHint and openWorldHint, plausibly.

    What it checks: static: each tool's `annotations` as listed; its name (split into words) and description are
    matched against word lists of writing and destroying verbs.

    Why: seed 003 annotations-set (MCP 2025-03-26): a missing hint reads as its default (not read-only, destructive,
    open-world), and a wrong one misleads every client that asks for consent by it. The hints are advisory, so the
    rule judges their honesty, not enforcement.

    Known false positives: none for the fail: readOnlyHint and destructiveHint both true contradict each other (the
    spec reads destructiveHint only when a tool is not read-only). The plausibility warnings are word matches: a
    read-only `list_settings` or `get_dataset_updates` warns ("set", "updat" in its name), and a formatter whose
    description says it "removes whitespace" warns when marked destructiveHint: false. A read-only tool whose
    description (not its name) mentions writing does not warn.

    Passes: all four set and consistent with the name and description. Fails: readOnlyHint and destructiveHint both
    true. Warns: a hint missing; a read-only tool whose name says it deletes, creates or sends; a deleting tool not
    marked destructive.
    """
    for tool in _tools(ctx):
        ann = annotations(tool.raw)
        text = f"{' '.join(words(tool.name or ''))} {tool.description or ''}"
        if ann.get("readOnlyHint") is True and ann.get("destructiveHint") is True:
            yield ctx.fail(tool, "readOnlyHint and destructiveHint are both true")
            continue
        problems = [f"{h} not set" for h in HINTS if not isinstance(ann.get(h), bool)]
        if ann.get("readOnlyHint") is True and WRITE_WORDS.search(" ".join(words(tool.name or ""))):
            problems.append("marked read-only but its name says it changes something")
        if ann.get("readOnlyHint") is not True and ann.get("destructiveHint") is False and DESTROY_WORDS.search(text):
            problems.append("deletes or overwrites, yet destructiveHint is false")
        yield ctx.warn(tool, "; ".join(problems)) if problems else ctx.passed(tool, "all four hints set, plausibly")


@rule(
    "review.arguments-validated-and-authorized",
    modes=("call", "manual"),
    source=f"{SEED} Security: arguments-validated-and-authorized",
)
async def arguments_validated(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Schema-invalid arguments are rejected server-side; authorization is enforced per call.

    What it checks: call: every callable tool with constrained arguments gets each kind of invalid argument object
    (a wrong type for the first required property, that property missing, an unknown field under
    `additionalProperties: false`); each must be rejected (JSON-RPC error or isError). manual: per-call
    authorization lives in the handler; a reviewer attests it. n/a for a tool that takes no constrained arguments.

    Why: seed 003 arguments-validated-and-authorized: a client can send anything, whatever the schema says; the
    handler MUST re-validate every argument and enforce authorization per call. Schema validation is not
    authorization.

    Known false positives: the wrong-type value is 12345 for a property typed string or not typed at all: when the
    property also admits numbers (`["string", "integer"]`, an `anyOf` with a number) the object is valid, and a tool
    that rightly accepts it fails. A call that timed out or lost its connection carries neither an error nor
    `isError` and counts as accepted (fail). The manual part never fails by itself.

    Passes: every invalid object rejected (and the manual part attested). Fails: any invalid call that succeeded, or
    a reviewer attests missing authorization. Blocking: tools that may not be called, and the manual part.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and not open-world),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml. The manual part: an [[attest]] entry for review.arguments-validated-and-authorized in
    mcp-review.toml (or the TUI), by a reviewer who read each handler's authorization check.
    """
    for tool in _tools(ctx):
        cases = invalid_arguments(tool)
        if not cases:
            yield ctx.na(tool, "takes no constrained arguments")
            continue
        if ctx.may_call(tool) is not None:
            yield ctx.blocking_call(tool, "server-side argument validation")
            continue
        accepted = []
        seqs = []
        silent: Finding | None = None
        for what, args in cases:
            record = await ctx.try_call(tool, args, f"server-side validation of {what}")
            if isinstance(record, Finding):
                silent = record
                break
            seqs.append(record.seq)
            if not rejected(record):
                accepted.append(what)
        if silent is not None and not accepted:
            yield silent
        elif accepted:
            yield ctx.fail(tool, f"accepted schema-invalid arguments: {', '.join(accepted)}", seqs)
        else:
            yield ctx.passed(tool, f"rejected all {len(cases)} invalid argument objects", seqs)
    for finding in ctx.manual(
        "per-call authorization is enforced in every handler (schema validation is not authorization)."
    ):
        yield finding


PATHLIKE = ("path", "file", "filename", "dir", "directory", "folder")
TRAVERSAL = "../../../../../../../../etc/passwd"


@rule("review.injection-safe", modes=("call", "manual"), source=f"{SEED} Security: injection-safe")
async def injection_safe(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Arguments that reach shells, SQL, paths or URLs are parameterized or escaped.

    What it checks: call: every tool with a string parameter whose name contains path, file, filename, dir,
    directory or folder (the first such parameter) is called, as the calling policy allows (read-only tools with
    `--calls read-only`, others only with `--calls all`), with arguments generated from its schema and that
    parameter set to a traversal payload (`../../../../../../../../etc/passwd`); the contents of /etc/passwd
    (`root:x:0:0`) in the result text fail. manual: shells, SQL and URL building need a reader of the source (grep
    the diff for string-built commands and unbounded path joins); a reviewer attests it.

    Why: seed 003 injection-safe: arguments reaching shells, SQL, paths or URLs MUST be parameterized or escaped;
    shell injection and path traversal were the most-filed MCP CVE classes in early 2026.

    Known false positives: a tool meant to read any path the user names (a filesystem server configured with `/`
    among its allowed roots) returns /etc/passwd by design and fails: the file really came back, but whether the
    tool should have been confined is the reviewer's call; waive it with the configured roots. On a host without
    /etc/passwd (Windows, a minimal container) the probe proves nothing and passes. Other parameters and other
    injection classes are left to the manual part.

    Passes: the payload did not return /etc/passwd. Fails: it did (path traversal), or a reviewer attests an
    injection. Blocking: tools that may not be called, and the manual part.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and not open-world),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml. The manual part: an [[attest]] entry for review.injection-safe in mcp-review.toml (or the TUI),
    by a reviewer who read how arguments reach shells, SQL, paths and URLs.
    """
    for tool in _tools(ctx):
        props = properties(input_schema(tool))
        target = next(
            (n for n, s in props.items() if s.get("type") == "string" and any(p in n.lower() for p in PATHLIKE)), None
        )
        if target is None:
            continue
        record = await ctx.try_call(
            tool, {**valid_arguments(tool), target: TRAVERSAL}, f"path traversal through {target!r}"
        )
        if isinstance(record, Finding):
            yield record
            continue
        if "root:x:0:0" in result_text(record.result):
            yield ctx.fail(tool, f"{target!r} = {TRAVERSAL!r} returned /etc/passwd: path traversal", [record.seq])
        else:
            yield ctx.passed(tool, f"{target!r} did not let {TRAVERSAL!r} through", [record.seq])
    for finding in ctx.manual("arguments reaching shells, SQL and URLs are parameterized or escaped."):
        yield finding


def _no_answer(ctx: CheckContext, got: Any, what: str) -> Finding | None:
    """A `blocking` finding when a probe got no HTTP status at all: no answer proves nothing."""
    if got.status is not None:
        return None
    return ctx.blocking(None, f"{what} got no answer ({got.failure}): a longer --timeout would verify it", [got.seq])


def _credential_value(args: tuple[str, ...], i: int) -> bool:
    """Does argument `i` (a credential by its name, see `secret_arg_positions`) hold a secret itself, rather
    than where to find one (`--token-file PATH`, `--api-key-env VAR`, `--token=$TOKEN`)?"""
    arg = args[i]
    name, _, value = arg.partition("=") if "=" in arg else (args[i - 1], "", arg)
    where = any(word in name.lower() for word in ("file", "path", "env", "var", "dir", "url", "cmd", "command"))
    pointer = value.startswith(("/", "./", "../", "~", "$", "%")) or os.path.exists(value)
    return bool(value) and not where and not pointer and value.lower() not in ("true", "false", "none", "null")


async def _hello_as(ctx: CheckContext, target: Target) -> Any:
    """The era's handshake on a fresh connection to `target` (the review's, with other credentials)."""
    async with ctx.probe(target) as p:
        return await p.hello(ctx.era, ctx.revision)


async def _unauthenticated(ctx: CheckContext) -> Any:
    """POST the handshake with no credentials at all, on a fresh connection."""
    headers = {k: v for k, v in ctx.target.headers.items() if k.lower() != "authorization"}
    return await _hello_as(ctx, ctx.target.with_(bearer=None, headers=headers))


@rule(
    "review.audience-validated",
    modes=("probe",),
    source=f"{SEED} Security: audience-validated",
    spec="2025-11-25 authorization (RFC 8707 / RFC 9068)",
    transport="http",
)
async def audience_validated(ctx: CheckContext) -> AsyncIterator[Finding]:
    """HTTP: a token issued for another resource gets 401.

    Why: a resource server that does not check a token's audience accepts tokens minted for any other
    service, so a token leaked from (or issued by) one server opens this one (RFC 8707, RFC 9068).
    What it checks: a made-up bearer token that no authorization server issued is sent with the handshake on a
    fresh connection: it must get 401. A server that accepts it validates no token at all, audiences
    included: that exchange is the proof. Then, if the reviewer supplied a real token minted for another
    resource (`foreign_token_env` in mcp-review.toml), it is sent and must get 401.
    Passes: both refused with 401. Fails: either accepted (2xx). Warns: refused with another status
    than 401 (the spec asks for 401). Blocking: no token for another resource supplied.
    Known false positives: none for the fail: a made-up token that gets a 2xx is accepted. A server
    meant to be public (no authorization at all) fails too; that is a decision to waive, with the reason.
    n/a on stdio.
    To verify when blocking: set foreign_token_env in mcp-review.toml to an environment variable holding a
    real token issued for another resource.
    """
    import secrets

    made_up = f"mcp-review-made-up-{secrets.token_hex(12)}"
    forged = await _hello_as(ctx, ctx.target.with_(bearer=made_up))
    silent = _no_answer(ctx, forged, "a made-up token")
    if silent is not None:
        yield silent
        return
    if forged.status < 300:
        yield ctx.fail(
            None,
            f"a made-up bearer token that no authorization server issued got HTTP {forged.status}: "
            "the server validates no token, so none for another resource is refused",
            [forged.seq],
        )
        return
    token = ctx.options.foreign_token
    refused = f"a made-up token got HTTP {forged.status}"
    if forged.status != 401:
        yield ctx.warn(None, f"{refused}, not 401 as the authorization spec asks", [forged.seq])
    if not token:
        yield ctx.blocking(
            None,
            f"{refused}; a real token issued for another resource would verify the audience check: "
            "set foreign_token_env in mcp-review.toml",
            [forged.seq],
        )
        return
    result = await _hello_as(ctx, ctx.target.with_(bearer=str(token)))
    silent = _no_answer(ctx, result, "a token for another resource")
    if silent is not None:
        yield silent
    elif result.status == 401:
        yield ctx.passed(None, "a token for another resource got 401", [result.seq])
    elif result.status is not None and result.status < 300:
        yield ctx.fail(None, f"a token for another resource got HTTP {result.status}", [result.seq])
    else:
        yield ctx.warn(None, f"a token for another resource got HTTP {result.status}, not 401", [result.seq])


@rule(
    "review.no-token-passthrough",
    modes=("manual",),
    source=f"{SEED} Security: no-token-passthrough",
    spec="2025-11-25 authorization",
    transport="http",
)
def no_token_passthrough(ctx: CheckContext) -> Iterator[Finding]:
    """HTTP: client tokens are never forwarded upstream.

    What it checks: manual only: nothing on the wire shows which token the server sends upstream; a reviewer reads
    the upstream calls in the source and attests. n/a on stdio.

    Why: seed 003 no-token-passthrough (MCP 2025-11-25 authorization): upstream calls use a token the server
    obtained as its own OAuth client; passing the client's token through is a confused-deputy exfiltration path,
    explicitly forbidden.

    Known false positives: none: the rule never fails by itself; only a reviewer's attestation decides.

    Passes: attested. Fails: a reviewer attests that tokens are passed through. Blocking: until attested.

    To verify when blocking: an [[attest]] entry for review.no-token-passthrough in mcp-review.toml (or the TUI),
    with a note naming what was read.
    """
    yield from ctx.manual("the server never forwards the client's token to upstream APIs.")


@rule(
    "review.resource-server-metadata",
    modes=("probe",),
    source=f"{SEED} Security: resource-server-metadata",
    spec="2025-06-18 / 2025-11-25 (RFC 9728)",
    transport="http",
)
async def resource_server_metadata(ctx: CheckContext) -> AsyncIterator[Finding]:
    """HTTP: RFC 9728 metadata is served, and a 401 carries `WWW-Authenticate` with `resource_metadata`.

    What it checks: probe, on fresh connections: the handshake without credentials must get 401 with
    `WWW-Authenticate: Bearer resource_metadata=...` (a `scope` hint is expected too); the metadata document (from
    the header when it names the target's origin, else /.well-known/oauth-protected-resource{path}, then the root)
    is fetched with GET and must be JSON with a non-empty `authorization_servers`. A `resource_metadata` on another
    origin is never fetched.

    Why: seed 003 resource-server-metadata (RFC 9728; MCP 2025-06-18 / 2025-11-25): clients find the authorization
    server through this document and the 401 challenge; without them a client cannot obtain a token the standard
    way.

    Known false positives: a server that is public on purpose (MCP makes authorization optional), or a loopback
    development server without authorization, fails with "no 401 challenge": that is seed 003's MUST for
    HTTP servers; waive it with the reason. A handshake that got no answer is blocking, not a fail.

    Passes: a 401 challenge with resource_metadata and a scope hint, and metadata with authorization_servers. Fails:
    no 401, no header, no document. Warns: no scope hint; metadata advertised on another origin but served at the
    target's well-known location. Blocking: the header names another origin and the target serves no metadata of its
    own. n/a on stdio.

    To verify when blocking: a reviewer fetches the document the header names (on its other origin), checks its
    `authorization_servers`, and waives the finding with a note; or the server also serves it at its own well-known
    location.
    """
    import re
    from urllib.parse import urlsplit

    from inspector.connection.egress import same_origin
    from inspector.untrusted import loads

    bare = await _unauthenticated(ctx)
    silent = _no_answer(ctx, bare, "a request without a token")
    if silent is not None:
        yield silent
        return
    if bare.status != 401:
        yield ctx.fail(
            None,
            f"no 401 challenge (HTTP {bare.status} without a token): no WWW-Authenticate to find the metadata by",
            [bare.seq],
        )
        return
    challenge = next(
        (
            e.http.get("response_headers", {})
            for e in reversed(ctx.wire.entries)
            if e.direction == "http" and e.http and e.http.get("status") == 401
        ),
        {},
    )
    header = next((v for k, v in challenge.items() if k.lower() == "www-authenticate"), "")
    match = re.search(r'resource_metadata="?([^",\s]+)', header)
    parts = urlsplit(ctx.target.url or "")
    advertised = match.group(1) if match else None
    elsewhere = advertised if advertised and not same_origin(advertised, ctx.target.url or "") else None
    candidates = [advertised] if advertised and not elsewhere else []
    candidates += [
        f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path.rstrip('/')}",
        f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource",
    ]
    doc, where, seq = None, "", None
    async with ctx.probe(ctx.target.with_(bearer=None)) as p:
        for url in candidates:
            ex = await p.http("GET", url, omit=["Content-Type"])
            seq = ex.exchange
            try:
                doc = loads(ex.body) if ex.status == 200 else None
            except ValueError:
                doc = None
            if isinstance(doc, dict):
                where = url
                break
    found = isinstance(doc, dict) and bool(doc.get("authorization_servers"))
    away = f"the 401's resource_metadata names another origin ({elsewhere}), which mcp-review does not fetch"
    if elsewhere and not found:
        yield ctx.blocking(None, f"{away}; none at the target's well-known location either", [bare.seq, seq])
        return
    problems = []
    if not match:
        problems.append("the 401 has no WWW-Authenticate resource_metadata")
    if not found:
        problems.append("no protected-resource metadata with authorization_servers")
    if problems:
        yield ctx.fail(None, "; ".join(problems), [bare.seq])
    elif elsewhere:
        yield ctx.warn(None, f"{away}; metadata is served at {where}", [bare.seq, seq])
    elif "scope=" not in header:
        yield ctx.warn(None, f"metadata served at {where}, but the 401 challenge has no scope hint", [bare.seq])
    else:
        yield ctx.passed(None, f"401 challenge and metadata at {where} with authorization_servers", [bare.seq, seq])


@rule("review.rug-pull-mitigation", modes=("observe", "baseline"), source=f"{SEED} Security: rug-pull-mitigation")
async def rug_pull(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Tool definitions are stable within a session and against a pinned baseline, or version-bumped.

    What it checks: observe: `tools/list` is asked again at the end of the run and every definition's canonical hash
    (name + description + schemas + annotations, the whole wire object) compared with the first listing; tools added
    or removed are not judged, and a `notifications/tools/list_changed` during the run does not excuse a change.
    baseline: with `--baseline FILE`, hashes are compared with the pinned ones: a changed definition under the same
    server version (serverInfo.version) fails (silently edited); a new version passes with the changes listed.

    Why: seed 003 rug-pull-mitigation: a server can change a tool's description or schema after the user approved
    it; approvals bound to a hash of the definition only protect users if definitions are stable or version-bumped.

    Known false positives: the hash comparison is exact; the reading "silently edited" may be wrong. A server whose
    definitions follow its state or configuration (a description that counts stored items, tools shaped by
    environment or allowed directories) fails within a session even when it announced the change with list_changed,
    and fails against a baseline when its configuration changed but its version did not; a server that never changes
    its reported version fails any edit. Waive with the reason.

    Passes: stable within the session and equal to the baseline, a new version with its changes listed, or the first
    run that pins the baseline. Fails: a definition changed within one session, or since the baseline without a
    version bump. Blocking: no baseline pinned (the first `--baseline` run writes one).

    To verify when blocking: run with `--baseline FILE` (the first run pins the definitions; later runs compare
    against them).
    """
    first = {t.name: definition_hash(t.raw) for t in _tools(ctx)}
    spec = next(s for s in CATALOG_LISTS if s.kind == "tool")
    again = await list_all(ctx.session, spec)
    later = {t.name: definition_hash(t.raw) for t in again if t.name}
    changed = sorted(n for n in first if n in later and later[n] != first[n])
    seqs = again.seqs[:1]
    if changed:
        yield ctx.fail(None, f"definitions changed within one session: {', '.join(changed[:10])}", seqs)
        return
    baseline = ctx.pinned
    if ctx.pin_to:
        yield ctx.passed(
            None, f"stable within this session; pinned {len(first)} definitions to {ctx.pin_to} (first run)", seqs
        )
        return
    if not isinstance(baseline, dict):
        yield ctx.blocking(
            None,
            "stable within this session; no baseline pinned to compare versions: run with "
            "--baseline FILE (the first run pins it)",
            seqs,
        )
        return
    pinned: dict[str, str] = baseline.get("tools", {})
    edited = sorted(n for n in first if n in pinned and pinned[n] != first[n])
    same_version = baseline.get("version") == ctx.snapshot.server_version
    if edited and same_version:
        yield ctx.fail(
            None,
            f"changed since the baseline without a version bump ({ctx.snapshot.server_version}): "
            f"{', '.join(edited[:10])}",
            seqs,
        )
    elif edited:
        yield ctx.passed(
            None,
            f"version bumped {baseline.get('version')} -> {ctx.snapshot.server_version}; changed: "
            f"{', '.join(edited[:10])}",
            seqs,
        )
    else:
        yield ctx.passed(None, f"every definition matches the baseline ({len(pinned)} pinned)", seqs)


@rule(
    "review.transport-config",
    modes=("static", "probe"),
    source=f"{SEED} Security: transport-config",
    spec="2025-11-25 authorization",
)
async def transport_config(ctx: CheckContext) -> AsyncIterator[Finding]:
    """stdio: credentials come from the environment; HTTP: HTTPS, a bearer on every request, none in the query.

    What it checks: stdio (static): the launch command's arguments must not carry credentials (`--token X`,
    `password=...`: an argument containing token, secret, password, passwd, api-key, apikey, api_key or credential,
    with `=` or followed by a value). HTTP (probe, fresh connections): the URL must be https (plain http on a
    loopback address warns); a request without the bearer must get 401; with a bearer configured, a request with the
    token in the query string (`access_token=`) instead of the header must get 401.

    Why: seed 003 transport-config (MCP 2025-11-25 authorization): command-line arguments are readable by every
    local process and land in logs, so stdio credentials come from the environment; plain HTTP exposes bearer
    tokens; a token in a query string leaks through logs, history and Referer headers.

    Known false positives: a server that is public on purpose fails ("a request without Authorization was
    accepted"): that is seed 003's MUST for HTTP servers; waive it with the reason. Only 127.0.0.1, localhost
    and ::1 count as loopback: plain http on 127.0.0.2 or a LAN address fails. Not flagged as fails: an
    argument named like a credential that holds a path or a variable (`--token-file PATH`,
    `--api-key-env VAR`, `--token=$TOKEN`) only warns; a refusal with another status than 401 warns; a
    probe that got no answer is blocking.

    Passes: no credentials on the command line (stdio); HTTPS, 401 without a bearer, query-string token refused
    (HTTP). Fails: a credential in the arguments, a non-local plain-HTTP URL, a request accepted (2xx) without the
    header or with a query-string token. Warns: plain HTTP on a loopback address; a refusal that is not 401; an
    argument named like a credential holding a path or variable. Blocking: a probe got no answer.

    To verify when blocking: a longer --timeout, on a server that answers.
    """
    if not ctx.is_http:
        named = secret_arg_positions(ctx.target.args)
        leaks = [i for i in named if _credential_value(ctx.target.args, i)]
        conn = ctx.session.channel.conn if ctx.session.channel else None
        started = next((e.seq for e in ctx.wire.entries if e.direction == "note" and e.conn == conn), None)
        shown = ", ".join(masked_args(ctx.target.args)[i] for i in (leaks or named)[:3])
        if leaks:
            yield ctx.fail(
                None, f"credentials passed as command-line arguments ({shown}): use the environment", [started]
            )
        elif named:
            yield ctx.warn(
                None,
                f"arguments named like credentials ({shown}) hold a path or a variable, not a secret: "
                "check they do not carry one",
                [started],
            )
        else:
            yield ctx.passed(None, "no credentials on the command line (stdio takes them from the environment)")
        return
    from urllib.parse import urlsplit

    parts = urlsplit(ctx.target.url or "")
    local = parts.hostname in ("127.0.0.1", "localhost", "::1")
    if parts.scheme != "https" and not local:
        yield ctx.fail(None, f"served over {parts.scheme}, not HTTPS")
        return
    bare = await _unauthenticated(ctx)
    silent = _no_answer(ctx, bare, "a request without Authorization")
    if silent is not None:
        yield silent
        return
    if bare.status < 300:
        yield ctx.fail(None, f"a request without Authorization was accepted (HTTP {bare.status})", [bare.seq])
        return
    refusal = "401" if bare.status == 401 else f"HTTP {bare.status} (the spec asks for 401)"
    if ctx.target.bearer:
        sep = "&" if parts.query else "?"
        leaky = ctx.target.with_(bearer=None, url=f"{ctx.target.url}{sep}access_token={ctx.target.bearer}")
        got = await _hello_as(ctx, leaky)
        silent = _no_answer(ctx, got, "the token in the query string")
        if silent is not None:
            yield silent
            return
        if got.status < 300:
            yield ctx.fail(None, f"a token in the query string was accepted (HTTP {got.status})", [got.seq])
            return
    message = f"{refusal} without a bearer" + ("; query-string token refused" if ctx.target.bearer else "")
    if bare.status != 401:
        yield ctx.warn(None, message, [bare.seq])
        return
    yield (
        ctx.warn(None, f"plain HTTP on a loopback address; {message}")
        if parts.scheme != "https"
        else (ctx.passed(None, f"HTTPS; {message}"))
    )


@rule(
    "review.same-origin",
    modes=("observe",),
    source=f"{SEED} Security: transport-config",
    spec="2024-11-05 HTTP+SSE endpoint; the mcp SDK refuses another origin",
    transport="http",
    needs_server=False,
)
def same_origin(ctx: CheckContext) -> Iterator[Finding]:
    """HTTP: every URL the server sends the client to stays on the origin the reviewer named.

    What it checks: observe: every request mcp-review refused during the review (the main connection and every
    probe), with the wire entry that names the URL. mcp-review sends nothing to any origin but the target's, so it
    refuses such a request and records it (the official `mcp` SDK's SSE client refuses such an endpoint too).

    Why: seed 003 transport-config: a client sends its credentials where the server tells it to. An SSE `endpoint`
    event that names another host makes a client POST every message, bearer token included, to that host; a redirect
    to another origin does the same for clients that follow redirects.

    Known false positives: a deployment that really serves its message endpoint from another host (a separate API
    domain) is flagged; waive it with the reason if that host is trusted.

    Passes: nothing pointed elsewhere. Fails: an SSE endpoint on another origin. Warns: a redirect to another origin
    (a redirect is allowed by HTTP; following it with credentials is the risk). n/a on stdio.
    """
    refused = ctx.wire.refusals
    if not refused:
        yield ctx.passed(None, "every request stayed on the target's origin")
        return
    described = "; ".join(f"{r.what} to {r.url[:120]}" for r in refused[:5])
    seqs = [r.seq for r in refused]
    if any(r.what == "endpoint" for r in refused):
        yield ctx.fail(None, f"the server sent the client to another origin (refused): {described}", seqs)
    else:
        yield ctx.warn(None, f"the server pointed the client to another origin (not followed): {described}", seqs)
