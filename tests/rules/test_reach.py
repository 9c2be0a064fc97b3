"""What the review's calls reach, and what proves a finding (issue 37), against fixture servers over stdio and HTTP.

- carriers chosen by effect: tests/servers/sinks.py hides a path, a JSON document run in a shell and a setting
  run in a shell behind names that say nothing of them; the payload stays valid for what each string carries;
- arguments from the server's own text: tests/servers/offered.py leaks or runs only behind a value its text
  offers (a listed service, an enum member, an `exec:` prefix); the coverage says which values were sent;
- proof by effect, never by a refusal: tests/servers/guarded.py refuses every write outside its root, as
  `isError` and in plain text, and its twin acts; no fail comes from a refusal;
- around the endpoint: Origin and CORS over legacy SSE and Streamable HTTP; tests/servers/fragile.py dies or drops
  its session under a probe, and the review says which and goes on where it can.
"""

from __future__ import annotations

import json

import pytest

from mcp_review.calls import CallRecord
from mcp_review.report import markdown
from mcp_review.review import Finding
from mcp_review.rules.proof import decide, outcome, text_refusal
from tests.rules.cases import (
    CRASHES,
    GUARDED,
    GUARDED_ACTS,
    GUARDED_PLAIN,
    GUARDED_REFUSES,
    OFFERED_HARDENED,
    OFFERED_VULNERABLE,
    PROBED,
    REVIEW,
    SINKS_HARDENED,
    SINKS_VULNERABLE,
    SSE_OPEN,
)
from tests.rules.runs import RULES, Run, describe, findings, review_of

CALLING = tuple(rule for rule, r in RULES.items() if "call" in r.modes and r.pack == "review")
INJECTIONS = ("review.paths-confined", "review.commands-not-injected", "review.code-not-executed")
# the HTTP twins of stdio runs prove the same over another transport: only the rules they assert on, fewer calls
SINKS_HTTP = Run(("sinks", "vulnerable"), http="--http", options=PROBED, packs=REVIEW, only=INJECTIONS)
GUARDED_HTTP = Run(
    ("guarded", "plain"),
    http="--http",
    options=(*PROBED, ("calls_per_tool", 6)),
    packs=GUARDED,
    only=(*CALLING, "tokens.destructive-elicitation"),
)
UNCONSENTED = Run(("sinks", "vulnerable"), packs=REVIEW)  # --calls all, no --probe
BUDGETED = Run(("sinks", "vulnerable"), options=(*PROBED, ("calls_per_tool", 2)), packs=REVIEW)
HTTP_OPEN = Run(
    ("good", "--unsafe-origin", "--cors-any"),
    http="--http",
    era="legacy",
    packs=("review", "spec"),
    only=("review.browser-origins-refused", "spec.http-transport"),
)
SSE_DROPS = Run(("fragile", "drop-on-second-stream"), http="--sse", era="legacy", packs=REVIEW)
SSE_CRASHES = Run(("fragile", "crash-on-second-stream"), http="--sse", era="legacy", packs=REVIEW)
HTTP_CRASHES = Run(
    ("fragile", "crash-on-payload"),
    http="--http",
    options=PROBED,
    packs=REVIEW,
    only=("review.commands-not-injected", "review.secrets-not-echoed", "review.survives-probes"),
)


def by_subject(run: Run, rule: str) -> dict[str | None, Finding]:
    return {f.subject: f for f in findings(run)[rule]}


def status(run: Run, rule: str) -> dict[str | None, str]:
    return {subject: f.status for subject, f in by_subject(run, rule).items()}


# ------------------------------------------------------------------------------------ carriers chosen by effect
@pytest.mark.parametrize("run", [SINKS_VULNERABLE, SINKS_HTTP], ids=["stdio", "http"])
def test_a_sink_behind_any_name_is_found(run):
    paths = status(run, "review.paths-confined")
    assert paths["open_document"] == paths["read_documents"] == "fail", paths  # a name, a string in a list
    commands = by_subject(run, "review.commands-not-injected")
    assert commands["apply_config"].status == commands["update_settings"].status == "fail", describe(
        [*commands.values()]
    )
    code = by_subject(run, "review.code-not-executed")["calculate"]  # an eval() without builtins still evaluates
    assert code.status == "fail" and "'expression' = " in code.message, code.message
    proof = commands["apply_config"].evidence
    (sent,) = [c for c in review_of(run).coverage if c["seq"] in proof and c["tool"] == "apply_config"]
    document = json.loads(sent["arguments"]["config_json"])
    assert "printf" in document["hook"], "the payload went into the document's 'hook', and it stayed valid JSON"


def test_the_hardened_sinks_fail_nothing_and_decide_every_payload():
    for rule in ("review.paths-confined", "review.commands-not-injected", "review.code-not-executed"):
        assert set(status(SINKS_HARDENED, rule).values()) == {"pass"}, describe(findings(SINKS_HARDENED)[rule])


def test_a_setter_value_reaches_the_shell_only_with_the_key_its_text_names():
    coverage = review_of(SINKS_VULNERABLE).coverage
    keys = {c["arguments"].get("key") for c in coverage if c["tool"] == "update_settings"}
    assert {"theme", "language", "backup_command"} <= keys, keys


def test_without_consent_a_string_that_could_carry_a_payload_is_blocking_never_na():
    for rule in ("review.paths-confined", "review.commands-not-injected", "review.urls-confined"):
        (finding,) = findings(UNCONSENTED)[rule]
        assert finding.status == "blocking" and "update_settings.value" in finding.message, finding.message


def test_the_budget_is_said_where_it_left_payloads_out():
    budgeted = by_subject(BUDGETED, "review.commands-not-injected")
    assert all(
        "left out by the budget of 2 calls per tool" in f.message for f in budgeted.values() if f.status != "fail"
    )
    reach = review_of(BUDGETED).reach
    assert reach and reach["callsPerTool"] == 2 and reach["leftOut"]["review.commands-not-injected"], reach
    shown = markdown.render(review_of(BUDGETED))
    assert "Up to 2 calls per tool and rule" in shown and "Payloads left out by that budget" in shown


# -------------------------------------------------------------------------------- arguments from the server's text
def test_a_defect_behind_an_offered_value_is_found():
    assert status(OFFERED_VULNERABLE, "review.results-safe")["check_service"] == "fail"  # the third service
    templates = by_subject(OFFERED_VULNERABLE, "review.templates-inert")["export_report"]
    assert templates.status == "fail", templates.message  # behind format: xml, an enum's last member
    commands = by_subject(OFFERED_VULNERABLE, "review.commands-not-injected")["run_action"]
    assert commands.status == "fail" and "'exec:" in commands.message, commands.message  # after the prefix
    for rule in ("review.results-safe", "review.templates-inert", "review.commands-not-injected"):
        assert "fail" not in status(OFFERED_HARDENED, rule).values(), describe(findings(OFFERED_HARDENED)[rule])


def test_the_coverage_says_which_offered_values_were_sent():
    offered = review_of(OFFERED_VULNERABLE).reach["offered"]  # type: ignore[index]
    services = offered["check_service"]["service_id"]
    assert services["offered"] == services["sent"] == ["email_service", "cloud_storage", "analytics_platform"]
    assert offered["export_report"]["format"]["sent"] == ["json", "csv", "xml"]
    shown = markdown.render(review_of(OFFERED_VULNERABLE))
    assert "Values the server's own text offers: 6 of 6 sent" in shown, shown


@pytest.mark.quick
def test_values_the_tool_s_description_names_are_offered_to_parameters_that_offer_none():
    from mcp_review.catalog import Item
    from mcp_review.rules.arguments import offered_values

    schema = {
        "type": "object",
        "properties": {"format": {"type": "string"}, "text": {"type": "string"}, "mode": {"enum": ["a", "b"]}},
    }
    raw = {"name": "render", "description": "Render a text as 'plain' or 'upper'.", "inputSchema": schema}
    tool = Item("tool", raw, seq=1, page=0, index=0)
    props = schema["properties"]
    assert offered_values(tool, "format", props["format"]) == ["plain", "upper"]
    assert offered_values(tool, "text", props["text"]) == ["plain", "upper"], "which parameter is not said"
    assert offered_values(tool, "mode", props["mode"]) == ["a", "b"], "a parameter's own values come alone"


# ------------------------------------------------------------------------------------------ proof, not refusal
@pytest.mark.quick
def test_a_refusal_in_any_channel_is_read_as_one():
    def reply(text: str, is_error: bool = False) -> CallRecord:
        result = {"content": [{"type": "text", "text": text}], "isError": is_error}
        return CallRecord("t", {"q": "Error: x"}, "reviewer", result=result)

    for said in (
        "Access denied - path outside allowed directories: /tmp/x",
        "Error: unknown service 'x'",
        "refused: send_email is unavailable after untrusted content was read",
        "Unknown format 'x'",
        '{"error": "no such note"}',
    ):
        assert outcome(reply(said)).kind == "refused" and outcome(reply(said)).channel == "text", said
    for said in ("Echo: Error: x", "No results found", "0 errors found", "Error handling guide\nchapter 1"):
        assert outcome(reply(said)).accepted, said
    assert outcome(reply("done", is_error=True)).channel == "isError"
    assert text_refusal("Echo: Error: x", {"message": "Error: x"}) is None, "an echo of what was sent is no refusal"


@pytest.mark.quick
def test_a_refusal_proves_nothing_unless_it_is_the_payload_s():
    def call(text: str, arguments: dict[str, str]) -> CallRecord:
        result = {"content": [{"type": "text", "text": text}], "isError": True}
        return CallRecord("t", arguments, "reviewer", result=result)

    ordinary = call("unknown service 'x'", {"service": "x", "host": "x"})
    probe = call("unknown service 'x'", {"service": "x", "host": "a;printf"})
    assert decide(probe, None, ordinary=ordinary).kind == "undecided", "refused alike with or without the payload"
    other = call("refused: not a host name", {"service": "x", "host": "a;printf"})
    assert decide(other, None, ordinary=ordinary).kind == "refused", "refused otherwise than the ordinary call"
    assert decide(probe, None, named=("a;printf",)).kind == "undecided"
    quoted = call("refused: 'a;printf' is not a host", {"host": "a;printf"})
    assert decide(quoted, None, named=("a;printf",)).kind == "refused", "a refusal that quotes the value"
    assert decide(probe, "returned the canary").kind == "proven", "an effect is proof whatever the outcome"


@pytest.mark.parametrize("run", [GUARDED_REFUSES, GUARDED_PLAIN, GUARDED_HTTP], ids=["isError", "plain", "http"])
def test_a_confined_server_that_refuses_every_write_fails_nothing(run):
    # the rules that judge what a call did (the tokens pack's other call rules read seed 000's shapes of a success)
    calling = {*CALLING, "tokens.destructive-elicitation"}
    failed = {(f.rule, f.subject) for f in review_of(run).findings if f.status == "fail" and f.rule in calling}
    assert failed <= {("review.error-channel-correct", None)}, failed  # the seed's channel for unknown tools
    asked = status(run, "tokens.destructive-elicitation")
    assert asked["write_file"] == asked["delete_note"] == asked["send_email"] == "blocking", asked
    said = by_subject(run, "tokens.destructive-elicitation")["write_file"].message
    assert "inside its own root" in said and "Access denied" in said, said
    warned = [f for f in review_of(run).findings if f.status == "warn" and f.rule.startswith("review.t")]
    assert not warned, describe(warned)  # no template warn where nothing was evaluated
    # render answers "Unknown format 'x'" to all but the formats its description names: the probes reach its text
    # with them (a call refused alike without the payload is sent again with a format it accepts) and decide it
    for rule in ("review.commands-not-injected", "review.templates-inert", "review.code-not-executed"):
        assert status(run, rule)["render"] == "pass", describe(findings(run)[rule])


def test_the_twin_that_acts_fails_by_its_effects():
    asked = status(GUARDED_ACTS, "tokens.destructive-elicitation")
    assert asked["delete_note"] == asked["send_email"] == "fail", asked
    assert status(GUARDED_ACTS, "review.paths-confined")["write_file"] == "fail"
    assert status(GUARDED_ACTS, "review.secrets-not-echoed") == {"unlock": "fail"}, "a lookup key is no secret"
    assert status(GUARDED_PLAIN, "review.secrets-not-echoed") == {"unlock": "pass"}


# -------------------------------------------------------------------------------------------- around the endpoint
def test_origin_and_cors_are_checked_on_legacy_sse():
    (finding,) = findings(SSE_OPEN)["review.browser-origins-refused"]
    assert finding.status == "fail" and "Access-Control-Allow-Origin: *" in finding.message, finding.message
    assert "GET of the event stream" in finding.message and "the first POST a client sends" in finding.message


def test_origin_and_cors_on_streamable_http_are_one_fact_with_the_spec_rule_unless_cors_adds_to_it():
    (mine,) = findings(HTTP_OPEN)["review.browser-origins-refused"]
    (spec,) = [f for f in findings(HTTP_OPEN)["spec.http-transport"] if f.subject is None]  # beside its Host note
    assert spec.status == "fail" and mine.status == "fail", describe([mine, spec])
    assert "any web page can read what it answers" in mine.message, "CORS on top: a fact of its own"


def test_a_server_that_dies_under_a_probe_is_named_and_the_review_goes_on():
    died = [f for f in findings(CRASHES)["review.survives-probes"] if f.status == "fail"]
    assert died and "while review.commands-not-injected ran" in died[0].message, describe(died)
    assert "the review reconnected and went on" in died[0].message
    later = findings(CRASHES)["review.secrets-not-echoed"] + findings(CRASHES)["review.urls-confined"]
    assert later and not [f for f in later if "could not" in f.message], describe(later)


def test_a_server_that_dies_under_a_probe_over_http_is_named_by_the_call_that_took_it_down():
    """Over Streamable HTTP a dead server leaves no connection to fail, only requests: the call with no answer is
    what the review names, and the rules after it say why they could not run."""
    (died,) = [f for f in findings(HTTP_CRASHES)["review.survives-probes"] if f.status == "fail"]
    assert "while review.commands-not-injected ran, after tools/call lookup, which got no answer" in died.message
    assert "no fresh connection" in died.message, died.message
    later = findings(HTTP_CRASHES)["review.secrets-not-echoed"]
    assert later and all("while review.commands-not-injected ran" in f.message for f in later), describe(later)


def test_a_dropped_sse_session_is_named_and_a_fresh_one_goes_on():
    dropped = [f for f in findings(SSE_DROPS)["review.survives-probes"] if f.status == "fail"]
    assert dropped and all("the review reconnected and went on" in f.message for f in dropped), describe(dropped)


def test_a_server_that_crashes_on_a_second_sse_stream_is_named_and_the_rest_say_why():
    (crashed,) = [f for f in findings(SSE_CRASHES)["review.survives-probes"] if f.status == "fail"]
    assert "no fresh connection" in crashed.message, crashed.message
    culprit = crashed.message.split("while ", 1)[1].split(" ran", 1)[0]
    later = [f for f in review_of(SSE_CRASHES).findings if "could not be reached again" in f.message]
    assert later and all(culprit in f.message for f in later), describe(later)
