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
claim to be read-only or whose name and description say nothing of writing, deleting or running.
"""

from __future__ import annotations

import re

from mcp_review.calls import consent_reason
from mcp_review.canary import CanaryArea
from mcp_review.catalog import Item
from mcp_review.rules.util import DESTROY_WORDS, WRITE_WORDS, Json, example_value, input_schema, properties, words

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
    r"available\s+\w+\b(?: are)?|known\s+\w+\b(?: are)?)\s*[:,]?\s*"
    r"((?:['\"`]?[A-Za-z0-9][\w.:@+-]*['\"`]?(?:,\s*|\s+or\s+|\s+and\s+)?)+)",
    re.I,
)


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


def named_values(text: str) -> list[str]:
    """Identifier-like values a text quotes or lists after `e.g.`, `such as`, `one of`…, in order."""
    found = [next(g for g in m.groups() if g) for m in QUOTED.finditer(text)]
    for m in LISTED.finditer(text):
        found += re.split(r",\s*|\s+or\s+|\s+and\s+", m.group(1))
    out: list[str] = []
    for value in (v.strip().strip("'\"`").rstrip(".:;") for v in found):
        if IDENTIFIER.fullmatch(value) and ".." not in value and value.lower() not in PROSE and value not in out:
            out.append(value)
    return out


def may_use_named(tool: Item) -> bool:
    """Values a description names are sent only to a tool that claims to be read-only, or whose name and
    description say nothing of writing, deleting or running: a named `admin` must not be the user deleted."""
    if consent_reason(tool) is None:
        return True
    text = about(tool)
    return not (WRITE_WORDS.search(text) or DESTROY_WORDS.search(text))


def _fits(value: str, schema: Json) -> bool:
    from mcp_review.localschema import validate

    return validate(value, schema).ok


def _has_own_value(schema: Json) -> bool:
    return any(k in schema for k in ("examples", "enum", "example", "default", "const"))


def described_value(tool: Item, name: str, schema: Json) -> str | None:
    """The first value the parameter's description names, else one the tool's description names near the
    parameter's name (or anywhere, when it is the tool's only string parameter); None when nothing fits."""
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
    return next((v for v in candidates if IDENTIFIER.fullmatch(v) and _fits(v, schema)), None)


def call_arguments(tool: Item, area: CanaryArea | None = None) -> Json:
    """Valid arguments for one call: the schema's own values, then values the descriptions name (when
    `may_use_named`), and, for a tool that may write (`consent_reason`) with an `area`, every path
    parameter as a traversal to a fresh path in that area."""
    schema = input_schema(tool) or {"type": "object"}
    value = example_value(schema)
    arguments: Json = value if isinstance(value, dict) else {}
    named = may_use_named(tool)
    confine = area is not None and consent_reason(tool) is not None
    for name, sub in properties(schema).items():
        if name not in arguments or not isinstance(arguments[name], str):
            continue
        if confine and is_path(tool, name, sub):
            assert area is not None
            arguments[name] = area.traversal(area.scratch())
        elif named and not _has_own_value(sub):
            arguments[name] = described_value(tool, name, sub) or arguments[name]
    return arguments
