"""Hostile stdio MCP servers, one per class of attack: `python stdio_server.py CASE [--canary URL]`.

Each case is a real process that speaks just enough JSON-RPC (2025-11-25, legacy era) to be listed,
called and checked, and then misbehaves in its own way (see CASES in `cases.py`). Every case offers a
read-only tool `probe` that triggers its behaviour when called. Lines are written by hand, byte by byte
where it matters, because the point is to send what no SDK would.

This file is the server: the handshake and the loop. The cases are its siblings, by family of attack:
`stdio_text.py` (what it says), `stdio_size.py` (how big), `stdio_conduct.py` (how it behaves over time), each a
`Case` of `stdio_kit.py`. They are imported as top-level modules: this file runs as a script, so its folder is the
first entry of `sys.path`.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

import stdio_conduct
import stdio_size
import stdio_text
from lines import messages, send
from stdio_kit import CASE, Case

BUILDERS = stdio_text.CASES | stdio_size.CASES | stdio_conduct.CASES


def handle(case: Case, message: dict) -> None:
    method, mid, params = message.get("method"), message.get("id"), message.get("params") or {}
    if mid is None:
        if method == "notifications/initialized" and case.on_initialized is not None:
            threading.Thread(target=case.on_initialized, daemon=True).start()
        return
    if method is None:
        return  # an answer to one of our requests
    if method == "initialize":
        result: Any = {
            "protocolVersion": "2025-11-25",
            "capabilities": case.caps,
            "serverInfo": case.server_info,
            "instructions": case.instructions,
        }
    elif method in case.extra:
        result = case.extra[method]({**params, "_id": mid})
    elif method == "tools/list":
        result = {"tools": case.tools}
    elif method == "tools/call":
        result = case.call({**params, "_id": mid})
    elif method == "ping":
        result = {}
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": f"Method not found: {method}"}})
        return
    if result is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": result})


def main() -> None:
    if CASE not in BUILDERS:
        sys.exit(f"unknown case {CASE}")
    case = BUILDERS[CASE]()  # before the first line is read: a case that forks, floods or steals does it at start
    for message in messages():
        handle(case, message)
        if case.deaf_after_list and message.get("method") == "tools/list":
            time.sleep(3600)  # stop reading stdin: every later write of the client fills the pipe
    if case.lingers:
        time.sleep(3600)  # stdin closed: do not exit either


if __name__ == "__main__":
    main()
