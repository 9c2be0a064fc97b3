"""Helpers rules share: schema walking, argument generation for probe calls, result reading."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

from mcp_review.catalog import Item
from mcp_review.untrusted import loads

Json = dict[str, Any]
TYPED_KEYS = ("type", "$ref", "enum", "const", "anyOf", "oneOf", "allOf")
VERBS = {
    "get",
    "list",
    "search",
    "find",
    "query",
    "read",
    "fetch",
    "create",
    "add",
    "insert",
    "update",
    "edit",
    "set",
    "delete",
    "remove",
    "write",
    "send",
    "post",
    "run",
    "execute",
    "start",
    "stop",
    "cancel",
    "convert",
    "export",
    "import",
    "upload",
    "download",
    "check",
    "validate",
    "generate",
    "summarize",
    "count",
    "describe",
    "lookup",
    "open",
    "close",
    "move",
    "copy",
    "rename",
    "merge",
    "commit",
    "push",
    "pull",
    "diff",
    "log",
    "show",
    "status",
    "reset",
    "checkout",
    "branch",
    "tag",
    "echo",
    "sum",
    "calculate",
    "compute",
    "analyze",
    "resolve",
    "trigger",
    "subscribe",
    "unsubscribe",
    "notify",
    "render",
    "translate",
    "parse",
    "format",
    "sort",
    "filter",
    "compare",
    "install",
    "build",
    "test",
    "deploy",
    "schedule",
    "assign",
    "approve",
    "reject",
    "archive",
    "restore",
    "sync",
    "print",
    "toggle",
    "enable",
    "disable",
    "register",
    "login",
    "logout",
    "clear",
    "save",
    "load",
    "apply",
    "annotate",
    "zip",
    "ping",
    "browse",
    "navigate",
    "click",
    "type",
    "select",
    "wait",
    "sample",
    "elicit",
    "simulate",
    "trace",
}
WRITE_WORDS = re.compile(
    r"\b(creat\w*|delet\w*|remov\w*|updat\w*|writ\w*|modif\w*|send\w*|post\w*|insert\w*|drop\w*|overwrit\w*|"
    r"upload\w*|commit\w*|push\w*|reset\w*|destroy\w*|eras\w*|purg\w*|execut\w*|run\w*|add\w*|set\w*|mov\w*|renam\w*)\b",
    re.I,
)
DESTROY_WORDS = re.compile(r"\b(delet\w*|remov\w*|drop\w*|destroy\w*|eras\w*|purg\w*|wip\w*|overwrit\w*)\b", re.I)
# A verb of an action that reaches outside or destroys: what a tool that asks for no confirmation must not do.
ACTS = re.compile(
    r"(?:send|post|e-?mail|mail|publish|transfer|pay|tweet|forward|upload|share|notif(?:y|ie)|submit|broadcast|deploy"
    r"|purchase|buy|delete|remove|drop|destroy|erase|purge|wipe|overwrite)(?:e?s|e?d|ing)?",
    re.I,
)


def acts_outward(tool: Item) -> str | None:
    """The verb by which a tool says it sends, posts, publishes, transfers or deletes, or None: the first word of its
    name (`send_message`, `delete_file`) or of its description ("Posts a tweet"), where a tool names its action;
    a noun later on ("read_email", "Lists blog posts") is not its action."""
    said = (tool.description or "").split()
    for word in (next(iter(words(tool.name or "")), ""), said[0] if said else ""):
        if ACTS.fullmatch(word.strip("*_`'\".,:;()")):
            return word.lower()
    return None


def words(name: str) -> list[str]:
    """Split a tool name into lower-case words: snake, kebab, dotted, slashed and camelCase."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in re.split(r"[\s_.\-/]+", spaced) if w]


def input_schema(tool: Item) -> Json | None:
    schema = tool.get("inputSchema")
    return schema if isinstance(schema, dict) else None


def properties(schema: Any) -> dict[str, Json]:
    props = schema.get("properties") if isinstance(schema, dict) else None
    return {k: v for k, v in props.items() if isinstance(v, dict)} if isinstance(props, dict) else {}


def required(schema: Any) -> list[str]:
    req = schema.get("required") if isinstance(schema, dict) else None
    return [r for r in req if isinstance(r, str)] if isinstance(req, list) else []


def walk_schema(schema: Any, path: str = "") -> Iterator[tuple[str, Json]]:
    """Every sub-schema with its path (properties, items, definitions, combinators)."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for name, sub in properties(schema).items():
        yield from walk_schema(sub, f"{path}.{name}" if path else name)
    items = schema.get("items")
    if isinstance(items, dict):
        yield from walk_schema(items, f"{path}[]")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key) or []):
            yield from walk_schema(sub, f"{path}<{key}{i}>")
    for key in ("$defs", "definitions"):
        defs = schema.get(key)
        if isinstance(defs, dict):
            for name, sub in defs.items():
                yield from walk_schema(sub, f"#{key}/{name}")


def is_string(schema: Json) -> bool:
    """A schema whose type is string, or a type list with string in it."""
    kind = schema.get("type")
    return kind == "string" or (isinstance(kind, list) and "string" in kind)


def is_typed(schema: Json) -> bool:
    return any(k in schema for k in TYPED_KEYS)


def _types(schema: Json) -> list[str]:
    t = schema.get("type")
    return [t] if isinstance(t, str) else [x for x in t if isinstance(x, str)] if isinstance(t, list) else []


def example_value(schema: Any, depth: int = 0) -> Any:
    """A value the schema accepts: its example, default, const, first enum, else one built from its type."""
    if not isinstance(schema, dict) or depth > 6:
        return None
    for key in ("examples", "enum"):
        values = schema.get(key)
        if isinstance(values, list) and values:
            return values[0]
    for key in ("example", "default", "const"):
        if key in schema:
            return schema[key]
    for key in ("anyOf", "oneOf"):
        options = [o for o in schema.get(key) or [] if isinstance(o, dict) and "null" not in _types(o)]
        if options:
            return example_value(options[0], depth + 1)
    types = [t for t in _types(schema) if t != "null"] or (["object"] if "properties" in schema else [])
    kind = types[0] if types else "string"
    if kind == "object":
        return {
            name: example_value(sub, depth + 1) for name, sub in properties(schema).items() if name in required(schema)
        }
    if kind == "array":
        low = schema.get("minItems", 0)
        return [example_value(schema.get("items"), depth + 1) for _ in range(low if isinstance(low, int) else 0)]
    if kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        value = low if isinstance(low, int | float) else high if isinstance(high, int | float) else 1
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    low = schema.get("minLength", 1)
    return "x" * max(low if isinstance(low, int) else 1, 1) if schema.get("format") is None else _format_value(schema)


def _format_value(schema: Json) -> str:
    """A value of the format that names nothing real: `.invalid` never resolves (RFC 6761), so a tool handed a
    generated URL or address reaches no host and mails nobody."""
    return {
        "date-time": "2026-01-01T00:00:00Z",
        "date": "2026-01-01",
        "uri": "https://mcp-review.invalid/",
        "email": "reviewer@mcp-review.invalid",
        "uuid": "00000000-0000-4000-8000-000000000000",
    }.get(str(schema.get("format")), "x")


def valid_arguments(tool: Item) -> Json:
    value = example_value(input_schema(tool) or {"type": "object"})
    return value if isinstance(value, dict) else {}


WRONG_VALUES: tuple[Any, ...] = (12345, "mcp-review-not-a-valid-value", True, [], {})


def invalid_arguments(tool: Item, good: Json | None = None) -> Iterator[tuple[str, Json]]:
    """Schema-invalid argument objects, each with what is wrong: wrong type, missing required, unknown field,
    each made from `good` (a valid object: the rule's `ctx.arguments(tool)`, whose paths stay in the canary area).

    Each is checked against the tool's own inputSchema (offline) and kept only when the schema really
    refuses it: a "wrong" value that the schema allows (a type list, an anyOf) proves nothing when accepted.
    Lazy: a rule that needs only the first case (or only to know there is one) validates no further, which
    matters on a 10,000-tool server where most rules may not call.
    """
    from mcp_review.localschema import validate

    schema = input_schema(tool) or {}
    good = valid_arguments(tool) if good is None else good
    candidates: list[tuple[str, Json]] = []
    req = required(schema)
    if req:
        name = req[0]
        candidates += [(f"wrong type for required {name!r}", {**good, name: wrong}) for wrong in WRONG_VALUES]
        candidates.append((f"missing required {name!r}", {k: v for k, v in good.items() if k != name}))
    if schema.get("additionalProperties") is False:
        candidates.append(("unknown extra field", {**good, "mcp_review_unknown_field": "x"}))
    found: set[str] = set()
    for what, args in candidates:
        if what in found:
            continue
        outcome = validate(args, schema)
        if outcome.errors and outcome.unverified is None:
            found.add(what)
            yield what, args  # the first wrong value the schema refuses, per kind of mistake


def result_text(result: Any) -> str:
    """The text blocks of a tool result joined, for heuristics (never for display)."""
    blocks = result.get("content") if isinstance(result, dict) else None
    parts = [b["text"] for b in blocks or [] if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "\n".join(parts)


def result_json(result: Any) -> Any:
    """structuredContent, else the first text block parsed as JSON, else None."""
    if isinstance(result, dict) and "structuredContent" in result:
        return result["structuredContent"]
    text = result_text(result).strip()
    if text[:1] in "{[":
        try:
            return loads(text)
        except ValueError:
            return None
    return None


# reading verbs only: "open" and "load" may act (launch an app, download a model) on whatever they are given
LOOKUP_VERBS = {"get", "read", "fetch", "show", "describe", "lookup", "view", "inspect", "retrieve"}
NAMING_WORDS = {"id", "uuid", "guid", "key", "slug", "identifier", "handle", "name", "ref", "path", "file", "filename"}
NAMES_A_THING = re.compile(r"\b(ids?|identifier|uuid|key|slug|handle|name of|path)\b", re.I)


def missing_lookup(tool: Item, missing: str, good: Json | None = None) -> tuple[str, Json] | None:
    """(parameter, arguments) that look up something that does not exist, or None for a tool that looks nothing up.

    A lookup is a tool named with a reading verb (get, read, fetch, show, ... and nothing that writes) with a
    required string parameter that names a thing: its words (`note_id`, `branchName`, `path`) or its description
    ("the note's id") say so. That parameter gets `missing` (a UUID for `format: uuid`), the others the schema's
    example values (or `good`'s: the rule's `ctx.arguments(tool)`). Arguments the tool's own schema refuses are
    never sent (the next such parameter is tried, else None), so a refusal cannot be the server validating its input.
    """
    from mcp_review.localschema import validate

    name_words = words(tool.name or "")
    if not LOOKUP_VERBS.intersection(name_words) or WRITE_WORDS.search(" ".join(name_words)):
        return None
    schema = input_schema(tool) or {}
    for param in required(schema):
        sub = properties(schema).get(param, {})
        naming = NAMING_WORDS.intersection(words(param)) or NAMES_A_THING.search(str(sub.get("description", "")))
        if sub.get("type") != "string" or not naming or "enum" in sub or "const" in sub:
            continue
        value = str(uuid.uuid4()) if sub.get("format") == "uuid" else missing
        args = {**(valid_arguments(tool) if good is None else good), param: value}
        checked = validate(args, schema)
        if not (checked.errors or checked.unverified):
            return param, args
    return None
