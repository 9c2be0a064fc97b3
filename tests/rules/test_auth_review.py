"""The authorization rules against a real OAuth setup: tests/servers/protected.py (the `mcp` SDK's authorization
server on 127.0.0.1, RS256 JWT access tokens) done right, and with one defect each. Tokens come from a real login
(tests/oauth.py); the rules' forged tokens are signed by keys the server cannot trust."""

from __future__ import annotations

import json

import pytest

from tests.rules.cases import PROTECTED
from tests.rules.runs import Run, describe, findings, review_of

AUDIENCE = "review.audience-validated"
FORGED_JWT = "a JWT signed by a key the server does not trust"
# defect -> (rule, the probe or fact its failing finding names)
DEFECTS = {
    "accept-any": (AUDIENCE, "a random string was accepted (HTTP 200)"),
    "any-key": (AUDIENCE, f"{FORGED_JWT} was accepted (HTTP 200)"),
    "no-expiry": (AUDIENCE, "an expired JWT (signed by an untrusted key) was accepted (HTTP 200)"),
    "any-audience": (AUDIENCE, "a real token issued for another resource (foreign_token_env) was accepted"),
    "query-token": ("review.transport-config", "a token in the query string was accepted (HTTP 200)"),
    "no-prm": ("review.resource-server-metadata", "no protected-resource metadata with authorization_servers"),
    "bad-prm": ("review.resource-server-metadata", "authorization_servers is not a list of URLs"),
    "bare-403": ("review.resource-server-metadata", "got 403 without error=insufficient_scope"),
    "dead-as": ("review.resource-server-metadata", "no-such-issuer does not answer discovery (RFC 8414 or OpenID)"),
}


def defective(defect: str) -> Run:
    return Run(("protected", "--defect", defect), http="--http", era="legacy", oauth=True)


def test_a_server_that_checks_tokens_right_refuses_every_probe():
    items = findings(PROTECTED)[AUDIENCE]
    assert {f.status for f in items} == {"pass"}, describe(items)
    said = " ".join(f.message for f in items)
    for probe in ("no token", "a random string", FORGED_JWT, "an expired JWT", "another audience", "a real token"):
        assert f"{probe}" in said, probe
    assert all("resource_metadata" in f.message for f in items)
    metadata = findings(PROTECTED)["review.resource-server-metadata"]
    assert [f.status for f in metadata] == ["pass", "pass"], describe(metadata)
    assert "403 insufficient_scope naming the scope needed" in metadata[1].message


@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_each_defect_fails_the_rule_that_owns_it(defect):
    rule, fragment = DEFECTS[defect]
    items = findings(defective(defect))[rule]
    failed = [f for f in items if f.status == "fail" and fragment in f.message]
    assert failed and failed[0].evidence, describe(items)
    if rule == AUDIENCE:  # the finding quotes the exchange, the token masked
        assert (
            "(HTTP 200): POST http://127.0.0.1:" in failed[0].message
            and "with Authorization: *** -> 200" in failed[0].message
        )


def test_any_key_fails_only_the_forgery_with_valid_claims():
    """A server that skips the signature but checks exp and aud refuses the expired and foreign-audience forgeries."""
    items = findings(defective("any-key"))[AUDIENCE]
    failed = {f.message.split(" was accepted")[0] for f in items if f.status == "fail"}
    assert failed == {FORGED_JWT}, describe(items)


def test_an_echoed_bearer_is_evidence_for_the_passthrough_reviewer():
    items = findings(defective("echo-token"))["review.no-token-passthrough"]
    warned = [f for f in items if f.status == "warn"]
    assert warned and "bearer token came back in" in warned[0].message and warned[0].evidence, describe(items)
    assert not [f for f in findings(PROTECTED)["review.no-token-passthrough"] if f.status == "warn"]


def test_an_authorization_server_on_another_origin_is_never_contacted():
    """A hostile server could name any internal host as its authorization server: nothing is sent there, and the
    rule says it could not check it (blocking), naming the server."""
    review = review_of(defective("remote-as"))
    items = [f for f in review.findings if f.rule == "review.resource-server-metadata"]
    assert items[0].status == "blocking" and "http://127.0.0.2:9/issuer" in items[0].message, describe(items)
    requested = [str((e.get("http") or {}).get("url")) for e in review.exchanges.values() if e.get("dir") == "http"]
    assert requested and not [url for url in requested if "127.0.0.2" in url], requested


def test_a_missing_scope_hint_warns():
    items = findings(defective("no-scope-hint"))["review.resource-server-metadata"]
    assert [f.status for f in items] == ["warn", "pass"] and "no scope hint" in items[0].message, describe(items)


def test_the_tokens_never_reach_the_review():
    """The reviewer's token, the foreign one and every forgery are masked in the cited exchanges."""
    review = review_of(defective("any-key"))
    text = json.dumps([f.message for f in review.findings]) + json.dumps(
        {seq: str(entry) for seq, entry in review.exchanges.items()}
    )
    assert "'Authorization': '***'" in text  # the probes are there, masked
    assert "eyJ" not in text  # no JWT (base64url of '{"') anywhere
    assert "mcp-review-made-up-" not in text


def test_an_authorization_server_offering_registration_is_a_deprecation_note():
    """The fixture's authorization server (the SDK's) offers dynamic client registration, which 2026-07-28
    deprecates: a note naming it and the removal date, never a fail; a server with no authorization has none."""
    notes = [f for f in findings(PROTECTED)["spec.deprecated-features"] if f.subject == "dynamic client registration"]
    assert [f.status for f in notes] == ["note"], describe(findings(PROTECTED)["spec.deprecated-features"])
    assert "registration_endpoint" in notes[0].message and "2027-07-28" in notes[0].message and notes[0].evidence
    assert not [f for f in findings(defective("no-prm"))["spec.deprecated-features"] if "registration" in f.message]
