"""text/event-stream, read within bounds: lines of at most one message's size, events of at most that much data.

A server that never ends a line or an event cannot make either grow without bound. Used by both HTTP
transports (`http.py`, `sse.py`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from mcp_review.connection.transport import MAX_MESSAGE_BYTES


@dataclass
class SseEvent:
    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None


async def capped_lines(chunks: AsyncIterator[bytes], limit: int, on_drop: Callable[[int], None]) -> AsyncIterator[str]:
    """Lines of a byte stream (LF or CRLF), each at most `limit` bytes: a longer one is dropped, not held."""
    buf = bytearray()
    dropped = -1  # >= 0 while skipping the rest of an over-long line
    async for chunk in chunks:
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            start = len(chunk) if end < 0 else end + 1
            if dropped >= 0:
                dropped += len(piece)
            else:
                buf += piece
                if len(buf) > limit:
                    dropped, buf = len(buf), bytearray()
            if end < 0:
                break
            if dropped >= 0:
                on_drop(dropped)
                dropped = -1
            else:
                yield buf.decode("utf-8", errors="replace").removesuffix("\r")
            buf = bytearray()
    if buf and dropped < 0:
        yield buf.decode("utf-8", errors="replace").removesuffix("\r")


async def sse_events(lines: AsyncIterator[str], limit: int = MAX_MESSAGE_BYTES) -> AsyncIterator[SseEvent]:
    """Parse a text/event-stream (WHATWG rules, enough for MCP): data lines joined by newlines.

    An event whose data grows past `limit` characters is dropped (its `data` comes back empty, event
    "dropped"), so a stream that never ends an event cannot grow without bound.
    """
    ev, size = SseEvent(), 0
    data: list[str] = []
    async for line in lines:
        if line == "":
            if ev.event == "dropped":
                yield SseEvent("dropped", str(size))
            elif data or ev.id is not None or ev.retry is not None or ev.event != "message":
                ev.data = "\n".join(data)
                yield ev
            ev, data, size = SseEvent(), [], 0
            continue
        if line.startswith(":") or ev.event == "dropped":
            size += len(line) if ev.event == "dropped" else 0
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            size += len(value) + 1
            if size > limit:
                ev, data = SseEvent("dropped"), []
                continue
            data.append(value)
        elif name == "event":
            ev.event = value[:200]
        elif name == "id":
            ev.id = value[:200]
        elif name == "retry" and value.isdigit() and len(value) < 10:
            ev.retry = int(value)
    if data and ev.event != "dropped":
        ev.data = "\n".join(data)
        yield ev
