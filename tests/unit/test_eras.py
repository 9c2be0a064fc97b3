"""`--era both` compares two reviews rule by rule, then subject by subject (mcp_review.eras); fast, on reviews made
here. tests/integration/test_eras.py proves it on a real dual-era server."""

from __future__ import annotations

from mcp_review.eras import compare, unserved
from mcp_review.review import Finding, Review


def review(revision: str, *findings: tuple[str, str | None, str]) -> Review:
    made = [Finding(rule, rule.split(".")[0], status, f"{status} said", subject) for rule, subject, status in findings]  # type: ignore[arg-type]
    return Review({}, {}, revision, None, "stdio", findings=made)


def test_rules_and_subjects_that_differ_are_listed_once_each():
    legacy = review("2025-11-25", ("a.x", "t1", "pass"), ("a.x", "t2", "warn"), ("b.y", None, "pass"))
    modern = review("2026-07-28", ("a.x", "t1", "fail"), ("a.x", "t2", "warn"), ("c.z", None, "note"))
    said = compare(legacy, modern)
    rows = [(d["rule"], d["subject"], d["legacy"], d["modern"]) for d in said["differ"]]
    assert rows == [
        ("a.x", None, "warn", "fail"),
        ("b.y", None, "pass", "not run"),
        ("c.z", None, "not run", "note"),
        ("a.x", "t1", "pass", "fail"),
    ]
    assert said["legacy"]["verdict"] == "PASS_WITH_WARNINGS" and said["modern"]["verdict"] == "FAIL"


def test_an_era_not_served_leaves_the_other_shown():
    said = unserved(review("2025-11-25", ("a.x", None, "pass")), "modern", "no server/discover")
    assert said["shown"] == "legacy" and said["modern"] == {"unserved": "no server/discover"} and not said["differ"]
