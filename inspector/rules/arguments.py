"""Arguments a rule sends: values a tool's own text names, and paths that can only land in a canary area.

Two things make a generated call worth its risk. It should reach the tool's real code path: a tool that looks
up `alice` or `INV-1001` answers `"x"` with "not found", and a rule that judges the answer learns nothing (a
token-leaking tool called with `"x"` passed). So a string parameter takes a value the server itself names
first: the parameter's `examples`/`enum` (util.example_value), then a value its description or the tool's
description quotes or lists (`e.g. 'alice'`, "such as INV-1001", "`main`"). And it must not harm the machine:
every path argument of a tool that does not claim to be read-only points into the review's canary area
(mcp_review.canary), as a traversal, so even a tool that joins paths naively writes only there.

Values from descriptions are identifier-like only (no spaces, slashes, shell or SQL syntax): a description
can quote `rm -rf build`, and a value it names is never a command or a path. They are used only for tools that
claim to be read-only or whose name and description say nothing of deleting and that do not send (`may_use_named`).
Each distinct value the server's text offers for a parameter (its enum, examples, default, the values its
description lists; for a parameter whose own text offers none, those the tool's description names) is sent once
across the review's calls (`argument_variants`), within the calls a rule may make to one tool; the review's
coverage says which were sent (`offered_coverage`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcp_review.calls import consent_reason
from mcp_review.canary import CanaryArea
from mcp_review.catalog import Item
from mcp_review.rules.util import (
    DESTROY_WORDS,
    Json,
    acts_outward,
    example_value,
    input_schema,
    is_string,
    properties,
    words,
)

CALLS_PER_TOOL = 16  # calls one rule may make to one tool, unless the reviewer says otherwise (--calls-per-tool)
# What the review sends, as the consent it asks for says it (`check --help`, its notice, the TUI's run dialog).
CALLS_SEND = (
    "calls send generated arguments that name nothing real (random words, .invalid hosts and addresses, values the "
    "tool's own text names), schema-invalid ones, and, to a tool that may write, paths that lead only into a fresh "
    "canary directory under $TMPDIR, removed after the review"
)
PROBES_SEND = (
    "probes send paths into that canary directory, printf after a shell separator, short programs that join two "
    "strings, a URL of mcp-review's own listener on 127.0.0.1, arithmetic in template syntax and a random fake "
    "secret: never a system path, a real file or another host"
)
PATH_WORDS = frozenset(
    {"path", "paths", "file", "files", "filename", "filepath", "dir", "dirs", "dirname", "directory", "folder"}
    | {"cwd", "workdir", "workspace", "root", "dest", "destination", "location"}
)
MOVES = frozenset({"source", "src", "target", "from", "to", "old", "new", "origin", "output", "input"})  # paths in
# a tool about files ("Move a file": source, destination), anything else in another (a ping's target host)
PATH_HINT = re.compile(r"\b(path|file|directory|folder)\b", re.I)  # a parameter whose description says it is one
PROSE = frozenset({"a", "an", "the", "this", "that", "these", "any", "all", "some", "your", "its", "their", "one"})
IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,63}")
# Quotes that open and close outside words: the apostrophe of "service's" quotes nothing.
QUOTED = re.compile(r"(?<!\w)(?:`([^`\n]{1,64})`|'([^'\n]{1,64})'|\"([^\"\n]{1,64})\")(?!\w)")
LISTED = re.compile(
    r"\b(?:e\.g\.|eg\.|for example|for instance|such as|i\.e\.|one of|valid values?(?: are| is)?|"
    r"available\s+\w+\b(?: are)?|known\s+\w+\b(?: are)?|"
    r"(?:options|values|choices|modes|formats|types|(?:supported|allowed|possible|accepted)\s+\w+)"
    r"(?:\s+(?:are|is|include))?\s*[:=])\s*[:,]?\s*"
    r"((?:['\"`]?[A-Za-z0-9][\w.:@+-]*['\"`]?(?:,\s*|\s+or\s+|\s+and\s+|\s*\|\s*)?)+)",
    re.I,
)
ITEM = r"['\"`]?[A-Za-z0-9][\w.:@+-]*['\"`]?"
# A list in parentheses, as descriptions give them: "ID of the service (email_service, cloud_storage, analytics)"
IN_PARENS = re.compile(rf"\(\s*((?:{ITEM}\s*(?:,|\||/|\bor\b|\band\b)\s*)+(?:(?:or|and)\s+)?{ITEM})\s*\)", re.I)
PIPED = re.compile(r"(?<![\w|/])([A-Za-z0-9][\w.-]*(?:\|[A-Za-z0-9][\w.-]*)+)(?![\w|])")  # json|xml|yaml
SPLIT = re.compile(r",\s*|\s*\|\s*|\s*/\s*|\s+or\s+|\s+and\s+", re.I)
# A value that opens with a scheme-like prefix (`exec:ls`, `cmd:whoami`, a `shell:` the text names): the prefix
# selects a code path; what follows it is the example's own command, never sent (`prefixes`).
JSON_HINT = re.compile(r"\bJSON\b|\bjson[- ](?:encoded|string|document|object|formatted)\b", re.I)
PREFIX = re.compile(r"^([A-Za-z][\w-]{0,15}:)(?!//)")
HOSTLIKE = re.compile(r"[A-Za-z0-9]\.[A-Za-z]{2,}$")  # a host or a file name (`api.acme.com`, `notes.txt`)


def about(tool: Item) -> str:
    """The tool's name words and description, as one text to look for what it is about."""
    description = tool.get("description")
    return f"{' '.join(words(tool.name or ''))} {description if isinstance(description, str) else ''}"


def is_path(tool: Item, name: str, schema: Json) -> bool:
    """A parameter that names a file or directory: by its name's words, its format, or its own description; a
    `source` or `target` only in a tool about files."""
    said = set(words(name))
    if said & PATH_WORDS or schema.get("format") in ("path", "file-path"):
        return True
    if said & MOVES and PATH_HINT.search(about(tool)):
        return True
    described = schema.get("description")
    return isinstance(described, str) and bool(PATH_HINT.search(described)) and len(described) < 200


def json_example(schema: Json) -> Any:
    """The JSON document (an object or an array) a string's example or default holds, or None."""
    for key in ("examples", "example", "default"):
        value = schema.get(key)
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and text.strip()[:1] in "{[":
                try:
                    return json.loads(text)
                except ValueError:
                    continue
    return None


def carries_json(name: str, schema: Json) -> bool:
    """A string that carries a JSON document: its name (`config_json`), media type, format or description says
    JSON, or its example or default is one. The words its description quotes are then the document's keys."""
    described = str(schema.get("description") or "")
    media = str(schema.get("contentMediaType") or "")
    said = "json" in words(name) or "json" in media or schema.get("format") == "json"
    return said or bool(JSON_HINT.search(described)) or json_example(schema) is not None


def named_values(text: str) -> list[str]:
    """Identifier-like values a text quotes or lists (after `e.g.`, `such as`, `one of`, `options:`…, in
    parentheses, or joined by `|`), in order."""
    found = [next(g for g in m.groups() if g) for m in QUOTED.finditer(text)]
    for pattern in (LISTED, IN_PARENS, PIPED):
        for m in pattern.finditer(text):
            found += SPLIT.split(m.group(1))
    out: list[str] = []
    for value in (v.strip().strip("'\"`").rstrip(".:;") for v in found):
        if IDENTIFIER.fullmatch(value) and ".." not in value and value.lower() not in PROSE and value not in out:
            out.append(value)
    return out


def may_use_named(tool: Item) -> bool:
    """Values a description names are sent only to a tool that claims to be read-only, or whose name and
    description say nothing of deleting and whose action is not sending (`acts_outward`): a named `admin` must not
    be the user deleted, nor a named address the one mailed. A setter may get the setting its text names (the
    value it sets is the review's own)."""
    if consent_reason(tool) is None:
        return True
    return not (DESTROY_WORDS.search(about(tool)) or acts_outward(tool))


def _fits(value: str, schema: Json) -> bool:
    from mcp_review.localschema import validate

    return validate(value, schema).ok


def _has_own_value(schema: Json) -> bool:
    return any(k in schema for k in ("examples", "enum", "example", "default", "const"))


def described_values(tool: Item, name: str, schema: Json) -> list[str]:
    """The values the parameter's description names, then those the tool's description names near the
    parameter's name (or anywhere, when it is the tool's only string parameter), that the schema accepts."""
    own = schema.get("description")
    candidates = named_values(own) if isinstance(own, str) else []
    description = tool.get("description")
    if isinstance(description, str):
        spoken = set(words(name)) - {"id", "name"} or set(words(name))
        for match in QUOTED.finditer(description):
            before = set(words(description[max(0, match.start() - 60) : match.start()]))
            if before & spoken:
                candidates.append(next(g for g in match.groups() if g))
        strings = [p for p, s in properties(input_schema(tool)).items() if s.get("type") == "string"]
        if strings == [name]:
            candidates += named_values(description)
    out: list[str] = []
    for value in candidates:
        if IDENTIFIER.fullmatch(value) and value not in out and _fits(value, schema):
            out.append(value)
    return out


def tool_values(tool: Item, schema: Json) -> list[str]:
    """The values the tool's description quotes or lists (`Render a text as 'plain' or 'upper'`) that `schema`
    accepts: offered, after their own, to each string parameter whose own text offers nothing, since the
    description does not say which parameter they are for (a tool that answers "Unknown format 'x'" to every other
    value is reached only with one of them)."""
    description = tool.get("description")
    named = named_values(description) if isinstance(description, str) else []
    return [v for v in named if _fits(v, schema)]


def described_value(tool: Item, name: str, schema: Json) -> str | None:
    """The first of `described_values`, or None."""
    return next(iter(described_values(tool, name, schema)), None)


def inert(value: Any) -> bool:
    """A value the server's text offers that may be sent as it is: not a string, or an identifier (no spaces, no
    path, no shell or SQL syntax, no host or address: `billing`, `INV-1001`, `json`), never a prefixed command."""
    if not isinstance(value, str):
        return isinstance(value, int | float | bool)
    named = bool(IDENTIFIER.fullmatch(value)) and ".." not in value and "@" not in value
    return named and not PREFIX.match(value) and not HOSTLIKE.search(value)


def offered_values(tool: Item, name: str, schema: Json) -> list[Any]:
    """Every distinct value the server's own text offers for one parameter, in order: its `examples`, `enum`,
    `example`, `default` and `const`, then (for a tool that `may_use_named`) the values its description or the
    tool's names near it, else, when it has none of its own, every value the tool's description names
    (`tool_values`); only `inert` ones, and only those the schema accepts."""
    values: list[Any] = []
    for key in ("examples", "enum"):
        listed = schema.get(key)
        values += listed if isinstance(listed, list) else []
    values += [schema[key] for key in ("example", "default", "const") if key in schema]
    if may_use_named(tool) and is_string(schema) and not carries_json(name, schema):
        own = described_values(tool, name, schema)
        values += own or ([] if _has_own_value(schema) else tool_values(tool, schema))
    out: list[Any] = []
    for value in values:
        if inert(value) and not any(value == v and type(value) is type(v) for v in out) and _fits(value, schema):
            out.append(value)
    return out


def prefixes(tool: Item, name: str, schema: Json) -> list[str]:
    """The prefixes the parameter's own text shows (`exec:` in an example `exec:ls`, a quoted `shell:`): each
    selects a code path of the tool, which a probe takes with its payload after the prefix."""
    texts = [v for key in ("examples", "enum") for v in (schema.get(key) or []) if isinstance(v, str)]
    texts += [schema[key] for key in ("example", "default") if isinstance(schema.get(key), str)]
    own = schema.get("description")
    if isinstance(own, str):
        texts += [next(g for g in m.groups() if g) for m in QUOTED.finditer(own)]
    out: list[str] = []
    for text in texts:
        found = PREFIX.match(text.strip())
        if found and found.group(1).lower() not in ("http:", "https:", "file:") and found.group(1) not in out:
            out.append(found.group(1))
    return out


def _kinds(schema: Json) -> list[str]:
    kind = schema.get("type")
    return (
        [kind] if isinstance(kind, str) else [k for k in kind if isinstance(k, str)] if isinstance(kind, list) else []
    )


def call_arguments(tool: Item, area: CanaryArea | None = None) -> Json:
    """Valid arguments for one call: the schema's own values, then values the descriptions name (when
    `may_use_named`), and, for a tool that may write (`consent_reason`) with an `area`, every path
    parameter as a traversal to a fresh path in that area."""
    schema = input_schema(tool) or {"type": "object"}
    value = example_value(schema)
    arguments: Json = value if isinstance(value, dict) else {}
    named = may_use_named(tool)
    for name, sub in properties(schema).items():
        if name not in arguments or not isinstance(arguments[name], str):
            continue
        if _confined(tool, name, sub, area):
            assert area is not None
            arguments[name] = area.traversal(area.scratch())
        elif named and not _has_own_value(sub) and not carries_json(name, sub):
            arguments[name] = described_value(tool, name, sub) or arguments[name]
        elif _has_own_value(sub) and not inert(arguments[name]) and arguments[name] not in (sub.get("enum") or []):
            arguments[name] = _stand_in(tool, name, sub, arguments[name])
    return arguments


def _stand_in(tool: Item, name: str, schema: Json, value: str) -> str:
    """What is sent instead of an example or default that is not `inert` (a command, a host, a path the server's
    text shows): another value it offers, else its prefix before a word that names nothing, else a value built
    from the type (`.invalid` for a URL)."""
    offered = [v for v in offered_values(tool, name, schema) if isinstance(v, str)]
    if offered:
        return offered[0]
    prefix = PREFIX.match(value)
    if prefix:
        return f"{prefix.group(1)}mcp-review"
    built = example_value({k: v for k, v in schema.items() if k not in ("examples", "example", "default", "const")})
    return built if isinstance(built, str) else "x"


def _confined(tool: Item, name: str, schema: Json, area: CanaryArea | None) -> bool:
    return area is not None and consent_reason(tool) is not None and is_path(tool, name, schema)


def argument_variants(tool: Item, area: CanaryArea | None = None, limit: int = 16) -> list[Json]:
    """Argument sets that together send every distinct value the server's text offers (`offered_values`) once:
    the first is `call_arguments`; each next one sets, for every parameter that offers more, its next value (an
    optional parameter too: a `format` or `mode` the text names takes its own code path). At most `limit` sets
    (the calls one rule may make to one tool). Path parameters of a tool that may write stay in the canary area."""
    first = call_arguments(tool, area)
    more: dict[str, list[Any]] = {}
    for name, sub in properties(input_schema(tool)).items():
        if not _confined(tool, name, sub, area):
            rest = [v for v in offered_values(tool, name, sub) if not (name in first and v == first[name])]
            if rest:
                more[name] = rest
    count = max((len(values) for values in more.values()), default=0)
    variants = [first]
    for i in range(min(count, max(limit - 1, 0))):
        variants.append({**first, **{name: values[i] for name, values in more.items() if i < len(values)}})
    return variants


def offered_coverage(tools: list[Item], calls: list[dict[str, Any]]) -> dict[str, dict[str, Json]]:
    """For the review's coverage: per tool and parameter, the values the server's text offers and those a call of
    the review sent (a reviewer sees whether the code path behind each named value was taken)."""
    sent: dict[str, dict[str, list[Any]]] = {}
    for call in calls:
        arguments = call.get("arguments")
        if isinstance(arguments, dict):
            for name, value in arguments.items():
                sent.setdefault(str(call.get("tool")), {}).setdefault(name, []).append(value)
    out: dict[str, dict[str, Json]] = {}
    for tool in tools:
        for name, sub in properties(input_schema(tool)).items():
            offered = offered_values(tool, name, sub)
            if offered:
                made = sent.get(tool.name or "", {}).get(name, [])
                entry = {"offered": offered, "sent": [v for v in offered if v in made]}
                out.setdefault(tool.name or "", {})[name] = entry
    return out
