"""The Checklist's order is made whole off the app's loop: its unfiltered rows (a header per pack and seed section,
the sections with a fail or blocking first, the worst findings first in each) and where each finding's row is, so
showing a run's findings, or clearing the filter, builds no row on the loop (bench/tui.py measures the key waits)."""

from __future__ import annotations

from mcp_review.review import Finding
from mcp_review.tui.panes.ordering import Section, order_findings, sectioned


def finding(rule: str, status: str, subject: str | None, source: str) -> Finding:
    return Finding(rule, rule.split(".")[0], status, f"{subject}: {status}", subject, "tool", source)  # type: ignore[arg-type]


FINDINGS = [
    finding("review.a", "pass", "t1", "seed 003 A"),
    finding("review.b", "warn", "t2", "seed 003 A"),
    finding("spec.c", "pass", "t1", "seed 001"),
    finding("spec.c", "fail", "t2", "seed 001"),
    finding("review.a", "blocking", "t3", "seed 003 A"),
]


def test_the_unfiltered_rows_and_the_place_of_each_finding_come_with_the_order():
    order = order_findings(FINDINGS)
    assert order.rows == sectioned(order.findings), "the rows of no filter are the ones a filter would make"
    headers = [row for row in order.rows if isinstance(row, Section)]
    assert [(h.pack, h.source, h.worst, h.findings) for h in headers] == [
        ("spec", "seed 001", "fail", 2),
        ("review", "seed 003 A", "blocking", 3),
    ], "the sections whose worst is worst first, each with its count"
    assert [(r.rule, r.status) for r in order.rows if isinstance(r, Finding)] == [
        ("spec.c", "fail"),
        ("spec.c", "pass"),
        ("review.a", "blocking"),
        ("review.b", "warn"),
        ("review.a", "pass"),
    ], "the worst first in each section"
    for (rule, subject), i in order.at.items():
        row = order.rows[i]
        assert isinstance(row, Finding) and (row.rule, row.subject) == (rule, subject)
    assert len(order.at) == len(FINDINGS)
    assert order_findings(FINDINGS, places=False).at is None, "on the loop (a decision): the rows are searched"
    assert order.texts[0] == "blocking   review.a t3: t3: blocking", "what the filter searches, as the row reads"
