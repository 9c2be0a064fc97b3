"""The complete markdown review (`--format md-full`): every finding with its wire evidence, and the pieces the
short review (`markdown_short`, `--format md`) shares with it.

Server text is untrusted: it goes into code spans, fenced blocks (fenced by more backticks than any run in
it) or escaped text (`cell`: `&`, `<`, `>`, `\\`, `|` and `[` escaped, line breaks folded, so it never starts a line)
with control characters made visible and sizes capped (after escaping, too), so it cannot open or close a fence,
a `<details>`, an HTML element, a heading, a table row or a link in the pull request.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from mcp_review import __version__, claims, known
from mcp_review.calls import outcome_said
from mcp_review.connection.pairing import ANSWERS
from mcp_review.report import behaviour, changes, eras, headline
from mcp_review.report.common import cell, clip, code, fence_for, reach_lines
from mcp_review.report.headline import ICONS
from mcp_review.review import STATUSES, Attestation, Finding, Review, Waiver
from mcp_review.text import visible

ORDER = (*STATUSES[:3], "waived", *STATUSES[3:])  # the counts line: worst first
EVIDENCE_CHARS = 1200


def subject(f: Finding, limit: int = 200) -> str:
    return code(f.subject, limit) if f.subject else "server"


def exchange(
    review: Review,
    f: Finding,
    *,
    related: Exchanges | None = None,
    chars: int = EVIDENCE_CHARS,
    title: str = "",
) -> list[str]:
    """The wire entries a finding cites (its first two; with `related` (see `exchanges_of`): each with up to
    4 entries of the same exchange, e.g. the request a response answers), collapsed."""
    lines: list[str] = []
    for seq in f.evidence[:2]:
        if related is not None:
            entries = related.get(seq, [])
        else:
            entries = [review.exchanges[seq]] if seq in review.exchanges else []
        lines += [_entry_text(entry, f.subject, chars) for entry in entries[:4]]
    if not lines:
        return []
    body = "\n".join(lines).splitlines()
    fence = fence_for("\n".join(body))
    summary = f"<summary>evidence (wire){title}</summary>"
    return ["<details>" + summary, "", f"{fence}text", *body, fence, "", "</details>", ""]


def item_of(message: Any, subject: str | None) -> tuple[str, Any] | None:
    """In a list response, the one item a finding is about (so the quote is that tool, not the page): its path
    and value. The TUI opens a finding's evidence there too."""
    result = message.get("result") if isinstance(message, dict) else None
    if not subject or not isinstance(result, dict):
        return None
    for key in ("tools", "prompts", "resources", "resourceTemplates"):
        for i, item in enumerate(result.get(key) or []):
            if isinstance(item, dict) and subject in (item.get("name"), item.get("uri"), item.get("uriTemplate")):
                return f"result.{key}[{i}]", item
    return None


Exchanges = dict[int, list[dict[str, Any]]]


def exchanges_of(review: Review) -> Exchanges:
    """For every cited wire entry, the cited entries of its exchange in wire order: itself, the request it answers
    and that request's answers, or its own answers (the links the wire log made when it recorded them), and the
    HTTP lines of the same exchange. Grouped once, so quoting the evidence of every finding costs the same as the
    evidence itself."""
    cited = review.exchanges
    by_exchange: dict[tuple[Any, Any], list[int]] = defaultdict(list)
    for seq, entry in sorted(cited.items()):
        if entry.get("exchange") is not None:
            by_exchange[(entry.get("conn"), entry["exchange"])].append(seq)

    def answered(seq: Any) -> list[int]:
        entry = cited.get(seq) if isinstance(seq, int) else None
        seqs = entry.get("answered") if entry is not None else None
        return [s for s in seqs if isinstance(s, int) and s in cited] if isinstance(seqs, list) else []

    related: dict[int, list[dict[str, Any]]] = {}
    for seq, entry in cited.items():
        asked = [s for s in _asked(entry) if s in cited]
        others = {seq, *answered(seq), *asked}
        others.update(a for s in asked for a in answered(s))
        if entry.get("exchange") is not None:
            others.update(by_exchange[(entry.get("conn"), entry["exchange"])])
        related[seq] = [cited[s] for s in sorted(others)]
    return related


def _asked(entry: dict[str, Any]) -> list[int]:
    """The requests a wire entry (as the review keeps it) answers, by the links recorded with it."""
    links = entry.get("links")
    return [
        link["request"]
        for link in (links if isinstance(links, list) else [])
        if isinstance(link, dict) and isinstance(link.get("request"), int) and str(link.get("state")) in ANSWERS
    ]


def _entry_text(entry: dict[str, Any], subject: str | None, chars: int) -> str:
    arrow = {"send": "→", "recv": "←", "http": "⇄"}.get(entry.get("dir", ""), "·")
    if entry.get("http"):
        http = entry["http"]
        what = f"{http.get('method', '')} {http.get('url', '')}".strip() or f"HTTP {http.get('status')}"
        return f"#{entry['seq']} {arrow} {visible(what, 300)}"
    payload = entry.get("message") if "message" in entry else entry.get("text")
    item = item_of(payload, subject)
    if item is not None:
        path, value = item
        return f"#{entry['seq']} {arrow} {path}: {_capped(json.dumps(value, ensure_ascii=False), chars)}"
    text = json.dumps(payload, ensure_ascii=False) if not isinstance(payload, str) else payload
    return f"#{entry['seq']} {arrow} {_capped(text, chars)}"


def _capped(text: str, chars: int) -> str:
    return clip(visible(text, chars, newlines=False), chars)


def pointers(review: Review) -> dict[str, list[str]]:
    """For each rule, the other rules whose findings point to its fail ("settled by" it: one fact, one fail)."""
    out: dict[str, set[str]] = defaultdict(set)
    for f in review.findings:
        if f.settled_by and f.settled_by != f.rule:
            out[f.settled_by].add(f.rule)
    return {rule: sorted(rules) for rule, rules in out.items()}


def settles(rules: list[str]) -> str:
    """The line under a fail that other rules point to."""
    return f"Also settles {', '.join(f'**{r}**' for r in rules)} (n/a there: the same fact, one fail)."


def header(review: Review) -> list[str]:
    """Title with security's verdict, every concern's verdict (security first, then those that fail), the overall
    verdict with the gate's and the counts (worst first), and what was reviewed how."""
    server = review.server
    name = server.get("name") or "(unnamed server)"
    verdict = review.verdict
    counts = review.counts()
    applied = review.repository_decisions()  # never a PASS read without whose waivers made it one
    claimed = claims.said(review)  # nor a FAIL without the repository's decisions that were not applied
    said = [f"**Verdict: {ICONS[verdict]} {verdict}**", *(f"{counts[s]:,} {s}" for s in ORDER if s in counts)]
    said += [gate] if (gate := headline.gate(review)) else []
    said += [f"decisions: {decided}"] if (decided := headline.decided_counts(review)) else []
    said += [f"with {cell(applied, 300)}"] if applied else []
    said += [cell(claimed, 800)] if claimed else []
    if verdict == "NOT_CHECKED":  # an export before any run: what it holds, and what would check it
        said.append("no checklist ran: the token report and the calls made (`r` in the app, or `mcp-review check`)")
    packs = f"Packs: {', '.join(review.packs)}" if review.packs else "No packs run"
    title = f"# MCP review: {cell(name, 80)} {cell(server.get('version') or '', 40)}".rstrip()
    return [
        f"{title} · {headline.security(review, detail=False)}" if verdict != "NOT_CHECKED" else title,
        "",
        headline.line(review, lead="**"),
        "",
        "  ·  ".join(said),
        "",
        f"- Revision {code(review.revision, 60)} ({review.era} era), transport `{review.transport}`",
        f"- Target: {code(_target_label(review.target), 160)}",
        f"- {packs}  ·  reviewed with mcp-review {__version__} on {review.created}",
        "",
    ]


def rated(f: Finding) -> str:
    """A finding's concern and severity, as every finding line shows them."""
    return f"{f.concern or '?'} · {f.severity or '?'}"


def known_section(review: Review, rows: int | None = None) -> list[str]:
    """The known SDK behaviours the review's fails follow from (`mcp_review.known`), each once: the SDK, since when,
    what the spec says, the fix, and how to waive it for the whole review (the first `rows` of them)."""
    found = known.listed(review)
    if not found:
        return []
    out = [f"## Known SDK behaviours: {len(found)}, each said once", ""]
    for k in found[:rows]:
        subjects = ", ".join(code(s, 60) if s else "server" for s in k["subjects"][:6])
        more_subjects = f" and {len(k['subjects']) - 6} more" if len(k["subjects"]) > 6 else ""
        waived = f", {k['waived']} waived" if k["waived"] else ""
        since = f" ({cell(k['since'], 200)})" if k["since"] else ""
        what = cell(k["what"], 300)
        out += [
            f"### {k['concern']}: `{k['behaviour']}`, the default of {cell(k['sdkName'], 120)} ({k['rule']})",
            "",
            f"{what[:1].upper()}{what[1:]}{since}: a true fail of {k['concern']}, said once here.",
            "",
            f"- Found: {k['fails']} fail{'s' if k['fails'] != 1 else ''}{waived} on {subjects}{more_subjects}",
            f"- The spec: {cell(k['spec'], 400)}",
            f"- The fix: {cell(k['fix'], 400)}",
            "- Waive it for the whole review, in mcp-review.toml:",
            "",
            "```toml",
            *k["waive"].splitlines(),
            "```",
            "",
        ]
    return [*out, *more(len(found[:rows]), len(found), "known SDK behaviours")]


def more(shown: int, total: int, what: str) -> list[str]:
    """The line that says how many were left out, if any."""
    return [f"- … and {total - shown} more {what}"] if total > shown else []


def _from(decision: Waiver | Attestation) -> str:
    """Where a repository's decision came from: its file and commit."""
    if decision.origin != "repository":
        return ""
    return f" (the repository's {decision.source}" + (f" at {decision.commit[:12]})" if decision.commit else ")")


def _bound(d: Waiver | Attestation) -> str:
    """What a decision is bound to, as the table says it: its state, its digest and rule version, how it was bound."""
    digest = f"`{d.digest.removeprefix('sha256:')[:12]}`" if d.digest else "any content"
    version = f", rule v{d.version}" if d.version is not None else ""
    first = f", bound {d.bound}" if d.bound else ""
    return f"{d.state or 'unused'}: {digest}{version}{first}"


def waivers_and_attestations(review: Review, rows: int | None = None, chars: int = 300) -> list[str]:
    waived = [f for f in review.findings if f.effective == "waived"]
    lapsed = [f for f in review.findings if f.lapsed]
    if not waived and not lapsed and not review.attestations:
        return []
    lines = []
    for f in waived:
        w = f.waiver
        assert w is not None
        lines.append(
            f"| {f.rule} (waived {f.status}) | {cell(f.subject or 'server', chars)} | {cell(w.by + _from(w), chars)} "
            f"| {cell(w.reason, chars)} | {w.expires or ''} | {_bound(w)} |"
        )
    lines += [
        f"| {f.rule} ({f.status}: waived for an earlier version) | {cell(f.subject or 'server', chars)} | | "
        f"{cell(f.lapsed, chars)} | | stale |"
        for f in lapsed
    ]
    for a in review.attestations:
        lines.append(
            f"| {a.rule} (attested {a.status}) | {cell(a.subject or 'server', chars)} | {cell(a.by + _from(a), chars)} "
            f"| {cell(a.note, chars)} | | {_bound(a)} |"
        )
    shown = lines[:rows]
    tail = [f"| … and {len(lines) - len(shown)} more | | | | | |"] if len(lines) > len(shown) else []
    head = ["## Waivers and attestations", "", "| rule | subject | who | why | expires | bound to |"]
    return [*head, "|---|---|---|---|---|---|", *shown, *tail, ""]


def repository_decisions(review: Review, rows: int | None = None) -> list[str]:
    """What a repository file asked for and was refused, and the decisions the change adds (not applied)."""
    decisions = review.decisions or {}
    refused, added = decisions.get("refused") or [], decisions.get("added") or []
    out = [f"- Refused: {cell(line, 400)}" for line in refused]
    if added:
        how = cell(decisions.get("baseHow") or f"--base {decisions.get('base')}", 200)  # a review saved before it
        title = (
            f"Decisions this change adds (not on the base, {how}: not applied)"
            if decisions.get("base")
            else f"The repository's decisions (no base: {how}; none applied)"
        )
        out += [
            "",
            f"### {title}",
            "",
            "| decision | rule | subject | who | why | file |",
            "|---|---|---|---|---|---|",
        ]
        for d in added[:rows]:
            kind = " ".join(filter(None, (d.get("kind"), d.get("status"))))  # "attest fail": what it would attest
            out.append(
                f"| {cell(kind, 20)} | {cell(d.get('rule'), 80)} | {cell(d.get('subject') or 'server', 120)} "
                f"| {cell(d.get('by') or '', 80)} | {cell(d.get('why'), 200)} | {cell(d.get('file'), 120)} |"
            )
        out += more(len(added[:rows]), len(added), "decisions")
    return ["## The repository's review config", "", *out, ""] if out else []


def who_decided(review: Review) -> list[str]:
    """Who decided each piece of the review: the target, consent, secrets, the lock (`report.decided`)."""
    from mcp_review.report.decided import lines

    said = [f"- {piece}: {cell(who, 300)}" for piece, who in lines(review)]
    return ["## Who decided", "", *said, ""] if said else []


def reviewer_notes(review: Review, rows: int | None = None, chars: int = 1000) -> list[str]:
    if not review.remarks:
        return []
    out = ["## Reviewer notes", ""]
    for r in review.remarks[:rows]:
        about = f" ({r.rule} · {cell(r.subject or 'server', 200)})" if r.rule else ""
        out.append(f"- **{cell(r.by, 200)}**{about}, {r.at}: {cell(r.text, chars)}")
    return [*out, *more(len(review.remarks[:rows]), len(review.remarks), "notes"), ""]


def sign_off(review: Review) -> list[str]:
    """The boxes a person ticks, with the reviewer's name when the app knows it (`Review.reviewer`)."""
    who = cell(review.reviewer, 80) if review.reviewer else "____________________"
    return [
        "## Sign-off",
        "",
        "- [ ] Blocking items verified or waived with a reason",
        "- [ ] Failures fixed or waived with a reason",
        f"- Reviewer: {who}  Date: ____________",
        "",
    ]


def render(review: Review) -> str:
    out = header(review) + known_section(review)
    related = exchanges_of(review)
    pointed = pointers(review)
    blocking = [f for f in review.findings if f.effective == "blocking"]
    if blocking:
        out += ["## Blocking: what would verify each", ""]
        out += [f"- **{f.rule}** ({subject(f)}) · {rated(f)}: {cell(f.message, 400)}" for f in blocking]
        out.append("")
    for status, title in (("fail", "Failures"), ("warn", "Warnings"), ("note", "Notes (never judged)")):
        chosen = [f for f in review.findings if f.effective == status]
        if not chosen:
            continue
        out += [f"## {title}", ""]
        groups: dict[tuple[str, str], list[Finding]] = defaultdict(list)
        for f in chosen:
            groups[(f.pack, f.source)].append(f)
        for (pack, source), items in groups.items():
            out += [f"### {pack} · {cell(source, 160)}", ""]
            for f in items:
                sdk = " · a known SDK behaviour (said once above)" if f.known else ""
                out.append(f"- **{f.rule}** ({subject(f)}) · {rated(f)}{sdk}: {cell(f.message, 600)}")
                out += [f"  - {cell(f.lapsed, 600)}"] if f.lapsed else []
                if f.fact and f.rule == f.fact.owner and f.rule in pointed:
                    out += ["", f"  {settles(pointed.pop(f.rule))}"]
                out += ["", *("  " + line if line else "" for line in exchange(review, f, related=related))]
        out.append("")
    out += waivers_and_attestations(review)
    out += repository_decisions(review)
    out += who_decided(review)
    out += eras.section(review)
    out += behaviour.section(review)
    out += reviewer_notes(review)
    out += changes.section(review)
    out += _tokens(review)
    out += _coverage(review)
    passed = [f for f in review.findings if f.effective in ("pass", "n/a")]
    out += (
        [
            "<details><summary>Passed and not applicable (" + str(len(passed)) + ")</summary>",
            "",
            *[f"- {f.effective} **{f.rule}** ({subject(f)}): {cell(f.message, 200)}" for f in passed],
            "",
            "</details>",
            "",
        ]
        if passed
        else []
    )
    out += [
        *sign_off(review),
    ]
    return "\n".join(out)


def _target_label(target: dict[str, Any]) -> str:
    if target.get("kind") == "stdio":
        return " ".join([str(target.get("command") or ""), *map(str, target.get("args") or [])])
    return str(target.get("url") or target.get("name") or "")


def _tokens(review: Review) -> list[str]:
    tokens = review.tokens
    rows = tokens.get("tools") or []
    if not rows:
        return []
    enc = tokens.get("encoding", "cl100k_base")
    fields = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
    out = [
        f"## Token cost ({enc})",
        "",
        f"Whole `tools` array: **{tokens.get('total')}** tokens "
        "(canonical JSON: compact, sorted keys; hosts add their own wrapping).",
        "",
        "| tool | total | " + " | ".join(fields) + " |",
        "|---|---:|" + "---:|" * len(fields),
    ]
    for row in rows[:50]:
        t = row["tokens"]
        out.append(
            f"| {cell(row['name'], 60)} | {t['total']} | " + " | ".join(str(t.get(k, "")) for k in fields) + " |"
        )
    if len(rows) > 50:
        out.append(f"| … {len(rows) - 50} more | | " + " | ".join("" for _ in fields) + " |")
    return [*out, ""]


def _coverage(review: Review) -> list[str]:
    called = sorted({c["tool"] for c in review.coverage})
    not_called = [t for t in review.tools if t not in called]
    out = ["## Review coverage", "", f"{len(called)} of {len(review.tools)} tools called."]
    out += [line for said in reach_lines(review.reach) for line in ("", said)]
    if review.coverage:
        out += ["", "| tool | purpose | consent | outcome | ms |", "|---|---|---|---|---:|"]
        out += [
            f"| {cell(c['tool'], 60)} | {c['purpose']} | {c['consent']} | {cell(outcome_said(c), 120)} "
            f"| {c['latencyMs']} |"
            for c in review.coverage[:200]
        ]
    if not_called:
        out += ["", "Not called: " + ", ".join(code(t, 60) for t in not_called[:100])]
    return [*out, ""]
