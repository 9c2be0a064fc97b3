"""Which strings of a tool carry a probe's payload, and in what shape: chosen by what they carry, not by their names.

Every string a tool takes is a carrier (a parameter, a string in an array or in a nested object, three levels
deep): a tool that opens `document_name` as a file or runs a shell on a setting's `value` is reached whatever
the parameter is called. Each carrier has a shape, read from its schema and its text, and the payload keeps the
argument valid for it:
- `json`, a string that carries a JSON document (its description or media type says JSON, or its example or
  default is one): the payload goes into the document's values (the example's own keys, the keys the description
  quotes, and the probe's), and the string stays valid JSON;
- `path`, a file or directory (`rules.arguments.is_path`): a traversal for the path probe; for any other probe, a
  segment after a path into the canary area (`scratch/W;printf ...`), so whatever the tool does with the path
  stays there;
- `url`, a URL (its format, its words): the listener's URL for the SSRF probe, a `file://` URL of a canary for the
  path probe, the payload in the URL's path for the others;
- `text`, anything else: the payload as it is, and once more after each prefix the carrier's text shows (`exec:`).
A value the carrier's schema refuses (a pattern, a length, a format) is never sent: it would prove nothing.

Carriers are ranked: those whose name or schema fits the probe first, then the value of a key/value setter and
JSON documents, then the rest in schema order (`ranked`); the plan gives every carrier its first payload before
any gets a second, and stops at the budget (`calls_per_tool`).
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from mcp_review.canary import CanaryArea
from mcp_review.catalog import Item
from mcp_review.rules.arguments import IDENTIFIER, QUOTED, carries_json, is_path, json_example, prefixes
from mcp_review.rules.util import Json, example_value, input_schema, is_string, properties, words

Shape = Literal["text", "json", "path", "url"]
DEPTH = 3  # nesting followed into arrays and objects for carriers
URL_WORDS = frozenset({"url", "uri", "urls", "endpoint", "link", "href", "webhook", "callback", "homepage", "site"})
URL_FORMATS = frozenset({"uri", "url", "iri", "uri-reference", "iri-reference"})
KEY_WORDS = frozenset({"key", "name", "setting", "option", "field", "variable", "property", "param", "parameter"})
VALUE_WORDS = frozenset({"value", "val", "data", "content", "contents", "body", "payload"})
# formats a payload can never be valid for: such a string carries nothing a probe could send
CLOSED_FORMATS = frozenset({"date", "date-time", "time", "email", "uuid", "ipv4", "ipv6", "hostname", "duration"})
SECRET_WORDS = frozenset({"password", "passwd", "passphrase", "secret", "credential", "credentials", "apikey"})
SECRET_PAIRS = frozenset({"api", "access", "auth", "secret", "private", "client", "bearer", "refresh", "session"})
SECRET_HINT = re.compile(
    r"\b(?:password|passphrase|secret|credential|api[ _-]?key|access[ _-]?token|auth(?:entication|orization)?"
    r"[ _-]?token|bearer|private key)\b",
    re.I,
)
NOT_SECRET = frozenset({"max", "min", "count", "limit", "name", "names", "ticker", "symbol", "type", "id", "ids"})
NOT_SECRET |= frozenset({"page", "next", "cursor", "length", "budget", "usage", "total", "hint", "mint", "field"})


@dataclass(frozen=True)
class Carrier:
    """One string of a tool's arguments that a payload is set to."""

    path: tuple[str | int, ...]  # where in the arguments: ("config",), ("edits", 0, "oldText")
    schema: Json
    shape: Shape
    rank: int = 2  # 0: fits the probe by name or schema; 1: a setter's value or a JSON document; 2: any string
    prefixes: tuple[str, ...] = ()  # prefixes its text shows (`exec:`), each sent before the payload

    @property
    def name(self) -> str:
        head, *rest = self.path
        return str(head) + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in rest)


def carriers(tool: Item) -> list[Carrier]:
    """Every string `tool` takes, with its shape (see the module), in schema order."""
    out: list[Carrier] = []
    for name, schema in properties(input_schema(tool)).items():
        for path, sub in _strings(schema, (name,), 0):
            top = len(path) == 1
            shape = _shape(tool, str(path[-1]) if isinstance(path[-1], str) else name, sub, top)
            shown = tuple(prefixes(tool, name, sub)) if top else ()
            out.append(Carrier(path, sub, shape, prefixes=shown))
    return out


def _strings(schema: Json, path: tuple[str | int, ...], depth: int) -> Iterator[tuple[tuple[str | int, ...], Json]]:
    if depth > DEPTH:
        return
    options = [o for key in ("anyOf", "oneOf") for o in schema.get(key) or [] if isinstance(o, dict)]
    string = is_string(schema) or (not schema.get("type") and any(is_string(o) for o in options))
    if string:
        if "enum" not in schema and "const" not in schema and schema.get("format") not in CLOSED_FORMATS:
            yield path, schema
        return
    items = schema.get("items")
    if isinstance(items, dict):
        yield from _strings(items, (*path, 0), depth + 1)
    for name, sub in properties(schema).items():
        yield from _strings(sub, (*path, name), depth + 1)


def _shape(tool: Item, name: str, schema: Json, top: bool) -> Shape:
    said = set(words(name))
    if carries_json(name, schema):
        return "json"
    if schema.get("format") in URL_FORMATS or said & URL_WORDS:
        return "url"
    if is_path(tool, name, schema) if top else bool(said & {"path", "file", "filename", "dir", "directory"}):
        return "path"
    return "text"


def ranked(tool: Item, found: list[Carrier], fits: set[str]) -> list[Carrier]:
    """`found` in the order the plan gives them payloads: those whose name or schema fits the probe (`fits`: the
    carriers' names), then a key/value setter's value and JSON documents, then the rest; stable within a rank."""
    keyed = any(set(words(str(c.path[0]))) & KEY_WORDS for c in found)
    out = []
    for carrier in found:
        said = set(words(str(carrier.path[-1])))
        setter_value = keyed and bool(said & VALUE_WORDS)
        rank = 0 if carrier.name in fits else 1 if setter_value or carrier.shape == "json" else 2
        out.append(Carrier(carrier.path, carrier.schema, carrier.shape, rank, carrier.prefixes))
    return sorted(out, key=lambda c: c.rank)


def is_secret(tool: Item, name: str, schema: Json) -> bool:
    """A parameter that holds a secret by what it is: a password, a passphrase, an API key, an access token
    (`api_key`, `accessToken`, `client_secret`), `format: password` or `writeOnly`; a bare `token` or `key` only
    when its description says it authenticates. Counters and names of tokens (`max_tokens`, `tokenName`,
    `page_token`, `key_name`) are not secrets."""
    if not is_string(schema):
        return False
    said = words(name)
    if set(said) & NOT_SECRET:
        return False
    if schema.get("format") == "password" or schema.get("writeOnly") is True or set(said) & SECRET_WORDS:
        return True
    if any(a in SECRET_PAIRS and b in ("key", "token", "secret") for a, b in itertools.pairwise(said)):
        return True
    described = str(schema.get("description") or "")
    return bool(set(said) & {"token", "key", "pin"}) and bool(SECRET_HINT.search(described))


def document(carrier: Carrier, value: str, keys: tuple[str, ...]) -> str:
    """A JSON document with `value` in its values: the carrier's example with each of its strings replaced (and the
    probe's `keys` added), else an object of the keys its description quotes and the probe's."""
    example = json_example(carrier.schema)
    if isinstance(example, list):
        return json.dumps([value], ensure_ascii=False)
    base = example if isinstance(example, dict) else {}
    described = str(carrier.schema.get("description") or "")
    quoted = [next(g for g in m.groups() if g) for m in QUOTED.finditer(described)]
    named = [k for k in quoted if IDENTIFIER.fullmatch(k) and ":" not in k]
    doc = {k: (value if isinstance(v, str) else v) for k, v in base.items()}
    doc.update({k: value for k in (*named, *keys, "value") if k not in doc or isinstance(doc[k], str)})
    return json.dumps(doc, ensure_ascii=False)


def placed(arguments: Json, carrier: Carrier, value: str, tool: Item) -> Json:
    """`arguments` with `value` at the carrier's path (an array or object on the way made from the schema)."""
    out = copy.deepcopy(arguments)
    _put(out, carrier.path, value, input_schema(tool) or {})
    return out


def _put(node: Any, path: tuple[str | int, ...], value: Any, schema: Json) -> None:
    step, rest = path[0], path[1:]
    sub = schema.get("items") if isinstance(step, int) else properties(schema).get(str(step))
    sub = sub if isinstance(sub, dict) else {}
    if rest:
        current = (node[0] if node else None) if isinstance(node, list) else node.get(step)
        want = list if isinstance(rest[0], int) else dict
        made = copy.deepcopy(example_value(sub))  # never the schema's own default: it is the listing's
        value_here = current if isinstance(current, want) else made if isinstance(made, want) else want()
        _put(value_here, rest, value, sub)
    else:
        value_here = value
    if isinstance(node, list):
        node[:1] = [value_here]
    else:
        node[step] = value_here


def in_area(area: CanaryArea, value: str) -> str:
    """A payload as a path segment after a traversal into the canary area: a tool that joins, opens or writes the
    path lands there, and the payload is still in the value."""
    return f"{area.traversal(area.root / 'scratch')}/{value}"


def in_url(value: str) -> str:
    """A payload in the path of a URL that can reach no host (RFC 6761 `.invalid`), spaces as `${IFS}` (a shell
    that splits the URL still runs it; nothing else sees a space)."""
    return "https://mcp-review.invalid/" + value.replace(" ", "${IFS}")
