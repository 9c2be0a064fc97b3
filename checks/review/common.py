"""What the modules of pack `review` share."""

from __future__ import annotations

from collections.abc import Iterable

from mcp_review.catalog import Item
from mcp_review.concerns import Severity, severity_rank
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext, Subject
from mcp_review.scan.intent import ORDER_KIND
from mcp_review.scan.steering import KIND as STEERING_KIND
from mcp_review.surfaces import Said

SEED = "003"
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def named_tools(ctx: CheckContext) -> list[Item]:
    return [t for t in ctx.snapshot.tools if t.name]


SHOWN_HITS = 10  # scanner hits quoted in one finding; the rest are counted

# What a fail of the content rules proved, by the scanner kind that found it (`verdict`): a credential served, a
# channel out (a URL data is sent to) or an order to read a sensitive file is a compromise in waiting (critical); a
# hidden instruction, steering, an evasion or active content is the rules' default (high); control characters,
# invisible ones and random-looking strings only hide or suggest (medium); a missing description is a convention
# broken (low). A warn is one step below what it suggests.
SEVERITY_OF: dict[str, Severity] = {
    "credential": "critical",
    "exfiltration-url": "critical",
    "sensitive-file": "critical",
    "escape-sequence": "medium",
    "invisible-character": "medium",
    "high-entropy": "medium",
    "no-description": "low",
    "unsaid-effect": "low",
}
LOWER: dict[str, Severity] = {"critical": "high", "high": "medium", "medium": "low", "low": "low"}
SAME: dict[str, Severity] = {"critical": "critical", "high": "high", "medium": "medium", "low": "low"}


class Reason(str):
    """One reason a content rule gives, with the scanner kind that found it ("" for one the rule states itself)."""

    kind: str

    def __new__(cls, text: str, kind: str = "") -> Reason:
        made = super().__new__(cls, text)
        made.kind = kind
        return made


def proven(reasons: list[str], default: str, warned: bool = False) -> Severity | None:
    """The worst severity `reasons` prove (`warned`: they only suggest, one step below); None: the rule's default."""
    found = [SEVERITY_OF.get(r.kind, default) for r in reasons if isinstance(r, Reason) and r.kind]
    if not found:
        return None
    return (LOWER if warned else SAME)[min(found, key=severity_rank)]


def scanned(
    texts: Iterable[Said],
    sent: Iterable[str] = (),
    instructs: bool = False,
    purpose: str = "",
    kinds: frozenset[str] | None = None,
) -> tuple[list[str], list[str]]:
    """(what fails, what warns) among `texts`, each "where: what it is: «quote»", by the scanner's severity.
    A hit whose span is part of a value in `sent` (what the review itself sent, echoed back) is not the server's.
    `instructs`: the texts are meant to instruct the model (a prompt's messages, a sampling request, the server's
    instructions), so an order addressed to the model, or a suggestive one about how to use the tools, is their
    purpose, not a finding; hostile orders and proven steering still are. `purpose`: the name and title of the
    tool the texts describe (an order that is the tool's function is not steering). `kinds`: only hits of these
    scanner kinds count (an MCP App's page is code: only the credentials in it are judged here)."""
    from mcp_review.scan import scan_text

    echoes = [value for value in sent if value]
    fails: list[str] = []
    warns: list[str] = []
    for said in texts:
        for hit in scan_text(said.text, purpose):
            if kinds is not None and hit.kind not in kinds:
                continue
            if any(said.text[hit.start : hit.end] in value for value in echoes):
                continue
            if instructs and (hit.kind == ORDER_KIND or (hit.kind == STEERING_KIND and hit.severity == "warn")):
                continue
            reason = Reason(f"{said.where}: {hit.message}: {hit.quote}", hit.kind)
            (fails if hit.severity == "fail" else warns).append(reason)
    return fails, warns


def disclosed(texts: Iterable[Said], sent: Iterable[str] = ()) -> list[str]:
    """What `texts` (a result's) disclose about the server (its environment, internal paths and hosts), each "where:
    what: «quote»", a warn; a span that is part of a value the review sent is its echo, not a disclosure."""
    from mcp_review.scan.disclosure import disclosures
    from mcp_review.scan.scanner import quote

    echoes = [value for value in sent if value]
    out = []
    for said in texts:
        for _kind, _severity, start, end, message in disclosures(said.text):
            if start == end:  # what is named, not quoted (an environment's values)
                out.append(f"{said.where}: {message}")
            elif not any(said.text[start:end] in value for value in echoes):
                out.append(f"{said.where}: {message}: {quote(said.text, start, end)}")
    return out


def summary(lines: list[str]) -> str:
    """`lines` joined once each, at most SHOWN_HITS of them, the rest counted: a hostile text can hold thousands
    of hits, and a server says the same thing on every call."""
    lines = list(dict.fromkeys(lines))
    more = len(lines) - SHOWN_HITS
    return "; ".join(lines[:SHOWN_HITS]) + (f"; and {more} more" if more > 0 else "")


def verdict(
    ctx: CheckContext, subject: Subject, hits: tuple[list[str], list[str]], evidence: list[int | None], clean: str
) -> Finding:
    """One finding on `subject` from (fails, warns): fail, warn, or pass saying `clean`; its severity what the
    reasons prove (`SEVERITY_OF`), else the rule's."""
    fails, warns = hits
    default = ctx.rule.severity if ctx.rule else "high"
    if fails:
        return ctx.fail(subject, summary(fails + warns), evidence, severity=proven(fails, default))
    if warns:
        return ctx.warn(subject, summary(warns), evidence, severity=proven(warns, default, warned=True))
    return ctx.passed(subject, clean, evidence)
