"""`review.error-channel-correct` says what seed 003 says (issue 20), proven on tests/servers/lookups.py over stdio.

Protocol failures (an unknown tool, malformed arguments) MUST be JSON-RPC errors; an ordinary tool failure (a lookup
of an id that does not exist) MUST be an `isError` result, never a protocol error. Where the spec the server
negotiated says otherwise, the finding cites both.
"""

from __future__ import annotations

import pytest

from tests.rules.runs import Run, describe, findings, review_of, worst

RULE = "review.error-channel-correct"


def judged(run: Run, subject: str | None = "get_note"):
    items = findings(run)[RULE]
    return [f for f in items if f.subject == subject], items


@pytest.mark.parametrize(
    ("missing", "status", "says"),
    [
        ("is-error", "pass", "a lookup of note_id = 'mcpr-missing-"),
        ("raises", "fail", "(which does not exist) raised JSON-RPC error -32603 ('note mcpr-missing-"),
        ("swallows", "warn", "answered as a success that says 'no note with id <the value sent>', without isError"),
        ("empty", "pass", "a success without isError and no word of a failure"),
    ],
)
def test_a_lookup_of_a_missing_id(missing, status, says):
    mine, items = judged(Run(("lookups", "--missing", missing)))
    assert [f.status for f in mine] == [status] and says in mine[0].message, describe(items)
    assert worst(items) == status, describe(items)
    (lookup,) = [c for c in review_of(Run(("lookups", "--missing", missing))).coverage if is_lookup(c)]
    assert lookup["seq"] in mine[0].evidence, "the lookup's exchange is cited"
    assert len(mine[0].evidence) == len(set(mine[0].evidence))


def is_lookup(call: dict) -> bool:
    return call["tool"] == "get_note" and str(call["arguments"].get("note_id")).startswith("mcpr-missing-")


def test_the_raised_failure_cites_seed_and_spec():
    mine, _ = judged(Run(("lookups", "--missing", "raises")))
    assert "seed 003 says a reviewer MUST reject" in mine[0].message
    assert "MCP's CallToolResult (2025-06-18 on) says errors from the tool SHOULD be isError" in mine[0].message


def test_an_unknown_tool_answered_with_is_error_fails_citing_seed_and_spec():
    mine, items = judged(Run(("lookups", "--unknown-tool", "is-error")), None)
    assert [f.status for f in mine] == ["fail"], describe(items)
    assert "seed 003 says protocol failures (unknown tool) MUST be JSON-RPC errors" in mine[0].message
    assert "MCP 2025-11-25 lists unknown tools under protocol errors too" in mine[0].message


def test_invalid_arguments_as_is_error_fail_up_to_2025_06_18_and_pass_after_citing_both():
    old, items = judged(Run(("lookups", "--revision", "2025-06-18")), "search_notes")
    assert [f.status for f in old] == ["fail"], describe(items)
    assert "MUST be JSON-RPC errors, and MCP 2025-06-18 lists invalid arguments as protocol errors" in old[0].message
    new, items = judged(Run(("lookups",)), "search_notes")
    assert [f.status for f in new] == ["pass"], describe(items)
    assert "as MCP 2025-11-25 makes input validation errors isError results (SEP-1303); seed 003" in new[0].message


def test_invalid_arguments_as_a_json_rpc_error_pass_on_any_revision_citing_sep_1303_after():
    new, items = judged(Run(("lookups", "--invalid", "rpc")), "search_notes")
    assert [f.status for f in new] == ["pass"], describe(items)
    assert new[0].message.endswith(
        "-> JSON-RPC error -32602, as seed 003 says; MCP 2025-11-25 makes input "
        "validation errors isError results (SEP-1303)"
    )
    old, items = judged(Run(("lookups", "--invalid", "rpc", "--revision", "2025-06-18")), "search_notes")
    assert [f.status for f in old] == ["pass"] and old[0].message.endswith("-32602, as seed 003 says"), describe(items)


def test_a_lookup_that_may_not_be_called_is_blocking():
    mine, items = judged(Run(("lookups", "--missing", "raises"), calls="none"))
    assert [f.status for f in mine] == ["blocking"], describe(items)
    assert "how invalid arguments and a missing thing are answered needs a call: run with --calls" in mine[0].message
