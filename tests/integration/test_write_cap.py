"""A stdio server that stops reading its input: mcp-review's answers pile up to the write cap and the connection
ends, in one line; what the server writes after that is drained (it is never left blocked on a full pipe) and
counted, not parsed."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

from mcp_review.connection import stdio
from mcp_review.connection.errors import ConnectionFailed
from mcp_review.connection.session import Session
from mcp_review.targets import stdio_target

# Answers `initialize`; on `notifications/initialized` it reads no more while it sends PINGS pings whose ids are
# 100 KB (the client echoes each id in its answer), then reads its input to the end and exits.
DEAF = r"""
import json, sys
PINGS = int(sys.argv[1])
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "d", "version": "1"}}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
        sys.stdout.flush()
    elif msg.get("method") == "notifications/initialized":
        for i in range(PINGS):
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": f"{i}-" + "I" * 100_000, "method": "ping"}) + "\n")
            sys.stdout.flush()
        sys.stdin.read()
"""
PINGS = 400  # 40 MB


async def test_what_comes_after_the_write_cap_is_drained_and_counted_not_parsed(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(stdio, "LIMITS", replace(stdio.LIMITS, write_buffer=1 << 20))
    session = Session(stdio_target([sys.executable, "-c", DEAF, str(PINGS)]), era="legacy", timeout=20)
    async with session:
        with pytest.raises(ConnectionFailed, match="stopped reading its input"):
            await session.request("tools/list", {})
    pings = [e for e in session.wire.entries if e.method == "ping"]
    notes = [e.text for e in session.wire.entries if e.direction == "note" and "counted, not read" in (e.text or "")]
    assert len(pings) < PINGS // 4, "the pings after the cap were parsed and logged"
    assert len(notes) == 1 and int(notes[0].split()[0].replace(",", "")) > 30_000_000, notes
    stopped = [e.text for e in session.wire.entries if e.text and e.text.startswith("server stopped")]
    assert stopped and "exited after stdin closed" in stopped[0], "it was left blocked on its output"
