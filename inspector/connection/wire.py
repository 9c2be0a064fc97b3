"""The wire log: every message in both directions, HTTP exchanges, stderr and stdout noise.

The log is the review's evidence. It is recorded already redacted: credential headers and every secret
value the target carries (env values, bearer tokens) are masked before an entry is stored, so nothing
derived from the log (the TUI, JSONL, exports) can leak them.

What an observed server did (`mcp_review.sandbox`: a file opened, a program started, a connection attempted) is
an entry too (direction "event"), recorded when strace reports it and always before the answer that followed it,
attributed as it is recorded to the request it happened under: the last request sent on its connection before it,
"during" that request or "after" its answer, or "start-up" before any. So a finding cites an event by its seq beside
the exchange it belongs to, and the wire log and the saved review carry it, masked like the rest.
"""

from __future__ import annotations

import bisect
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mcp_review.connection.pace import Pace
from mcp_review.connection.pairing import Link, Pairing
from mcp_review.definitions import Definitions
from mcp_review.redact import Redactor
from mcp_review.sandbox import Event, Layout, Ran
from mcp_review.untrusted import MAX_STRING

Direction = Literal["send", "recv", "stderr", "noise", "http", "note", "event"]
MAX_EVENTS = 100_000  # observed events kept; past it only those outside the server's own and the system's trees
MAX_NOTABLE = 100_000  # ... and past this many of those too, they are counted
MAX_CHATTER = 50_000  # stderr and noise lines, and messages the server sends unasked, kept; more are counted
WIRE_BUDGET = 128 * 1024 * 1024  # characters of received messages kept in full; after that, big strings are cut short
MAX_ANSWERS = 4  # answers to one request shown beside it (a hostile server may answer one request 100,000 times)
SPENT_STRING = 4096  # what a string of a received message keeps once the budget is spent
# Past MAX_CHATTER, what a received text must hold to be parsed at all: a member named "id" (an answer, or a
# request to answer), an escape (which could spell one, or a method's name), a cancellation, or the progress of a
# request still waited for (its token: `WireLog.awaited`). Without a backslash a JSON string is its literal text,
# so a text holding none of these is chatter nothing acts on.
ID, ESCAPE, CANCELLED, PROGRESS = '"id"', "\\", "notifications/cancelled", "notifications/progress"


def byte_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode(errors="replace"))


@dataclass
class WireEntry:
    """One thing that crossed (or came out beside) the connection.

    `message` is the parsed JSON-RPC message for send/recv; `text` the raw line for stderr/noise/note;
    `http` the request/response line and headers of an HTTP exchange. `exchange` ties messages to the
    HTTP exchange that carried them; `conn` numbers the connection (probes use fresh ones). `links` and `answered`
    are the pairing made when the entry was recorded (see `pairing`): what this message answers (one link per answer
    in a batch) or names, and the seqs of the answers to the requests it carries.
    """

    seq: int
    t: float
    direction: Direction
    conn: int = 0
    message: Any = None
    text: str | None = None
    http: dict[str, Any] | None = None
    exchange: int | None = None
    size: int = 0
    notes: list[str] | None = None  # what mcp-review changed in a received message (see `untrusted`)
    links: list[Link] | None = None
    answered: list[int] | None = None
    event: dict[str, Any] | None = None  # what an observed server did (direction "event"), where, under which request

    @property
    def link(self) -> Link | None:
        """The first link: for a message that is not a batch, the request it answers or names."""
        return self.links[0] if self.links else None

    @property
    def method(self) -> str | None:
        m = self.message
        return m.get("method") if isinstance(m, dict) and isinstance(m.get("method"), str) else None

    @property
    def rpc_id(self) -> Any:
        m = self.message
        return m.get("id") if isinstance(m, dict) else None

    @property
    def kind(self) -> str:
        """request / response / error / notification / batch / invalid, for messages; else the direction."""
        m = self.message
        if self.direction not in ("send", "recv"):
            return self.direction
        if isinstance(m, list):
            return "batch"
        if not isinstance(m, dict):
            return "invalid"
        if "method" in m:
            return "request" if "id" in m else "notification"
        if "error" in m:
            return "error"
        if "result" in m:
            return "response"
        return "invalid"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seq": self.seq,
            "t": round(self.t, 6),
            "dir": self.direction,
            "conn": self.conn,
        }
        for key in ("message", "text", "http", "exchange", "notes", "answered", "event"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.links:
            out["links"] = [link.to_json() for link in self.links]
        out["size"] = self.size
        return out


@dataclass(frozen=True)
class Refusal:
    """A request mcp-review refused to send: the server named another origin (see `egress`)."""

    seq: int  # the note that records it
    url: str
    what: str  # "endpoint" (an SSE endpoint event), "redirect", or "request" (anything else)


@dataclass
class WireLog:
    """Append-only, shared by every connection of one review, reconnects too: seqs and connection numbers never
    start again, so a seq names one entry for the log's whole life. Answers are paired as they are recorded."""

    redactor: Redactor = field(default_factory=Redactor)
    entries: list[WireEntry] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)  # every request refused for its origin
    dropped: int = 0  # chatter entries counted but not kept (over MAX_CHATTER)
    definitions: Definitions = field(default_factory=Definitions)  # every tool definition listed (consent reads it)
    kept: int = 0  # characters of received messages kept (what WIRE_BUDGET bounds)
    awaited: set[str] = field(default_factory=set)  # the progress tokens of requests waited for, as JSON text
    pace: Pace = field(default_factory=Pace)  # how long quick requests take (`pace.slow_note` names a slow server)
    _chatter: int = 0
    _listeners: list[Callable[[WireEntry], None]] = field(default_factory=list)
    _conns: int = 0
    _exchanges: int = 0
    # Indexes kept as entries arrive, so finding a message's exchange costs the same at any log size.
    _pairing: Pairing = field(default_factory=Pairing)
    _by_exchange: dict[int, list[WireEntry]] = field(default_factory=dict)  # HTTP exchange -> its http lines
    _sent_in: dict[int, list[WireEntry]] = field(default_factory=dict)  # HTTP exchange -> what we sent in its body
    runs: dict[int, Ran] = field(default_factory=dict)  # connection -> how its server process ran (stdio)
    events_seen: int = 0  # events observed, kept or not
    events_dropped: int = 0  # ... and not kept (past MAX_EVENTS)
    _asked: dict[int, tuple[list[float], list[WireEntry]]] = field(default_factory=dict)  # conn -> our requests
    _ready: dict[int, float] = field(default_factory=dict)  # conn -> when its server first answered a request
    _observers: dict[int, Callable[[], None]] = field(default_factory=dict)  # conn -> reads its events so far

    def new_connection(self) -> int:
        self._conns += 1
        return self._conns

    def new_exchange(self) -> int:
        """HTTP exchange ids are global, so evidence never mixes two connections' exchanges."""
        self._exchanges += 1
        return self._exchanges

    def subscribe(self, listener: Callable[[WireEntry], None]) -> None:
        self._listeners.append(listener)

    def _add(self, entry: WireEntry, sent: Any = None) -> WireEntry:
        """Append `entry`, pairing its message (or `sent`: what a probe's raw text parses as)."""
        self.entries.append(entry)
        if entry.direction in ("send", "recv"):
            message = entry.message if entry.message is not None else sent
            self._pairing.record(entry, message)
            self.pace.see(entry)
            link, listed = entry.link, isinstance(message, dict) and "result" in message
            if entry.direction == "recv" and listed and link and link.answers and link.method == "tools/list":
                self.definitions.see(message["result"], entry.seq)
        elif entry.direction == "http" and entry.exchange is not None:
            self._by_exchange.setdefault(entry.exchange, []).append(entry)
        if entry.direction == "send" and entry.exchange is not None:
            self._sent_in.setdefault(entry.exchange, []).append(entry)
        if entry.direction == "recv" and entry.conn not in self._ready and entry.link and entry.link.answers:
            self._ready[entry.conn] = entry.t
        if entry.direction == "send" and entry.method is not None and entry.rpc_id is not None:
            times, asked = self._asked.setdefault(entry.conn, ([], []))
            times.append(entry.t)
            asked.append(entry)
        for listener in self._listeners:
            listener(entry)
        return entry

    def _entry(self, direction: Direction, conn: int, sent: Any = None, **kw: Any) -> WireEntry:
        entry = WireEntry(seq=len(self.entries) + 1, t=time.time(), direction=direction, conn=conn, **kw)
        return self._add(entry, sent)

    def string_limit(self, size: int) -> int:
        """How long a string of a received message of `size` characters may stay."""
        return SPENT_STRING if self.kept + size > WIRE_BUDGET else MAX_STRING

    def _chatty(self, direction: Direction, message: Any = None) -> bool:
        """Is this entry over the chatter budget? Responses, our requests, HTTP lines and notes always count."""
        if direction in ("stderr", "noise") or (
            direction == "recv" and isinstance(message, dict) and "method" in message
        ):
            self._chatter += 1
            if self._chatter > MAX_CHATTER:
                self.dropped += 1
                if self.dropped == 1:
                    text = f"more than {MAX_CHATTER:,} stderr lines and server messages: the rest are counted, not kept"
                    self._entry("note", 0, text=text)
                return True
        return False

    @property
    def flooded(self) -> bool:
        """Has the server sent more chatter than is kept? Its readers then pace themselves (see `stdio.PACE`)."""
        return self._chatter > MAX_CHATTER

    def counted_only(self, text: str) -> bool:
        """Past MAX_CHATTER, is this received text chatter that is only counted, without being parsed? (A flood of
        log notifications, or of progress for a request given up on, cost ~30 µs each to parse, check, mask and
        drop: the app's screen waited behind it.)"""
        if self._chatter < MAX_CHATTER or ID in text or ESCAPE in text or CANCELLED in text:
            return False
        if PROGRESS in text and any(token in text for token in self.awaited):
            return False
        self._chatty("noise")
        return True

    def message(
        self,
        direction: Literal["send", "recv"],
        conn: int,
        message: Any,
        raw: str,
        exchange: int | None = None,
        notes: list[str] | None = None,
        removed: int = 0,
    ) -> WireEntry:
        """Record a parsed message; `raw` is its exact text (for the size). A received message arrives
        already cleaned (`untrusted.parse_message`); one we send is masked here when it holds a secret."""
        if direction == "send" and self.redactor.needed(raw):
            message = self.redactor.json(message)
        size = byte_size(raw)
        if direction == "recv":
            self.kept += len(raw) - removed
        if self._chatty(direction, message):
            return WireEntry(0, time.time(), direction, conn, message=message, exchange=exchange, size=size)
        return self._entry(direction, conn, message=message, exchange=exchange, size=size, notes=notes or None)

    def raw_send(self, conn: int, text: str, exchange: int | None = None) -> WireEntry:
        """Text sent as is (a probe's malformed JSON): kept as text, not as a message; paired if it parses."""
        text, size = self.redactor.text(text), byte_size(text)
        try:
            sent = json.loads(text)
        except (ValueError, RecursionError):
            sent = None
        return self._entry("send", conn, sent, text=text, exchange=exchange, size=size)

    def line(self, direction: Literal["stderr", "noise", "note"], conn: int, text: str) -> WireEntry:
        if self._chatty(direction):
            return WireEntry(0, time.time(), direction, conn, text=text, size=byte_size(text))
        return self._entry(direction, conn, text=self.redactor.text(text), size=byte_size(text))

    def http(self, conn: int, exchange: int, info: dict[str, Any]) -> WireEntry:
        info = dict(info)
        for key in ("request_headers", "response_headers"):
            if key in info:
                info[key] = self.redactor.headers(info[key])
        if "url" in info:
            info["url"] = self.redactor.text(info["url"])
        return self._entry("http", conn, http=info, exchange=exchange)

    # --------------------------------------------------------------------------------------- observed events
    def launched(self, conn: int, ran: Ran, observer: Callable[[], None] | None) -> None:
        """Connection `conn`'s server runs as `ran` says; `observer` reads what strace has written of it so far."""
        self.runs[conn] = ran
        if observer is not None:
            self._observers[conn] = observer
        self.line("note", conn, ran.line())

    def unobserved(self, conn: int) -> None:
        """`conn`'s server has ended: all it did is recorded."""
        self._observers.pop(conn, None)

    def answered_on(self, conn: int) -> bool:
        """Has `conn`'s server answered any request yet?"""
        return conn in self._ready

    def catch_up(self) -> None:
        """Record every event observed so far (before a rule judges them)."""
        for observer in list(self._observers.values()):
            observer()

    def event(self, conn: int, event: Event, layout: Layout) -> WireEntry | None:
        """Record what `conn`'s server did, with where in its view a path is and the request it happened under."""
        self.events_seen += 1
        record = event.to_json()
        if event.path and not event.path.startswith("/") and event.kind != "exec":  # unlink("x"): no directory named
            record["path"] = f"{layout.cwd.rstrip('/')}/{event.path}"  # read against its working directory
        for key, value in (("where", record.get("path")), ("toWhere", event.to)):
            if value is not None and value.startswith("/"):
                record[key] = layout.where(value)
                if key == "where" and (secret := layout.secret(value)):
                    record["secret"] = secret
        quiet = record.get("where") in ("own", "system", "device") and event.kind == "read"
        kept = self.events_seen - self.events_dropped
        if (kept >= MAX_EVENTS and quiet) or kept >= MAX_EVENTS + MAX_NOTABLE:
            self.events_dropped += 1
            return None
        record |= self._attributed(conn, event.t)
        entry = WireEntry(seq=len(self.entries) + 1, t=event.t, direction="event", conn=conn)
        entry.event = self.redactor.json(record)
        return self._add(entry)

    def _attributed(self, conn: int, t: float) -> dict[str, Any]:
        """The request an event at `t` on `conn` happened under: the last one sent before it, and whether its
        answer had come by then ("after") or not ("during"); "start-up" until the server first answered anything
        (what it did before it read a request, and while it answered its first: the handshake)."""
        times, asked = self._asked.get(conn, ([], []))
        at = bisect.bisect_right(times, t)
        if not at or t < self._ready.get(conn, float("inf")):
            return {"phase": "start-up"}
        request = asked[at - 1]
        answers = [a for a in (self.get(seq) for seq in request.answered or []) if a is not None]
        phase = "after" if answers and answers[0].t <= t else "during"
        out: dict[str, Any] = {"phase": phase, "request": request.seq, "method": request.method}
        params = request.message.get("params") if isinstance(request.message, dict) else None
        if request.method == "tools/call" and isinstance(params, dict) and isinstance(params.get("name"), str):
            out["tool"] = params["name"]
        return out

    def events(self, conns: set[int] | None = None) -> Iterator[WireEntry]:
        for e in self.entries:
            if e.direction == "event" and (conns is None or e.conn in conns):
                yield e

    def get(self, seq: int) -> WireEntry | None:
        return self.entries[seq - 1] if 0 < seq <= len(self.entries) else None

    def messages(self, direction: Literal["send", "recv"] | None = None) -> Iterator[WireEntry]:
        for e in self.entries:
            if e.direction in ("send", "recv") and (direction is None or e.direction == direction):
                yield e

    def response_line(self, exchange: int | None) -> WireEntry | None:
        """The HTTP status line of `exchange` (its response), once it came."""
        lines = self._by_exchange.get(exchange, []) if exchange is not None else []
        return next((e for e in reversed(lines) if e.http and "status" in e.http), None)

    def sent_in(self, exchange: int | None) -> list[WireEntry]:
        """What we sent in the body of HTTP exchange `exchange` (none for a GET stream, or no exchange)."""
        return self._sent_in.get(exchange, []) if exchange is not None else []

    def carried(self, entry: WireEntry) -> list[WireEntry]:
        """The HTTP request and response lines of the exchange that carried `entry` (a message)."""
        return self._by_exchange.get(entry.exchange, []) if entry.exchange is not None and entry.http is None else []

    def pair_of(self, entry: WireEntry) -> list[WireEntry]:
        """`entry` with the request it answers and that request's first answers, or with its own first answers,
        in wire order: the links made when they were recorded, followed (a hostile server's duplicates are cut)."""
        asked = [self.get(link.request) for link in entry.links or [] if link.answers and link.request]
        pair = [entry, *(e for e in asked if e is not None)]
        answers = [self.get(seq) for e in pair for seq in (e.answered or [])[:MAX_ANSWERS]]
        return sorted({e.seq: e for e in pair + [a for a in answers if a is not None]}.values(), key=lambda e: e.seq)

    def exchange_of(self, seq: int) -> list[WireEntry]:
        """The evidence for one entry: the request and its answers (`pair_of`), and the HTTP exchanges that
        carried them (request line, status line, the message we sent in the body)."""
        entry = self.get(seq)
        if entry is None:
            return []
        related = {e.seq: e for e in self.pair_of(entry)}
        for exchange in sorted({e.exchange for e in related.values() if e.exchange is not None}):
            related.update((e.seq, e) for e in self._by_exchange.get(exchange, []) + self._sent_in.get(exchange, []))
        return sorted(related.values(), key=lambda e: e.seq)

    def to_jsonl(self) -> str:
        return "".join(self.jsonl())

    def jsonl(self) -> Iterator[str]:
        """The log as JSON lines, one entry at a time (a log of 128 MB is never held twice more as text)."""
        return (json.dumps(e.to_json(), ensure_ascii=False, allow_nan=False) + "\n" for e in self.entries)

    def save(self, path: str | Path) -> None:
        from mcp_review.output import write_text

        write_text(path, self.jsonl())  # each block one line: masking never splits a secret
