"""The wire log: every message in both directions, HTTP exchanges, stderr and stdout noise.

The log is the review's evidence. It is recorded already redacted: credential headers and every secret
value the target carries (env values, bearer tokens) are masked before an entry is stored, so nothing
derived from the log (the TUI, JSONL, exports) can leak them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from inspector.targets import is_secret_header

Direction = Literal["send", "recv", "stderr", "noise", "http", "note"]
MASK = "***"


class Redactor:
    """Masks secret values inside text and JSON, and credential headers by name."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        # Longest first, so a secret that contains another is masked whole.
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def text(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def needed(self, text: str) -> bool:
        return any(secret in text for secret in self.secrets)

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        return {k: (MASK if is_secret_header(k) else self.text(v)) for k, v in headers.items()}

    def json(self, obj: Any) -> Any:
        if not self.secrets:
            return obj
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, list):
            return [self.json(v) for v in obj]
        if isinstance(obj, dict):
            return {self.text(k): self.json(v) for k, v in obj.items()}
        return obj


@dataclass
class WireEntry:
    """One thing that crossed (or came out beside) the connection.

    `message` is the parsed JSON-RPC message for send/recv; `text` the raw line for stderr/noise/note;
    `http` the request/response line and headers of an HTTP exchange. `exchange` ties messages to the
    HTTP exchange that carried them; `conn` numbers the connection (probes use fresh ones).
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
        for key in ("message", "text", "http", "exchange"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        out["size"] = self.size
        return out


@dataclass
class WireLog:
    """Append-only, shared by every connection of one review (seq numbers are global)."""

    redactor: Redactor = field(default_factory=Redactor)
    entries: list[WireEntry] = field(default_factory=list)
    _listeners: list[Callable[[WireEntry], None]] = field(default_factory=list)
    _conns: int = 0
    _exchanges: int = 0

    def new_connection(self) -> int:
        self._conns += 1
        return self._conns

    def new_exchange(self) -> int:
        """HTTP exchange ids are global, so evidence never mixes two connections' exchanges."""
        self._exchanges += 1
        return self._exchanges

    def subscribe(self, listener: Callable[[WireEntry], None]) -> None:
        self._listeners.append(listener)

    def _add(self, entry: WireEntry) -> WireEntry:
        self.entries.append(entry)
        for listener in self._listeners:
            listener(entry)
        return entry

    def _entry(self, direction: Direction, conn: int, **kw: Any) -> WireEntry:
        return self._add(WireEntry(seq=len(self.entries) + 1, t=time.time(), direction=direction, conn=conn, **kw))

    def message(
        self,
        direction: Literal["send", "recv"],
        conn: int,
        message: Any,
        raw: str,
        exchange: int | None = None,
    ) -> WireEntry:
        """Record a parsed message; `raw` is its exact text (for the size, and redaction when needed)."""
        if self.redactor.secrets and self.redactor.needed(raw):
            message = self.redactor.json(message)
        return self._entry(direction, conn, message=message, exchange=exchange, size=len(raw.encode()))

    def raw_send(self, conn: int, text: str, exchange: int | None = None) -> WireEntry:
        """Text sent as is (a probe's malformed JSON): kept as text, not as a message."""
        return self._entry("send", conn, text=self.redactor.text(text), exchange=exchange, size=len(text.encode()))

    def line(self, direction: Literal["stderr", "noise", "note"], conn: int, text: str) -> WireEntry:
        return self._entry(direction, conn, text=self.redactor.text(text), size=len(text.encode()))

    def http(self, conn: int, exchange: int, info: dict[str, Any]) -> WireEntry:
        info = dict(info)
        for key in ("request_headers", "response_headers"):
            if key in info:
                info[key] = self.redactor.headers(info[key])
        if "url" in info:
            info["url"] = self.redactor.text(info["url"])
        return self._entry("http", conn, http=info, exchange=exchange)

    def get(self, seq: int) -> WireEntry | None:
        return self.entries[seq - 1] if 0 < seq <= len(self.entries) else None

    def messages(self, direction: Literal["send", "recv"] | None = None) -> Iterator[WireEntry]:
        for e in self.entries:
            if e.direction in ("send", "recv") and (direction is None or e.direction == direction):
                yield e

    def exchange_of(self, seq: int) -> list[WireEntry]:
        """The evidence for one entry: the request and its response (same conn and id), plus HTTP lines."""
        entry = self.get(seq)
        if entry is None:
            return []
        if entry.direction not in ("send", "recv") or entry.rpc_id is None:
            return [entry]
        related = [
            e
            for e in self.entries
            if e.conn == entry.conn and e.direction in ("send", "recv") and e.rpc_id == entry.rpc_id
        ]
        exchanges = {e.exchange for e in related if e.exchange is not None}
        related += [e for e in self.entries if e.direction == "http" and e.exchange in exchanges]
        return sorted(related, key=lambda e: e.seq)

    def to_jsonl(self) -> str:
        return "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in self.entries)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_jsonl(), encoding="utf-8")
