"""A server that goes down under a probe: `python fragile.py MODE` (stdio, `--http` or `--sse --port P`).

Two read-only tools, `lookup(name)` and `echo_text(text)`. The modes:
- `steady`: none of the below (the twin that stays up);
- `crash-on-payload`: `lookup` exits the process when the name holds a shell separator (`;`, `|`, `$`, a
  backtick), as a server whose parser dies on an unhandled exception does: the command probe takes it down;
- `crash-on-second-stream` (with `--sse`): the process exits when a second SSE stream opens while one is open,
  as the TypeScript SDK's SSE servers do ("Already connected to a transport");
- `drop-on-second-stream` (with `--sse`): the open stream, and with it its session, is ended when a second one
  opens; the server lives on.
Nothing here reads, writes or runs anything.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from serve import serve

MODE = next((a for a in sys.argv[1:] if not a.startswith("-") and not a.isdigit()), "steady")
LOCAL = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
SEPARATORS = (";", "|", "$", "`")

mcp = MCPServer(f"fragile-{MODE}", version="1.0.0", log_level="WARNING")


@mcp.tool(title="Look up a name", annotations=LOCAL)
def lookup(name: str) -> str:
    """Say whether a name is in the directory. Use when the user asks if someone is listed."""
    if MODE == "crash-on-payload" and any(s in name for s in SEPARATORS):
        os._exit(3)  # defect: the whole server dies on one odd argument
    return f"{name!r} is not listed"


@mcp.tool(title="Echo text", annotations=LOCAL)
def echo_text(text: str) -> str:
    """Return the text as it was given. Use to test a connection."""
    return f"echo: {text}"


class SecondStream:
    """ASGI middleware: what happens to the open SSE stream when a second one opens (`crash` or `drop` it)."""

    def __init__(self, app: Any, crash: bool) -> None:
        self.app, self.crash = app, crash
        self.open: list[asyncio.Event] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or not scope["path"].startswith("/sse"):
            await self.app(scope, receive, send)
            return
        if self.open and self.crash:
            os._exit(3)  # defect: the process dies with every session it held
        for ended in self.open:
            ended.set()  # defect: the session of the stream already open is dropped
        ended = asyncio.Event()
        self.open.append(ended)
        closed = False

        async def cut() -> None:
            nonlocal closed
            await ended.wait()
            closed = True
            await send({"type": "http.response.body", "body": b"", "more_body": False})

        async def sending(message: Any) -> None:
            if not closed:
                await send(message)

        async def receiving() -> Any:
            if closed:
                return {"type": "http.disconnect"}
            waiter = asyncio.ensure_future(receive())
            done, _ = await asyncio.wait({waiter, asyncio.ensure_future(ended.wait())}, return_when="FIRST_COMPLETED")
            return waiter.result() if waiter in done else {"type": "http.disconnect"}

        cutter = asyncio.ensure_future(cut())
        try:
            await self.app(scope, receiving, sending)
        finally:
            cutter.cancel()
            self.open.remove(ended)


if __name__ == "__main__":
    second = MODE.endswith("second-stream")
    serve(mcp, wrap=(lambda app: SecondStream(app, crash=MODE.startswith("crash"))) if second else None)
