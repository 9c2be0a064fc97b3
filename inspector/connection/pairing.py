"""Which answer answers which request, decided once, when the answer is recorded (as mitmproxy keeps a flow).

The wire log passes every JSON-RPC message here in the order it records them. A request (ours, or one the server
sends us: sampling, elicitation, roots) is indexed by its connection, its direction and its id; an answer (a response
or an error) is looked up there and linked to the request it answers: the request's seq and method, and the
latency (`Link`). A notification that names a request (cancelled, progress) is linked to it the same way.
Everything else reads these links (`WireEntry.links`, `WireEntry.answered`): schema validation, the Wire tab, the
reports and a finding's evidence. Nothing is searched: each message costs a few dictionary operations.

What a server sends is hostile. An answer whose id matches no request is recorded as unpaired, a second answer to
a request as a duplicate, and ids of any JSON type are keys of their own (1, 1.0, "1" and true are four ids; null
names no request). An error with no matching id that came back on the POST of exactly one request still pending
answers that request, as the channel treats it (mcp 1.x servers answer `"id": "server-error"`).
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

State = Literal["paired", "by-exchange", "duplicate", "unpaired", "cancels", "progress"]
ANSWERS: frozenset[str] = frozenset({"paired", "by-exchange", "duplicate"})  # the states of an answer to `request`
IdKey = tuple[str, Any]
Key = tuple[int, str, IdKey]  # connection, the direction the request went, its id


class WireEntry(Protocol):
    """What pairing reads and writes of a recorded entry (`wire.WireEntry`), named here so that the log imports
    its pairing and not the other way round."""

    links: list[Link] | None
    answered: list[int] | None

    @property
    def seq(self) -> int: ...
    @property
    def t(self) -> float: ...
    @property
    def conn(self) -> int: ...
    @property
    def direction(self) -> str: ...
    @property
    def exchange(self) -> int | None: ...


@dataclass(frozen=True)
class Link:
    """What one element of a message refers to: the request it answers, cancels or reports progress on."""

    request: int | None  # the request's seq; None: it matches no request recorded
    method: str | None  # the request's method
    ms: float | None  # milliseconds since the request was recorded
    state: State = "paired"  # "by-exchange": paired by the HTTP exchange that carried both, not by id
    at: int = 0  # the element of a batch it is for

    @property
    def answers(self) -> bool:
        return self.state in ANSWERS

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"request": self.request, "state": self.state}
        if self.method is not None:
            out["method"] = self.method
        if self.ms is not None:
            out["ms"] = round(self.ms, 3)
        if self.at:
            out["at"] = self.at
        return out


def id_key(rid: Any) -> IdKey | None:
    """A JSON-RPC id as a key: its JSON type and value. None for a missing or null id: it names no request."""
    if rid is None:
        return None
    if isinstance(rid, str | int | float):  # bool is an int: its type name keeps true apart from 1
        return type(rid).__name__, rid
    return "json", json.dumps(rid, sort_keys=True, default=repr)  # an object or array: invalid, still an id


def is_answer(element: Any) -> bool:
    """A response or an error (or what has an id and no method: a malformed answer still answers)."""
    return isinstance(element, dict) and "method" not in element and ("id" in element or "result" in element)


def _other(direction: str) -> str:
    return "recv" if direction == "send" else "send"


class Pairing:
    """The index of requests by id, kept as messages are recorded (one per wire log)."""

    def __init__(self) -> None:
        # requests not answered yet, oldest first: a hostile server may send two requests with one id
        self._open: dict[Key, deque[tuple[WireEntry, str]]] = {}
        self._answered: dict[Key, tuple[WireEntry, str]] = {}  # the request each answered key was paired with
        self._progress: dict[Key, tuple[WireEntry, str]] = {}  # progress tokens our or its requests carried
        self._carried: dict[int, list[Key]] = {}  # HTTP exchange -> the requests we sent in its body

    def record(self, entry: WireEntry, message: Any) -> None:
        """Index `message`'s requests, link its answers and notifications (`entry.links`)."""
        links: list[Link] = []
        for at, element in enumerate(message if isinstance(message, list) else [message]):
            if not isinstance(element, dict):
                continue
            method, link = element.get("method"), None
            if isinstance(method, str) and "id" in element:
                self._request(entry, element, method)
            elif isinstance(method, str):
                link = self._notification(entry, element, method)
            elif is_answer(element):
                link = self._answer(entry, element)
            if link is not None:
                links.append(replace(link, at=at) if at else link)
        entry.links = links or None

    def _request(self, entry: WireEntry, element: dict[str, Any], method: str) -> None:
        rid = id_key(element["id"])
        if rid is None:
            return
        key = (entry.conn, entry.direction, rid)
        self._open.setdefault(key, deque()).append((entry, method))
        if entry.exchange is not None and entry.direction == "send":
            self._carried.setdefault(entry.exchange, []).append(key)
        params = element.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        token = id_key(meta.get("progressToken")) if isinstance(meta, dict) else None
        if token is not None:
            self._progress[(entry.conn, entry.direction, token)] = entry, method

    def _notification(self, entry: WireEntry, element: dict[str, Any], method: str) -> Link | None:
        params = element.get("params")
        if not isinstance(params, dict):
            return None
        if method == "notifications/cancelled":  # sent by who asked
            rid = id_key(params.get("requestId"))
            key = (entry.conn, entry.direction, rid) if rid is not None else None
            waiting = self._open.get(key) if key is not None else None
            return _link(entry, waiting[0] if waiting else self._answered.get(key) if key else None, "cancels")
        if method == "notifications/progress":  # sent by who was asked
            token = id_key(params.get("progressToken"))
            found = self._progress.get((entry.conn, _other(entry.direction), token)) if token is not None else None
            return _link(entry, found, "progress")
        return None

    def _answer(self, entry: WireEntry, element: dict[str, Any]) -> Link:
        rid = id_key(element.get("id"))
        link = self._by_key(entry, (entry.conn, _other(entry.direction), rid) if rid is not None else None)
        if link is None and entry.direction == "recv" and "error" in element and entry.exchange is not None:
            pending = [key for key in self._carried.get(entry.exchange, []) if key in self._open]
            if len(pending) == 1:  # an error on the POST of one request answers it, whatever id it carries
                link = replace(self._by_key(entry, pending[0]) or UNPAIRED, state="by-exchange")
        return link or UNPAIRED

    def _by_key(self, entry: WireEntry, key: Key | None) -> Link | None:
        """The answer `entry` linked to the oldest request still open under `key`, else to the one answered."""
        waiting = self._open.get(key) if key is not None else None
        if key is None or (not waiting and key not in self._answered):
            return None
        if waiting:
            found = self._answered[key] = waiting.popleft()
            if not waiting:
                del self._open[key]
            state: State = "paired"
        else:
            found, state = self._answered[key], "duplicate"
        request = found[0]
        if request.answered is None:
            request.answered = []
        request.answered.append(entry.seq)
        return _link(entry, found, state)


UNPAIRED = Link(None, None, None, "unpaired")


def _link(entry: WireEntry, found: tuple[WireEntry, str] | None, state: State) -> Link:
    if found is None:
        return UNPAIRED
    request, method = found
    return Link(request.seq, method, (entry.t - request.t) * 1000, state)
