"""Verdicts by concern and severity, the gate, known SDK behaviours said once, decisions bound to what they decided
(issue 39): the registry walked, every export format read, and the model's semantics on fixed reviews. The same
claims against real servers are in tests/rules/test_verdicts.py and tests/integration/test_bound_decisions.py."""

from __future__ import annotations

import copy
import json
from xml.etree import ElementTree as ET

import pytest

from mcp_review import binding, known
from mcp_review.concerns import CONCERNS, SECURITY_SEVERITY
from mcp_review.config import ConfigFileError, load_config
from mcp_review.report import FORMATS, render
from mcp_review.report.sarif_valid import problems
from mcp_review.review import Finding, Review, Waiver
from mcp_review.rules.core import PACKS, load_rules
from mcp_review.verdicts import DEFAULT, parse
from tests.unit.test_reports import sample_review

RULES = load_rules()


def findings(*rows: tuple[str, str, str]) -> list[Finding]:
    """(status, concern, severity) rows as findings of made-up rules."""
    return [Finding(f"x.r{i}", "x", s, "m", None, None, concern=c, severity=v) for i, (s, c, v) in enumerate(rows)]


def test_the_gate_selects_by_concern_severity_and_blocking():
    found = findings(("fail", "protocol", "low"), ("blocking", "contract", "medium"), ("pass", "security", "high"))
    assert DEFAULT.text == "security,blocking" and DEFAULT.verdict(found) == "BLOCKED"
    assert parse("security").verdict(found) == "PASS"
    assert parse("security,protocol").verdict(found) == "FAIL"
    assert parse("protocol>=medium").verdict(found) == "PASS", "a low protocol fail is below the floor"
    assert parse("severity>=medium").verdict(found) == "BLOCKED"
    assert parse("all").verdict(found) == "FAIL" and parse("none").verdict(found) == "PASS"
    assert parse(["security", "protocol,blocking"]).said == ("security", "protocol", "blocking")
    for wrong, said in (("bogus", "unknown term 'bogus'"), ("protocol>=grave", "unknown severity"), ("", "no term")):
        with pytest.raises(ValueError, match=said):
            parse(wrong)
    with pytest.raises(ValueError, match="none cannot be combined"):
        parse("none,security")


def test_a_review_has_a_verdict_per_concern_security_first():
    review = sample_review()
    review.fail_on = ["security"]
    verdicts = review.verdicts()
    assert list(verdicts) == list(CONCERNS) and verdicts["security"] == "FAIL" and verdicts["apps"] == "NOT_CHECKED"
    assert review.gate() == "FAIL" and review.to_json()["gate"] == "FAIL"
    assert Review.from_json(review.to_json()).fail_on == ["security"]


def test_concern_and_severity_are_in_every_export_format():
    """Every format the review exports (FORMATS, so a new one is walked too) carries each judged finding's concern
    and severity, and the formats that lead with a verdict lead with security's."""
    review = sample_review()
    judged = [f for f in review.findings if f.effective in ("fail", "warn", "blocking", "waived")]
    for fmt in FORMATS:
        text = render(review, fmt)
        for f in judged:
            assert f.concern in text and f.severity in text, (fmt, f.rule)
    md = render(review, "md")
    assert md.splitlines()[0].endswith("· security ❌ FAIL") and md.splitlines()[2].startswith("**security ❌ FAIL")
    assert "### review.descriptions-grounded (1) · security · high" in md
    full = render(review, "md-full")
    assert "- **review.input-schema** (`search`) · contract · medium:" in full
    doc = json.loads(render(review, "json"))
    assert doc["verdicts"]["security"] == "FAIL"
    assert all({"concern", "severity"} <= set(f) for f in doc["findings"])
    cases = ET.fromstring(render(review, "junit")).iter("testcase")
    failed = next(c for c in cases if c.get("classname") == "review.descriptions-grounded")
    assert {p.get("name"): p.get("value") for p in failed.iter("property")} == {
        "concern": "security",
        "severity": "high",
    }
    suite = {p.get("name"): p.get("value") for p in ET.fromstring(render(review, "junit")).find("testsuite/properties")}
    assert suite["mcp-review.headline"].startswith("security FAIL") and suite["mcp-review.verdict.security"] == "FAIL"


def test_sarif_carries_level_and_security_severity_and_validates_against_the_schema():
    review = sample_review()
    grounded = next(f for f in review.findings if f.rule == "review.descriptions-grounded")
    grounded.severity = "critical"  # what a rule proved: worse than its default
    doc = json.loads(render(review, "sarif"))
    assert problems(doc) == [], "the vendored SARIF 2.1.0 schema and code scanning's limits"
    run = doc["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    security = rules["review.descriptions-grounded"]["properties"]
    assert security["security-severity"] == SECURITY_SEVERITY["critical"] == "9.5", "the worst of its results"
    assert "security" in security["tags"] and security["concern"] == "security" and security["severity"] == "high"
    assert "security-severity" not in rules["review.input-schema"]["properties"], "only security rules are ranked so"
    results = {r["ruleId"]: r for r in run["results"]}
    assert results["review.descriptions-grounded"]["properties"]["security-severity"] == "9.5"
    assert results["review.descriptions-grounded"]["level"] == "error"
    assert results["spec.pagination"]["level"] == "warning", "a medium warn"
    assert run["properties"]["verdicts"]["security"] == "FAIL"


def sdk_review(answer: dict, message: str = "unknown tool answered as a tool result with isError: true: …") -> Review:
    fail = Finding("review.error-channel-correct", "review", "fail", message, None, None, evidence=[3])
    fail.concern, fail.severity = "contract", "medium"
    review = Review(server={"name": "s"}, target={}, revision="2025-11-25", era="legacy", transport="stdio")
    review.findings, review.packs = [fail], ["review"]
    review.exchanges = {3: {"seq": 3, "dir": "recv", "message": {"jsonrpc": "2.0", "id": 7, "result": answer}}}
    return review


TS_ANSWER = {"content": [{"type": "text", "text": "MCP error -32602: Tool mcp_review_no_such_tool not found"}]}


def test_a_known_sdk_behaviour_is_told_apart_said_once_and_waived_for_the_whole_review():
    review = sdk_review({**TS_ANSWER, "isError": True})
    known.mark(review)
    assert review.findings[0].known is not None and review.findings[0].known.sdk == "typescript"
    [entry] = known.listed(review)
    assert entry["sdkName"].startswith("the TypeScript SDK") and entry["fails"] == 1 and "-32602" in entry["spec"]
    assert 'known = "unknown-tool-as-result"' in entry["waive"]
    md = render(review, "md")
    assert "1 fail: a known SDK behaviour" in md.splitlines()[2] and md.count("`unknown-tool-as-result`") == 1
    assert "## Failures" not in md, "said once, in its own section"
    review.waive(Waiver("review.error-channel-correct", "we follow the SDK", "alice", known="unknown-tool-as-result"))
    assert review.findings[0].effective == "waived" and review.verdicts()["contract"] == "PASS"
    other = sdk_review({**TS_ANSWER, "isError": True}, "calling a tool that does not exist succeeded")
    known.mark(other)
    assert other.findings[0].known is None, "a fail that says something else is not the behaviour"


def test_a_waiver_is_bound_to_its_subjects_content_and_its_rules_version():
    review = sample_review()
    finding = next(f for f in review.findings if f.rule == "review.input-schema")
    v1 = binding.of_definitions([{"name": "search", "description": "Search notes.", "inputSchema": {}}])
    v2 = binding.of_definitions([{"name": "search", "description": "Search all notes.", "inputSchema": {}}])
    review.subjects, review.rule_versions = {"tool:search": v1}, {"review.input-schema": 1}
    waiver = Waiver("review.input-schema", "typed in 0.4", "alice", "search", digest=v1["digest"], parts=v1["parts"])
    waiver.version = 1
    review.waive(waiver)
    assert finding.effective == "waived" and waiver.state == "live"
    review.subjects = {"tool:search": v2}  # the next review saw another definition
    review.apply_waivers()
    assert finding.effective == "fail" and waiver.state == "stale"
    assert finding.lapsed is not None and finding.lapsed.startswith("waived for an earlier version by alice")
    assert "since then its description changed" in finding.lapsed and v2["digest"] in finding.lapsed
    assert review.decision_counts()["stale"] == 1
    review.subjects = {"tool:search": v1}  # and back
    review.apply_waivers()
    assert finding.effective == "waived" and finding.lapsed is None
    review.rule_versions = {"review.input-schema": 2}
    review.apply_waivers()
    assert finding.effective == "fail" and "the rule changed (version 1, now 2)" in (finding.lapsed or "")


def test_a_decision_written_without_a_digest_is_bound_on_first_use():
    review = sample_review()
    finding = next(f for f in review.findings if f.rule == "review.input-schema")
    content = binding.of_definitions([{"name": "search"}])
    review.subjects, review.rule_versions = {"tool:search": content}, {"review.input-schema": 3}
    waiver = Waiver("review.input-schema", "later", "bob", "search", source="mcp-review.toml")
    review.waive(waiver)
    assert finding.effective == "waived" and waiver.digest == content["digest"] and waiver.version == 3
    assert (waiver.bound or "").startswith("on first use, ")
    assert review.decision_counts()["boundOnFirstUse"] == 1
    assert "bound on first use" in render(review, "md")
    everywhere = Waiver("review.input-schema", "later", "bob")  # no subject: every subject, the rule's version only
    rule_wide = Review.from_json(review.to_json())
    rule_wide.waivers = [everywhere]
    rule_wide.apply_waivers()
    assert everywhere.digest is None and everywhere.version == 3 and everywhere.state == "live"


def test_a_waiver_of_a_finding_on_the_server_is_bound_to_its_evidence_not_to_the_rules_others():
    review = sample_review()
    server = next(f for f in review.findings if f.rule == "spec.pagination")
    evidence = binding.of_evidence(server.message)
    assert binding.of_evidence(server.message.replace("cursor", "cursor 123")) != evidence
    assert binding.of_evidence("took 12 ms, canary mcp-review-3f9a2b7c1d") == binding.of_evidence(
        "took 40 ms, canary mcp-review-77aa01bb9e"
    )
    waiver = Waiver("spec.pagination", "known", "carol", digest=evidence["digest"])
    tool = copy.copy(server)
    tool.subject, tool.subject_kind = "search", "tool"
    assert waiver.covers(server) and not waiver.covers(tool)


def test_the_config_reads_a_binding_and_a_known_behaviour_and_refuses_wrong_ones(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text(
        '[[waive]]\nrule = "review.input-schema"\nsubject = "search"\nreason = "r"\nby = "a"\n'
        f'digest = "sha256:{"a" * 64}"\nversion = 2\nparts = {{ description = "0123456789ab" }}\n'
        '[[waive]]\nrule = "review.error-channel-correct"\nknown = "unknown-tool-as-result"\nreason = "r"\nby = "a"\n'
    )
    cfg = load_config(good, set(RULES), set(PACKS))
    assert cfg.waivers[0].digest == "sha256:" + "a" * 64 and cfg.waivers[0].version == 2
    assert cfg.waivers[0].parts == {"description": "0123456789ab"} and cfg.waivers[1].known == "unknown-tool-as-result"
    for body, said in (
        ('digest = "abc"', "digest: expected sha256:"),
        ("version = 0", "version: expected the rule's version"),
        ('known = "no-such"', "unknown SDK behaviour 'no-such'"),
        ('known = "origin-not-validated"', "is a behaviour of spec.http-transport"),
    ):
        bad = tmp_path / "bad.toml"
        bad.write_text(f'[[waive]]\nrule = "review.error-channel-correct"\nreason = "r"\nby = "a"\n{body}\n')
        with pytest.raises(ConfigFileError, match=said):
            load_config(bad, set(RULES), set(PACKS))


def test_a_hostile_definitions_parts_stay_bounded():
    """10,000 fields, one with a name of 10,000 characters: the parts a config file keeps stay few and short, and a
    change among the folded fields still shows (as "other fields")."""
    wide = {"name": "t", "x" * 10_000: 1, **{f"f{i}": i for i in range(10_000)}}
    parts = binding.of_definitions([wide])["parts"]
    assert len(parts) == binding.PARTS and max(map(len, parts)) <= binding.NAME
    changed = binding.of_definitions([{**wide, "f9999": -1}])["parts"]
    assert binding.changed(parts, changed) == "its other fields changed"
