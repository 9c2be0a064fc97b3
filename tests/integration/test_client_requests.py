"""Requests a server makes of the client, without end, answered within the session's one bound (issue 35:
`LIMITS.client_requests`, connection/asked.py): a round of `inputRequests` past it gets no answer and its request no
result; a JSON-RPC request past it ends the connection (a loop that asks again as soon as it is declined stops);
either is said once, on the wire, in the review's notes and in one finding, with the count."""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import replace

import pytest

from mcp_review.checking import CheckPlan, run_check
from mcp_review.connection import asked
from mcp_review.connection.asked import ClientFlood, ClientRequestsExceeded
from mcp_review.connection.session import Session, headless_handlers
from mcp_review.rules.context import Options
from mcp_review.targets import stdio_target
from tests.support import ROOT

FLOOD = str(ROOT / "tests" / "hostile" / "flood_server.py")
FLOODED = "the server asked the client"


def flood(case: str) -> Session:
    target = stdio_target([sys.executable, FLOOD, case]).with_(timeout=20)
    return Session(target, handlers=headless_handlers())


async def test_a_round_past_the_bound_is_not_answered_and_its_request_gets_no_result(monkeypatch):
    """request-flood asks 2,000 things a round: under a bound of 2,500 the first round is answered whole (the
    retry carries every answer), the second is not, and the call ends with the count."""
    monkeypatch.setattr(asked, "LIMITS", replace(asked.LIMITS, client_requests=2_500))
    async with flood("request-flood") as session:
        with pytest.raises(ClientRequestsExceeded, match=r"asked the client 4,000 times in this session"):
            await session.complete("tools/call", {"name": "probe", "arguments": {}})
        retries = [e for e in session.wire.entries if e.direction == "send" and e.method == "tools/call"]
        assert len(retries) == 2 and len(retries[1].message["params"]["inputResponses"]) == 2_000
        assert (session.asked.total, session.asked.answered) == (4_000, 2_000)
        notes = [e for e in session.wire.entries if e.direction == "note" and FLOODED in (e.text or "")]
        assert len(notes) == 1 and session.asked.over == (notes[0].seq, notes[0].seq - 1)
        # the next call is refused at its first round: nothing more is answered in this session
        with pytest.raises(ClientRequestsExceeded):
            await session.complete("tools/call", {"name": "probe", "arguments": {}})
        assert session.asked.answered == 2_000 and session.failure is None, "the connection itself goes on"


async def test_a_request_past_the_bound_ends_the_connection_and_the_loop_stops(monkeypatch):
    """sampling-loop asks again as soon as it is declined: declining at once made a loop for good; past the bound
    the connection ends, and nothing more is asked of it."""
    monkeypatch.setattr(asked, "LIMITS", replace(asked.LIMITS, client_requests=50))
    async with flood("sampling-loop") as session:
        ends = time.monotonic() + 20
        while session.failure is None and time.monotonic() < ends:
            await asyncio.sleep(0.05)
        assert isinstance(session.failure, ClientFlood), session.failure
        assert "51 times" in str(session.failure) and "ended the connection" in str(session.failure)
        answers = [e for e in session.wire.entries if e.direction == "send" and e.kind in ("response", "error")]
        assert len(answers) == 50, "a request past the bound was answered"
        with pytest.raises(ClientFlood):
            await session.request("tools/list")


async def test_the_review_says_it_once_in_a_finding_and_a_note(monkeypatch):
    monkeypatch.setattr(asked, "LIMITS", replace(asked.LIMITS, client_requests=2_500))
    target = stdio_target([sys.executable, FLOOD, "request-flood"]).with_(timeout=20)
    review = await run_check(target, CheckPlan(packs=["review"], options=Options(calls="all")))
    found = [f for f in review.findings if f.rule == "review.client-requests-safe"]
    flooded = [f for f in found if f.message.startswith(FLOODED)]
    assert len(flooded) == 1 and flooded[0].status == "fail", found
    assert "answered the first 2,000 (client_requests" in flooded[0].message
    notes = [n for n in review.notes if FLOODED in n]
    assert len(notes) == 1 and notes[0].startswith(flooded[0].message.split(": a client")[0]), review.notes
    assert review.verdict == "FAIL"
