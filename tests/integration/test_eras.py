"""`check --era both` (issue 24, mcp_review.eras): a dual-era server reviewed under each era, and where the rules'
verdicts differ, in every export. tests/servers/declared.py `eras` lists `notes_delete` as read-only and destructive
under 2026-07-28 only; a legacy-only server (rawserver) is reviewed under the one era it serves."""

from __future__ import annotations

import asyncio
import json
from functools import cache
from xml.etree import ElementTree as ET

import pytest

from mcp_review.checking import CheckPlan, run_check
from mcp_review.report import FORMATS, render
from mcp_review.review import Review
from mcp_review.rules.core import load_rules
from mcp_review.targets import stdio_target
from tests.pace import slowness
from tests.support import fixture_argv

SLOW = pytest.mark.slow  # two SDK server sessions, one per era: 8-14 s on a loaded machine


@cache
def reviewed(*server: str) -> Review:
    """One rule under each era: a stdio probe starts a server process of its own, so the whole checklist twice
    would take half a minute; what `--era both` does with the findings does not depend on how many there are."""
    target = stdio_target(fixture_argv(*server)).with_(timeout=30 * slowness())
    others = [r for r in load_rules() if r.startswith("review.") and r != "review.annotations-set"]
    return asyncio.run(run_check(target, CheckPlan(packs=["review"], ignore=others, era="both")))


@SLOW
def test_a_rule_that_differs_between_eras_is_shown_with_both_verdicts():
    review = reviewed("declared", "eras")
    eras = review.eras
    assert eras is not None and eras["shown"] == "modern" and review.era == "modern"
    assert eras["legacy"]["revision"] == "2025-11-25" and eras["modern"]["revision"] == "2026-07-28"
    rows = {(d["rule"], d["subject"]): d for d in eras["differ"]}
    rule, tool = rows[("review.annotations-set", None)], rows[("review.annotations-set", "notes_delete")]
    assert (rule["legacy"], rule["modern"]) == ("pass", "fail") == (tool["legacy"], tool["modern"])
    assert "readOnlyHint and destructiveHint are both true" in tool["modernMessage"]
    assert ("review.annotations-set", "notes_get") not in rows, "a subject the same under both eras is not listed"
    assert review.verdict == "FAIL" and eras["legacy"]["verdict"] == "PASS"


@SLOW
def test_every_export_carries_the_eras():
    review = reviewed("declared", "eras")
    assert set(FORMATS) == {"md", "md-full", "json", "sarif", "junit"}, "a new format must carry the eras too"
    for fmt in ("md", "md-full"):
        text = render(review, fmt)
        assert (
            "## Both eras: where the verdicts differ" in text
            and "| `review.annotations-set` | `notes_delete` |" in text
        )
    assert json.loads(render(review, "json"))["eras"] == review.eras
    assert json.loads(render(review, "sarif"))["runs"][0]["properties"]["eras"] == review.eras
    props = {p.get("name"): p.get("value") for p in ET.fromstring(render(review, "junit")).iter("property")}
    assert props["mcp-review.era.differs.review.annotations-set.notes_delete"] == "legacy pass; modern fail"
    assert props["mcp-review.era.legacy"] == review.eras["legacy"]["verdict"]
    assert Review.from_json(json.loads(render(review, "json"))).eras == review.eras, "the saved review keeps them"


@SLOW
def test_the_verdict_is_the_worse_of_the_two_eras():
    review = reviewed("declared", "eras")
    worse = Review.from_json(review.to_json())
    worse.findings = [f for f in worse.findings if f.status not in ("fail", "blocking", "warn")]
    assert worse.eras is not None
    worse.eras = {**worse.eras, "legacy": {**worse.eras["legacy"], "verdict": "FAIL"}}
    assert worse.verdict == "FAIL", "a fail under the era not shown still fails the check"
    worse.eras = None
    assert worse.verdict == "PASS"


def test_a_server_that_serves_one_era_is_reviewed_under_it_and_says_so():
    review = reviewed("profiled", "exemplary")
    assert review.eras is not None and review.eras["shown"] == "legacy" and review.era == "legacy"
    assert "server/discover" in review.eras["modern"]["unserved"] and review.eras["differ"] == []
    assert "modern (2026-07-28, stateless): not reviewed" in render(review, "md-full")


@SLOW
def test_the_app_overview_names_each_rule_that_differs():
    from mcp_review.tui.panes.overview import era_lines

    review = reviewed("declared", "eras")
    assert review.eras is not None
    text = era_lines(review.eras).plain
    assert "both eras: legacy PASS · modern FAIL" in text
    assert "review.annotations-set notes_delete: legacy pass · modern fail" in text
