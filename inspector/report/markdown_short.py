"""The short markdown review (`--format md`): one that fits a GitHub PR comment (65,536 characters).

Verdict and counts first; blocking findings grouped by cause (what would verify them: a flag, a consent,
an attestation), one line each with its rules and subjects; failures and warnings grouped by rule, their
subjects grouped by reason, evidence collapsed for the first subject only. Every list is capped ("… and
N more"), every piece of text too, and when the rule groups would not fit `LIMIT`, the last ones shrink to
one line each. It always says where the complete review (`markdown.render`) is.
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable

from mcp_review.concerns import severity_rank
from mcp_review.report import behaviour, changes, eras
from mcp_review.report.common import cell, code, reach_lines
from mcp_review.report.markdown import (
    exchange,
    header,
    known_section,
    more,
    pointers,
    repository_decisions,
    reviewer_notes,
    settles,
    sign_off,
    subject,
    waivers_and_attestations,
    who_decided,
)
from mcp_review.review import Finding, Review

LIMIT = 60_000  # under GitHub's 65,536 with room for what a CI step wraps around it
SUBJECTS = 6  # names listed on one line before "and N more"
REASONS = 4  # reasons listed per rule
CAUSES = 12  # blocking causes listed
RULE_IDS = 12  # rule ids listed on one line
ROWS = 20  # waivers, attestations, notes
NAME = 60  # characters of a subject's name
TEXT = 200  # characters of a message, a cause or a reason
# The remedy in a message: what a person or flag must do, after the clause that says what is missing.
REMEDY = re.compile(r"(?:^|[:;.]\s+)((?:run with|only|add|set|attest it)\b.+)$", re.IGNORECASE | re.DOTALL)
NEEDS = re.compile(r"\bneeds an? [^:]{1,80}:\s*", re.IGNORECASE)  # "… needs a call: ", "needs a reviewer: "


def render(review: Review, full: str | None = None) -> str:
    """`full`: the file the complete review was written to (beside this one); None: say how to get it."""
    out = [*header(review), _where(full), ""]
    out += known_section(review, ROWS)
    out += _blocking([f for f in review.findings if f.effective == "blocking"])
    tail = [
        *waivers_and_attestations(review, ROWS, 120),
        *repository_decisions(review, ROWS),
        *who_decided(review),
        *eras.section(review, ROWS),
        *behaviour.section(review, ROWS),
        *reviewer_notes(review, ROWS, 300),
        *changes.section(review, ROWS),
        *_tokens(review),
        *_coverage(review),
        *_passed(review),
        *sign_off(review),
    ]
    shown: dict[str, str] = {}  # evidence already quoted -> the rule it is quoted under
    pointed = pointers(review)
    sections = [
        (
            f"{title}: {_count(sum(map(len, groups.values())), 'finding')} under {_count(len(groups), 'rule')}",
            [_rule_group(review, rule, items, shown, pointed) for rule, items in groups.items()],
        )
        for status, title in (("fail", "Failures"), ("warn", "Warnings"), ("note", "Notes (never judged)"))
        if (groups := _by_rule(review, status))
    ]
    out += _fit(sections, LIMIT - _size(out) - _size(tail))
    return "\n".join([*out, *tail])


def _where(full: str | None) -> str:
    what = "Short review: findings grouped, evidence for the first subject of each rule."
    if full:
        return f"{what} The complete review, every finding with its evidence, is in {code(full, 200)} beside this one."
    return (
        f"{what} The complete review, every finding with its evidence: `mcp-review check --format md-full` "
        "(or `--format json`; with `--out FILE` it is written beside FILE)."
    )


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _listed(shown: list[str], total: int, what: str = "") -> str:
    """The items shown, then how many of `total` were not."""
    return ", ".join(shown) + (f" and {total - len(shown)} more{what}" if total > len(shown) else "")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _names(findings: Iterable[Finding], limit: int = SUBJECTS) -> str:
    """Distinct subjects as code, the first `limit` of them, then how many more."""
    names = list(dict.fromkeys(f.subject or "" for f in findings))
    return _listed([code(n, NAME) if n else "server" for n in names[:limit]], len(names))


def _without_subject(message: str, subject: str | None) -> str:
    """The message with its own subject's name, where it quotes it, left out ('…'), so subjects that share a
    reason share a line. Only quoted: a tool named `tools` leaves the word alone."""
    if not subject:
        return message
    for quote in ("'", '"', "`"):
        message = message.replace(f"{quote}{subject}{quote}", f"{quote}…{quote}")
    return message


def cause(f: Finding) -> str:
    """What would verify a blocking finding: the remedy its message names (the flag, the consent, the
    attestation), without the rule's own wording of what is missing; else its message."""
    message = _without_subject(f.message, f.subject)
    need = NEEDS.search(message)
    after = message[need.end() :] if need else message
    remedy = REMEDY.search(after)
    if remedy is None:
        return (after or message).strip()
    return remedy.group(1).strip().rstrip(".")


def _blocking(blocking: list[Finding]) -> list[str]:
    if not blocking:
        return []
    groups: dict[str, list[Finding]] = defaultdict(list)
    for f in blocking:
        groups[cause(f)].append(f)
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    out = [f"## Blocking: {_count(len(blocking), 'finding')}, {_count(len(groups), 'cause')}", ""]
    for text, items in ranked[:CAUSES]:
        rules = list(dict.fromkeys(f.rule + (f" ({f.concern}, {f.severity})" if f.concern else "") for f in items))
        listed = _listed(rules[:RULE_IDS], len(rules))
        out.append(f"- **{cell(text, TEXT)}** ({len(items)}): {listed}; for {_names(items)}")
    return [*out, *more(min(len(ranked), CAUSES), len(ranked), "causes"), ""]


def _by_rule(review: Review, status: str) -> dict[str, list[Finding]]:
    """The findings of `status` by rule, security's rules first, then the worst severity first; a fail that is a
    known SDK behaviour is said once in its own section, not here."""
    groups: dict[str, list[Finding]] = defaultdict(list)
    for f in review.findings:
        if f.effective == status and not (status == "fail" and f.known is not None):
            groups[f.rule].append(f)
    order = sorted(groups, key=lambda rule: (groups[rule][0].concern != "security", _worst(groups[rule])))
    return {rule: groups[rule] for rule in order}


def _worst(items: list[Finding]) -> int:
    return min(severity_rank(f.severity) for f in items)


def _rated(items: list[Finding], sep: str) -> str:
    """A rule group's concern and its findings' severities, worst first, after `sep`: " · security · critical, high"
    ("" for a rule this version does not know, read back from an older review)."""
    severities = sorted({f.severity for f in items if f.severity}, key=severity_rank)
    return f"{sep}{items[0].concern} · {', '.join(severities)}" if items[0].concern else ""


def _rule_group(
    review: Review, rule: str, items: list[Finding], shown: dict[str, str], pointed: dict[str, list[str]]
) -> tuple[list[str], str]:
    """(the rule in detail, the rule in one line): heading, summary, subjects by reason, the rules whose findings
    point to its fail (`pointed`), and the first subject's evidence, or where it was already quoted (`shown`)."""
    brief = f"- **{rule}** ({len(items)}{_rated(items, ', ')}): {_names(items, 3)}"
    by_reason: dict[str, list[Finding]] = defaultdict(list)
    for f in items:
        by_reason[_without_subject(f.message, f.subject)].append(f)
    ranked = sorted(by_reason.items(), key=lambda kv: -len(kv[1]))
    summary = _summaries().get(rule)
    lines = [f"### {rule} ({len(items)}){_rated(items, ' · ')}", "", *([cell(summary, TEXT), ""] if summary else [])]
    mixed = len({f.severity for f in items}) > 1  # then each reason says its own
    lines += [
        f"- {_names(fs)}: " + (f"*{fs[0].severity}*: " if mixed else "") + cell(reason, TEXT)
        for reason, fs in ranked[:REASONS]
    ]
    rest = sum(len(fs) for _, fs in ranked[REASONS:])
    if rest:
        lines.append(f"- … and {rest} more with {len(ranked) - REASONS} other reasons")
    lapsed = [f for f in items if f.lapsed]
    lines += [f"- {_names(lapsed)}: {cell(lapsed[0].lapsed, TEXT)}"] if lapsed else []
    lines += ["", settles(pointed[rule])] if items[0].effective == "fail" and rule in pointed else []
    first = next((f for _, fs in ranked for f in fs if f.evidence), None)  # of the reason listed first
    return [*lines, *(_evidence(review, rule, first, shown) if first else [])], brief


def _evidence(review: Review, rule: str, f: Finding, shown: dict[str, str]) -> list[str]:
    """The wire entries `f` cites, collapsed; one line instead when another rule already quoted them."""
    lines = exchange(review, f, chars=400, title=f": {_name(f)}")
    key = "\n".join(lines)
    if key in shown:
        return ["", f"Evidence for {subject(f, NAME)}: quoted under {shown[key]} above.", ""]
    shown[key] = rule
    return ["", *lines]


def _name(f: Finding) -> str:
    """A subject inside HTML (`<summary>`), where a code span does not render: escaped text instead."""
    return cell(f.subject, NAME) if f.subject else "server"


@functools.cache
def _summaries() -> dict[str, str]:
    """Each rule's one line (a review read back from JSON may name rules this version does not have)."""
    from mcp_review.rules.core import load_rules

    return {rule.id: rule.summary for rule in load_rules().values()}


def _fit(sections: list[tuple[str, list[tuple[list[str], str]]]], budget: int) -> list[str]:
    """Every rule group in detail while the rest still fit as one line each; from there on, one line each
    while they fit; then how many rules are left out."""
    briefs = [len(brief) + 1 for _, groups in sections for _, brief in groups]
    out: list[str] = []
    shrunk = False
    for title, groups in sections:
        out += [f"## {title}", ""]
        left = 0
        for detail, brief in groups:
            del briefs[0]
            if not shrunk and _size(out) + _size(detail) + sum(briefs) + 400 > budget:
                shrunk = True
                out += ["### No room here for the rest: the complete review has them in full", ""]
            if not shrunk:
                out += detail
            elif _size(out) + len(brief) + 400 <= budget:
                out.append(brief)
            else:
                left += 1
        out += [*more(0, left, "rules"), *([""] if out[-1] else [])]
    return out


def _tokens(review: Review) -> list[str]:
    rows = review.tokens.get("tools") or []
    if not rows:
        return []
    costly = sorted(rows, key=lambda row: -row["tokens"]["total"])[:5]
    top = ", ".join(f"{code(row['name'], NAME)} {row['tokens']['total']}" for row in costly)
    return [
        f"## Token cost ({review.tokens.get('encoding', 'cl100k_base')})",
        "",
        f"Whole `tools` array: **{review.tokens.get('total')}** tokens for {_count(len(rows), 'tool')}; "
        f"the costliest: {top}.",
        "",
    ]


def _coverage(review: Review) -> list[str]:
    called = {c["tool"] for c in review.coverage}
    not_called = [t for t in review.tools if t not in called]
    line = f"{len(called)} of {len(review.tools)} tools called"
    if review.coverage:
        line += f", {_count(len(review.coverage), 'call')}: " + _tally(
            c["outcome"].split(":")[0] for c in review.coverage
        )
        line += " (consent: " + _tally(c["consent"] for c in review.coverage) + ")"
    out = ["## Review coverage", "", line + "."]
    out += [line for said in reach_lines(review.reach) for line in ("", said)]
    if not_called:
        out += ["", "Not called: " + _listed([code(t, NAME) for t in not_called[:SUBJECTS]], len(not_called))]
    return [*out, ""]


def _tally(values: Iterable[str]) -> str:
    counts = Counter(cell(v, 40) for v in values).most_common()
    return _listed([f"{n} {v}" for v, n in counts[:4]], len(counts), " kinds")


def _passed(review: Review) -> list[str]:
    by_status: dict[str, Counter[str]] = {"pass": Counter(), "n/a": Counter()}
    for f in review.findings:
        if f.effective in by_status:
            by_status[f.effective][f.rule] += 1
    total = sum(sum(c.values()) for c in by_status.values())
    lines = [
        f"- {status}: " + ", ".join(f"{rule} ({n})" for rule, n in counts.items())
        for status, counts in by_status.items()
        if counts
    ]
    if not total:  # before any run: no empty block
        return []
    return [f"<details><summary>Passed and not applicable ({total})</summary>", "", *lines, "", "</details>", ""]
