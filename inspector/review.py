"""The review: findings, waivers, attestations, coverage and the verdict. Plain data, JSON round-trip.

Statuses and verdict follow the rule-id contract (shared/rules.md): a rule yields one finding per
subject with `pass`, `fail`, `warn`, `note`, `n/a` or `blocking`; a reviewer may waive a `fail` or `blocking`
finding (reason, who, optional expiry) or attest a manual rule. Verdict: FAIL if any fail, else
BLOCKED if any blocking, else PASS_WITH_WARNINGS if any warn, else PASS. A `note` records a fact the review must
not hide and must not judge (a feature the spec deprecates: issue 24); it never changes the verdict.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass, field
from enum import IntEnum
from pathlib import Path
from typing import Any, Literal

Status = Literal["pass", "fail", "warn", "note", "n/a", "blocking"]
Verdict = Literal["PASS", "PASS_WITH_WARNINGS", "BLOCKED", "FAIL", "NOT_CHECKED"]
STATUSES: tuple[Status, ...] = ("fail", "blocking", "warn", "note", "pass", "n/a")  # worst first
VERDICTS: tuple[Verdict, ...] = ("PASS", "PASS_WITH_WARNINGS", "BLOCKED", "FAIL")  # best first
NEEDS_REVIEWER = "needs a reviewer: "  # how a manual rule's finding begins until it is attested (CheckContext.manual)
WAIVABLE = ("fail", "blocking", "warn")  # a warn too: "waive this with what it reads" must be possible


def rank(status: str) -> int:
    """Where a status sorts, worst first; anything else (waived, queued, running) after every real status."""
    return STATUSES.index(status) if status in STATUSES else len(STATUSES)


class ExitCode(IntEnum):
    """How `mcp-review` ends, for CI to gate on (the rule-id contract, shared/rules.md)."""

    OK = 0  # PASS or PASS_WITH_WARNINGS; a command that did what it was asked
    FAILED = 1  # the review failed, or the server answered the call with an error
    USAGE = 2  # wrong arguments, or the server could not be reached
    BLOCKED = 3  # something could not be verified


EXIT_CODES: dict[Verdict, ExitCode] = {
    "PASS": ExitCode.OK,
    "PASS_WITH_WARNINGS": ExitCode.OK,
    "FAIL": ExitCode.FAILED,
    "BLOCKED": ExitCode.BLOCKED,
    "NOT_CHECKED": ExitCode.BLOCKED,  # no checklist ran: nothing is verified
}


@dataclass
class Waiver:
    rule: str
    reason: str
    by: str
    subject: str | None = None  # None: every subject of the rule
    expires: str | None = None  # ISO date; after it the waiver no longer applies
    source: str | None = None  # where it was declared (config file) or "tui"
    commit: str | None = None  # the commit that last changed that file, when git tracks it
    origin: str | None = None  # "reviewer" or "repository" (see mcp_review.trust); None: the app's reviewer

    def expired(self, today: dt.date | None = None) -> bool:
        return bool(self.expires) and dt.date.fromisoformat(str(self.expires)) < (today or dt.date.today())

    def covers(self, finding: Finding) -> bool:
        return self.rule == finding.rule and (self.subject is None or self.subject == finding.subject)


@dataclass
class Attestation:
    """A person's verdict on a manual rule: `pass` (it holds) or `fail` (it does not)."""

    rule: str
    by: str
    note: str
    status: Literal["pass", "fail"] = "pass"
    subject: str | None = None
    source: str | None = None
    commit: str | None = None
    origin: str | None = None


@dataclass
class Remark:
    """A reviewer's note on the review, or on one finding's rule and subject."""

    by: str
    text: str
    rule: str | None = None
    subject: str | None = None
    at: str = field(default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))


@dataclass(frozen=True)
class Fact:
    """One fact several rules would fail for (a server that accepts requests without a token fails the token, the
    metadata and the transport rules alike): `owner` is the rule whose fail states it, `text` the fact itself.
    The other rules' fails for it point to the owner's (see `settle`), so one fact gives one fail."""

    owner: str
    text: str


@dataclass(slots=True)  # a review of 10,000 tools holds 100,000 of them
class Finding:
    rule: str
    pack: str
    status: Status
    message: str
    subject: str | None = None  # tool / resource / prompt name, None for the server
    subject_kind: str | None = None  # "tool", "resource", "template", "prompt"
    source: str = ""  # seed file and section, and spec revision where it applies
    mode: str = ""
    evidence: list[int] = field(default_factory=list)  # wire entry seqs
    waiver: Waiver | None = None  # set when a (non-expired) waiver covers it
    note: str | None = None  # e.g. an expired waiver, an attestation note
    fact: Fact | None = None  # the fact a fail proves, when other rules would fail for it too
    settled_by: str | None = None  # the rule whose fail settles this finding (it is n/a and says so)

    @property
    def effective(self) -> str:
        """The status that counts for the verdict: `waived` when a waiver covers a fail, blocking or warn."""
        return "waived" if self.waiver is not None and self.status in WAIVABLE else self.status

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule,
            "pack": self.pack,
            "status": self.effective,
            "subject": self.subject,
            "subjectKind": self.subject_kind,
            "message": self.message,
            "source": self.source,
            "mode": self.mode,
            "evidence": self.evidence,
        }
        if self.effective == "waived":
            out["waivedStatus"] = self.status
            out["waiver"] = asdict(self.waiver) if self.waiver else None
        if self.note:
            out["note"] = self.note
        if self.fact:
            out["fact"] = asdict(self.fact)
        if self.settled_by:
            out["settledBy"] = self.settled_by
        return out


def settle(findings: list[Finding]) -> None:
    """One fact, one fail; no `blocking` where a fail already decides. In place, and idempotent:
    - a fail for a fact (same subject) whose owner rule failed for it too becomes `n/a` pointing to the owner's
      fail: the fact stays a fail once, where it belongs, and a waiver of that one fail covers it;
    - a `blocking` of a rule that failed the same subject becomes `n/a` pointing to that fail: what it could not
      verify cannot change the rule's verdict.
    A fail is never settled by a finding that is not in the review (an owner ignored or not run): it stays a fail."""
    owned = {(f.fact, f.subject) for f in findings if f.status == "fail" and f.fact and f.rule == f.fact.owner}
    for f in findings:
        if f.status == "fail" and f.fact and f.rule != f.fact.owner and (f.fact, f.subject) in owned:
            _point(f, f.fact.owner, f"settled by the fail of {f.fact.owner} ({f.fact.text})")
    decided = {(f.rule, f.subject) for f in findings if f.status == "fail"}
    for f in findings:
        if f.status == "blocking" and (f.rule, f.subject) in decided:
            _point(f, f.rule, f"settled by the fail of {f.rule} for the same subject")


def _point(finding: Finding, rule: str, why: str) -> None:
    finding.status, finding.settled_by, finding.message = "n/a", rule, f"{why}: {finding.message}"


def verdict_of(findings: list[Finding]) -> Verdict:
    return verdict_from({f.effective for f in findings})


def verdict_from(statuses: set[str]) -> Verdict:
    """The verdict of findings whose effective statuses are `statuses`."""
    if "fail" in statuses:
        return "FAIL"
    if "blocking" in statuses:
        return "BLOCKED"
    if "warn" in statuses:
        return "PASS_WITH_WARNINGS"
    return "PASS"


@dataclass(repr=False)
class Review:
    """Everything a review produced; saved as JSON after every change in the TUI, exported by report/."""

    server: dict[str, Any]
    target: dict[str, Any]
    revision: str | None
    era: str | None
    transport: str
    findings: list[Finding] = field(default_factory=list)
    waivers: list[Waiver] = field(default_factory=list)
    attestations: list[Attestation] = field(default_factory=list)
    coverage: list[dict[str, Any]] = field(default_factory=list)  # CallRecord.to_json() of every call made
    tools: list[str] = field(default_factory=list)  # every tool listed (coverage: called and not called)
    tokens: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what the connection noticed (the snapshot's notes)
    remarks: list[Remark] = field(default_factory=list)  # what the reviewer wrote
    packs: list[str] = field(default_factory=list)
    exchanges: dict[int, dict[str, Any]] = field(default_factory=dict)  # wire entries the evidence cites
    changes: dict[str, Any] | None = None  # the diff against mcp-review.lock (mcp_review.diff), when one exists
    decisions: dict[str, Any] | None = None  # where the config came from, what it asked, what a change adds
    eras: dict[str, Any] | None = None  # `check --era both`: each era's verdict and the rules that differ (eras.py)
    # what the calls reached: `callsPerTool`, per tool and parameter the values the server's own text offers and
    # those sent (`offered`), and per probe rule and tool the payloads that budget left out (`leftOut`)
    reach: dict[str, Any] | None = None
    behaviour: dict[str, Any] | None = None  # what the server did (mcp_review.behaviour.summary), when started here
    created: str = field(default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    reviewer: str | None = None  # who reviewed it in the app (the name its decisions offer), for the sign-off

    def __repr__(self) -> str:  # asyncio's Runner reprs a finished task's result: 100,000 findings made 170 MB
        return f"<Review {self.verdict} {len(self.findings)} findings>"

    @property
    def verdict(self) -> Verdict:
        """The findings' verdict; under `--era both`, the worse of it and the other era's; NOT_CHECKED before any
        checklist ran (the app keeps decisions, calls and token costs before one)."""
        if not (self.packs or self.findings):
            return "NOT_CHECKED"
        return self.with_other_era(verdict_of(self.findings))

    def with_other_era(self, own: Verdict) -> Verdict:
        """`own` (this era's findings' verdict), or under `--era both` the other era's when it is worse."""
        shown = (self.eras or {}).get("shown")
        other = (self.eras or {}).get("legacy" if shown == "modern" else "modern")
        theirs = other.get("verdict") if isinstance(other, dict) else None
        return max(own, theirs, key=VERDICTS.index) if theirs in VERDICTS else own

    def repository_decisions(self) -> str | None:
        """What the repository's own decisions did to this verdict, said beside it (None: nothing)."""
        waivers = [f.waiver for f in self.findings if f.waiver is not None and f.waiver.origin == "repository"]
        attested = [a for a in self.attestations if a.origin == "repository"]
        ignored = (self.decisions or {}).get("ignored") or []
        if not waivers and not attested and not ignored:
            return None
        decided: list[Waiver | Attestation] = [*waivers, *attested]
        files = {f"{d.source}" + (f" at {d.commit[:12]}" if d.commit else "") for d in decided}
        if ignored:
            files |= {c["file"] for c in (self.decisions or {}).get("configs", []) if c.get("who") == "repository"}
        said = f"{_count(len(waivers), 'finding')} waived and {_count(len(attested), 'attestation')}"
        said += f" and {_count(len(ignored), 'rule or pack', 'rules or packs')} not run (ignore)" if ignored else ""
        return f"{said} by {', '.join(sorted(files))}"

    def apply_waivers(self, today: dt.date | None = None) -> None:
        """Mark every finding a live waiver covers; say so where an expired one would have."""
        for finding in self.findings:
            finding.waiver = None
            if finding.status not in WAIVABLE:
                continue
            for waiver in reversed(self.waivers):  # the latest decision on a finding is the one that holds
                if not waiver.covers(finding):
                    continue
                if waiver.expired(today):
                    finding.note = f"waiver by {waiver.by} expired on {waiver.expires}: {waiver.reason}"
                else:
                    finding.waiver = waiver
                    break

    def merge(self, rerun: Review, only: str) -> None:
        """Take a re-run's findings for `only` (a rule id, or a pack when it has no dot) in place of this
        review's, with the exchanges they cite; waivers are applied again."""

        def replaced(f: Finding) -> bool:
            return f.rule == only if "." in only else f.pack == only

        self.findings = [f for f in self.findings if not replaced(f)] + rerun.findings
        self.exchanges.update(rerun.exchanges)
        settle(self.findings)
        self.apply_waivers()

    def waive(self, waiver: Waiver) -> None:
        self.waivers.append(waiver)
        self.apply_waivers()

    def attest(self, finding: Finding, attestation: Attestation) -> None:
        """Record a person's verdict on a manual rule and show it on its finding at once (the next run makes
        the same finding from the attestation)."""
        self.attestations.append(attestation)
        finding.status, finding.message = attestation.status, f"attested by {attestation.by}: {attestation.note}"
        self.apply_waivers()

    def record_calls(self, calls: list[dict[str, Any]], purpose: str) -> None:
        """Coverage: the calls made for `purpose` (the reviewer's, by hand) replace those kept before."""
        self.coverage = [c for c in self.coverage if c.get("purpose") != purpose] + calls

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for f in self.findings:
            out[f.effective] = out.get(f.effective, 0) + 1
        return out

    def to_json(self, findings: list[Any] | None = None) -> dict[str, Any]:
        """The review as JSON data; `findings` replaces the findings' list (a lazy one, to stream a big review)."""
        from mcp_review import __version__

        out = {
            "tool": {"name": "mcp-review", "version": __version__},
            "server": self.server,
            "target": self.target,
            "revision": self.revision,
            "era": self.era,
            "transport": self.transport,
            "packs": self.packs,
            "verdict": self.verdict,
            "counts": self.counts(),
            "findings": [f.to_json() for f in self.findings] if findings is None else findings,
            "waivers": [asdict(w) for w in self.waivers],
            "attestations": [asdict(a) for a in self.attestations],
            "coverage": self.coverage,
            "tools": self.tools,
            "tokens": self.tokens,
            "notes": self.notes,
            "remarks": [asdict(r) for r in self.remarks],
            "exchanges": {str(k): v for k, v in sorted(self.exchanges.items())},
            "created": self.created,
        }
        if self.changes is not None:
            out["changes"] = self.changes
        if self.decisions is not None:
            out["decisions"] = self.decisions
        if self.eras is not None:
            out["eras"] = self.eras
        if self.reach is not None:
            out["reach"] = self.reach
        if self.reviewer:
            out["reviewer"] = self.reviewer
        if self.behaviour is not None:
            out["behaviour"] = self.behaviour
        return out

    def save(self, path: str | Path) -> None:
        """Write atomically (a crash mid-write never leaves a half review behind), secrets masked."""
        from mcp_review.output import write_text

        write_text(path, json.dumps(self.to_json(), indent=2, ensure_ascii=False, allow_nan=False))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Review:
        """The inverse of `to_json` (waivers re-applied, so `waived` findings come back as such)."""
        findings = [
            Finding(
                rule=f["rule"],
                pack=f["pack"],
                status=f.get("waivedStatus", f["status"]),
                message=f["message"],
                subject=f.get("subject"),
                subject_kind=f.get("subjectKind"),
                source=f.get("source", ""),
                mode=f.get("mode", ""),
                evidence=list(f.get("evidence", [])),
                note=f.get("note"),
                fact=Fact(str(f["fact"].get("owner")), str(f["fact"].get("text")))
                if isinstance(f.get("fact"), dict)
                else None,
                settled_by=f.get("settledBy"),
            )
            for f in data.get("findings", [])
        ]
        review = cls(
            server=data.get("server", {}),
            target=data.get("target", {}),
            revision=data.get("revision"),
            era=data.get("era"),
            transport=data.get("transport", ""),
            findings=findings,
            waivers=[Waiver(**w) for w in data.get("waivers", [])],
            attestations=[Attestation(**a) for a in data.get("attestations", [])],
            coverage=list(data.get("coverage", [])),
            tools=list(data.get("tools", [])),
            tokens=dict(data.get("tokens", {})),
            notes=list(data.get("notes", [])),
            remarks=[Remark(**r) for r in data.get("remarks", [])],
            packs=list(data.get("packs", [])),
            exchanges={int(k): v for k, v in data.get("exchanges", {}).items()},
            created=data.get("created", ""),
            changes=data.get("changes"),
            decisions=data.get("decisions"),
            eras=data.get("eras"),
            reach=data.get("reach"),
            reviewer=data.get("reviewer"),
            behaviour=data.get("behaviour"),
        )
        review.apply_waivers()
        return review


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def load_review(path: Path) -> Review | None:
    try:
        return Review.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
