"""What a client sends back goes back to the server exactly as it came (`requestState`, a page's `nextCursor`), over
a real stdio server: however long (past the 256 K characters a string keeps on screen), whatever it holds (a secret
the server was given, which the review masks; a lone surrogate, which it shows as U+FFFD). The wire log still
shows it cut and masked."""

from __future__ import annotations

import json
import sys
from dataclasses import replace

import pytest

from mcp_review import paging
from mcp_review.catalog import LISTS, list_all
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
CASES = pytest.mark.parametrize(
    ("unit", "times", "tail"),
    [("ab", 200_000, "!"), ("x", 10, SECRET), ("y", 10, "\ud800"), ("short", 3, "")],
    ids=["long", "secret", "surrogate", "unchanged"],
)


@CASES
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


# A raw server whose tools/list has as many pages as argv has cursors after the first three arguments: page 1 sends
# the first cursor, the request that carries cursor i exactly gets page i + 1; any other cursor gets -32602.
PAGES = r"""
import json, sys
CURSORS = [sys.argv[1] * int(sys.argv[2]) + json.loads(tail) for tail in sys.argv[3:]]
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    reply = {"jsonrpc": "2.0", "id": msg["id"]}
    if msg["method"] == "initialize":
        reply["result"] = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "p", "version": "1"}}
    else:
        cursor = msg["params"].get("cursor")
        page = 0 if cursor is None else CURSORS.index(cursor) + 1 if cursor in CURSORS else -1
        if page < 0:
            reply["error"] = {"code": -32602, "message": "Invalid cursor"}
        else:
            tool = {"name": f"t{page}", "inputSchema": {"type": "object"}}
            reply["result"] = {"tools": [tool], **({"nextCursor": CURSORS[page]} if page < len(CURSORS) else {})}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
"""


async def _listed(unit: str, times: int, *tails: str):
    argv = [sys.executable, "-c", PAGES, unit, str(times), *map(json.dumps, tails)]
    async with Session(stdio_target(argv, env={"API_KEY": SECRET}), era="legacy") as s:
        listing = await list_all(s, LISTS[0])
        shown = [
            e.message["result"]["nextCursor"]
            for e in s.wire.messages("recv")
            if "nextCursor" in e.message.get("result", {})
        ]
    return listing, shown


@CASES
async def test_a_cursor_is_sent_back_exactly(unit: str, times: int, tail: str):
    listing, shown = await _listed(unit, times, tail)
    assert (listing.error, listing.stopped) == (None, None) and [i.name for i in listing] == ["t0", "t1"]
    if unit == "ab":
        assert original_length(shown[0]) == len(unit) * times + 1 and len(shown[0]) < 400_001, "the log shows it cut"
    if tail == SECRET:
        assert SECRET not in shown[0], "the log still masks it"


async def test_long_cursors_alike_up_to_the_cut_are_no_loop():
    """Two cursors of 300,000 characters that differ only in their last: shown cut, they are the same string."""
    listing, shown = await _listed("c", 300_000, "1", "2")
    assert shown[0] == shown[1], "the log shows them cut alike"
    assert (listing.stopped, listing.broken) == (None, False) and len(listing) == 3


async def test_cursors_past_the_listing_s_cap_stop_it_as_a_limit_of_mcp_review_s(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(paging, "LIMITS", replace(paging.LIMITS, cursor=2_500))
    listing, _ = await _listed("d", 1_000, "1", "2", "3")
    assert listing.stopped and "MCP_REVIEW_LIMITS cursor" in listing.stopped and "page 3" in listing.stopped
    assert not listing.broken and len(listing) == 3  # two cursors sent back, the third not: a limit, not a defect
