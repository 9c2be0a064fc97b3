"""Exports: golden files for each format, from a fixed review; verdict and waiver semantics.

Regenerate the goldens after an intended change with: UPDATE_GOLDENS=1 pytest tests/unit/test_reports.py
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from mcp_review.report import FORMATS, render
from mcp_review.report.common import cell
from mcp_review.report.markdown_short import LIMIT, cause
from mcp_review.review import Attestation, Finding, Remark, Review, Waiver, verdict_of
from mcp_review.rules.core import stamp_missing
from tests.support import verdict_line

GOLDEN = Path(__file__).parents[1] / "golden"


def sample_review() -> Review:
    findings = [
        Finding(
            "review.input-schema",
            "review",
            "fail",
            "property 'q' has no type",
            "search",
            "tool",
            "seed 003 Tool contracts: input-schema",
            "static",
            [5],
        ),
        Finding(
            "review.annotations-set",
            "review",
            "fail",
            "readOnlyHint not set",
            "create_note",
            "tool",
            "seed 003 Tool contracts: annotations-set",
            "static",
            [5],
        ),
        Finding(
            "review.descriptions-grounded",
            "review",
            "fail",
            "description: instruction aimed at the model: `<IMPORTANT>` [bold]x[/] | pipe",
            "export`s",
            "tool",
            "seed 003 Tool contracts: descriptions-grounded",
            "static",
            [5],
        ),
        Finding(
            "spec.ping", "spec", "pass", "answered {} in 3 ms", None, None, "seed 002; MCP ≤2025-11-25", "probe", [7]
        ),
        Finding(
            "spec.pagination", "spec", "warn", "an invalid cursor was accepted", None, None, "seed 002", "probe", [9]
        ),
        Finding(
            "tokens.panic-isolation", "tokens", "blocking", "needs a reviewer", None, None, "seed 000 §8", "manual"
        ),
        Finding("spec.http-transport", "spec", "n/a", "applies to HTTP servers", None, None, "seed 002", "probe"),
    ]
    review = Review(
        server={"name": "demo-notes", "version": "0.3.1", "info": {"name": "demo-notes", "version": "0.3.1"}},
        target={"kind": "stdio", "command": "python", "args": ["-m", "mcp_review.demo"], "env": {"API_KEY": "***"}},
        revision="2025-11-25",
        era="legacy",
        transport="stdio",
        findings=findings,
        waivers=[Waiver("review.annotations-set", "annotations land in 0.4", "alice", "create_note", "2099-01-31")],
        attestations=[Attestation("tokens.panic-isolation", "bob", "dispatch wrapped", "pass")],
        remarks=[
            Remark(
                "carol", "ask upstream | to drop <b>this</b>", "review.descriptions-grounded", "export`s", "2026-11-23"
            ),
            Remark("carol", "otherwise clean", at="2026-11-23"),
        ],
        coverage=[
            {
                "tool": "search",
                "arguments": {"q": "x"},
                "consent": "read-only",
                "purpose": "sample result",
                "outcome": "ok",
                "latencyMs": 4.2,
                "seq": 11,
            }
        ],
        tools=["search", "create_note", "export`s"],
        tokens={
            "encoding": "cl100k_base",
            "total": 321,
            "tools": [{"name": "search", "tokens": {"total": 120, "name": 3, "description": 40, "inputSchema": 70}}],
        },
        packs=["review", "spec", "tokens"],
        exchanges={
            4: {
                "seq": 4,
                "t": 0.0,
                "dir": "send",
                "conn": 1,
                "message": {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
                "size": 60,
                "answered": [5],  # the wire log's pairing, as it recorded them
            },
            5: {
                "seq": 5,
                "t": 0.0,
                "dir": "recv",
                "conn": 1,
                "size": 200,
                "links": [{"request": 4, "state": "paired", "method": "tools/list", "ms": 1.0}],
                "message": {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "result": {
                        "tools": [
                            {"name": "search", "inputSchema": {"type": "object", "properties": {"q": {}}}},
                            {"name": "export`s", "description": "<IMPORTANT>\u001b[31m```"},
                        ]
                    },
                },
            },
        },
        created="2026-11-23T00:00:00+00:00",
    )
    stamp_missing(review.findings)  # each finding's concern and severity, as its rule declares them
    review.apply_waivers(today=dt.date(2026, 11, 23))
    return review


def without_rule_prose(fmt: str, text: str) -> str:
    """The SARIF with each rule's documentation replaced by a marker: a golden file must not break when a
    docstring is edited (the docs have tests of their own), only when the report's shape changes."""
    if fmt != "sarif":
        return text
    from mcp_review.rules.core import load_rules

    doc = json.loads(text)
    rules = load_rules()
    for entry in doc["runs"][0]["tool"]["driver"]["rules"]:
        for key, form in (("fullDescription", "text"), ("help", "text"), ("help", "markdown")):
            if entry[key][form] == rules[entry["id"]].doc:
                entry[key][form] = f"<the documentation of {entry['id']}>"
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("fmt", FORMATS)
def test_golden(fmt):
    text = without_rule_prose(fmt, render(sample_review(), fmt))
    path = GOLDEN / f"review.{FORMATS[fmt].suffix}"
    if os.environ.get("UPDATE_GOLDENS") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_verdict_order_and_waivers():
    review = sample_review()
    assert review.verdict == "FAIL"
    assert [f.effective for f in review.findings if f.rule == "review.annotations-set"] == ["waived"]
    fails = [f for f in review.findings if f.effective == "fail"]
    for f in fails:
        f.status = "pass"
    assert review.verdict == "BLOCKED"
    review.findings = [f for f in review.findings if f.status != "blocking"]
    assert review.verdict == "PASS_WITH_WARNINGS"
    assert verdict_of([]) == "PASS"


def test_expired_waiver_counts_again():
    review = sample_review()
    review.apply_waivers(today=dt.date(2100, 1, 1))
    finding = next(f for f in review.findings if f.rule == "review.annotations-set")
    assert finding.effective == "fail" and "expired on 2099-01-31" in (finding.note or "")


@pytest.mark.parametrize("fmt", ["md", "md-full"])
def test_markdown_is_safe_for_a_pull_request(fmt):
    md = render(sample_review(), fmt)
    assert verdict_line(md).startswith("**Verdict: ❌ FAIL**")
    assert "\x1b" not in md and "\\u001b[31m" in md
    outside_code = re.sub(r"````.*?````|```.*?```", "", md, flags=re.S)
    outside_code = re.sub(r"(`+) .*? \1|`[^`\n]*`", "", outside_code)
    assert "<IMPORTANT>" not in outside_code, "server text reaches markdown only as code or escaped"
    assert "\\|" in md  # a pipe in server text cannot break a table
    assert html_tags(md) <= OWN_TAGS
    assert "## Sign-off" in md and "## Review coverage" in md and "## Token cost (cl100k_base)" in md


def test_json_shape():
    doc = json.loads(render(sample_review(), "json"))
    assert {"tool", "server", "revision", "transport", "verdict", "findings", "tokens", "coverage", "waivers"} <= set(
        doc
    )
    assert set(doc["findings"][0]) >= {"rule", "pack", "status", "subject", "message", "source", "evidence"}
    assert doc["findings"][3]["subject"] is None


def test_sarif_and_junit_are_well_formed():
    sarif = json.loads(render(sample_review(), "sarif"))
    run = sarif["runs"][0]
    assert sarif["version"] == "2.1.0" and run["tool"]["driver"]["rules"]
    assert any(r.get("suppressions") for r in run["results"])  # the waived finding
    root = ET.fromstring(render(sample_review(), "junit"))
    suite = root.find("testsuite")
    assert suite is not None and suite.get("tests") == "7" and suite.get("failures") == "2"


@pytest.mark.parametrize(
    ("message", "subject", "expected"),
    [
        (
            "the result envelope needs a call: run with --calls read-only (or --calls all) to let mcp-review call tools",
            "a",
            "run with --calls read-only (or --calls all) to let mcp-review call tools",
        ),
        (
            "the output shape needs a call: it is not annotated readOnlyHint: true; it is annotated destructiveHint: "
            "true: only --calls all (the reviewer's consent) lets mcp-review call it",
            "b",
            "only --calls all (the reviewer's consent) lets mcp-review call it",
        ),
        (
            "the request_id needs a call: add 'tool_a' to the tools allowed for calls in mcp-review.toml (calls.allow)",
            "tool_a",
            "add '…' to the tools allowed for calls in mcp-review.toml (calls.allow)",
        ),
        (
            "needs a reviewer: no shell. Attest it in mcp-review.toml ([[attest]]) or the TUI.",
            None,
            "Attest it in mcp-review.toml ([[attest]]) or the TUI",
        ),
        (
            "needs a token issued for another resource: set foreign_token in mcp-review.toml",
            None,
            "set foreign_token in mcp-review.toml",
        ),
        (
            "stable within this session; no baseline pinned to compare versions: run with --baseline FILE (the first "
            "run pins it)",
            None,
            "run with --baseline FILE (the first run pins it)",
        ),
        ("structuredContent not validated: a remote $ref", "t", "structuredContent not validated: a remote $ref"),
    ],
)
def test_blocking_cause_is_the_remedy_its_message_names(message, subject, expected):
    assert cause(Finding("any.rule", "any", "blocking", message, subject)) == expected


OWN_TAGS = {"h1", "h2", "h3", "p", "ul", "li", "strong", "code", "pre", "details", "summary", "em"}
OWN_TAGS |= {"table", "thead", "tbody", "tr", "th", "td"}


def html_tags(md: str) -> set[str]:
    """The tags a CommonMark renderer (raw HTML passed through, as GitHub does before sanitizing) makes of `md`."""
    from markdown_it import MarkdownIt

    return set(re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", MarkdownIt("commonmark").enable("table").render(md)))


def hostile_review(rules: int, tools: int = 60) -> Review:
    """`tools` tools with 3,500-character names full of backticks, pipes, tags and bidi overrides; every finding
    quotes its tool's name; `rules` rules each fail, warn and block for every tool with its own reason."""
    names = [f"t{i}_![x](https://evil.example/b.png)" + "`|<b>\u202e\u200b" * 500 for i in range(tools)]
    listing = {"seq": 5, "dir": "recv", "conn": 1, "message": {"result": {"tools": [{"name": n} for n in names]}}}
    findings = [
        Finding(f"review.r{r}", "review", status, f"'{n}' is like {names[i - 1]} <IMPORTANT>", n, "tool", "", "", [5])
        for r in range(rules)
        for status in ("fail", "warn", "blocking")
        for i, n in enumerate(names)
    ]
    return Review(
        server={"name": "<b>x</b>" * 100},
        target={"kind": "stdio", "command": "x" * 10_000},
        revision="2025-11-25",
        era="legacy",
        transport="stdio",
        findings=findings,
        tools=names,
        tokens={"encoding": "cl100k_base", "total": 1, "tools": [{"name": n, "tokens": {"total": 1}} for n in names]},
        exchanges={5: listing},
    )


@pytest.mark.parametrize(("rules", "tools"), [(3, 60), (60, 20), (150, 8)])
@pytest.mark.slow
def test_short_review_of_a_hostile_server_fits_a_pr_comment(rules, tools):
    md = render(hostile_review(rules, tools), "md")
    assert len(md) < LIMIT, len(md)
    assert verdict_line(md).startswith("**Verdict: ❌ FAIL**")
    assert "\u202e" not in md and "<U+202E>" in md
    assert f"and {tools - 6} more" in md, "subjects are capped per line"
    assert html_tags(md) <= OWN_TAGS, "no tag, link or image of the server's reaches the pull request"
    assert ("No room here" in md) == (rules > 3), "rules that do not fit shrink to one line each"
    assert ("more rules" in md) == (rules > 60), "and, past that, are counted"
    assert "--format md-full" in md


def test_full_review_keeps_every_finding_with_its_evidence():
    review = sample_review()
    full = render(review, "md-full")
    assert all(f.rule in full for f in review.findings)
    shown = [f for f in review.findings if f.effective in ("fail", "warn")]
    assert all(cell(f.message, 600) in full for f in shown)
    shown = [f for f in shown if set(f.evidence) & set(review.exchanges)]  # every cited exchange the review kept
    assert full.count("<summary>evidence (wire)</summary>") == len(shown)
    assert '#4 → {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}' in full


def test_the_rules_page_sarif_links_to_is_current():
    """SARIF's helpUri names each rule's heading in docs/rules.md: regenerate it when a docstring changes with
    `mcp-review rules --markdown > docs/rules.md`."""
    from mcp_review.cli.rules import markdown
    from mcp_review.rules.core import load_rules

    page = (Path(__file__).parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    assert markdown(load_rules()) == page
    assert all(f"\n## {rule_id}\n" in page for rule_id in load_rules())


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_export_names_the_version_that_reviewed(fmt):
    from mcp_review import __version__

    assert sample_review().server["version"] != __version__
    assert __version__ in render(sample_review(), fmt)
