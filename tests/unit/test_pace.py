"""What the wire log's pace says (`connection.pace`): the floor of the latest quick answers names a server whose every
request is slow, with what would be faster for its transport and era; a slow tool, a slow start or one big listing
among quick ones says nothing. tests/integration/test_slow_server.py proves it end to end behind a gateway."""

from __future__ import annotations

import pytest

from mcp_review.connection import wire as wire_module
from mcp_review.connection.pace import Pace, slow_note
from mcp_review.connection.wire import WireLog


class Clock:
    now = 1000.0

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(wire_module, "time", fake)
    return fake


def answered(wire: WireLog, clock: Clock, method: str, seconds: float) -> None:
    rid = len(wire.entries) + 1
    wire.message("send", 1, {"jsonrpc": "2.0", "id": rid, "method": method}, "{}")
    clock.now += seconds
    wire.message("recv", 1, {"jsonrpc": "2.0", "id": rid, "result": {}}, "{}")


def test_quick_answers_say_nothing(clock: Clock):
    wire = WireLog()
    for method in ("initialize", "tools/list", "resources/list", "prompts/list", "ping"):
        answered(wire, clock, method, 0.004)
    answered(wire, clock, "tools/call", 10.0)  # a tool that works for 10 s is no slow server
    assert wire.pace.per_request() is None and slow_note(wire.pace, "stdio", "legacy", False) is None


def test_a_slow_start_a_slow_tool_or_one_big_listing_say_nothing(clock: Clock):
    wire = WireLog()
    answered(wire, clock, "initialize", 2.0)  # on stdio it waits for the server's own start
    answered(wire, clock, "tools/call", 9.0)
    for seconds in (0.01, 3.0, 0.01, 0.02):  # one listing of 10,000 tools among quick ones
        answered(wire, clock, "tools/list", seconds)
    assert wire.pace.per_request() is None


def test_every_request_slow_is_named_with_what_would_be_faster(clock: Clock):
    wire = WireLog()
    for method in ("tools/list", "resources/list", "prompts/list", "ping"):
        answered(wire, clock, method, 1.2 if method != "ping" else 0.9)
    assert wire.pace.per_request() == pytest.approx(0.9)
    gateway = slow_note(wire.pace, "http", "legacy", session_id=False)
    assert gateway is not None and gateway.short == "~0.9 s a request"
    assert str(gateway).startswith("each request takes ~0.9 s, a listing too: ")
    assert "start a process per request (a stateless gateway" in gateway.why and "stdio command" in gateway.why
    assert "--era legacy" in str(slow_note(wire.pace, "http", "modern", session_id=False))
    assert "the server itself is slow" in str(slow_note(wire.pace, "stdio", "legacy", session_id=False))
    assert "network" in str(slow_note(wire.pace, "http", "legacy", session_id=True))


def test_the_latest_answers_decide(clock: Clock):
    pace = Pace()
    wire = WireLog(pace=pace)
    for _ in range(3):
        answered(wire, clock, "tools/list", 1.0)
    assert pace.per_request() == pytest.approx(1.0)
    for _ in range(8):  # the server warmed up (or the gateway started keeping it): quick again
        answered(wire, clock, "ping", 0.01)
    assert pace.per_request() is None
