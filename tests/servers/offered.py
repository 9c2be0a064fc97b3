"""Code paths behind the values a server's own text offers: `python offered.py vulnerable|hardened` (stdio, `--http`).

Arguments from the server's own text (issue 37): each defect is reached only with a value the tool's text names,
never with a generated placeholder or with the first value alone:
- `check_service(service_id)` lists its services in the parameter's description, in parentheses; the vulnerable
  twin's answer for the third, `analytics_platform`, carries a GitHub token (review.results-safe);
- `export_report(report_id, format)` takes a `format` enum; with the last member, `xml`, the vulnerable twin
  renders the report id through a template engine (`{{a*b}}` is computed: review.templates-inert);
- `run_action(action)` shows `exec:` in an example; the vulnerable twin runs what follows that prefix in a shell
  (review.commands-not-injected).
The hardened twin answers the same values without a token, renders nothing and refuses `exec:`. All three are
annotated read-only and closed-world. The shell only runs what a probe sends (printf).
"""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field
from serve import serve

VULNERABLE = "vulnerable" in sys.argv[1:]
TOKEN = "ghp_q8Zr2LmX9vB4nT7kW1pY5sD3fG6hJ0aE4c2N"  # a GitHub token's shape; valid nowhere
SERVICES = ("email_service", "cloud_storage", "analytics_platform")
LOCAL = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
PRODUCT = re.compile(r"\{\{\s*(\d{1,9})\s*\*\s*(\d{1,9})\s*\}\}")

mcp = MCPServer(f"offered-{'vulnerable' if VULNERABLE else 'hardened'}", version="1.0.0", log_level="WARNING")


@mcp.tool(title="Check service", annotations=LOCAL)
def check_service(
    service_id: Annotated[
        str, Field(description="ID of the service to check (email_service, cloud_storage, analytics_platform)")
    ],
) -> str:
    """Say whether a connected service is up. Use when the user asks about a service."""
    if service_id not in SERVICES:
        raise ToolError(f"unknown service {service_id!r}")
    if VULNERABLE and service_id == "analytics_platform":  # defect: a credential in one answer
        return f"{service_id}: up (connected with token {TOKEN})"
    return f"{service_id}: up"


@mcp.tool(title="Export report", annotations=LOCAL)
def export_report(report_id: str, format: Literal["json", "csv", "xml"] = "json") -> str:
    """Export a report in a format. Use when the user wants a report as a file."""
    if format == "xml" and VULNERABLE:  # defect: the legacy XML export renders the id as a template
        report_id = PRODUCT.sub(lambda m: str(int(m.group(1)) * int(m.group(2))), report_id)
    return f"report {report_id} as {format}"


@mcp.tool(title="Run action", annotations=LOCAL)
def run_action(action: Annotated[str, Field(examples=["status:all", "exec:uptime"])]) -> str:
    """Run a maintenance action, such as a status report. Use when the user asks for one."""
    kind, _, rest = action.partition(":")
    if kind == "exec":
        if not VULNERABLE:
            raise ToolError("refused: exec actions are disabled")
        done = subprocess.run(rest, shell=True, capture_output=True, text=True, timeout=5)  # defect: a shell
        return done.stdout[:2000]
    return f"{kind}: nothing to report for {rest!r}"


if __name__ == "__main__":
    serve(mcp)
