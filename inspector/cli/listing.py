"""`mcp-review list`: what the server offers, each tool with its token cost."""

from __future__ import annotations

import argparse
import asyncio

from mcp_review.cli.common import UsageError, build_target, target_options, with_session
from mcp_review.output import json_text
from mcp_review.review import ExitCode

NAME = "list"
HELP = "what the server offers, each tool with its token cost"


def arguments(p: argparse.ArgumentParser) -> None:
    target_options(p)
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument(
        "--encoding",
        default="cl100k_base",
        help="cl100k_base (default), o200k_base, or claude (an estimate: coder/ai-tokenizer's vocabulary and "
        "tool overheads, shipped with mcp-review)",
    )


def run(args: argparse.Namespace) -> int:
    target = build_target(args)
    from mcp_review import render
    from mcp_review.catalog import take_snapshot
    from mcp_review.tokens import TokenCounter, UnknownEncoding

    try:
        counter = TokenCounter(args.encoding)
    except UnknownEncoding as e:
        raise UsageError(str(e)) from e
    counter.preload()  # built while the server starts and lists, not after
    snapshot = asyncio.run(with_session(args, target, take_snapshot))
    report = render.token_report(snapshot, counter)
    if args.format == "json":
        print(json_text(report))
    else:
        render.print_listing(snapshot, report)
    return ExitCode.OK
