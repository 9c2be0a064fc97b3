"""`mcp-review pin`: write mcp-review.lock, the server's surface pinned (see `mcp_review.lock`)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from mcp_review.cli.common import decide, target_options, with_session
from mcp_review.review import ExitCode


def arguments(p: argparse.ArgumentParser) -> None:
    target_options(p)
    p.add_argument("--out", default="mcp-review.lock", metavar="FILE", help="where (default ./mcp-review.lock)")


def run(args: argparse.Namespace) -> int:
    plan = decide(args)
    from mcp_review import lock
    from mcp_review.catalog import take_snapshot

    snapshot = asyncio.run(with_session(args, plan, take_snapshot))
    pinned = lock.build(snapshot)
    lock.save(args.out, pinned)
    counts = ", ".join(f"{k}s: {len(pinned.items[k])}" for k in pinned.kinds)
    print(f"mcp-review: pinned {pinned.label} ({counts}) to {args.out}", file=sys.stderr)
    return ExitCode.OK
