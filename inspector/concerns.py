"""What a finding is about and how much it matters (issue 39): every rule declares one concern and a default
severity (`@rule(..., concern=..., severity=...)`), every finding carries both, and a review has a verdict per
concern beside the overall one (`mcp_review.verdicts`).

Concerns, in the order every export lists them (security first):
- security: could this server harm the user or the agent: poisoning, injection, leaks, behaviour, authorization;
- protocol: the MCP specification (the `spec` pack);
- contract: the review checklist's tool contracts: what a tool promises a client (names, schemas, the error channel,
  annotations, what the server declares about itself);
- conventions: the token, design and registry packs, and the review checklist's primitive design: good practice,
  never a defect a client breaks on;
- apps: MCP Apps (the `apps` pack) as a host runs them.

Severities, worst first: critical (a proven compromise: code run, files written, a credential accepted for any
audience), high (a proven leak or steering, a protocol break a client fails on), medium (a broken promise a client
works around), low (a convention). A rule's severity is its default: a finding may raise or lower it with what it
proved (`CheckContext.fail(..., severity=...)`), so a proven exfiltration is not a missing `title`.
"""

from __future__ import annotations

from typing import Literal, get_args

Concern = Literal["security", "protocol", "contract", "conventions", "apps"]
Severity = Literal["critical", "high", "medium", "low"]
CONCERNS: tuple[Concern, ...] = get_args(Concern)
SEVERITIES: tuple[Severity, ...] = get_args(Severity)  # worst first

ABOUT: dict[Concern, str] = {
    "security": "could this server harm the user or the agent: poisoning, injection, leaks, behaviour, auth",
    "protocol": "the MCP specification",
    "contract": "the review checklist's tool contracts",
    "conventions": "tokens, design, registry packs and primitive design",
    "apps": "MCP Apps as a host runs them",
}

# GitHub code scanning ranks a security alert by its rule's `security-severity` (a score of 0.0 to 10.0): over 9.0
# critical, 7.0 to 8.9 high, 4.0 to 6.9 medium, 0.1 to 3.9 low. One score inside each band.
SECURITY_SEVERITY: dict[str, str] = {"critical": "9.5", "high": "8.0", "medium": "5.5", "low": "2.0"}


def severity_rank(severity: str) -> int:
    """Where a severity sorts, worst first (anything unknown after low)."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


def at_least(severity: str, floor: str) -> bool:
    """Whether `severity` is `floor` or worse."""
    return severity_rank(severity) <= severity_rank(floor)


def worst(severities: list[str]) -> str | None:
    return min(severities, key=severity_rank) if severities else None
