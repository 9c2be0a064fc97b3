"""Check what a server sent against the official schema of the negotiated revision (see `official`).

Only the server->client direction is checked. For each message:
- the envelope: the member of the revision's `JSONRPCMessage` union that matches the message's shape
  (request, notification, result response, error response);
- that a notification or request belongs to the revision's `ServerNotification` / `ServerRequest` union;
- the specific definition (`definition_for`): a response's `result` against the `*Result` of the request
  it answers, a notification or server request against its own definition, an error response against
  the revision's error response (or a coded error definition, such as 2026-07-28's
  `UnsupportedProtocolVersionError`).

Formats (`uri`, `byte`) are annotations and are not asserted, and the schemas encode few cross-field MUSTs.
A failed union is explained by its one plausible branch, and every message is shortened and capped.
"""

from __future__ import annotations

import json
import re
import reprlib
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jsonschema.exceptions import ValidationError

from mcp_review.schemas.official import RevisionSchema, dispatch, ref_name, revision_schema

if TYPE_CHECKING:
    from mcp_review.connection.wire import WireEntry

MAX_PROBLEMS = 20  # per wire message; one more entry says when there were more
MAX_MESSAGE = 300
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_BRIEF = reprlib.Repr()  # keyword arguments need Python 3.12
_BRIEF.maxlevel, _BRIEF.maxdict, _BRIEF.maxlist, _BRIEF.maxstring, _BRIEF.maxother = 2, 4, 4, 40, 40
_BRIEF_MAX = 100


@dataclass(frozen=True)
class SchemaProblem:
    """One way a server message fails the official schema."""

    seq: int  # wire entry
    definition: str  # e.g. "ListToolsResult"
    path: str  # JSON path inside the message, e.g. "result.tools[3].inputSchema"; "" is the message itself
    message: str  # jsonschema's message, shortened (<= MAX_MESSAGE chars)

    def __str__(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"#{self.seq} {self.definition}{where}: {self.message}"


def _path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and _IDENTIFIER.fullmatch(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part, ensure_ascii=False)}]"
    return out


def _brief(value: Any) -> str:
    text = _BRIEF.repr(value)
    return text if len(text) <= _BRIEF_MAX else text[: _BRIEF_MAX - 1] + "…"


def _cap(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def _shorten(error: ValidationError) -> str:
    message = error.message
    if len(message) > MAX_MESSAGE:
        full = repr(error.instance)
        if full in message:
            message = message.replace(full, _brief(error.instance))
    return _cap(message)


def _discriminated(error: ValidationError) -> bool:
    """Does this error rule its union branch out? (a wrong `type`/`method` const, or the wrong JSON type)"""
    if error.validator in ("const", "enum"):
        return len(error.relative_path) == 1
    return error.validator == "type" and not error.relative_path


def _explain(error: ValidationError) -> Iterator[tuple[tuple[Any, ...], str]]:
    """(path, message) pairs for one error. A failed union becomes its one plausible branch's errors."""
    path = tuple(error.absolute_path)
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        yield path, _shorten(error)
        return
    branches: dict[int, list[ValidationError]] = {}
    for sub in error.context:
        if sub.relative_schema_path and isinstance(sub.relative_schema_path[0], int):
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    candidates = [i for i, subs in sorted(branches.items()) if not any(map(_discriminated, subs))]
    if len(candidates) == 1:
        for sub in branches[candidates[0]]:
            yield from _explain(sub)
        return
    distinct = {sub.message for subs in branches.values() for sub in subs}
    if len(distinct) == 1:  # every branch failed the same way, e.g. "5 is not of type 'object'"
        yield path, _shorten(error.context[0])
        return
    options = error.validator_value if isinstance(error.validator_value, list) else []

    def label(i: int) -> str:
        member = options[i] if i < len(options) and isinstance(options[i], dict) else {}
        return ref_name(member.get("$ref")) or member.get("title") or f"option {i + 1}"

    text = f"{_brief(error.instance)} matches none of: {', '.join(label(i) for i in sorted(branches))}"
    if candidates:
        text += " (" + "; ".join(f"{label(i)}: {branches[i][0].message}" for i in candidates) + ")"
    yield path, _cap(text)


def _errors(s: RevisionSchema, name: str, instance: Any, seq: int, prefix: tuple[Any, ...]) -> Iterator[SchemaProblem]:
    for error in s.validator(name).iter_errors(instance):
        for path, message in _explain(error):
            yield SchemaProblem(seq, name, _path(prefix + path), message)


def _membership(
    s: RevisionSchema, message: dict[str, Any], seq: int, prefix: tuple[Any, ...]
) -> Iterator[SchemaProblem]:
    """A method the server may not send in this revision (not in ServerRequest / ServerNotification)."""
    method = message.get("method")
    if not isinstance(method, str):
        return  # the envelope reports it
    if "id" in message:
        union, table, what = "ServerRequest", s.server_requests, "request"
    else:
        union, table, what = "ServerNotification", s.server_notifications, "notification"
    if table is None:
        text = f"{method!r}: servers send no {what}s in {s.revision} (the schema has no {union})"
    elif method in table:
        return
    else:
        known = ", ".join(repr(m) for m in sorted(table))
        text = f"{method!r} is not a {what} a server sends in {s.revision}; {union} has {known}"
    yield SchemaProblem(seq, union, _path((*prefix, "method")), _cap(text))


def _one(
    s: RevisionSchema, message: Any, request_method: str | None, seq: int, prefix: tuple[Any, ...]
) -> Iterator[SchemaProblem]:
    if not isinstance(message, dict):
        yield from _errors(s, s.envelope, message, seq, prefix)
        return
    if "method" in message:
        envelope = s.request_env if "id" in message else s.notification_env
    elif "error" in message:
        envelope = s.error_env
    elif "result" in message:
        envelope = s.result_env
    else:
        text = "not a JSON-RPC request, notification or response: no 'method', 'result' or 'error' (keys: "
        yield SchemaProblem(seq, s.envelope, _path(prefix), _cap(text + f"{_brief(sorted(message))})"))
        return
    specific = dispatch(s, message, request_method)
    if specific:
        name, in_result = specific
        if in_result:
            yield from _errors(s, name, message["result"], seq, (*prefix, "result"))
        else:
            yield from _errors(s, name, message, seq, prefix)
    if not specific or specific[0] != envelope:
        yield from _errors(s, envelope, message, seq, prefix)
    if "method" in message:
        yield from _membership(s, message, seq, prefix)


def _check(s: RevisionSchema, message: Any, seq: int, method_of: Callable[[int], str | None]) -> list[SchemaProblem]:
    """`method_of(i)`: the method of the request the i-th element of a batch (0: the message) answers."""

    def problems() -> Iterator[SchemaProblem]:
        if not isinstance(message, list):
            yield from _one(s, message, method_of(0), seq, ())
            return
        if not s.batches:
            text = f"a JSON-RPC batch (array of {len(message)}) is not a message in {s.revision}: no batches"
            yield SchemaProblem(seq, s.envelope, "", text)
        for i, element in enumerate(message):
            yield from _one(s, element, method_of(i), seq, (i,))

    out: list[SchemaProblem] = []
    seen: set[tuple[str, str]] = set()
    for problem in problems():
        key = (problem.path, problem.message)
        if key in seen:
            continue  # e.g. a missing resultType, reported by both the result and the envelope
        seen.add(key)
        if len(out) == MAX_PROBLEMS:
            note = f"more schema problems in this message; only the first {MAX_PROBLEMS} are listed"
            out.append(SchemaProblem(seq, problem.definition, "", note))
            break
        out.append(problem)
    return out


def validate_message(
    message: Any, revision: str, request_method: str | None = None, seq: int = 0
) -> list[SchemaProblem]:
    """Check one server->client message (or batch). `request_method`: the method of the request it answers.

    For a batch, `request_method` applies to every response in it; `validate_wire` pairs each element.
    At most MAX_PROBLEMS problems are listed, plus one entry saying there were more.
    """
    s = revision_schema(revision)
    return _check(s, message, seq, lambda _i: request_method)


def validate_wire(
    entries: Iterable[WireEntry], revision: str, conn: int | Collection[int] | None = None
) -> list[SchemaProblem]:
    """Check every message the server sent ("recv"), of one connection, some, or all (None).

    A response is checked against the result of the request it answers, as the wire log linked them when it
    recorded the response (`WireEntry.links`, one per answer of a batch). Batches are checked element by element.
    """
    s = revision_schema(revision)
    conns = None if conn is None else ({conn} if isinstance(conn, int) else set(conn))
    problems: list[SchemaProblem] = []
    for entry in entries:
        if entry.direction != "recv" or entry.message is None or (conns is not None and entry.conn not in conns):
            continue
        asked = {link.at: link.method for link in entry.links or [] if link.state in ("paired", "by-exchange")}
        problems.extend(_check(s, entry.message, entry.seq, asked.get))
    return problems
