"""`requestState` goes back to the server exactly as it came, over a real stdio server: however long (past the
256 K characters a string keeps on screen), whatever it holds (a secret the server was given, which the review
masks; a lone surrogate, which it shows as U+FFFD). The wire log still shows it cut and masked."""

from __future__ import annotations

import json
import sys

import pytest

from mcp_review.connection.session import Session
from mcp_review.targets import stdio_target
from mcp_review.untrusted import original_length

# A raw server whose tools/call asks for input once, with a state built from argv, and then says whether the
# state it got back is the one it sent.
ROUND = r"""
import json, sys
STATE = sys.argv[1] * int(sys.argv[2]) + json.loads(sys.argv[3])  # the tail: a JSON string
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "r", "version": "1"}}
    elif "requestState" not in msg["params"]:
        result = {"resultType": "input_required", "requestState": STATE, "inputRequests": {}}
    else:
        same = msg["params"]["requestState"] == STATE
        result = {"content": [{"type": "text", "text": "same" if same else "corrupted"}], "isError": not same}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
"""
SECRET = "sk-supersecret-123"


@pytest.mark.parametrize(
    ("unit", "times", "tail"),
    [("ab", 200_000, "!"), ("x", 10, SECRET), ("y", 10, "\ud800"), ("short", 3, "")],
    ids=["long", "secret", "surrogate", "unchanged"],
)
async def test_request_state_is_echoed_exactly(unit: str, times: int, tail: str):
    argv = [sys.executable, "-c", ROUND, unit, str(times), json.dumps(tail)]
    async with Session(stdio_target(argv, env={"API_KEY": SECRET}), era="legacy") as s:
        result, _ = await s.result("tools/call", {"name": "t", "arguments": {}})
        assert result["content"][0]["text"] == "same"
        shown = next(
            e.message["result"]["requestState"]
            for e in s.wire.entries
            if e.direction == "recv" and e.message.get("result", {}).get("requestState")
        )
    state = unit * times + tail
    if unit == "ab":
        assert original_length(shown) == len(state) and len(shown) < len(state), "the log still shows it cut"
    if tail == SECRET:
        assert SECRET not in shown, "the log still masks it"
