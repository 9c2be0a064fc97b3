"""Who decided what in a review, one line per piece (`decisions.provenance`, recorded by `mcp_review.plan`): the
markdown review lists them, JUnit carries them as properties (SARIF and JSON carry the record itself)."""

from __future__ import annotations

from typing import Any

from mcp_review.review import Review

WHO = {"reviewer": "the reviewer's", "repository": "the repository's", "server": "the server's", "default": "default:"}


def said(source: dict[str, Any] | None) -> str:
    """`{"who": "repository", "how": "mcp-review.toml", "commit": ...}` as "the repository's mcp-review.toml at …"."""
    if not source:
        return "none"
    commit = source.get("commit")
    at = f" at {commit[:12]}" if commit and commit != "uncommitted" else " (uncommitted)" if commit else ""
    return f"{WHO.get(source.get('who', ''), '?')} {source.get('how')}{at}"


def lines(review: Review) -> list[tuple[str, str]]:
    """(piece, who decided it) for a review that carries the record; none for one that does not."""
    decided = (review.decisions or {}).get("provenance")
    if not decided:
        return []
    calls, probes, secrets = decided["calls"], decided["probes"], decided["secrets"]
    each = f"; which tools: {said(calls['perTool'])}" if calls.get("perTool") else ""
    limited = f"; only the tools listed by {said(calls['allowList'])}" if calls.get("allowList") else ""
    asked = f"{', '.join(probes['asked'])}: {'; '.join(map(said, probes['from']))}" if probes["asked"] else "none"
    out = [
        ("target", said(decided["target"])),
        ("calls", f"{calls['policy']}: {said(calls)}{each}{limited}"),
        ("probes", asked),
        ("bearer", said(secrets["bearer"])),
    ]
    if secrets["allowedByReviewer"]:
        out.append(("allowed env", ", ".join(secrets["allowedByReviewer"]) + ": the reviewer's flags"))
    if secrets["withheld"]:
        out.append(("withheld", ", ".join(secrets["withheld"]) + ": asked by the client config, not allowed"))
    out += [(f"token env {t['option']}", f"${t['env']}: {said(t)}") for t in secrets["tokenEnv"]]
    if gate := decided.get("gate"):  # which findings hold the merge (--fail-on)
        out.append(("gate", f"{','.join(gate.get('failOn') or [])}: {said(gate)}"))
    pieces = (("lock", "lock"), ("baseline", "baseline"), ("serverJson", "server.json"))
    out += [(label, said(decided[piece])) for piece, label in pieces if decided.get(piece)]
    return [*out, ("saved state", said(decided["state"]))]
