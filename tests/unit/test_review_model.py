"""The review decisions and call coverage the app records, headless: merging a re-run, waiving, attesting,
coverage of the reviewer's calls, and a call as a command line with no secret in it."""

from __future__ import annotations

import shlex

from mcp_review.calls import call_command, refused_call
from mcp_review.review import Attestation, Finding, Review, Waiver
from mcp_review.targets import http_target, stdio_target


def review_of(*findings: Finding) -> Review:
    return Review({"name": "s"}, {"kind": "stdio"}, None, None, "stdio", findings=list(findings))


def test_merging_a_rerun_replaces_only_that_rules_or_packs_findings():
    old = [
        Finding("review.a", "review", "fail", "old a", "t1"),
        Finding("review.b", "review", "warn", "old b"),
        Finding("spec.c", "spec", "fail", "old c"),
    ]
    review = review_of(*old)
    review.waivers.append(Waiver("review.a", "known", "carol"))
    review.merge(review_of(Finding("review.a", "review", "fail", "new a", "t1")), "review.a")
    assert [f.message for f in review.findings] == ["old b", "old c", "new a"]
    assert review.findings[-1].effective == "waived", "the waivers apply to the merged findings"
    rerun = review_of(Finding("review.b", "review", "pass", "new b"))
    rerun.exchanges = {7: {"seq": 7}}
    review.merge(rerun, "review")
    assert [f.message for f in review.findings] == ["old c", "new b"] and review.exchanges == {7: {"seq": 7}}


def test_a_waiver_and_an_attestation_change_the_verdict_at_once():
    fail = Finding("review.a", "review", "fail", "bad", "t1")
    manual = Finding("review.m", "review", "blocking", "a person must judge", mode="manual")
    review = review_of(fail, manual)
    review.waive(Waiver("review.a", "accepted", "carol", "t1", None, "tui"))
    assert fail.effective == "waived" and review.verdict == "BLOCKED"
    review.attest(manual, Attestation("review.m", "carol", "read it", "pass", None, "tui"))
    assert review.verdict == "PASS" and manual.message == "attested by carol: read it"
    assert [a.by for a in review.attestations] == ["carol"]


def test_the_reviewers_calls_replace_their_earlier_coverage_and_keep_the_rules():
    review = review_of()
    review.coverage = [{"tool": "t", "purpose": "review.a"}, {"tool": "t", "purpose": "reviewer"}]
    refused = refused_call("delete", {"id": 1})
    review.record_calls([refused], "reviewer")
    assert review.coverage == [{"tool": "t", "purpose": "review.a"}, refused]
    assert refused["consent"] == "refused" and refused["outcome"] == "not called"


def test_a_call_as_a_command_line_holds_no_secret():
    call = {"tool": "search", "arguments": {"q": "x y"}, "consent": "reviewer"}
    stdio = stdio_target(["server", "--token", "s3cr3t-value", "--api-key=k3y-value", "--port", "80"])
    line = call_command(call, stdio)
    assert "s3cr3t-value" not in line and "k3y-value" not in line
    assert shlex.split(line) == [
        "mcp-review", "call", "search", "--args", '{"q": "x y"}', "--yes",
        "--", "server", "--token", "***", "--api-key=***", "--port", "80",
    ]  # fmt: skip
    http = http_target("https://u:p4ssw0rd@example.com/mcp?access_token=t0k3n-value&page=2", bearer="b3arer-x")
    line = call_command({**call, "consent": "read-only"}, http)
    for secret in ("p4ssw0rd", "t0k3n-value", "b3arer-x"):
        assert secret not in line
    assert shlex.split(line)[-2:] == ["--url", "https://u:***@example.com/mcp?access_token=***&page=2"]


def test_the_status_lines_counts_separate_thousands():
    from mcp_review.workspace import summary

    review = review_of(*[Finding(f"review.r{i}", "review", "blocking", "not verified", f"t{i}") for i in range(1003)])
    assert "1,003 blocking" in summary(review)
