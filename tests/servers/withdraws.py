"""A legacy-era server that asks the client for its roots once initialized, and withdraws that request
(notifications/cancelled, "timed out") when `echo` is called, without waiting for the answer."""

from __future__ import annotations

from typing import Any

from rawserver import RawServer, text_result, tool

ROOTS_ID = "roots-1"
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
server = RawServer("withdraws-server", capabilities={"tools": {}})
server.on_initialized = lambda: server.send({"jsonrpc": "2.0", "id": ROOTS_ID, "method": "roots/list"})
echo = tool("echo", "Echoes its text.", {"text": {"type": "string"}}, annotations=READ_ONLY)
server.handlers["tools/list"] = lambda _params: {"tools": [echo]}


def call(params: dict[str, Any]) -> dict[str, Any]:
    withdrawn = {"requestId": ROOTS_ID, "reason": "timed out"}
    server.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": withdrawn})
    return text_result(str(params.get("arguments")))


server.handlers["tools/call"] = call

if __name__ == "__main__":
    server.run()
