"""One token figure for what a server sent (issue 25): `TokenCounter.count_sent`, which the result dialog and the
Wire both show, counts the part kept and extrapolates the part mcp-review cut, by bytes, as an estimate."""

from __future__ import annotations

import json

from mcp_review.calls import CallRecord, reply_tokens
from mcp_review.connection.wire import WireLog
from mcp_review.redact import Redactor
from mcp_review.tokens import EXACT_CHARS, TokenCounter
from mcp_review.untrusted import parse_message

COUNTER = TokenCounter()


def reply(text: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": text}]}})


def test_a_small_message_is_counted_exactly():
    message = json.loads(reply("hello there"))
    figure = COUNTER.count_sent(message, len(reply("hello there")))
    assert figure.tokens == COUNTER.count_json(message) and not figure.estimate
    assert str(figure) == str(figure.tokens)


def test_a_cut_reply_is_extrapolated_by_its_bytes_and_marked_as_an_estimate():
    raw = reply("the quick brown fox jumps " * 200_000)  # 5.2 MB: its string is cut at 256 K characters
    kept = parse_message(raw).value
    figure = COUNTER.count_sent(kept, len(raw))
    counted = COUNTER.count_json(kept)
    assert figure.estimate and str(figure).startswith("≈")
    assert figure.tokens > 15 * counted, "the cut part counts too, not only the 256 K kept"
    exact = COUNTER.count_text("the quick brown fox jumps " * 40_000) * 5  # the whole string, counted in fifths
    assert 0.9 < figure.tokens / exact < 1.1


def test_a_long_message_nothing_cut_is_counted_over_its_start():
    items = [{"n": i, "text": "word " * 20} for i in range(20_000)]  # 2.5 MB of short strings: dumped in part
    raw = json.dumps(items, separators=(",", ":"))
    assert len(raw) > 4 * EXACT_CHARS
    figure = COUNTER.count_sent(items, len(raw))
    whole = COUNTER.count_json(items)  # count_text extrapolates by characters: the same text, the same rate
    assert figure.estimate and 0.97 < figure.tokens / whole < 1.03


def test_a_calls_figure_is_its_reply_rows_and_without_one_its_result_as_kept():
    log = WireLog(Redactor())
    raw = reply("A" * (1024 * 1024))
    parsed = parse_message(raw)
    entry = log.message("recv", 1, parsed.value, raw, notes=parsed.notes, removed=parsed.removed)
    record = CallRecord("huge", {}, "read-only", result=parsed.value["result"], seq=entry.seq)
    assert reply_tokens(record, log, COUNTER) == COUNTER.count_sent(entry.message, entry.size)
    assert reply_tokens(record, log, COUNTER).estimate
    record.seq = None
    assert reply_tokens(record, log, COUNTER) == COUNTER.count_sent(record.result, 0)
    assert reply_tokens(CallRecord("gone", {}, "read-only", failure="timed out"), log, COUNTER) is None
