"""Pack `spec`: MCP specification compliance, judged by the revision the server negotiated.

Source: seed 002_a7a94a7cfe100f94.txt (an MCP 2025-11-25 compliance reviewer: wire names, version
negotiation, capabilities, tasks, icons, notifications) and the specification of each revision
(shared/reference/spec.md gives the requirement ids cited below, e.g. LC-03, PAG-02).
"""

from mcp_review.checks.spec import lifecycle, wire, protocol, utilities, requests, tasks, taskrun, http  # noqa: F401, I001  (registers the rules, in order)
from mcp_review.checks.spec import deprecations, skills  # noqa: F401  (after every other: they read the whole wire)
