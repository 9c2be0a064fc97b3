"""Hostile at scale: 10,000 tools with markup and escapes in their names, a 20 MB result, a crash mid-call,
and a flood of 30,000 log notifications during a call."""

from __future__ import annotations

import os
import sys

from rawserver import RawServer, text_result, tool

COUNT = int(sys.argv[sys.argv.index("--tools") + 1]) if "--tools" in sys.argv else 10000
TOOLS = [
    tool(
        f"tool_{i}_[b]x[/b]",
        f"Tool {i} \x1b[31mred\x1b[0m [link=http://evil.example]click[/link]",
        {"q": {"type": "string"}},
        [],
        annotations={"readOnlyHint": True, "openWorldHint": False},
    )
    for i in range(COUNT)
]
TOOLS[:0] = [
    tool("huge_result", "Returns 20 MB of text.", {}, [], annotations={"readOnlyHint": True, "openWorldHint": False}),
    tool("crash_now", "Kills the server mid-call.", {}, [], annotations={"readOnlyHint": True, "openWorldHint": False}),
    tool(
        "flood", "Sends 30,000 log notifications.", {}, [], annotations={"readOnlyHint": True, "openWorldHint": False}
    ),
]
FLOOD = 30000


def call(params: dict) -> dict:
    if params.get("name") == "crash_now":
        sys.stderr.write("segfault simulated\n")
        sys.stderr.flush()
        os._exit(139)
    if params.get("name") == "flood":
        for i in range(FLOOD):
            server.send(
                {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": f"n{i}"}}
            )
        return text_result("flooded")
    if params.get("name") == "huge_result":
        return text_result("A" * (20 * 1024 * 1024))
    return text_result("ok")


server = RawServer("hostile-server", {"tools": {}})
server.handlers.update({"tools/list": lambda _p: {"tools": TOOLS}, "tools/call": call})

if __name__ == "__main__":
    server.run()
