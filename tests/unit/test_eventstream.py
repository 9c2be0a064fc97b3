"""text/event-stream parsing (connection/eventstream.py): the events that carry no message are events too, so
spec.http-transport can see a stream's priming event and its retry field."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from mcp_review.connection.eventstream import SseEvent, sse_events


async def _lines(text: str) -> AsyncIterator[str]:
    for line in text.split("\n"):
        yield line


def parsed(text: str) -> list[SseEvent]:
    async def run() -> list[SseEvent]:
        return [event async for event in sse_events(_lines(text))]

    return asyncio.run(run())


def test_a_priming_event_and_a_retry_field_alone_are_events():
    events = parsed('id: p1\ndata:\n\nretry: 500\n\ndata: {"jsonrpc": "2.0"}\n\n: a comment\n\n')
    assert [(e.id, e.data, e.retry) for e in events] == [
        ("p1", "", None),
        (None, "", 500),
        (None, '{"jsonrpc": "2.0"}', None),
    ]
