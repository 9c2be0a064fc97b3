"""Issue 41's rules proven both ways over stdio and over HTTP (tests/servers/utilities.py: one dual-era fixture, one
planted defect per mode), and the checks spec.http-transport gained: the DNS-rebinding request, a foreign Host,
requests POSTed at once. test_rules.py proves each rule on one pair (cases.py CASES); here every pair, on both
transports, and that each defect trips its rule alone."""

from __future__ import annotations

import pytest

from tests.rules.cases import HTTP_MODERN, UTILITY_DEFECTS, UTILITY_FAILS_AS, utilities, utility_pair
from tests.rules.runs import describe, findings, flagged, review_of, worst

PAIRS = [(mode, transport) for mode, (_, eras, _, _) in sorted(UTILITY_DEFECTS.items()) for transport in eras]
LEGACY_ONLY = ("spec.resource-subscriptions",)  # 2026-07-28 removed its methods
MODERN_ONLY = ("spec.request-meta", "spec.removed-methods", "spec.tool-order")


@pytest.mark.parametrize(("mode", "transport"), PAIRS)
def test_a_well_formed_server_passes(mode, transport):
    good, _ = utility_pair(mode, transport)
    items = findings(good).get(UTILITY_DEFECTS[mode][0], [])
    assert items and worst(items) == "pass", describe(items)


@pytest.mark.parametrize(("mode", "transport"), PAIRS)
def test_each_defect_fails_its_rule_and_trips_nothing_else(mode, transport):
    rule, _, subject, fragment = UTILITY_DEFECTS[mode]
    good, bad = utility_pair(mode, transport)
    status = UTILITY_FAILS_AS.get((mode, transport), "fail")
    items = findings(bad).get(rule, [])
    assert worst(items) == status, describe(items)
    assert [f for f in items if f.status == status and f.subject == subject and fragment in f.message], describe(items)
    assert all(f.evidence for f in items if f.status == status), "a fail cites the exchange that proves it"
    assert flagged(bad) - flagged(good) == ({rule} if status != "note" else set())


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_rule_the_revision_does_not_state_is_na_saying_so(transport):
    legacy = findings(utilities("well-formed", "legacy", transport))
    modern = findings(utilities("well-formed", "modern", transport))
    for rule in LEGACY_ONLY:
        assert [f.status for f in modern[rule]] == ["n/a"] and "2026-07-28 removed" in modern[rule][0].message
    for rule in MODERN_ONLY:
        assert [f.status for f in legacy[rule]] == ["n/a"] and "2026-07-28" in legacy[rule][0].message


def test_what_needs_a_capability_the_server_did_not_declare_is_na():
    """The SDK's own fixture (tests/servers/good.py) declares neither logging nor completions, and no subscribe."""
    items = findings(HTTP_MODERN)
    assert [(f.status, f.message) for f in items["spec.completion"]] == [
        ("n/a", "the server declares no completions capability: completion is not judged")
    ]
    legacy = findings(utilities("well-formed", "legacy", "stdio"))
    assert {f.subject for f in legacy["spec.completion"]} == {"test_prompt_with_arguments", "unknown prompt"}


def test_an_empty_contents_before_2026_07_28_is_a_should_and_warns():
    items = findings(utilities("empty-contents", "legacy", "stdio"))["spec.resource-not-found"]
    assert worst(items) == "warn" and "SHOULD get an error, -32002 in this revision" in items[0].message, describe(
        items
    )


def test_a_server_that_answers_errors_with_another_id_over_http_is_named_by_its_request():
    items = findings(utilities("wrong-id", "modern", "http"))["spec.response-ids"]
    assert (
        "answers mcp-review/no-such-method" in items[0].message
        and '(on its POST) with id "server-error"' in items[0].message
    )


# ------------------------------------------------------------------------------------------ spec.http-transport
def test_the_dns_rebinding_checks_of_a_well_formed_server():
    refused = {f.subject: f for f in findings(utilities("well-formed", "legacy", "http"))["spec.http-transport"]}
    assert refused["Host"].status == "pass" and "with no Origin -> HTTP 421: refused" in refused["Host"].message
    assert refused[None].status == "pass", refused[None].message
    alone = {f.subject: f for f in findings(utilities("host-unchecked", "legacy", "http"))["spec.http-transport"]}
    assert "names no Host check" in alone["Host"].message and alone[None].status == "pass", alone[None].message


def test_no_spec_fail_says_should():
    """A MUST's fail never carries a SHOULD: the SHOULDs broken are a warn of their own (the issue's
    `spec.http-transport` overstated a dual-era server's GET)."""
    runs = [utility_pair(mode, t)[1] for mode, (_, eras, _, _) in UTILITY_DEFECTS.items() for t in eras]
    said = [
        (f.rule, f.message)
        for run in runs
        for f in review_of(run).findings
        if f.rule.startswith("spec.") and f.status == "fail" and "SHOULD" in f.message
    ]
    assert not said, said


def test_a_dual_era_server_is_not_told_a_modern_only_server_should_answer_get_405():
    items = findings(HTTP_MODERN)["spec.http-transport"]
    assert not [f for f in items if "405" in f.message], describe(items)


@pytest.mark.parametrize(
    ("mode", "claims"),
    [
        (
            "headers-loose",
            (
                "Mcp-Method TOOLS/LIST on a tools/list body (values are case-sensitive",
                "no Mcp-Name on a resources/read of 'test://watched-resource' -> HTTP 200",
            ),
        ),
        ("headers-strict", ("MCP-METHOD: server/discover -> HTTP 400",)),
    ],
)
def test_each_standard_header_defect_is_its_own_claim(mode, claims):
    """The SEP-2243 defects planted together in one mode (one server start): each is named in the fail, and the
    well-formed server (tests/servers/rawhttp.py checks every header) passes them all."""
    rule = UTILITY_DEFECTS[mode][0]
    (fail,) = [f for f in findings(utilities(mode, "modern", "http"))[rule] if f.status == "fail"]
    assert all(claim in fail.message for claim in claims), fail.message
    assert "MUST be 400 / -32020 (2026-07-28/basic/transports/streamable-http.mdx:582)" in fail.message or (
        "MUST be compared case-insensitively (2026-07-28/basic/transports/streamable-http.mdx:574)" in fail.message
    )
