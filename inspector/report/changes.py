"""A diff of two pins (`mcp_review.diff.Diff.to_json()`) as text: a terminal table, and the diff's report formats,
one `Format` record each in `FORMATS` (`diff --format` and `--out` read them): a markdown section that fits a PR
comment (also the "Changes" section of exported reviews), JSON and SARIF 2.1.0.

Everything here reads the diff's JSON, so a review that carries a diff renders it the same way.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from mcp_review import __version__
from mcp_review.output import json_text
from mcp_review.report.common import SCHEMA, cell, code, plain
from mcp_review.report.formats import Format, family
from mcp_review.text import one_line

CLASS_ORDER = {"breaking": 0, "safety": 1, "behaviour": 2, "cost": 3}
LEVELS = {"breaking": "error", "safety": "error", "behaviour": "warning", "cost": "note"}
ROWS = 60  # markdown rows before the rest is only counted: a PR comment has a size limit
HELP = {
    "breaking": "A client or prompt built on the old definition breaks: removed, renamed, narrowed, newly required.",
    "safety": "What the model is told about risk changed for the worse, or the text now carries what the scanner "
    "flags.",
    "behaviour": "Another change to what the model reads.",
    "cost": "The tools array's token cost changed, or a budget of the review config is exceeded.",
}


def _tokens(delta: dict[str, int]) -> str:
    return " / ".join(f"{n} {v:+d}" for n, v in delta.items() if v) or "0"


def _status(change: dict[str, Any]) -> str:
    approval = change.get("approval")
    if approval:
        return f"approved by {approval['by']}"
    return "over budget" if change.get("overBudget") else ""


def counts_line(diff: dict[str, Any]) -> str:
    counts = diff["counts"]
    return ", ".join(f"{counts[name]} {name}" for name in CLASS_ORDER) if diff["changes"] else "no changes"


def section(review: Any, rows: int = ROWS) -> list[str]:
    """The review's diff against mcp-review.lock as markdown lines (none when the review has no lock)."""
    return [markdown(review.changes, rows), ""] if review.changes is not None else []


def markdown(diff: dict[str, Any], rows: int = ROWS) -> str:
    lines = [f"## Changes: {cell(diff['old'], 120)} -> {cell(diff['new'], 120)}", "", counts_line(diff)]
    changes = diff["changes"]
    if changes:
        lines += ["", "| class | item | what changed | tokens | |", "|---|---|---|---|---|"]
        for c in changes[:rows]:
            what = cell("; ".join(c["reasons"]), 400)
            lines.append(
                f"| {c['class']} | {c['kind']} {code(c['key'], 80)} | {what} | {_tokens(c['tokens'])} | "
                f"{cell(_status(c), 80)} |"
            )
        if len(changes) > rows:
            lines.append(f"\n… and {len(changes) - rows} more (`mcp-review diff --format json` lists every one)")
    pinned = diff.get("pinnedWith") or []
    if pinned:
        who = ", ".join(f"{a['kind']} {code(a['key'], 60)} ({a['class']}) by {cell(a['by'], 40)}" for a in pinned[:10])
        lines += ["", f"The lock was pinned with {len(pinned)} approved changes: {who}."]
    totals = diff.get("totals") or {}
    if totals:
        shown = ", ".join(f"{n} {t['old']} -> {t['new']} ({t['delta']:+d})" for n, t in totals.items())
        lines += ["", f"Tools array: {shown} tokens."]
    return "\n".join(lines) + "\n"


def table(diff: dict[str, Any]) -> tuple[Table, Text]:
    """The terminal table (server text as `Text`, never markup) and the summary line under it."""
    out = Table(title=Text(f"{one_line(diff['old'], 80)} -> {one_line(diff['new'], 80)}"), show_lines=False)
    for name in ("class", "item", "what changed", "tokens", ""):
        out.add_column(name, overflow="fold")
    styles = {"breaking": "bold red", "safety": "red", "behaviour": "yellow", "cost": "cyan"}
    for c in diff["changes"]:
        out.add_row(
            Text(c["class"], style=styles.get(c["class"], "")),
            Text(f"{c['kind']} {one_line(c['key'], 60)}"),
            Text(one_line("; ".join(c["reasons"]), 300)),
            Text(_tokens(c["tokens"])),
            Text(_status(c)),
        )
    return out, Text(counts_line(diff))


def sarif_run(diff: dict[str, Any]) -> dict[str, Any]:
    """One SARIF run: a rule per class (`diff.breaking`...), a result per change (an approved one suppressed)."""
    rules = [
        {"id": f"diff.{name}", "name": name, "shortDescription": {"text": HELP[name]}, "help": {"text": HELP[name]}}
        for name in CLASS_ORDER
    ]
    index = {f"diff.{name}": i for i, name in enumerate(CLASS_ORDER)}
    results = []
    for c in diff["changes"]:
        rule = f"diff.{c['class']}"
        result: dict[str, Any] = {
            "ruleId": rule,
            "ruleIndex": index[rule],
            "level": LEVELS[c["class"]] if not c.get("approval") else "note",
            "message": {"text": plain(f"{c['kind']} {c['key']}: {'; '.join(c['reasons'])}")},
            "locations": [{"logicalLocations": [{"name": c["key"], "kind": c["kind"]}]}],
            "properties": {"tokens": c["tokens"], "overBudget": c["overBudget"]},
        }
        if c.get("approval"):
            result["suppressions"] = [{"kind": "external", "justification": c["approval"]["note"] or "approved"}]
        results.append(result)
    return {
        "tool": {"driver": {"name": "mcp-review", "version": __version__, "rules": rules}},
        "results": results,
        "properties": {"old": diff["old"], "new": diff["new"], "totals": diff.get("totals")},
    }


def sarif(diff: dict[str, Any]) -> str:
    doc = {"$schema": SCHEMA, "version": "2.1.0", "runs": [sarif_run(diff)]}
    return json_text(doc) + "\n"


def as_text(diff: dict[str, Any]) -> str:
    return json_text(diff) + "\n"


Diff = dict[str, Any]
FORMATS: dict[str, Format[Diff]] = family(
    Format("md", "md", "a section that fits a PR comment", "report.changes:markdown"),
    Format("json", "json", "the diff as data (README: mcp-review diff)", "report.changes:as_text"),
    Format("sarif", "sarif.json", "SARIF 2.1.0: a rule per class, a result per change", "report.changes:sarif"),
)
