"""`mcp-review servers`: every server found in the usual MCP config files."""

from __future__ import annotations

import argparse

from mcp_review.output import json_text
from mcp_review.review import ExitCode


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=["table", "json"], default="table")


def run(args: argparse.Namespace) -> int:
    from mcp_review import render
    from mcp_review.configs import discover

    found = discover()
    if args.format == "json":
        rows = [
            {
                "name": s.name,
                "client": s.client,
                "source": s.source,
                "problem": s.problem,
                "withheld": list(s.withheld),  # what a project's entry asks of your environment (--allow-env)
                "target": s.target.public() if s.target else None,
            }
            for s in found
        ]
        print(json_text(rows))
    else:
        render.print_servers(found)
    return ExitCode.OK
