"""SARIF 2.1.0: every rule with its help text; each non-passing finding a result.

A finding's physical location is the config file the target came from (when it did); its logical
location is the tool (or resource/prompt) it concerns, or the server.

A message is plain text (SARIF 3.11.3), but viewers render some markdown in it: server text in it is kept on
one line, control characters shown as escapes, and `<`, `[` and `\\` outside code spans escaped with a
backslash (`plain`), so no viewer makes a tag or a link of it (a code span is inert: it is left alone).
"""

from __future__ import annotations

from typing import Any

from mcp_review import __version__
from mcp_review.output import json_text
from mcp_review.report.changes import sarif_run
from mcp_review.report.common import SCHEMA, plain
from mcp_review.review import Review

LEVELS = {"fail": "error", "blocking": "error", "warn": "warning", "note": "note"}


def render(review: Review) -> str:
    from mcp_review.rules.core import load_rules

    rules = load_rules()
    used = sorted({f.rule for f in review.findings})
    index = {rule_id: i for i, rule_id in enumerate(used)}
    descriptors = []
    for rule_id in used:
        rule = rules.get(rule_id)
        descriptors.append(
            {
                "id": rule_id,
                "name": rule_id.split(".", 1)[1],
                "shortDescription": {"text": rule.summary if rule else rule_id},
                "fullDescription": {"text": rule.doc if rule else rule_id},
                "help": {"text": rule.doc if rule else rule_id},
                "properties": {
                    "pack": rule_id.split(".")[0],
                    "mode": rule.mode if rule else "",
                    "source": rule.cites if rule else "",
                },
            }
        )
    source = review.target.get("source")
    results: list[dict[str, Any]] = []
    for f in review.findings:
        status = f.effective
        if status not in LEVELS and status != "waived":
            continue
        location: dict[str, Any] = {
            "logicalLocations": [
                {"name": f.subject or review.server.get("name") or "server", "kind": f.subject_kind or "module"}
            ]
        }
        if source:
            location["physicalLocation"] = {"artifactLocation": {"uri": source}}
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": LEVELS.get(f.status, "note"),
            "message": {"text": f"[{status}] {plain(f.message)}"},
            "locations": [location],
            "properties": {"status": status, "evidence": f.evidence, "source": f.source},
        }
        if status == "waived" and f.waiver:
            result["suppressions"] = [{"kind": "external", "justification": f"{f.waiver.reason} ({f.waiver.by})"}]
        results.append(result)
    doc: dict[str, Any] = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "mcp-review", "version": __version__, "rules": descriptors}},
                "results": results,
                "properties": {
                    "verdict": review.verdict,
                    "server": review.server.get("name"),
                    "revision": review.revision,
                    # who decided the target, consent, secrets, waivers and the lock (mcp_review.plan)
                    **({"decisions": review.decisions} if review.decisions is not None else {}),
                    # --era both: each era's verdict and the rules whose verdicts differ (mcp_review.eras)
                    **({"eras": review.eras} if review.eras is not None else {}),
                },
            }
        ],
    }
    if review.changes is not None:  # the diff against mcp-review.lock: a run of its own, rules diff.<class>
        doc["runs"].append(sarif_run(review.changes))
    return json_text(doc) + "\n"
