"""Pack `review` (seed 003): tool contracts: structured results, the error channel, behaviour annotations."""

from __future__ import annotations

import re
import secrets
from collections.abc import AsyncIterator, Iterator

from mcp_review.calls import tool_annotations
from mcp_review.catalog import Item
from mcp_review.checks.review.common import HINTS, SEED, named_tools
from mcp_review.review import STATUSES, Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.rules.proof import outcome
from mcp_review.rules.util import (
    DESTROY_WORDS,
    WRITE_WORDS,
    Json,
    acts_outward,
    invalid_arguments,
    missing_lookup,
    result_json,
    result_text,
    words,
)


@rule(
    "review.output-schema-and-structured",
    concern="contract",
    severity="medium",
    modes=("static", "call"),
    source=f"{SEED} Tool contracts: output-schema-and-structured",
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

    Spec: 2025-06-18 (structured content)

    Known false positives: the fails are exact for the one generated call (a non-object outputSchema, no
    structuredContent, a schema violation at a JSON path). The call is made with the values the tool's text offers
    until one is accepted; a tool that refuses them all (an error, `isError`, or a refusal in plain text:
    `rules.proof`) shows no result to compare and is blocking, never judged. A tool that returns JSON text on
    purpose without an outputSchema warns: the seed's SHOULD.

    Passes: structuredContent conforms and a text block mirrors it, or unstructured content without an outputSchema.
    Fails: an outputSchema that is not an object schema, a result without structuredContent, structuredContent that
    violates the outputSchema. Warns: JSON text without an outputSchema, no text block carrying the same JSON.
    Blocking: a tool with an outputSchema that may not be called (`--calls read-only` or consent), a call with no
    answer, and a tool that refused every call.

    n/a before 2025-06-18 (no structured output). Validation is offline: an outputSchema that refers to a remote
    schema, or whose $refs form a cycle, leaves the result unverified (blocking), never fetched.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and openWorldHint: false),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml. An outputSchema with remote or cyclic $refs cannot be checked offline: the reviewer checks the
    result by hand and waives the finding with a note.
    """
    from mcp_review.localschema import validate

    if not ctx.revision_at_least("2025-06-18"):
        yield ctx.na(None, f"structured output arrived in 2025-06-18; this server speaks {ctx.revision}")
        return
    for tool in named_tools(ctx):
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
        what = "whether structuredContent conforms"
        made = await ctx.answers(tool, what)
        if isinstance(made, Finding):
            yield made
            continue
        record = made[-1]
        result = record.result if isinstance(record.result, dict) else None
        if result is None or not outcome(record).accepted:
            yield ctx.refused(tool, what, made)
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
    concern="contract",
    severity="medium",
    modes=("probe", "call"),
    source=f"{SEED} Tool contracts: error-channel-correct",
)
async def error_channel(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Execution failures come back as `isError: true`; unknown tools and malformed requests as JSON-RPC errors.

    What it checks: probe: `tools/call` for a tool that does not exist, and a `tools/call` without `name`, on the
    review's session (neither can execute anything). call: each callable tool with constrained arguments gets one
    schema-invalid argument object (the first of: a wrong type for the first required property, that property
    missing, an unknown field under `additionalProperties: false`). And each lookup (a tool named with a reading
    verb such as get, read, fetch, show, and none that writes, with a required string parameter that names a thing:
    `note_id`, `name`, `path`, or a description saying "id") gets schema-valid arguments naming something that does
    not exist (`mcpr-missing-<random hex>`, a random UUID for `format: uuid`): an ordinary tool failure.

    Why: seed 003 error-channel-correct (it pins MCP 2025-06-18 for tools): execution failures MUST reach the model
    as `isError: true` so it can react; protocol failures (unknown tool, malformed arguments) MUST be JSON-RPC
    errors; a reviewer MUST reject a server that raises protocol errors for ordinary tool failures. Where the spec
    differs, the finding cites both: every revision lists unknown tools under protocol errors (-32602 as its
    example, without a MUST; the python and TypeScript SDKs answer `isError`), and MCP's CallToolResult (2025-06-18
    on) says errors from the tool SHOULD be `isError` results. Up to 2025-06-18 the spec lists invalid arguments
    as protocol errors too; from 2025-11-25 (SEP-1303) they are tool-execution errors (`isError: true`).

    Spec: 2025-06-18 / 2025-11-25 (SEP-1303: invalid arguments became tool-execution errors)

    Known false positives: an unknown tool refused with `isError: true` fails, as the seed says, though the SDKs do
    it and the spec has no MUST: waive it with that reason if the seed's line is not yours. A lookup whose server
    checks an id format its schema never declared may call the missing value invalid (-32602) and fail; a tool
    whose words look like a lookup but that creates what it is given would create `mcpr-missing-...` (a tool whose
    name has a writing verb is never probed). Invalid arguments are checked against the tool's own schema before
    they are sent (a value the schema admits is never used as "invalid"), the missing value too (one the schema
    refuses is never sent), and a call that got no answer is blocking, never a silent success. The warn for a
    swallowed failure is a word match: a result that rightly carries "error" or "unknown" (a log line) warns.

    Passes: JSON-RPC errors for the unknown tool and the nameless call; invalid arguments answered as a JSON-RPC
    error, or from 2025-11-25 with `isError` (both cite seed and spec); a missing thing answered with `isError:
    true`, or as a success (a lookup may rightly find nothing: no proof of a swallowed error, said so). Fails: an
    unknown tool answered as a success or with `isError: true`, a nameless call not rejected as a JSON-RPC error,
    invalid arguments accepted as a success, or refused with `isError` up to 2025-06-18, a missing thing answered
    with a JSON-RPC error. Warns: a missing thing answered as a success whose text says it failed ("not found",
    "no such", "error"...) without `isError`. Blocking: the call parts for tools that may not be called, or a call
    that got no answer.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and openWorldHint: false),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """
    reply = await ctx.gate.unlisted({"name": "mcp_review_no_such_tool", "arguments": {}})
    if reply.error is not None:
        yield ctx.passed(None, f"unknown tool -> JSON-RPC error {reply.error.get('code')}", [reply.seq])
    elif isinstance(reply.result, dict) and reply.result.get("isError") is True:
        yield ctx.fail(
            None,
            f"unknown tool answered as a tool result with isError: true: seed 003 says protocol failures (unknown "
            f"tool) MUST be JSON-RPC errors; MCP {ctx.revision} lists unknown tools under protocol errors too "
            "(-32602 as its example, no MUST of its own)",
            [reply.seq],
        )
    else:
        yield ctx.fail(None, "calling a tool that does not exist succeeded", [reply.seq])
    reply = await ctx.gate.unlisted({"arguments": {}})
    if reply.error is not None:
        yield ctx.passed(
            "tools/call without name", f"malformed request -> JSON-RPC error {reply.error.get('code')}", [reply.seq]
        )
    else:
        yield ctx.fail(
            "tools/call without name", "a tools/call without a name was not rejected as a JSON-RPC error", [reply.seq]
        )
    missing = f"mcpr-missing-{secrets.token_hex(4)}"
    for tool in named_tools(ctx):
        good = ctx.arguments(tool)
        invalid, lookup = next(invalid_arguments(tool, good), None), missing_lookup(tool, missing, good)
        asks = [what for what, case in (("invalid arguments", invalid), ("a missing thing", lookup)) if case]
        if not asks:
            continue
        if ctx.may_call(tool) is not None:
            yield ctx.blocking_call(tool, f"how {' and '.join(asks)} are answered")
            continue
        parts = [] if invalid is None else [await _invalid(ctx, tool, *invalid)]
        parts += [] if lookup is None else [await _lookup(ctx, tool, *lookup)]
        yield _joined(ctx, tool, parts)


async def _invalid(ctx: CheckContext, tool: Item, what: str, args: Json) -> Finding:
    """How one schema-invalid argument object is answered: the seed wants a JSON-RPC error, and so does MCP up to
    2025-06-18; 2025-11-25 (SEP-1303) makes it an isError result, which passes citing both."""
    record = await ctx.try_call(tool, args, "how invalid arguments are answered", share="refusal")
    if isinstance(record, Finding):
        return record
    said = f"invalid arguments ({what}) -> {record.outcome}"
    seed = "seed 003 (pinned to MCP 2025-06-18) says malformed arguments MUST be JSON-RPC errors"
    sep = f"MCP {ctx.revision} makes input validation errors isError results (SEP-1303)"
    got = outcome(record)
    if got.accepted:
        return ctx.fail(tool, f"accepted invalid arguments ({what}) as a success", [record.seq])
    if got.channel == "text":
        return ctx.fail(
            tool,
            f"refused invalid arguments ({what}) only in plain text ({got.quote()}), as a success: {seed}, and "
            "a client reads a success as one",
            [record.seq],
        )
    if record.error is not None:
        note = f"; {sep}" if ctx.revision_at_least("2025-11-25") else ""
        return ctx.passed(tool, f"{said}, as seed 003 says{note}", [record.seq])
    if ctx.revision_at_least("2025-11-25"):
        return ctx.passed(tool, f"{said}, as {sep}; {seed}", [record.seq])
    return ctx.fail(
        tool, f"{said}: {seed}, and MCP {ctx.revision} lists invalid arguments as protocol errors", [record.seq]
    )


SENT = "<the value sent>"  # what the missing value is replaced with before a result's text is read
NOT_FOUND = re.compile(
    r"not found|no such|do(?:es)?(?: not|n't) exist|(?:could|can)(?: ?not|n't) find|unknown|\berror\b|"
    rf"\bno \w+ (?:with|named|called|for|matching|found|['\"]?{SENT})",
    re.I,
)


async def _lookup(ctx: CheckContext, tool: Item, param: str, args: Json) -> Finding:
    """How a lookup of something that does not exist is answered: an ordinary tool failure, so isError."""
    sent = args[param]
    record = await ctx.try_call(tool, args, "how a lookup of something missing is answered")
    if isinstance(record, Finding):
        return record
    asked = f"a lookup of {param} = {sent!r} (which does not exist)"
    if record.error is not None:
        said = f"JSON-RPC error {record.error.get('code')} ({str(record.error.get('message'))[:80]!r})"
        return ctx.fail(
            tool,
            f"{asked} raised {said}: an ordinary tool failure raised as a protocol error, which seed 003 says a "
            "reviewer MUST reject; MCP's CallToolResult (2025-06-18 on) says errors from the tool SHOULD be isError "
            "results, so the model can see them",
            [record.seq],
        )
    if record.is_error:
        return ctx.passed(tool, f"{asked} -> isError: true", [record.seq])
    text = result_text(record.result).replace(sent, SENT)
    hit = NOT_FOUND.search(text)
    if hit:
        quote = text[max(hit.start() - 30, 0) : hit.end() + 30]
        return ctx.warn(
            tool,
            f"{asked} was answered as a success that says {quote!r}, without isError: seed 003 says execution "
            "failures MUST be isError results; a call that rightly found nothing would say so without failing",
            [record.seq],
        )
    return ctx.passed(
        tool,
        f"{asked} -> a success without isError and no word of a failure: no protocol error; a lookup may rightly "
        "find nothing, so this proves no swallowed error",
        [record.seq],
    )


def _joined(ctx: CheckContext, tool: Item, parts: list[Finding]) -> Finding:
    """One finding per tool: the worst status of its parts, their messages (the worst first) and evidence."""
    if len(parts) == 1:
        return parts[0]
    parts = sorted(parts, key=lambda p: STATUSES.index(p.status))
    status = parts[0].status
    make = {"fail": ctx.fail, "blocking": ctx.blocking, "warn": ctx.warn, "pass": ctx.passed}[status]
    return make(tool, "; ".join(p.message for p in parts), list(dict.fromkeys(s for p in parts for s in p.evidence)))


@rule(
    "review.annotations-set",
    concern="contract",
    severity="medium",
    modes=("static",),
    source=f"{SEED} Tool contracts: annotations-set",
)
def annotations_set(ctx: CheckContext) -> Iterator[Finding]:
    """Each tool sets readOnlyHint, destructiveHint, idempotentHint and openWorldHint, plausibly.

    What it checks: static: each tool's `annotations` as listed; its name (split into words) and description are
    matched against word lists of writing and destroying verbs. A tool with no annotations whose name or description
    opens with an outbound or destructive verb (send, post, email, publish, transfer, delete) is named as such: by
    MCP's defaults it is destructive and open-world, and nothing in its listing says it confirms
    (`tokens.destructive-elicitation` calls it to see whether it asks).

    Why: seed 003 annotations-set (MCP 2025-03-26): a missing hint reads as its default (not read-only, destructive,
    open-world), and a wrong one misleads every client that asks for consent by it. The hints are advisory, so the
    rule judges their honesty, not enforcement.

    Spec: 2025-03-26 (tool annotations)

    Known false positives: none for the fail: readOnlyHint and destructiveHint both true contradict each other (the
    spec reads destructiveHint only when a tool is not read-only). The plausibility warnings are word matches: a
    read-only `list_settings` or `get_dataset_updates` warns ("set", "updat" in its name), and a formatter whose
    description says it "removes whitespace" warns when marked destructiveHint: false. A read-only tool whose
    description (not its name) mentions writing does not warn.

    Passes: all four set and consistent with the name and description. Fails: readOnlyHint and destructiveHint both
    true. Warns: a hint missing (an outbound action with no annotations says so); a read-only tool whose name says it
    deletes, creates or sends; a deleting tool not marked destructive.
    """
    for tool in named_tools(ctx):
        ann = tool_annotations(tool.raw)
        text = f"{' '.join(words(tool.name or ''))} {tool.description or ''}"
        if ann.get("readOnlyHint") is True and ann.get("destructiveHint") is True:
            yield ctx.fail(tool, "readOnlyHint and destructiveHint are both true")
            continue
        problems = [f"{h} not set" for h in HINTS if not isinstance(ann.get(h), bool)]
        verb = acts_outward(tool)
        if verb and not any(isinstance(ann.get(h), bool) for h in HINTS):
            problems.insert(
                0,
                f"an outbound or destructive action ({verb!r}) with no annotations: destructive and "
                "open-world by MCP's defaults, and nothing says it asks for confirmation",
            )
        if ann.get("readOnlyHint") is True and WRITE_WORDS.search(" ".join(words(tool.name or ""))):
            problems.append("marked read-only but its name says it changes something")
        if ann.get("readOnlyHint") is not True and ann.get("destructiveHint") is False and DESTROY_WORDS.search(text):
            problems.append("deletes or overwrites, yet destructiveHint is false")
        yield ctx.warn(tool, "; ".join(problems)) if problems else ctx.passed(tool, "all four hints set, plausibly")
