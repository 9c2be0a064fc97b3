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

from mcp_review import binding
from mcp_review.binding import Attestation, Content, Waiver
from mcp_review.verdicts import VERDICTS, Verdict, by_concern, verdict_from, worse
from mcp_review.verdicts import parse as parse_gate

# the verdict's words live in mcp_review.verdicts, the decisions' in mcp_review.binding
__all__ = ["VERDICTS", "Attestation", "Verdict", "Waiver", "verdict_from"]

Status = Literal["pass", "fail", "warn", "note", "n/a", "blocking"]
STATUSES: tuple[Status, ...] = ("fail", "blocking", "warn", "note", "pass", "n/a")  # worst first
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


@dataclass(frozen=True)
class Known:
    """A fail that follows from an SDK's default behaviour (`mcp_review.known`'s table): which behaviour, and the SDK
    the server was told apart as (None: the behaviour is known, the SDK could not be told)."""

    behaviour: str
    sdk: str | None = None

    @classmethod
    def from_json(cls, saved: Any) -> Known | None:
        """The inverse of `asdict` (a finding's "known"); None when `saved` is not one."""
        if not isinstance(saved, dict) or not isinstance(saved.get("behaviour"), str):
            return None
        sdk = saved.get("sdk")
        return cls(saved["behaviour"], sdk if isinstance(sdk, str) else None)


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
    concern: str = ""  # its rule's (mcp_review.concerns); "" in a review saved before concerns: the registry's
    severity: str = ""  # its rule's default, or what the rule proved raised or lowered it to ("": the registry's)
    known: Known | None = None  # the known SDK behaviour this fail follows from (mcp_review.known), if any
    lapsed: str | None = None  # a waiver made on an earlier version of its subject or rule: why it does not apply

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
        if self.concern:
            out["concern"], out["severity"] = self.concern, self.severity
        if self.effective == "waived":
            out["waivedStatus"] = self.status
            out["waiver"] = asdict(self.waiver) if self.waiver else None
        if self.note:
            out["note"] = self.note
        if self.fact:
            out["fact"] = asdict(self.fact)
        if self.settled_by:
            out["settledBy"] = self.settled_by
        if self.known:
            out["known"] = asdict(self.known)
        if self.lapsed:
            out["lapsed"] = self.lapsed
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
    fail_on: list[str] | None = None  # the gate the run chose (`--fail-on`, mcp_review.verdicts); None: none chosen
    subjects: dict[str, Content] = field(default_factory=dict)  # "kind:key" -> its content, for the decisions on it
    rule_versions: dict[str, int] = field(default_factory=dict)  # every rule run -> its version (binding.py)
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

    def with_other_era(self, own: Verdict, key: str = "verdict", concern: str | None = None) -> Verdict:
        """`own` (this era's findings' verdict), or under `--era both` the other era's when it is worse: its
        `key` ("verdict", "gate", or with `concern` that concern's of "verdicts")."""
        shown = (self.eras or {}).get("shown")
        other = (self.eras or {}).get("legacy" if shown == "modern" else "modern")
        theirs = other.get(key) if isinstance(other, dict) else None
        if concern is not None:
            theirs = theirs.get(concern) if isinstance(theirs, dict) else None
        return worse(own, theirs) if theirs in VERDICTS else own

    def verdicts(self) -> dict[str, Verdict]:
        """Each concern's verdict (mcp_review.verdicts.by_concern), security first; under `--era both` the worse
        of both eras'. A concern no finding belongs to is NOT_CHECKED."""
        own = by_concern(self.findings)
        return {c: self.with_other_era(v, "verdicts", c) if v != "NOT_CHECKED" else v for c, v in own.items()}

    def gate(self) -> Verdict | None:
        """The verdict of the gate the run chose (`fail_on`), both eras' worse under `--era both`; None: no gate."""
        if self.fail_on is None or not (self.packs or self.findings):
            return None
        return self.with_other_era(parse_gate(self.fail_on).verdict(self.findings), "gate")

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
        """Mark every finding a live waiver covers; say so where an expired one would have, or one made on an
        earlier version of its subject or rule (`binding`): "waived for an earlier version", with what changed.
        A waiver written without a digest is bound to what it first covers, and says so (`Waiver.bound`)."""
        for waiver in self.waivers:
            waiver.state = "unused"
        for finding in self.findings:
            finding.waiver, finding.lapsed = None, None
            if finding.status not in WAIVABLE:
                continue
            for waiver in reversed(self.waivers):  # the latest decision on a finding is the one that holds
                if not waiver.covers(finding):
                    continue
                if waiver.expired(today):
                    finding.note = f"waiver by {waiver.by} expired on {waiver.expires}: {waiver.reason}"
                    continue
                content, version = self.content_of(finding, waiver), self.rule_versions.get(finding.rule)
                waiver.bind(content, version, today)
                why = waiver.lapsed(content, version)
                if why is None:
                    finding.waiver, waiver.state = waiver, "live"
                    break
                waiver.state = "live" if waiver.state == "live" else "stale"
                finding.lapsed = f"waived for an earlier version by {waiver.by} ({waiver.reason}); since then {why}"
                if content is not None:  # what a reviewer who accepts this version writes
                    finding.lapsed += f' (to waive this one: digest = "{content["digest"]}")'
                elif version is not None:
                    finding.lapsed += f" (to waive it under this rule: version = {version})"

    def content_of(self, finding: Finding, waiver: Waiver | None = None) -> Content | None:
        """What a decision on `finding` is bound to (`binding`): its subject's definition as this review saw it,
        or for a finding on the server its evidence; None for a waiver bound to its rule only (no subject and no
        digest, or a known SDK behaviour) and for a subject whose content the review did not record."""
        if waiver is not None and (waiver.known is not None or (waiver.subject is None and waiver.digest is None)):
            return None
        if finding.subject is None:
            return binding.of_evidence(finding.message)
        saved = self.subjects.get(f"{finding.subject_kind}:{finding.subject}")
        return saved if saved is not None or finding.subject_kind else binding.of_evidence(finding.message)

    def decision_counts(self) -> dict[str, int]:
        """How many decisions are live (applied), stale (made on an earlier version of what they decided), unused,
        and bound on first use (written without a digest: bound to what this review saw)."""
        out = dict.fromkeys(("live", "stale", "unused", "boundOnFirstUse"), 0)
        for d in [*self.waivers, *self.attestations]:
            out[d.state or "unused"] = out.get(d.state or "unused", 0) + 1
            out["boundOnFirstUse"] += bool(d.bound and d.bound.startswith("on first use"))
        return {k: n for k, n in out.items() if n}

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
        attestation.state = "live"
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
            "verdicts": self.verdicts(),
            **({"failOn": self.fail_on, "gate": self.gate()} if self.fail_on is not None else {}),
            "counts": self.counts(),
            "findings": [f.to_json() for f in self.findings] if findings is None else findings,
            "waivers": [binding.to_json(w) for w in self.waivers],
            "attestations": [binding.to_json(a) for a in self.attestations],
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
        if self.subjects:
            out["subjects"] = self.subjects
        if self.rule_versions:
            out["ruleVersions"] = self.rule_versions
        if decided := self.decision_counts():
            out["decisionCounts"] = decided
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
                concern=str(f.get("concern") or ""),
                severity=str(f.get("severity") or ""),
                known=Known.from_json(f.get("known")),
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
            fail_on=[str(t) for t in data["failOn"]] if isinstance(data.get("failOn"), list) else None,
            subjects=dict(data.get("subjects") or {}),
            rule_versions={str(k): int(v) for k, v in (data.get("ruleVersions") or {}).items()},
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
