"""How long a server takes over requests that cost it nothing: when even a listing or a ping takes long, the server
(or what stands in front of it) pays a fixed price per request, and a check, which makes hundreds, pays it hundreds
of times. A stateless gateway that starts the server's process for each request is the usual cause: a default check
of server-everything behind one took 58.7 s, and `list` 14.6 s, with nothing saying why.

`Pace` is fed by the wire log as it records (`WireLog.pace`: one look at each answer's pairing link, so it costs the
same at any log size) and keeps the latency of the last few answers to such requests. The floor of those is the
price of a request: a large listing or one slow answer does not raise it, a machine under load rarely does.
`slow_note` says it in one line with what would be faster; `check`'s progress line and the app's status show it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Protocol

from mcp_review.connection.pairing import Link

QUICK = frozenset({"ping", "tasks/get", "completion/complete", "logging/setLevel"})  # and every `*/list`
WINDOW = 8  # answers to quick requests kept, the latest
AT_LEAST = 3  # answers needed before anything is said
SLOW = 0.5  # seconds: a floor at or above this is named


def quick(method: str | None) -> bool:
    """A request a server answers from what it holds (a listing, a ping), not by running a tool. `initialize` is
    not one: on stdio it waits for the server's own start."""
    return method is not None and (method in QUICK or method.endswith("/list"))


class Answer(Protocol):
    @property
    def direction(self) -> str: ...
    @property
    def link(self) -> Link | None: ...


@dataclass
class Pace:
    recent: deque[float] = field(default_factory=lambda: deque(maxlen=WINDOW))  # seconds, the latest quick answers

    def see(self, entry: Answer) -> None:
        """One recorded entry: an answer to a quick request of ours adds its latency."""
        link = entry.link if entry.direction == "recv" else None
        if link is not None and link.answers and link.ms is not None and quick(link.method):
            self.recent.append(link.ms / 1000)

    def per_request(self) -> float | None:
        """The seconds every request costs when it is slow enough to name (None: it is not, or too few answers)."""
        if len(self.recent) < AT_LEAST:
            return None
        floor = min(self.recent)
        return floor if floor >= SLOW else None


@dataclass(frozen=True)
class Slow:
    """A server whose every request is slow: what one costs, and what would be faster."""

    each: float  # seconds a request costs, a listing too
    why: str  # what makes it so, and what would be faster

    @property
    def short(self) -> str:
        """For a live line: `~1.2 s a request`."""
        return f"~{self.each:.1f} s a request"

    def __str__(self) -> str:
        return f"each request takes ~{self.each:.1f} s, a listing too: {self.why}"


def slow_note(pace: Pace, kind: str, era: str, session_id: bool) -> Slow | None:
    """What makes this run slow, and what would be faster; None when requests are quick. `kind`: the transport
    ("stdio", "http", "sse"); `era`: "legacy" or "modern"; `session_id`: the HTTP server gave the connection a
    session."""
    each = pace.per_request()
    if each is None:
        return None
    if kind == "stdio":
        why = "the server itself is slow to answer; a check makes hundreds of requests (--budget bounds it)"
    elif kind == "http" and era == "modern":
        why = (
            "on 2026-07-28 over Streamable HTTP each request stands alone, and a gateway that starts the server for "
            "each one pays its start every time; --era legacy (one session) or the server's stdio command (after --) "
            "is faster"
        )
    elif kind == "http" and not session_id:
        why = (
            "the server seems to start a process per request (a stateless gateway: no Mcp-Session-Id); the "
            "gateway's stateful mode or the server's stdio command (after --) answers in milliseconds"
        )
    else:
        over = "SSE" if kind == "sse" else "Streamable HTTP with a session"
        why = f"the server or the network is slow ({over}); its stdio command (after --), if any, is faster"
    return Slow(each, why)
