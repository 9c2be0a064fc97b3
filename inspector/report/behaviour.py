"""What the server did, in the exports (`Review.behaviour`, made by `mcp_review.behaviour.summary`): how each of its
processes ran (confined, observed, why not), the events by request, and where a canary's value showed. Markdown
shows it as a section and a table; JUnit carries properties; SARIF and JSON carry the record itself."""

from __future__ import annotations

from typing import Any

from mcp_review.report.common import cell, code
from mcp_review.review import Review

ROWS = 60  # requests listed in the markdown table; the rest are counted (JSON and SARIF hold them all)
SHOWN = 4  # notable events quoted per request


def _request(row: dict[str, Any]) -> str:
    if row.get("request") is None:
        return "start-up"
    what = f"tools/call {row['tool']}" if row.get("tool") else str(row.get("method") or "")
    return f"#{row['request']} {what}".strip()


def section(review: Review, rows: int = ROWS) -> list[str]:
    """The markdown section (none for a server mcp-review did not start)."""
    said = review.behaviour
    if not said:
        return []
    out = ["## Behaviour: what the server did", ""]
    out += [f"- process {p['conn']}: {cell(p['line'], 300)}" for p in said.get("processes", [])]
    counted = said.get("events") or {}
    out += ["", f"{counted.get('observed', 0):,} events observed ({counted.get('notKept', 0):,} not kept).", ""]
    requests = said.get("requests") or []
    if requests:
        out += ["| request | when | events | what stands out |", "|---|---|---|---|"]
        for row in requests[:rows]:
            counts = ", ".join(f"{n} {kind}" for kind, n in sorted((row.get("counts") or {}).items()))
            notable = row.get("notable") or []
            shown = "; ".join(cell(e["said"], 120) for e in notable[:SHOWN]) or "nothing"
            more = row.get("notableTotal", len(notable)) - min(len(notable), SHOWN)
            shown += f" and {more} more" if more > 0 else ""
            out.append(f"| {code(_request(row), 80)} | {row.get('phase')} | {counts} | {shown} |")
        if len(requests) > rows:
            out.append(f"\n{len(requests) - rows} more requests (the JSON review lists them all).")
        out.append("")
    sightings = said.get("sightings") or []
    if sightings:
        out += ["Canary values seen outside their files:", ""]
        out += [f"- {code(s['path'], 120)} ({s['what']}) in {s['where']} (wire #{s['seq']})" for s in sightings[:rows]]
        out.append("")
    return out


def properties(review: Review) -> list[tuple[str, str]]:
    """(name, value) pairs for JUnit: how each process ran, the events observed, each canary seen."""
    said = review.behaviour
    if not said:
        return []
    out = [(f"mcp-review.behaviour.process.{p['conn']}", str(p["line"])) for p in said.get("processes", [])]
    out.append(("mcp-review.behaviour.events", str((said.get("events") or {}).get("observed", 0))))
    out += [
        (f"mcp-review.behaviour.sighting.{s['seq']}", f"{s['path']} in {s['where']}")
        for s in said.get("sightings") or []
    ]
    return out
