"""`mcp-review call TOOL`: call one tool and print its result."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from mcp_review.cli.common import Failure, UsageError, decide, target_options, with_session
from mcp_review.output import json_text
from mcp_review.review import ExitCode
from mcp_review.untrusted import strict_loads

NAME = "call"
HELP = "call one tool and print its result"


def call_options(p: argparse.ArgumentParser) -> None:
    """The arguments and the consent of a call (`call`, and `app`, which calls the tool its app shows)."""
    p.add_argument("--args", default="{}", metavar="JSON", help="arguments object (JSON, or @file.json)")
    p.add_argument("--yes", action="store_true", help="consent to call a tool that may have side effects")


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tool", help="tool name")
    call_options(p)
    p.add_argument("--format", choices=["text", "json"], default="text")
    target_options(p)


def parse_args_json(text: str) -> Any:
    if text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise UsageError(f"cannot read {text[1:]}: {e.strerror}") from e
    try:
        value = strict_loads(text)
    except ValueError as e:
        raise UsageError(f"--args is not valid JSON: {e}") from e
    if not isinstance(value, dict):
        raise UsageError("--args must be a JSON object")
    return value


def run(args: argparse.Namespace) -> int:
    plan = decide(args)
    from mcp_review import render
    from mcp_review.calls import call_tool, consent_reason
    from mcp_review.catalog import take_snapshot

    arguments = parse_args_json(args.args)

    async def work(session: Any) -> Any:
        snapshot = await take_snapshot(session, kinds=("tool",))
        tool = snapshot.tool(args.tool)
        if tool is None:
            names = ", ".join(t.key for t in snapshot.tools.items[:20]) or "none"
            raise UsageError(f"the server lists no tool named {args.tool!r} (tools: {names})")
        reason = consent_reason(tool)
        if reason and not args.yes:
            raise UsageError(
                f"refusing to call {args.tool!r}: {reason}, so it may have side effects; add --yes to consent"
            )
        return await call_tool(session, args.tool, arguments, consent="reviewer" if reason else "read-only")

    record = asyncio.run(with_session(args, plan, work))
    if args.format == "json":
        out = record.result if record.error is None else {"error": record.error}
        print(json_text(out))
    else:
        render.print_call(record)
    if record.failure:
        raise Failure(record.failure)
    return ExitCode.FAILED if record.error is not None or record.is_error else ExitCode.OK
