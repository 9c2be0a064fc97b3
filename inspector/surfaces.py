"""Every text a server sends that can reach a model or a person, each with where it was found.

The scanner (`mcp_review.scan`) judges a text; this module finds the texts, wherever the server put them:
a definition (names, titles, descriptions, and inside its schemas every property name, title, description,
enum value, default and example), a tool result (text blocks, `structuredContent`, embedded resources,
resource links), a `prompts/get` answer, a resource's contents (a base64 blob too, when it decodes to UTF-8
text), a JSON-RPC error, and what the server sends on its own: sampling and elicitation requests (with a URL
elicitation's URL) and log notifications.

Walks are bounded (depth, count and length), because everything here came from the server.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

MAX_DEPTH = 24  # nesting followed into a schema or a result
MAX_TEXTS = 5000  # texts taken from one object
TEXT_CHARS = 65_536  # characters of one text scanned

# Schema keywords whose string values are schema vocabulary, not prose a model reads.
_VOCABULARY = frozenset({"type", "$schema", "$ref", "$id", "$anchor", "format", "contentEncoding", "contentMediaType"})
# Keys of a schema object whose members are named by the author: each member's name is text too.
_NAMED = ("properties", "$defs", "definitions")
# Server -> client messages a person or the client's model reads.
CLIENT_METHODS = ("sampling/createMessage", "elicitation/create", "notifications/message")


@dataclass(frozen=True, slots=True)
class Said:
    where: str  # a path a reviewer can follow: "inputSchema.properties.path.description", "content[0].text"
    text: str


def _said(where: str, value: str) -> Said:
    return Said(where, value[:TEXT_CHARS])


def strings(value: Any, where: str, *, schema: bool = False) -> Iterator[Said]:
    """Every string in a JSON value, depth-first, with its path; in a schema also the names of properties
    and definitions, and never schema vocabulary (`"type": "string"`)."""
    stack: list[tuple[Any, str, int]] = [(value, where, 0)]
    taken = 0
    while stack and taken < MAX_TEXTS:
        node, path, depth = stack.pop()
        if isinstance(node, str):
            taken += 1
            yield _said(path, node)
        elif depth >= MAX_DEPTH:
            continue
        elif isinstance(node, dict):
            children = []
            for key, child in node.items():
                if schema and key in _VOCABULARY:
                    continue
                sub = f"{path}.{key}" if path else str(key)
                if schema and key in _NAMED and isinstance(child, dict):
                    children += [(name, f"{sub}.{name} (name)", depth) for name in child if isinstance(name, str)]
                children.append((child, sub, depth + 1))
            stack.extend(reversed(children))
        elif isinstance(node, list):
            stack.extend(reversed([(child, f"{path}[{i}]", depth + 1) for i, child in enumerate(node)]))


def definition(raw: dict[str, Any]) -> Iterator[Said]:
    """A tool, prompt, resource or template as listed: its own texts and every text inside its schemas and
    arguments. Icons and `_meta` are left out: a client shows neither to the model."""
    for key in ("name", "title", "description", "uri", "uriTemplate"):
        if isinstance(raw.get(key), str):
            yield _said(key, raw[key])
    annotations = raw.get("annotations")
    if isinstance(annotations, dict) and isinstance(annotations.get("title"), str):
        yield _said("annotations.title", annotations["title"])
    for key in ("inputSchema", "outputSchema"):
        if isinstance(raw.get(key), dict):
            yield from strings(raw[key], key, schema=True)
    if isinstance(raw.get("arguments"), list):
        yield from strings(raw["arguments"], "arguments")


def result(value: Any) -> Iterator[Said]:
    """A `tools/call` result: every content block's text, resource and link texts, and `structuredContent`."""
    if not isinstance(value, dict):
        return
    content = value.get("content")
    for i, block in enumerate(content if isinstance(content, list) else []):
        if isinstance(block, dict):
            yield from _block(block, f"content[{i}]")
    if "structuredContent" in value:
        yield from strings(value["structuredContent"], "structuredContent")


def _block(block: dict[str, Any], where: str) -> Iterator[Said]:
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        yield _said(f"{where}.text", block["text"])
    elif kind == "resource" and isinstance(block.get("resource"), dict):
        yield from _contents(block["resource"], f"{where}.resource")
    elif kind == "resource_link":
        for key in ("name", "title", "description", "uri"):
            if isinstance(block.get(key), str):
                yield _said(f"{where}.{key}", block[key])


def _contents(part: dict[str, Any], where: str) -> Iterator[Said]:
    if isinstance(part.get("text"), str):
        yield _said(f"{where}.text", part["text"])
    if isinstance(part.get("blob"), str):
        text = _text_blob(part["blob"])
        if text is not None:
            yield _said(f"{where}.blob (decoded)", text)


def _text_blob(blob: str) -> str | None:
    """A base64 blob that holds UTF-8 text (a `.env` or key file a server read as bytes), or None for binary
    data; only as much as is scanned is decoded."""
    import base64
    import binascii
    import codecs

    try:  # the incremental decoder holds back a character cut at the end of the head, and refuses binary
        text = codecs.getincrementaldecoder("utf-8")().decode(base64.b64decode(blob[: TEXT_CHARS // 3 * 4]))
    except (binascii.Error, ValueError):
        return None
    return text if text and "\x00" not in text else None


def prompt(value: Any) -> Iterator[Said]:
    """A `prompts/get` answer: its description and every message's content."""
    if not isinstance(value, dict):
        return
    if isinstance(value.get("description"), str):
        yield _said("description", value["description"])
    messages = value.get("messages")
    for i, message in enumerate(messages if isinstance(messages, list) else []):
        content = message.get("content") if isinstance(message, dict) else None
        for j, block in enumerate(content if isinstance(content, list) else [content]):
            if isinstance(block, dict):
                yield from _block(block, f"messages[{i}].content" + (f"[{j}]" if isinstance(content, list) else ""))


def contents(value: Any) -> Iterator[Said]:
    """A `resources/read` answer: the text of every part, and the text a blob part holds."""
    parts = value.get("contents") if isinstance(value, dict) else None
    for i, part in enumerate(parts if isinstance(parts, list) else []):
        if isinstance(part, dict):
            yield from _contents(part, f"contents[{i}]")


def error(value: Any) -> Iterator[Said]:
    """A JSON-RPC error object: its message and any text in its data."""
    if isinstance(value, dict):
        if isinstance(value.get("message"), str):
            yield _said("error.message", value["message"])
        if "data" in value:
            yield from strings(value["data"], "error.data")


def client_message(message: Any) -> Iterator[Said]:
    """What a server asks of the client or tells it on its own (`CLIENT_METHODS`): a sampling request's
    system prompt and messages, an elicitation's message, URL and form, a log message's data."""
    if not isinstance(message, dict) or not isinstance(message.get("params"), dict):
        return
    method, params = message.get("method"), message["params"]
    if method == "sampling/createMessage":
        if isinstance(params.get("systemPrompt"), str):
            yield _said("systemPrompt", params["systemPrompt"])
        yield from prompt({"messages": params.get("messages")})
    elif method == "elicitation/create":
        for key in ("message", "url"):
            if isinstance(params.get(key), str):
                yield _said(key, params[key])
        if isinstance(params.get("requestedSchema"), dict):
            yield from strings(params["requestedSchema"], "requestedSchema", schema=True)
    elif method == "notifications/message" and "data" in params:
        yield from strings(params["data"], "data")
