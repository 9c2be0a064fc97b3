"""The wire log pairs each answer with its request when it records it (issue 22): the answer keeps the request's
seq and method and the latency, the request the seqs of its answers. Schema validation, the Wire tab, the reports
and a finding's evidence read that link; these tests prove the link itself, on hostile input too."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_review.checking import evidence_entries
from mcp_review.connection.pairing import Link
from mcp_review.connection.session import Session
from mcp_review.connection.wire import MAX_ANSWERS, WireEntry, WireLog
from mcp_review.report.markdown import exchanges_of
from mcp_review.review import Finding, Review
from mcp_review.targets import http_target, stdio_target
from tests.support import fixture_argv
from tests.thirdparty import fastmcp1_http_url  # noqa: F401 (fixture)

HOSTILE = Path(__file__).parent.parent / "hostile" / "stdio_server.py"


def rec(log: WireLog, direction: str, message: Any, conn: int = 1, exchange: int | None = None) -> WireEntry:
    return log.message(direction, conn, message, json.dumps(message), exchange)  # type: ignore[arg-type]


def ask(method: str, rid: Any, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


def ok(rid: Any, result: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": {} if result is None else result}


def error(rid: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32600, "message": "Bad Request"}}


def state(entry: WireEntry) -> str | None:
    return entry.link.state if entry.link else None


def test_an_answer_keeps_its_requests_seq_method_and_latency():
    log = WireLog()
    asked = rec(log, "send", ask("tools/list", 1))
    answer = rec(log, "recv", ok(1, {"tools": []}))
    assert answer.link is not None and answer.link.ms is not None and answer.link.ms >= 0
    assert answer.link == Link(asked.seq, "tools/list", answer.link.ms, "paired")
    assert asked.answered == [answer.seq] and asked.links is None
    assert log.pair_of(answer) == log.pair_of(asked) == [asked, answer]
    saved = [json.loads(line) for line in log.to_jsonl().splitlines()]
    assert saved[0]["answered"] == [2]
    assert saved[1]["links"] == [
        {"request": 1, "state": "paired", "method": "tools/list", "ms": round(answer.link.ms, 3)}
    ]


def test_the_servers_requests_pair_with_our_answers_apart_from_ours_with_the_same_id():
    log = WireLog()
    ours = rec(log, "send", ask("tools/call", 1))
    theirs = rec(log, "recv", ask("sampling/createMessage", 1))
    our_answer = rec(log, "send", ok(1))
    their_answer = rec(log, "recv", ok(1))
    assert (our_answer.link.request, our_answer.link.method) == (theirs.seq, "sampling/createMessage")
    assert (their_answer.link.request, their_answer.link.method) == (ours.seq, "tools/call")
    assert log.exchange_of(ours.seq) == [ours, their_answer], "the same id the other way is another exchange"
    assert log.exchange_of(our_answer.seq) == [theirs, our_answer]


def test_duplicate_unknown_and_null_answers_are_recorded_as_such():
    log = WireLog()
    asked = rec(log, "send", ask("ping", 7))
    first, again = rec(log, "recv", ok(7)), rec(log, "recv", error(7))
    unknown, null, server_error = (
        rec(log, "recv", ok(8)),
        rec(log, "recv", error(None)),
        rec(log, "recv", error("server-error")),
    )
    assert [state(e) for e in (first, again, unknown, null, server_error)] == [
        "paired",
        "duplicate",
        "unpaired",
        "unpaired",
        "unpaired",
    ]
    assert again.link.request == asked.seq and asked.answered == [first.seq, again.seq]
    assert unknown.link == Link(None, None, None, "unpaired")
    assert log.exchange_of(unknown.seq) == [unknown]


def test_ids_of_every_json_type_are_ids_of_their_own():
    log = WireLog()
    ids: list[Any] = [1, 1.0, "1", True, {"b": 1, "a": [1]}, [1], "x" * 100_000, 10**30, -0.5]
    asked = [rec(log, "send", ask("ping", rid)) for rid in ids]
    answers = [rec(log, "recv", ok(rid)) for rid in reversed(ids)]
    assert [a.link.request for a in answers] == [q.seq for q in reversed(asked)]
    assert {state(a) for a in answers} == {"paired"}
    for odd in (float("nan"), float("inf"), {"a": {}}, False, ""):
        assert state(rec(log, "recv", ok(odd))) == "unpaired"


def test_requests_that_share_an_id_are_answered_in_order():
    log = WireLog()
    first, second = rec(log, "recv", ask("roots/list", "r")), rec(log, "recv", ask("sampling/createMessage", "r"))
    answers = [rec(log, "send", ok("r")), rec(log, "send", ok("r")), rec(log, "send", ok("r"))]
    assert [(a.link.request, state(a)) for a in answers] == [
        (first.seq, "paired"),
        (second.seq, "paired"),
        (second.seq, "duplicate"),
    ]


def test_an_error_on_the_post_of_one_request_answers_it_whatever_its_id():
    """mcp 1.x servers answer `"id": "server-error"` (the channel takes such an error as the POST's request's)."""
    log = WireLog()
    post, other = log.new_exchange(), log.new_exchange()
    asked = rec(log, "send", ask("server/discover", 1), exchange=post)
    elsewhere = rec(log, "recv", error("server-error"), exchange=other)
    answer = rec(log, "recv", error("server-error"), exchange=post)
    assert state(elsewhere) == "unpaired"
    assert answer.link == Link(asked.seq, "server/discover", answer.link.ms, "by-exchange")
    assert state(rec(log, "recv", error("server-error"), exchange=post)) == "unpaired", "nothing left open there"
    theirs = log.new_exchange()  # the server's own request, on the stream of a POST: not a request we sent there
    rec(log, "send", ask("tools/call", 4), exchange=theirs)
    rec(log, "recv", ok(4), exchange=theirs)
    rec(log, "recv", ask("roots/list", 5), exchange=theirs)
    assert state(rec(log, "recv", error("server-error"), exchange=theirs)) == "unpaired"
    both = log.new_exchange()
    rec(log, "send", [ask("ping", 2), ask("ping", 3)], exchange=both)
    assert state(rec(log, "recv", error(None), exchange=both)) == "unpaired", "two requests: which one is unknown"


def test_a_batch_links_each_answer_to_its_own_request():
    log = WireLog()
    batch = rec(log, "send", [ask("tools/list", 7), ask("ping", 8)])
    answers = rec(log, "recv", [ok(8), {"jsonrpc": "2.0", "method": "notifications/message", "params": {}}, ok(7), 5])
    assert [(link.at, link.request, link.method) for link in answers.links or []] == [
        (0, batch.seq, "ping"),
        (2, batch.seq, "tools/list"),
    ]
    assert batch.answered == [answers.seq, answers.seq]
    assert log.pair_of(batch) == [batch, answers]


def test_a_probes_raw_text_pairs_when_it_parses():
    log = WireLog()
    raw = log.raw_send(1, json.dumps(ask("tools/list", 9)))
    broken = log.raw_send(1, '{"jsonrpc": "2.0", "id": 10, "method": ')
    assert raw.message is None and broken.message is None
    assert rec(log, "recv", ok(9)).link.request == raw.seq
    assert state(rec(log, "recv", ok(10))) == "unpaired"


def test_cancelled_and_progress_name_their_request():
    log = WireLog()
    asked = rec(log, "send", ask("tools/call", 3, _meta={"progressToken": "p"}))
    progress = rec(
        log, "recv", {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p"}}
    )
    cancel = rec(log, "send", {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}})
    stray = rec(log, "recv", {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}})
    assert (progress.link.request, state(progress)) == (asked.seq, "progress")
    assert (cancel.link.request, state(cancel)) == (asked.seq, "cancels")
    assert state(stray) == "unpaired", "the server cancels only its own requests"
    assert asked.answered is None and log.pair_of(progress) == [progress], "neither answers it"


def test_a_request_answered_a_thousand_times_shows_its_first_answers():
    log = WireLog()
    asked = rec(log, "send", ask("ping", 1))
    for _ in range(1000):
        rec(log, "recv", ok(1))
    assert len(asked.answered or []) == 1000
    assert log.pair_of(asked) == [asked, *log.entries[1 : 1 + MAX_ANSWERS]]


# ---------------------------------------------------------------------------------------------- readers
def test_the_reports_group_a_reviews_evidence_by_the_recorded_links():
    """Our request and the server's request share the id 2: each exchange is its own in the review's evidence."""
    log = WireLog()
    rec(log, "send", ask("tools/list", 2))
    rec(log, "recv", ask("roots/list", 2))
    rec(log, "send", ok(2, {"roots": []}))
    rec(log, "recv", ok(2, {"tools": []}))
    finding = Finding(rule="spec.wire-schema", pack="spec", status="fail", message="m", evidence=[1])
    review = Review(server={}, target={}, revision=None, era=None, transport="stdio", findings=[finding])
    review.exchanges = evidence_entries(log, [finding])
    assert sorted(review.exchanges) == [1, 4]
    review.exchanges = {e.seq: e.to_json() for e in log.entries}
    grouped = {seq: [e["seq"] for e in entries] for seq, entries in exchanges_of(review).items()}
    assert grouped == {1: [1, 4], 2: [2, 3], 3: [2, 3], 4: [1, 4]}


# ---------------------------------------------------------------------------------------------- real servers
async def test_reconnects_continue_one_numbering_and_pair_per_connection():
    log = WireLog()
    for _ in range(2):
        async with Session(stdio_target(fixture_argv("good")), era="legacy", wire=log) as s:
            await s.request("tools/list", {})
    assert [e.seq for e in log.entries] == list(range(1, len(log.entries) + 1)), "one numbering"
    conns = sorted({e.conn for e in log.entries if e.conn})
    assert len(conns) == 2
    answers = [e for e in log.entries if e.direction == "recv" and e.kind in ("response", "error")]
    assert answers and {state(e) for e in answers} == {"paired"}
    for answer in answers:
        asked = log.get(answer.link.request)
        assert asked.conn == answer.conn and asked.rpc_id == answer.rpc_id, "id 1 on each connection is its own"


async def test_a_hostile_servers_answers_are_recorded_and_never_crash():
    """tests/hostile's `garbage` case answers with ids of every wrong type, a second answer to our first request,
    `"id": "server-error"` and a 100,000-character id, and asks for sampling with params that are not an object."""
    target = stdio_target([sys.executable, str(HOSTILE), "garbage"])
    async with Session(target, era="legacy", timeout=10) as s:
        await s.request("tools/call", {"name": "probe", "arguments": {}})
    log = s.wire
    answers = [e for e in log.entries if e.direction == "recv" and isinstance(e.message, dict) and e.link]
    by_id = {json.dumps(e.rpc_id)[:20]: state(e) for e in answers}
    assert by_id == {
        '"iiiiiiiiiiiiiiiiiii': "unpaired",
        "1": "duplicate",  # initialize's id, answered twice
        "1.0": "unpaired",
        "2": "paired",  # the tools/call
        '"server-error"': "unpaired",  # stdio: no POST to pair it by
        "true": "unpaired",
        '{"a": 1}': "unpaired",
        "null": "unpaired",
        "99999999999999999999": "unpaired",  # cut to 20 characters here
    }
    call = next(e for e in answers if e.rpc_id == 2)
    assert call.link.method == "tools/call" and log.get(call.link.request).answered == [call.seq]
    ours = next(e for e in log.entries if e.direction == "send" and e.rpc_id == "x")
    assert ours.kind == "error" and ours.link.method == "sampling/createMessage", "our answer to its request"


@pytest.mark.thirdparty
async def test_an_mcp1_servers_server_error_answers_the_discover_it_came_back_on(fastmcp1_http_url):  # noqa: F811
    """mcp 1.x answers server/discover with HTTP 400 and `"id": "server-error"`: the POST it came back on pairs it."""
    async with Session(http_target(fastmcp1_http_url), era="auto") as s:
        await s.request("tools/list", {})
    error = next(e for e in s.wire.entries if e.direction == "recv" and e.rpc_id == "server-error")
    asked = s.wire.get(error.link.request)
    assert (error.link.state, error.link.method, asked.exchange) == ("by-exchange", "server/discover", error.exchange)
    answers = [e for e in s.wire.entries if e.direction == "recv" and e.kind in ("response", "error")]
    assert {state(e) for e in answers} == {"paired", "by-exchange"}
