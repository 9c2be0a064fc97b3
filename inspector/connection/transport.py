"""Byte-level transports: what they share. See `stdio.py`, `http.py` and `sse.py`; `channel.make_transport` picks one.

A transport moves JSON-RPC text and records everything in the wire log before anything else sees it.
It knows nothing about MCP semantics; `RpcChannel` correlates ids and `Session` speaks the protocol.
Everything a server sends is untrusted: it is parsed within bounds and cleaned (`untrusted`), text that
is not JSON-RPC is kept as noise (never fatal), and a dying server surfaces as one `ConnectionFailed`
with its exit code and last stderr lines.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from mcp_review.connection.errors import ConnectionFailed
from mcp_review.connection.wire import WireLog
from mcp_review.output import json_escaped
from mcp_review.targets import Target
from mcp_review.untrusted import LONE_SURROGATE, MAX_STRING, Unusable, parse_message, raw_echoes, safe_text

MAX_MESSAGE_BYTES = 32 * 1024 * 1024  # one message; larger ones are dropped with a note
MAX_LINE_CHARS = 4000  # stderr / noise lines are kept this long at most
_ID_NEAR = re.compile(r'"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,200}")')


@dataclass(frozen=True)
class Delivery:
    """Where a received message came from: its wire entry, and the HTTP exchange and status if any."""

    seq: int
    exchange: int | None = None
    status: int | None = None
    for_id: Any = None  # over HTTP: the id of the request whose POST this came back on
    echoes: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # see `untrusted.raw_echoes`


@dataclass(frozen=True)
class Outgoing:
    """What one send may vary besides the message, stated once for the transports, the channel and the prober.

    `raw`: text sent as is instead of the message (unparseable JSON; a plain HTTP exchange's body).
    `headers` are added to or replace the HTTP headers, `omit` names headers left out (case-insensitive);
    both are ignored over stdio. Frozen through and through: the shared `PLAIN` cannot be changed by a caller.
    """

    raw: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    omit: Iterable[str] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "headers", MappingProxyType(dict(self.headers)))
        object.__setattr__(self, "omit", tuple(self.omit))

    def text(self, payload: Any) -> str:
        """What goes on the wire: the raw text, else the message as JSON. A lone surrogate (a server's own, sent
        back as it came: `requestState`) has no UTF-8, so it is written as the JSON escape it arrived as."""
        if self.raw is not None:
            return self.raw
        return json_escaped(json.dumps(payload, ensure_ascii=False), LONE_SURROGATE)


PLAIN = Outgoing()  # the message as JSON, the usual headers

MessageSink = Callable[[Any, Delivery], None]
ClosedSink = Callable[[ConnectionFailed], None]
DroppedSink = Callable[[Any, str], None]  # (the id the dropped message seemed to answer, why)


def is_jsonrpc(obj: Any) -> bool:
    if isinstance(obj, list):
        return bool(obj) and all(isinstance(m, dict) and "jsonrpc" in m for m in obj)
    return isinstance(obj, dict) and "jsonrpc" in obj


def guess_id(text: str) -> Any:
    """The id a message too big to parse seems to carry (looked for near its start and its end), or None."""
    for part in (text[:300], text[-300:]):
        match = _ID_NEAR.search(part)
        if match:
            return json.loads(match.group(1))
    return None


class Transport(ABC):
    kind: str

    def __init__(self, target: Target, wire: WireLog) -> None:
        self.target = target
        self.wire = wire
        self.conn = wire.new_connection()
        self.on_message: MessageSink = lambda _m, _d: None
        self.on_closed: ClosedSink = lambda _e: None
        self.on_dropped: DroppedSink = lambda _id, _why: None
        self.closing = False
        self.streaming: set[Any] = set()  # ids of the requests whose answer is an event stream still open

    @abstractmethod
    async def start(self) -> None: ...

    @abstractmethod
    async def send(self, payload: Any, how: Outgoing = PLAIN) -> None:
        """Send one message, or what `how` says instead (probes: raw text, odd HTTP headers)."""

    @abstractmethod
    async def aclose(self) -> None: ...

    def note(self, text: str) -> int:
        return self.wire.line("note", self.conn, text).seq

    def _record_send(self, payload: Any, how: Outgoing, exchange: int | None = None) -> str:
        """Log what is about to go out (raw text as raw text) and return it."""
        text = how.text(payload)
        if how.raw is not None or payload is None:
            self.wire.raw_send(self.conn, text, exchange)
        else:
            self.wire.message("send", self.conn, payload, text, exchange)
        return text

    def _noise(self, text: str) -> None:
        self.wire.line("noise", self.conn, safe_text(text[:MAX_LINE_CHARS], self.wire.redactor))

    def _receive_text(
        self, text: str, exchange: int | None = None, status: int | None = None, for_id: Any = None
    ) -> bool:
        """Parse one received text; deliver it if it is JSON-RPC, else keep it as noise. True if delivered."""
        if self.wire.counted_only(text):
            return False
        if not text[:100].lstrip().startswith(("{", "[")):
            self._noise(text)
            return False
        limit = self.wire.string_limit(len(text))
        try:
            parsed = parse_message(text, self.wire.redactor, limit)
        except Unusable as e:
            if str(e).startswith("not JSON"):
                self._noise(text)
                return False
            rid = guess_id(text)
            self.note(f"a message of {len(text):,} characters was dropped: {e}")
            self.on_dropped(for_id if rid is None else rid, str(e))
            return False
        if not is_jsonrpc(parsed.value):
            self._noise(text)
            return False
        if limit < MAX_STRING:
            parsed.notes.append(f"the wire log holds {self.wire.kept:,} characters already: long strings cut short")
        entry = self.wire.message("recv", self.conn, parsed.value, text, exchange, parsed.notes, parsed.removed)
        echoes = raw_echoes(parsed.value, text) if parsed.notes else {}
        self.on_message(parsed.value, Delivery(entry.seq, exchange, status, for_id, MappingProxyType(echoes)))
        return True
