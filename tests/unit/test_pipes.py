"""Ending a server's input pipe twice, over real OS pipes: asyncio's pipe transport runs its end once per abort,
and the second prints a traceback from the loop. The stdio transport aborts through `stdio.abort`."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

import pytest

from mcp_review.connection.stdio import abort


async def _ends(steps: Callable[[asyncio.WriteTransport, int], None]) -> list[str]:
    """What the loop reports after `steps` end a pipe whose reader never reads, with 1 MB still waiting."""
    loop = asyncio.get_running_loop()
    reported: list[str] = []
    loop.set_exception_handler(lambda _loop, context: reported.append(str(context.get("exception"))))
    read_end, write_end = os.pipe()
    try:
        transport, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(write_end, "wb"))
        transport.write(b"x" * 1_000_000)  # more than the pipe holds: the rest waits in the transport
        steps(transport, read_end)
        for _ in range(5):
            await asyncio.sleep(0.01)
    finally:
        loop.set_exception_handler(None)
        os.close(read_end)
    return reported


def _close_then_abort_twice(pipe: Any, _read_end: int) -> None:
    pipe.close()  # what closing the connection does first: the pipe closes once the bytes are written
    abort(pipe)  # the server reads nothing: the bytes are dropped
    abort(pipe)  # and a send that timed out meanwhile ends it again


def _peer_closed_then_abort(pipe: Any, _read_end: int) -> None:
    pipe._read_ready()  # what the loop calls when the server's end closes (it died): the pipe ends
    abort(pipe)  # a send whose wait timed out in the same pass


@pytest.mark.parametrize("steps", [_close_then_abort_twice, _peer_closed_then_abort])
async def test_a_pipe_ended_twice_ends_once(steps: Callable[[Any, int], None]) -> None:
    assert await _ends(steps) == []


async def test_a_pipe_that_waits_to_close_is_aborted() -> None:
    """A close still waiting on bytes the server never reads is ended by the abort, not left waiting."""
    seen: list[bool] = []

    def steps(pipe: Any, _read_end: int) -> None:
        pipe.close()
        abort(pipe)
        seen.append(pipe.get_write_buffer_size() == 0)

    assert await _ends(steps) == [] and seen == [True]


async def test_asyncio_alone_ends_it_twice() -> None:
    """The hazard `abort` guards against is real: without it, the loop reports the second end."""
    reported = await _ends(lambda pipe, _read_end: (pipe.close(), pipe.abort(), pipe.abort()))
    assert reported and "NoneType" in reported[0]
