"""Every claim a fail or warn makes about an exchange is in the exchanges it cites (issue 20).

The walk reads the reviews the rule tests already produce (`tests/rules/test_rules.py`'s cache) and checks, from the
message alone, what a signer would check by eye: an HTTP method it names was sent in a cited exchange, a status
it says came back is a cited response's status, a JSON-RPC method it names is a cited message's method.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from mcp_review.report.markdown import exchanges_of
from mcp_review.review import Finding, Review
from tests.rules.cases import (
    ACCEPT_ANY,
    HTTP_GOOD,
    HTTP_MODERN,
    HTTP_OPEN,
    HTTP_PRIMED,
    LOOKALIKE,
    OFF_ORIGIN,
    PROTECTED,
    SLOPPY,
    SPEAKS_HOSTILE,
    SSE,
    UTILITY_DEFECTS,
    VULNERABLE,
    utility_pair,
)
from tests.rules.runs import Run, review_of

ALSO_SSE = Run(("good", "--also-sse"), http="--http", era="legacy")  # Streamable HTTP, and SSE at /sse
STICKY = Run(("good", "--sticky-sessions"), http="--http", era="legacy")  # a DELETE that ends no session
RUNS = {
    "http-good": HTTP_GOOD,
    "http-open": HTTP_OPEN,
    "sse": SSE,
    "off-origin": OFF_ORIGIN,
    "protected": PROTECTED,
    "accept-any": ACCEPT_ANY,
    "http-modern": HTTP_MODERN,
    "stdio-sloppy": SLOPPY,
    "stdio-lookalike": LOOKALIKE,
    "stdio-hostile": SPEAKS_HOSTILE,
    "stdio-vulnerable": VULNERABLE,
    "http-also-sse": ALSO_SSE,
    "http-sticky-sessions": STICKY,
    # issue 41's fixture: each defect's fail (over HTTP, and the stdio ones) names exchanges it cites
    **{
        f"utilities-{mode}-{t}": utility_pair(mode, t)[1]
        for mode, (_, eras, _, _) in UTILITY_DEFECTS.items()
        for t in eras
    },
}

HTTP_METHOD = re.compile(r"\b(GET|POST|DELETE|PUT|PATCH|HEAD|OPTIONS)\b")
# An HTTP status a server answers with: three digits alone (not part of an address, a port, a version or a name).
STATUS = re.compile(r"(?<![\w.:/#-])([2-5]0\d|4[12]\d)(?![\w.:/-])")
UNIT = re.compile(r"^\s+(?:tokens?|bytes?|characters?|items?|tools?|lines?|ms|seconds?)\b")
# What the spec wants rather than what came back: "not 403", "SHOULD be 400", "requires 404", "404 is expected".
WANTED_BEFORE = re.compile(r"\b(?:not|no|be|for|answer|requires|than|wants?)\s+(?:HTTP\s+)?$", re.IGNORECASE)
WANTED_AFTER = re.compile(r"^\s+is expected")
RPC_PREFIXES = "tools|resources|prompts|notifications|sampling|elicitation|roots|completion|logging|server|tasks"
RPC_METHOD = re.compile(rf"(?<![\w/.:-])((?:{RPC_PREFIXES})/[A-Za-z_]+(?:/[A-Za-z_]+)*|initialize|ping)(?![\w/-])")
WANTED_NAME = re.compile(r"\(spec: [^)]*\)")  # the name the spec gives, beside the one on the wire
QUOTED = re.compile(r"'(?:[^'\\]|\\.)*(?:'|$)")  # a quote the message cut short runs to its end
BY_A_PERSON = ("needs a reviewer", "attested by")


def claims(message: str) -> list[tuple[str, str]]:
    """What `message` says happened on the wire: ("http", "GET"), ("status", "404"), ("rpc", "tools/list")."""
    text = re.sub(r"https?://\S+", "URL", message)  # a URL's path or port is not a claim
    text = QUOTED.sub("QUOTE", text)  # nor is the server's own text, quoted
    out = [("http", m) for m in HTTP_METHOD.findall(text)]
    for m in STATUS.finditer(text):
        if (
            not WANTED_BEFORE.search(text[: m.start()])
            and not WANTED_AFTER.match(text[m.end() :])
            and not UNIT.match(text[m.end() :])
        ):
            out.append(("status", m.group(1)))
    out += [("rpc", m) for m in RPC_METHOD.findall(WANTED_NAME.sub("", text))]
    return list(dict.fromkeys(out))


def shown(entries: list[dict[str, Any]], kind: str, value: str) -> bool:
    """Does one of the cited entries show the claim?"""
    for entry in entries:
        http = entry.get("http") or {}
        message = entry.get("message")
        if kind == "http" and http.get("method") == value:
            return True
        if kind == "status" and str(http.get("status")) == value:
            return True
        if kind == "rpc" and isinstance(message, dict) and message.get("method") == value:
            return True
    return False


def unshown(review: Review, finding: Finding) -> list[tuple[str, str]]:
    """The claims of `finding` that none of the exchanges it cites shows."""
    related = exchanges_of(review)
    cited = [entry for seq in finding.evidence for entry in related.get(seq, [])]
    return [(kind, value) for kind, value in claims(finding.message) if not shown(cited, kind, value)]


def unproven(run: Run) -> list[str]:
    review = review_of(run)
    out = []
    for f in review.findings:
        if (f.status not in ("fail", "warn") and not f.settled_by) or f.message.startswith(BY_A_PERSON):
            continue
        missing = unshown(review, f)
        if missing:
            out.append(f"{f.status} {f.rule} [{f.subject}] {f.message[:160]!r}: cites {f.evidence}, lacks {missing}")
    return out


@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_claim_of_a_fail_is_in_the_exchanges_it_cites(name):
    assert not unproven(RUNS[name])


@pytest.mark.quick
def test_the_claims_read_from_a_message():
    said = "a session it ended (DELETE -> 200) -> HTTP 200, not 404; GET -> 400; a modern-only server SHOULD answer 405"
    assert claims(said) == [("http", "DELETE"), ("http", "GET"), ("status", "200"), ("status", "400")]
    assert claims("no 401 challenge (HTTP 200 without a token)") == [("status", "200")]
    assert claims("POST http://127.0.0.1:5123/mcp with Authorization: *** -> 401") == [
        ("http", "POST"),
        ("status", "401"),
    ]
    assert claims("does not declare 'prompts' but prompts/list lists 1") == [("rpc", "prompts/list")]
    assert claims("Content-Type text/event-stream; a 404 is expected") == []


def test_a_claim_the_cited_exchange_does_not_show_is_caught():
    """The walk is not vacuous: a GET claimed while a POST is cited, a status no cited response has."""
    review = review_of(HTTP_OPEN)
    post = next(s for s, e in review.exchanges.items() if (e.get("http") or {}).get("method") == "POST")
    wrong = Finding("x.y", "x", "fail", "GET /sse serves an SSE stream -> HTTP 418", evidence=[post])
    assert unshown(review, wrong) == [("http", "GET"), ("status", "418")]


def cited(run: Run, rule: str) -> tuple[Finding, list[dict[str, Any]]]:
    """The finding of `rule` on `run` about the server itself, and the HTTP lines its evidence shows."""
    review = review_of(run)
    (finding,) = [f for f in review.findings if f.rule == rule and f.subject is None]
    related = exchanges_of(review)
    return finding, [e["http"] for seq in finding.evidence for e in related.get(seq, []) if e.get("http")]


def test_a_streamable_server_that_also_serves_sse_fails_citing_the_get():
    bad, lines = cited(ALSO_SSE, "tokens.transport")
    assert bad.status == "fail" and "/sse serves an SSE stream (HTTP 200, text/event-stream)" in bad.message
    assert lines[0]["method"] == "GET" and lines[0]["url"].endswith("/sse")
    assert lines[1]["status"] == 200 and "text/event-stream" in lines[1]["response_headers"]["content-type"]
    good, lines = cited(HTTP_GOOD, "tokens.transport")
    assert good.status == "pass" and [line.get("method") or line["status"] for line in lines] == ["GET", 404]
    legacy, lines = cited(SSE, "tokens.transport")
    assert legacy.status == "fail" and "GET" in legacy.message and lines[0]["method"] == "GET"


def test_a_session_a_delete_did_not_end_fails_citing_the_delete_and_the_request_after_it():
    bad, lines = cited(STICKY, "spec.http-transport")
    assert bad.status == "fail" and "a session it ended (DELETE -> 200) -> HTTP 200, not 404" in bad.message
    assert [line.get("method") or line["status"] for line in lines] == ["DELETE", 200, "POST", 200]
    good, lines = cited(HTTP_PRIMED, "spec.http-transport")
    assert good.status == "pass" and "DELETE" in [line.get("method") for line in lines]


AUTH_RULES = ("review.audience-validated", "review.resource-server-metadata", "review.transport-config")
NO_FOREIGN = (("foreign_token", None),)  # the reviewer supplied no real token for another resource
ANY_KEY = Run(("protected", "--defect", "any-key"), http="--http", era="legacy", oauth=True, options=NO_FOREIGN)
SIGNED = Run(("protected",), http="--http", era="legacy", oauth=True, options=NO_FOREIGN)


def auth_findings(run: Run) -> dict[str, list[Finding]]:
    return {rule: [f for f in review_of(run).findings if f.rule == rule] for rule in AUTH_RULES}


@pytest.mark.parametrize("run", [HTTP_GOOD, HTTP_OPEN, SSE, HTTP_MODERN], ids=["http", "open", "sse", "modern"])
def test_a_server_without_authorization_fails_once_and_the_other_rules_point_there(run):
    """Issue 20: one missing authorization layer gave 7 fails (5 on audience-validated, a blocking beside them)."""
    found = auth_findings(run)
    fails = [f for items in found.values() for f in items if f.status == "fail"]
    assert [(f.rule, f.fact and f.fact.owner) for f in fails] == [("review.transport-config",) * 2], fails
    assert "a request without Authorization was accepted (HTTP 200)" in fails[0].message
    for rule in ("review.audience-validated", "review.resource-server-metadata"):
        (pointer,) = found[rule]  # nothing else: no blocking for want of a foreign token either
        assert pointer.status == "n/a" and pointer.settled_by == "review.transport-config"
        assert pointer.message.startswith(
            "settled by the fail of review.transport-config (a request without a token is accepted): "
        )
        assert pointer.evidence and not unshown(review_of(run), pointer)


def test_a_server_that_takes_any_token_fails_once_for_it():
    found = auth_findings(ACCEPT_ANY)
    fails = [f for items in found.values() for f in items if f.status == "fail"]
    assert len(fails) == 1 and fails[0].message.startswith("a random string was accepted (HTTP 200)"), fails
    narrow = [f for f in found["review.resource-server-metadata"] if "narrow_token_env" in f.message]
    assert narrow[0].status == "n/a" and narrow[0].settled_by == "review.audience-validated"


def test_a_server_that_checks_tokens_settles_nothing():
    for run in (PROTECTED, SIGNED):
        assert not [f for items in auth_findings(run).values() for f in items if f.settled_by or f.status == "fail"]
    blocking = [f for f in auth_findings(SIGNED)["review.audience-validated"] if f.status == "blocking"]
    assert blocking and "no real token for another resource" in blocking[0].message  # passes decide nothing


def test_a_blocking_beside_a_fail_of_the_same_rule_and_subject_is_settled():
    """any-key: the forged JWT was accepted (a fail); wanting a foreign token cannot change that verdict."""
    items = auth_findings(ANY_KEY)["review.audience-validated"]
    assert [f.status for f in items if f.status in ("fail", "blocking")] == ["fail"]
    (settled,) = [f for f in items if f.settled_by]
    assert settled.status == "n/a" and settled.settled_by == "review.audience-validated"
    assert settled.message.startswith("settled by the fail of review.audience-validated for the same subject: no real")


def test_a_fail_whose_owner_is_not_in_the_review_stands():
    """`--ignore review.transport-config` (or a pack without it) leaves the fact stated where it was found."""
    from copy import copy

    from mcp_review.review import settle

    fact = next(f.fact for f in review_of(HTTP_GOOD).findings if f.rule == "review.transport-config")
    owner = Finding("review.transport-config", "review", "fail", "a request without Authorization was accepted")
    other = Finding("review.audience-validated", "review", "fail", "no token was accepted", fact=fact)
    owner.fact = fact
    alone = [copy(other)]
    settle(alone)
    assert alone[0].status == "fail" and alone[0].settled_by is None
    both = [copy(other), owner]
    settle(both)
    assert both[0].status == "n/a" and both[0].settled_by == "review.transport-config"
    settle(both)  # idempotent
    assert both[0].message.count("settled by") == 1


def test_the_pointer_survives_json_and_shows_in_markdown():
    from mcp_review.report import markdown, markdown_short

    review = review_of(HTTP_GOOD)
    data = review.to_json()
    pointing = [f for f in data["findings"] if f.get("settledBy")]
    assert {f["rule"] for f in pointing} == {"review.audience-validated", "review.resource-server-metadata"}
    owner = next(f for f in data["findings"] if f["rule"] == "review.transport-config")
    assert owner["fact"] == {"owner": "review.transport-config", "text": "a request without a token is accepted"}
    again = Review.from_json(data)
    assert [(f.settled_by, f.fact) for f in again.findings] == [(f.settled_by, f.fact) for f in review.findings]
    old = Review.from_json(
        {**data, "findings": [{k: v for k, v in f.items() if k not in ("fact", "settledBy")} for f in data["findings"]]}
    )
    assert not [f for f in old.findings if f.settled_by or f.fact]  # a review saved before still loads
    said = "Also settles **review.audience-validated**, **review.resource-server-metadata**"
    assert said in markdown.render(review) and said in markdown_short.render(review)


def test_a_rerun_of_one_rule_is_settled_by_the_review_it_joins():
    """The TUI re-runs one rule: its fail for an owned fact points to the owner's fail already in the review."""
    review = Review.from_json(review_of(HTTP_GOOD).to_json())
    fact = next(f.fact for f in review.findings if f.rule == "review.transport-config")
    rerun = Review.from_json({**review.to_json(), "findings": []})
    rerun.findings = [Finding("review.audience-validated", "review", "fail", "no token was accepted", fact=fact)]
    review.merge(rerun, "review.audience-validated")
    (merged,) = [f for f in review.findings if f.rule == "review.audience-validated"]
    assert merged.status == "n/a" and merged.settled_by == "review.transport-config"


def run_alone(rule_fn: Any) -> list[Finding]:
    """One made-up probe rule run by the checklist runner against good.py over stdio, its findings settled."""
    import asyncio

    from mcp_review.catalog import take_snapshot
    from mcp_review.checking import CheckPlan, run_rules
    from mcp_review.connection.session import Session, headless_handlers
    from mcp_review.review import settle
    from mcp_review.rules.context import CheckContext, Options
    from mcp_review.rules.core import Rule
    from mcp_review.targets import stdio_target
    from tests.support import fixture_argv

    async def run() -> list[Finding]:
        target = stdio_target(fixture_argv("good"))
        session = Session(target, handlers=headless_handlers())
        await session.open()
        try:
            ctx = CheckContext(target=target, session=session, snapshot=await take_snapshot(session), options=Options())
            return await run_rules(ctx, [Rule("review.x-test", ("probe",), "test", rule_fn)], CheckPlan([]), None)
        finally:
            await session.close()

    found = asyncio.run(run())
    settle(found)
    return found


def test_a_fail_proven_before_the_connection_was_lost_is_kept_and_settles_the_blocking():
    from mcp_review.connection.errors import ConnectionFailed

    async def decided_then_lost(ctx):
        yield ctx.fail(None, "proven before the server went away")
        raise ConnectionFailed("the server went away")

    async def lost_at_once(ctx):
        raise ConnectionFailed("the server went away")
        yield  # an async generator, like every rule

    kept = run_alone(decided_then_lost)
    assert [f.status for f in kept] == ["fail", "n/a"] and kept[1].settled_by == "review.x-test"
    assert kept[1].message.endswith("could not finish: the server went away")
    assert [(f.status, f.message) for f in run_alone(lost_at_once)] == [
        ("blocking", "could not finish: the server went away")
    ]
