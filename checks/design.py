"""Pack `design`: MCP tool development guidelines (seed 001_62f5a2c2865d19aa.txt).

Its model: `object.operation` names with short verbs, one parameter named `input` typed by an input
model whose every field has a description and examples, minimal flat outputs in an `{ok, result,
issues}` envelope.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

from mcp_review.calls import CallRecord
from mcp_review.catalog import Item
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.rules.proof import refused
from mcp_review.rules.util import input_schema, properties

SEED = "001"
OBJECT_OPERATION = re.compile(r"^([a-z][a-z0-9_]*)\.([a-z][a-z0-9_]*)$")
VAGUE = {"run", "do", "process", "handle", "execute", "manage", "perform", "misc", "util"}
WHEN = re.compile(r"\b(when|use (this|it) (to|for)|for (finding|getting|creating))\b", re.I)
TIME_KEY = re.compile(r"(date|time|_at)$|^(created|updated|modified|timestamp)", re.I)


def _tools(ctx: CheckContext) -> list[Item]:
    return [t for t in ctx.snapshot.tools if t.name]


@rule(
    "design.object-operation-names",
    concern="conventions",
    severity="low",
    modes=("static",),
    source=f"{SEED} Naming rules & best practices",
)
def object_operation_names(ctx: CheckContext) -> Iterator[Finding]:
    """Names follow `object.operation` with a short verb; no vague verbs, no flags in names.

    What it checks: static: each tool name against `object.operation` (lower-case letters, digits and underscores,
    one dot); the operation against vague verbs (run, do, process, handle, execute, manage, perform, misc, util) and
    against `_and_` / `_with_` (options encoded in the name).

    Why: seed 001 Naming rules: `object.operation` names map onto the noun-verb ontology models already know, group
    related tools, and leave room for new operations; vague verbs and flags in names hide what the tool does.

    Known false positives: the pattern is seed 001's convention, stricter than MCP: `task.get-by-id`, `Task.create`
    or `workspace.list.search` fail. `execute` counts as vague even where it is specific (`query.execute`), and
    `_with_` flags an operation like `starts_with`. Select this pack only for servers that follow seed 001.

    Passes: `task.create`, `list.search`. Fails: `create_task` (not object.operation), `task.run` (vague verb),
    `task.create_and_assign` (a flag in the name).
    """
    for tool in _tools(ctx):
        name = tool.name or ""
        match = OBJECT_OPERATION.match(name)
        if not match:
            yield ctx.fail(tool, f"{name!r} is not object.operation (e.g. task.create)")
        elif match.group(2) in VAGUE:
            yield ctx.fail(tool, f"vague verb {match.group(2)!r}: say what it does (create, get, search, ...)")
        elif "_and_" in match.group(2) or "_with_" in match.group(2):
            yield ctx.fail(tool, f"{match.group(2)!r} encodes options in the name: put them in the input schema")
        else:
            yield ctx.passed(tool, "object.operation with a short verb")


def _input_model(tool: Item) -> dict[str, Any] | None:
    """The schema of the single `input` parameter, if the tool follows the one-arg rule."""
    props = properties(input_schema(tool))
    if list(props) != ["input"]:
        return None
    model = props["input"]
    ref = model.get("$ref")
    if isinstance(ref, str):
        defs = (input_schema(tool) or {}).get("$defs") or (input_schema(tool) or {}).get("definitions") or {}
        model = defs.get(ref.rsplit("/", 1)[-1], model)
    return model if isinstance(model, dict) else None


@rule(
    "design.one-arg-input",
    concern="conventions",
    severity="low",
    modes=("static",),
    source=f"{SEED} Single-parameter input model (one-arg rule)",
)
def one_arg_input(ctx: CheckContext) -> Iterator[Finding]:
    """Each tool takes exactly one parameter, `input`, typed by its input model (an object schema).

    What it checks: static: the inputSchema's properties must be exactly one, `input`, whose schema (following a
    local `$ref` into `$defs` or `definitions`) is an object or has properties.

    Why: seed 001 one-arg rule: a single input model lets the model learn valid fields in one place and centralizes
    validation and docs.

    Known false positives: none for the shape; it is seed 001's convention: a tool with no arguments still needs
    `input` (the seed's EmptyInput), and a server not built on it fails every tool. An `input` whose `$ref` points
    elsewhere than `#/$defs/Name` or `#/definitions/Name` is not resolved and fails as not an object.

    Passes: one `input` object. Fails: several top-level parameters, or one not named `input`, or an `input` that is
    not an object.
    """
    for tool in _tools(ctx):
        props = list(properties(input_schema(tool)))
        model = _input_model(tool)
        if model is None:
            yield ctx.fail(tool, f"parameters {props} instead of one `input`")
        elif model.get("type") != "object" and not properties(model):
            yield ctx.fail(tool, "`input` is not an object model")
        else:
            yield ctx.passed(tool, "one `input` object")


def _fields(tool: Item) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    model = _input_model(tool) or input_schema(tool) or {}
    return model, properties(model)


@rule(
    "design.field-docs",
    concern="conventions",
    severity="low",
    modes=("static",),
    source=f"{SEED} Input model development guidelines",
)
def field_docs(ctx: CheckContext) -> Iterator[Finding]:
    """Every input field has a description and examples; the model has a model-level example.

    What it checks: static: the fields of the input model (the `input` object when the tool follows the one-arg
    rule, else the top-level properties) must each have `description` and `examples` (or `example`), and the model
    must have `examples`.

    Why: seed 001 input model guidelines: field descriptions and examples are required on all input fields; a
    model-level example gives UIs and models a copy-pastable payload.

    Known false positives: none for the shape: a field documented only in the tool's description fails, and an
    example placed on the inputSchema instead of the `input` model is not found. The fields of nested objects are
    not read.

    Passes: every field and the model documented. Fails: a field without `description` or `examples`, or a model
    without `examples` (listed). n/a for a tool that takes nothing.
    """
    for tool in _tools(ctx):
        model, fields = _fields(tool)
        if not fields:
            yield ctx.na(tool, "takes no input fields")
            continue
        missing = [f"{n}: description" for n, s in fields.items() if not s.get("description")]
        missing += [f"{n}: examples" for n, s in fields.items() if not s.get("examples") and "example" not in s]
        if not model.get("examples"):
            missing.append("model: examples")
        yield ctx.fail(tool, "missing " + ", ".join(missing[:8])) if missing else ctx.passed(tool, "documented")


@rule(
    "design.constraints",
    concern="conventions",
    severity="low",
    modes=("static",),
    source=f"{SEED} Input model development guidelines: constrain types",
)
def constraints(ctx: CheckContext) -> Iterator[Finding]:
    """Finite sets are enums; strings and numbers are bounded.

    What it checks: static: the input model's fields (as design.field-docs reads them): a string field with no
    maxLength, enum, pattern, format or const; a number with no minimum, maximum, exclusive bound or enum.

    Why: seed 001 input model guidelines: enums, lengths and bounds narrow ambiguity for the model and let the
    server validate early.

    Known false positives: it only warns. Free text with no natural bound (a note body) warns. Fields typed through
    `anyOf` (pydantic's `Optional[str]`) are not inspected: missed, not flagged.

    Passes: every string and number bounded. Warns: a string field with no maxLength, enum, pattern or format; a
    number with no minimum or maximum (listed). n/a for a tool that takes nothing.
    """
    for tool in _tools(ctx):
        _, fields = _fields(tool)
        if not fields:
            yield ctx.na(tool, "takes no input fields")
            continue
        loose = [
            n
            for n, s in fields.items()
            if s.get("type") == "string"
            and not any(k in s for k in ("maxLength", "enum", "pattern", "format", "const"))
        ]
        loose += [
            n
            for n, s in fields.items()
            if s.get("type") in ("integer", "number")
            and not any(k in s for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum"))
        ]
        yield ctx.warn(tool, f"unbounded: {', '.join(loose[:8])}") if loose else ctx.passed(tool, "bounded")


@rule(
    "design.title-metadata",
    concern="conventions",
    severity="low",
    modes=("static",),
    source=f"{SEED} Principles: descriptive title and description",
)
def title_metadata(ctx: CheckContext) -> Iterator[Finding]:
    """Every tool has a title and a description whose first sentence says when to use it.

    What it checks: static: `title` (or `annotations.title`) and `description` of each tool; the description's first
    sentence (up to the first . ! or ?) is matched against "when", "use this/it to/for", "for
    finding/getting/creating".

    Why: seed 001 Principles: descriptive title and description metadata for each tool; the first sentence should
    say when to use the tool.

    Known false positives: the fails (no title, no description) are exact. The "when to use" test is a phrase match
    and only warns: "Search notes by tag." warns though its use is plain, and any "when" in the first sentence
    passes. The seed's "provider named first" is not checked.

    Passes: a title, and a first sentence that says when to use it. Fails: no title (`title` or
    `annotations.title`), or no description. Warns: a first sentence that never says when to use the tool.
    """
    for tool in _tools(ctx):
        ann = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
        title = tool.get("title") or ann.get("title")
        description = (tool.description or "").strip()
        first = re.split(r"(?<=[.!?])\s", description, maxsplit=1)[0]
        if not title or not description:
            yield ctx.fail(
                tool, "no " + " and no ".join(w for w, v in (("title", title), ("description", description)) if not v)
            )
        elif not WHEN.search(first):
            yield ctx.warn(tool, f"the first sentence does not say when to use it: {first[:100]!r}")
        else:
            yield ctx.passed(tool, "title, and a first sentence that says when to use it")


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return max((_depth(v) for v in value), default=0)
    return 0


def _time_strings(value: Any, path: str = "") -> list[str]:
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, str) and TIME_KEY.search(k) and not k.endswith("_ms"):
                out.append(f"{path}{k}")
            out += _time_strings(v, f"{path}{k}.")
    elif isinstance(value, list):
        for v in value[:50]:
            out += _time_strings(v, path)
    return out


@rule(
    "design.lean-output",
    concern="conventions",
    severity="low",
    modes=("call",),
    source=f"{SEED} Output model development guidelines",
)
def lean_output(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Outputs are flat and minimal; times are `_ms` epochs; rows are identified by `id`/`name`/`url`.

    What it checks: call: each callable tool's sample result JSON: nesting depth, string values under keys that look
    like times (ending in date, time or _at; starting with created, updated, modified or timestamp; not `_ms`), and
    `items` rows with none of id, name or url.

    Why: seed 001 Output model guidelines: token-lean, flat outputs with `id`/`name`/`url` identifiers and
    epoch-millisecond `_ms` times cost fewer tokens and change less.

    Known false positives: it only warns. The time test reads key names: `runtime: "python3.12"` or `created_by:
    "ana"` warn. A result that is not JSON warns as having nothing to judge.

    Passes: lean. Warns: JSON nested deeper than 4 levels, time fields as strings instead of `*_ms` numbers, rows
    with none of id/name/url, no JSON result. Blocking: tools that may not be called.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and openWorldHint: false),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """

    def judge(tool: Item, record: CallRecord, data: Any) -> Finding:
        if data is None:
            return ctx.warn(tool, f"no JSON result to judge ({record.outcome})", [record.seq])
        problems = []
        if _depth(data) > 4:
            problems.append(f"nested {_depth(data)} levels deep")
        problems += [f"{p} is a time string (use {p.rsplit('.', 1)[-1]}_ms)" for p in _time_strings(data)[:3]]
        rows = data.get("items") if isinstance(data, dict) and isinstance(data.get("items"), list) else None
        if rows and all(isinstance(r, dict) and not {"id", "name", "url"} & set(r) for r in rows):
            problems.append("rows have no id, name or url")
        return ctx.warn(tool, "; ".join(problems), [record.seq]) if problems else ctx.passed(tool, "lean", [record.seq])

    return ctx.samples("the output shape", judge)


@rule(
    "design.envelope", concern="conventions", severity="low", modes=("call",), source=f"{SEED} Unified output envelope"
)
def envelope(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Results use the `{ok, result, issues}` envelope.

    What it checks: call: each callable tool's sample result (structuredContent, else the first text block as JSON)
    must be a JSON object with a boolean `ok`, a `result` and an `issues` array.

    Why: seed 001 Unified output envelope: every tool returns `{ok, result, issues}`, failures included (`ok: false`
    with issues), so models and humans read one shape.

    Known false positives: a sample call that failed is judged as well (seed 001 wants failures in the envelope
    too), so a correct tool that refuses the generated arguments with a JSON-RPC error fails; a call that timed out
    has no result at all and fails. A server not built on seed 001 fails every tool.

    Passes: `{ok, result, issues}`. Fails: a result or failure without the envelope. Blocking: tools that may not be
    called.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and openWorldHint: false),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml.
    """

    def judge(tool: Item, record: CallRecord, data: Any) -> Finding:
        ok = isinstance(data, dict) and isinstance(data.get("ok"), bool) and "result" in data
        if ok and isinstance(data.get("issues"), list):
            return ctx.passed(tool, "{ok, result, issues}", [record.seq])
        state = "failed" if refused(record) else "returned"
        return ctx.fail(tool, f"{state} without the {{ok, result, issues}} envelope", [record.seq])

    return ctx.samples("the result envelope", judge, refusals=True)
