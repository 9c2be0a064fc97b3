"""Verdicts: of a set of findings, of each concern, and of the gate a merge is held by (issue 39).

A verdict is FAIL if any finding counts as a fail, else BLOCKED if any is blocking, else PASS_WITH_WARNINGS if any
warns, else PASS (a `note`, a waived finding, a pass and an n/a never change it; shared/rules.md). A review has one
per concern (`by_concern`, every concern of `mcp_review.concerns`, NOT_CHECKED for one no finding belongs to) and
the overall one, the worst of them.

The gate (`check --fail-on`, the Action's `check-fail-on`, `fleet --fail-on`, the app's run dialog) says which
findings may hold a merge: a comma-separated list of terms, each selecting findings, and the gate's verdict is the
verdict of the findings any term selects (so the exit code: 1 FAIL, 3 BLOCKED, 0 otherwise):

    security            every finding of a concern (security, protocol, contract, conventions, apps)
    security>=high      those of the concern at that severity or worse
    severity>=high      every finding at that severity or worse, whatever its concern
    blocking            every blocking finding: what could not be verified, whatever its concern
    all                 every finding (the overall verdict)
    none                nothing: the gate passes (the review still says every verdict)

The default, `security,blocking`, is the one for a reviewer before a merge: a proven security defect fails it, and
so does what could not be verified (anywhere: a blocking finding is a question left open, never a pass), while a
protocol or contract fail that harms no one (an SDK's default error channel, a missing `title`) is said, in its
concern's verdict, and does not hold the merge.

It sits below the review model (`review.py` imports it) and reads findings through `Judged`, so it never imports
the model it judges.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from mcp_review.concerns import CONCERNS, SEVERITIES, Concern, at_least

Verdict = Literal["PASS", "PASS_WITH_WARNINGS", "BLOCKED", "FAIL", "NOT_CHECKED"]
VERDICTS: tuple[Verdict, ...] = ("PASS", "PASS_WITH_WARNINGS", "BLOCKED", "FAIL")  # best first
DEFAULT_FAIL_ON = ("security", "blocking")


class Judged(Protocol):
    """What a verdict reads of a finding (`review.Finding` is one)."""

    @property
    def effective(self) -> str: ...
    @property
    def concern(self) -> str: ...
    @property
    def severity(self) -> str: ...


def verdict_from(statuses: Iterable[str]) -> Verdict:
    """The verdict of findings whose effective statuses are `statuses`."""
    found = set(statuses)
    if "fail" in found:
        return "FAIL"
    if "blocking" in found:
        return "BLOCKED"
    if "warn" in found:
        return "PASS_WITH_WARNINGS"
    return "PASS"


def worse(*verdicts: Verdict) -> Verdict:
    """The worst of verdicts (NOT_CHECKED only when every one is)."""
    judged = [v for v in verdicts if v in VERDICTS]
    return max(judged, key=VERDICTS.index) if judged else "NOT_CHECKED"


def by_concern(findings: Iterable[Judged]) -> dict[Concern, Verdict]:
    """Each concern's verdict, in the order every export lists them; NOT_CHECKED for one no finding belongs to."""
    statuses: dict[str, set[str]] = {c: set() for c in CONCERNS}
    for f in findings:
        if f.concern in statuses:
            statuses[f.concern].add(f.effective)
    return {c: verdict_from(statuses[c]) if statuses[c] else "NOT_CHECKED" for c in CONCERNS}


@dataclass(frozen=True)
class Term:
    """One term of a gate: the findings of `concern` (None: any) at `floor` or worse (None: any severity);
    `blocking`: only blocking ones."""

    concern: str | None = None
    floor: str | None = None
    blocking: bool = False

    def selects(self, f: Judged) -> bool:
        if self.blocking and f.effective != "blocking":
            return False
        if self.concern is not None and f.concern != self.concern:
            return False
        return self.floor is None or at_least(f.severity, self.floor)


@dataclass(frozen=True)
class Gate:
    """Which findings may hold a merge (`parse` reads it from `--fail-on`)."""

    terms: tuple[Term, ...]
    said: tuple[str, ...]  # the terms as given, normalised: what every face shows

    def selects(self, f: Judged) -> bool:
        return any(t.selects(f) for t in self.terms)

    def verdict(self, findings: Iterable[Judged]) -> Verdict:
        """The gate's verdict: that of the findings it selects (PASS when it selects none)."""
        return verdict_from(f.effective for f in findings if self.selects(f))

    @property
    def text(self) -> str:
        return ",".join(self.said)


HELP = (
    "which findings fail the run (exit 1 on a fail, 3 on a blocking one they select): a comma-separated list of "
    f"concerns ({', '.join(CONCERNS)}), CONCERN>=SEVERITY, severity>=SEVERITY ({', '.join(SEVERITIES)}), blocking "
    f"(what could not be verified), all (every finding) or none; default {','.join(DEFAULT_FAIL_ON)}"
)


def parse(given: str | Sequence[str]) -> Gate:
    """A gate from `--fail-on`'s text (or the terms of several flags); ValueError names the term it cannot read."""
    raw = [given] if isinstance(given, str) else list(given)
    words = [w.strip().lower() for part in raw for w in part.split(",") if w.strip()]
    if not words:
        raise ValueError(f"--fail-on: no term given ({HELP})")
    if "none" in words and len(words) > 1:
        raise ValueError("--fail-on: none cannot be combined with other terms")
    terms: list[Term] = []
    for word in dict.fromkeys(words):
        terms += [] if word == "none" else [_term(word)]
    return Gate(tuple(terms), tuple(dict.fromkeys(words)))


def _term(word: str) -> Term:
    if word == "all":
        return Term()
    if word == "blocking":
        return Term(blocking=True)
    name, sep, floor = word.partition(">=")
    if sep and floor not in SEVERITIES:
        raise ValueError(f"--fail-on {word}: unknown severity {floor!r} (severities: {', '.join(SEVERITIES)})")
    if name == "severity" and sep:
        return Term(floor=floor)
    if name in CONCERNS:
        return Term(concern=name, floor=floor or None)
    raise ValueError(f"--fail-on: unknown term {word!r} ({HELP})")


DEFAULT = parse(DEFAULT_FAIL_ON)
