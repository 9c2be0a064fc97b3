"""SARIF 2.1.0 that GitHub code scanning accepts and places: every rule with its documentation, each finding that
did not pass a result.

`run(review, root)` is one review as one SARIF run (a fleet writes one run per server); `document(runs)` wraps
runs in the log; `render(review, root)` is both, the diff against mcp-review.lock a run of its own.

- Locations: the file and line in the server's repository (`root`) that defines the finding's subject, else the
  line of the config file or `server.json` that names the server (`mcp_review.report.locate`); a logical
  location (the tool, prompt or resource) always. Without a root nothing is searched.
- `partialFingerprints["mcpReview/v1"]`: the rule, the subject and the message with its numbers taken out, so a
  finding keeps its identity across runs when a line moves or a latency changes, not when its reason does.
- A waived finding carries a `suppressions` entry with the justification, the owner and the expiry.
- Concern and severity (issue 39): a result's `level` is its status at its severity (a fail is an error from medium
  up, a low one a warning; a blocking one an error from high up; a warn a warning, a low one a note), its
  properties carry `concern` and `severity`; a rule's properties carry its concern, default severity and version,
  its tags the concern, and a security rule the tag `security` and the `security-severity` score GitHub code
  scanning ranks alerts by (`concerns.SECURITY_SEVERITY`: the worst of its results in the run, as code scanning
  reads it from the rule), which each security result carries too.
- A message is plain text (SARIF 3.11.3), but viewers render some markdown in it: server text in it is kept on
  one line, control characters shown as escapes, and `<`, `[` and `\\` outside code spans escaped with a
  backslash (`plain`), so no viewer makes a tag or a link of it (a code span is inert: it is left alone).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp_review import __version__, claims, documentation, known
from mcp_review.concerns import SECURITY_SEVERITY, at_least, severity_rank, worst
from mcp_review.output import json_text
from mcp_review.report.changes import sarif_run
from mcp_review.report.common import SCHEMA, plain
from mcp_review.report.locate import Locator, Place
from mcp_review.report.sarif_valid import MAX_RESULTS
from mcp_review.review import Finding, Review

LEVELS = {"fail": "error", "blocking": "error", "warn": "warning", "note": "note"}  # the statuses a result is made of
RANK = {"fail": 0, "blocking": 1, "warn": 2}  # past the result cap, the most severe are kept: by status, then severity
ERROR_FROM = {"fail": "medium", "blocking": "high", "warn": "critical"}  # the severity from which a status is an error
FINGERPRINT = "mcpReview/v1"
_NUMBERS = re.compile(r"\d+(?:\.\d+)?")


def fingerprint(rule: str, subject: str | None, message: str) -> str:
    """Stable across runs: rule, subject and the message with numbers (latencies, counts, sizes) made `0`."""
    key = " ".join(_NUMBERS.sub("0", message.lower()).split())[:300]
    return hashlib.sha256("\0".join((rule, subject or "", key)).encode()).hexdigest()[:32]


def level(f: Finding) -> str:
    """A result's level: its status at its severity (`ERROR_FROM`); one step below, a warning (a warn: a note)."""
    status = f.status if f.status in LEVELS else "note"
    if status == "note":
        return "note"
    if at_least(f.severity or "medium", ERROR_FROM[status]):
        return "error"
    return "note" if status == "warn" and f.severity == "low" else "warning"


def descriptor(rule_id: str, rules: dict[str, Any], findings: Sequence[Finding] = ()) -> dict[str, Any]:
    """A rule's metadata: its one line, its docstring as text and markdown help, its documentation anchor, its
    concern and severity (`findings`: its results in this run, whose worst severity a security rule is ranked by)."""
    rule = rules.get(rule_id)
    doc = rule.doc if rule else rule_id
    concern = rule.concern if rule else next((f.concern for f in findings if f.concern), "")
    default = rule.severity if rule else next((f.severity for f in findings if f.severity), "")
    ranked = worst([f.severity for f in findings if f.severity]) or default
    security = {"security-severity": SECURITY_SEVERITY[ranked]} if concern == "security" and ranked else {}
    tags = ["mcp", rule_id.split(".")[0], *([concern] if concern else []), *(["security"] if security else [])]
    return {
        "id": rule_id,
        "name": rule_id.split(".", 1)[-1],
        "shortDescription": {"text": rule.summary if rule else rule_id},
        "fullDescription": {"text": doc},
        "help": {"text": doc, "markdown": doc},
        "helpUri": documentation(rule_id),
        "properties": {
            "pack": rule_id.split(".")[0],
            "mode": rule.mode if rule else "",
            "source": rule.cites if rule else "",
            "concern": concern,
            "severity": default,
            **({"version": rule.version} if rule else {}),
            **security,
            "tags": list(dict.fromkeys(tags)),
        },
    }


def _physical(place: Place) -> dict[str, Any]:
    artifact: dict[str, Any] = {"uri": place.uri}
    if not place.uri.startswith("file:"):
        artifact["uriBaseId"] = "%SRCROOT%"
    return {"artifactLocation": artifact, "region": {"startLine": place.line}}


def _result(f: Finding, index: int, locator: Locator, server: str) -> dict[str, Any]:
    status = f.effective
    location: dict[str, Any] = {"logicalLocations": [{"name": f.subject or server, "kind": f.subject_kind or "module"}]}
    place = locator.subject(f.subject) or locator.server()
    if place:
        location["physicalLocation"] = _physical(place)
    result: dict[str, Any] = {
        "ruleId": f.rule,
        "ruleIndex": index,
        "level": level(f),
        "message": {"text": f"[{status}{f' · {f.concern} · {f.severity}' if f.concern else ''}] {plain(f.message)}"},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT: fingerprint(f.rule, f.subject, f.message)},
        "properties": {
            "status": status,
            "concern": f.concern,
            "severity": f.severity,
            **(
                {"security-severity": SECURITY_SEVERITY[f.severity]}
                if f.concern == "security" and f.severity in SECURITY_SEVERITY
                else {}
            ),
            **({"knownBehaviour": f.known.behaviour, "sdk": f.known.sdk} if f.known else {}),
            **({"lapsed": f.lapsed} if f.lapsed else {}),
            "evidence": f.evidence,
            "source": f.source,
        },
    }
    if status == "waived" and f.waiver:
        w = f.waiver
        owner = {"owner": w.by, "expires": w.expires, "declaredIn": w.source, "commit": w.commit, "origin": w.origin}
        result["suppressions"] = [
            {
                "kind": "external",
                "status": "accepted",
                "justification": f"{w.reason} ({w.by}{f', until {w.expires}' if w.expires else ''})",
                "properties": {k: v for k, v in owner.items() if v is not None},
            }
        ]
    return result


def run(review: Review, root: Path | None = None, skip: Path | None = None) -> dict[str, Any]:
    """One review as one SARIF run: the rules its findings name, a result per finding that did not pass.
    `root`: the server's repository, searched for the line that defines each finding's subject (but `skip`)."""
    from mcp_review.rules.core import load_rules

    rules = load_rules()
    used = sorted({f.rule for f in review.findings})
    index = {rule_id: i for i, rule_id in enumerate(used)}
    locator = Locator(root, review, skip)
    server = str(review.server.get("name") or "server")
    shown = [f for f in review.findings if f.effective in LEVELS or f.effective == "waived"]
    if len(shown) > MAX_RESULTS:  # code scanning rejects the whole file past this: keep the most severe
        shown = sorted(shown, key=lambda f: (RANK.get(f.effective, 3), severity_rank(f.severity)))[:MAX_RESULTS]
    results = [_result(f, index[f.rule], locator, server) for f in shown]
    judged: dict[str, list[Finding]] = {}  # a rule's results that count (not waived): what it is ranked by
    for f in shown:
        if f.effective != "waived":
            judged.setdefault(f.rule, []).append(f)
    out: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "mcp-review",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [descriptor(rule_id, rules, judged.get(rule_id, [])) for rule_id in used],
            }
        },
        "automationDetails": {"id": f"mcp-review/{category(review)}/"},
        "results": results,
        "properties": {
            "verdict": review.verdict,
            "verdicts": review.verdicts(),  # each concern's, security first (mcp_review.verdicts)
            **({"failOn": review.fail_on, "gate": review.gate()} if review.fail_on is not None else {}),
            **({"knownBehaviours": found} if (found := known.listed(review)) else {}),
            "server": review.server.get("name"),
            "revision": review.revision,
            **({"omittedResults": omitted} if (omitted := _shown_count(review) - len(results)) else {}),
            # who decided the target, consent, secrets, waivers and the lock (mcp_review.plan)
            **({"decisions": review.decisions} if review.decisions is not None else {}),
            # the repository's decisions not applied (decisions.added): the verdict they would make
            **({"verdictWithClaims": claims.verdict_with(review)} if claims.of(review) else {}),
            # --era both: each era's verdict and the rules whose verdicts differ (mcp_review.eras)
            **({"eras": review.eras} if review.eras is not None else {}),
            # what the server did, observed while it ran confined (mcp_review.behaviour)
            **({"behaviour": review.behaviour} if review.behaviour is not None else {}),
        },
    }
    if locator.base is not None:
        out["originalUriBaseIds"] = {"%SRCROOT%": {"uri": locator.base.as_uri() + "/"}}
    return out


def _shown_count(review: Review) -> int:
    return sum(1 for f in review.findings if f.effective in LEVELS or f.effective == "waived")


def category(review: Review) -> str:
    """One analysis per server: code scanning keeps a run's alerts apart from another server's by this id."""
    name = str(review.target.get("name") or review.server.get("name") or "server")
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")[:80] or "server"


def document(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The SARIF log holding `runs`."""
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": runs}


def render(review: Review, root: Path | None = None, skip: Path | None = None) -> str:
    runs = [run(review, root, skip)]
    if review.changes is not None:  # the diff against mcp-review.lock: a run of its own, rules diff.<class>
        changes = sarif_run(review.changes)
        changes["automationDetails"] = {"id": f"mcp-review-diff/{category(review)}/"}  # one category per run
        runs.append(changes)
    return json_text(document(runs)) + "\n"
