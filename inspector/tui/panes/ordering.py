"""The Checklist's order: its findings by pack and seed section, the worst first, what its filter searches, and
its rows unfiltered (a header row per section, the sections with a fail or blocking first), with where each
finding's row is. Made once per review, in a thread after a run or a reopening: at 110,000 findings the rows
alone took 60-300 ms of the app's loop, and finding the highlighted finding's row again as long."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import NamedTuple

from mcp_review.review import Finding, rank
from mcp_review.rules.core import Rule


class Section(NamedTuple):
    """A header row for a pack and seed section: its worst status (none while checks run) and findings."""

    worst: str
    pack: str
    source: str
    findings: int = 0  # not `count`: that would shadow tuple.count


Row = Finding | Section
Place = tuple[str, str | None]  # a finding's rule and subject: its row stays highlighted when the rows change


class Order(NamedTuple):
    """`findings` in the Checklist's order, `texts` what the filter searches in each (as its row reads, lower
    case), `rows` the rows of no filter, and `at` the row of each (rule, subject) there (its first; None when not
    made: the rows are searched)."""

    findings: list[Finding]
    texts: list[str]
    rows: list[Row]
    at: dict[Place, int] | None


def by_section(item: Finding | Rule) -> tuple[str, str]:
    """How the checklist groups rules and findings: pack, then seed section."""
    return item.pack, item.source


def sectioned(findings: Sequence[Finding]) -> list[Row]:
    """`findings` (in order) under a header row per section, the sections whose worst is worst first."""
    sections = [list(group) for _key, group in groupby(findings, key=by_section)]
    sections.sort(key=lambda items: rank(items[0].effective))
    rows: list[Row] = []
    for items in sections:
        rows += [Section(items[0].effective, items[0].pack, items[0].source, len(items)), *items]
    return rows


def order_findings(findings: list[Finding], places: bool = True) -> Order:
    """Every finding by pack and seed section, the worst first in each, and the rest of `Order`. 110,000 findings
    take about 0.4 s, 0.12 s of it `at`: a run makes this in a thread; on the loop (a decision reorders) `places`
    is False, as one search of the rows for the highlighted finding costs less than the index."""
    # Sorted section by section on integer keys: one sort of 110,000 tuples of strings is a single call that
    # holds the interpreter (the app's loop too) for 0.2 s, though it runs in a thread.
    sections: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        sections.setdefault((f.pack, f.source), []).append(f)
    rules = {rule: i for i, rule in enumerate(sorted({f.rule for f in findings}))}
    ordered: list[Finding] = []
    for key in sorted(sections):
        ordered += sorted(sections[key], key=lambda f: rank(f.effective) * len(rules) + rules[f.rule])
    searched = [
        f"{f.effective} {f.concern} {f.severity} {f.rule} {f.subject or 'server'}: {f.message}" for f in ordered
    ]
    rows = sectioned(ordered)
    at: dict[Place, int] = {}
    for i, row in enumerate(rows if places else ()):
        if isinstance(row, Finding):
            at.setdefault((row.rule, row.subject), i)
    return Order(ordered, [text.lower() for text in searched], rows, at if places else None)
