"""`mcp-review list`: what the server offers, each tool (and skill) with its token cost."""

from __future__ import annotations

import argparse
import importlib
from typing import TYPE_CHECKING, Any

from mcp_review.cli.common import UsageError, decide, launch, target_options, with_session

if TYPE_CHECKING:
    import asyncio

    from mcp_review.catalog import ServerSnapshot
    from mcp_review.connection.procs import Launched
    from mcp_review.plan import Plan
    from mcp_review.tokens import TokenCounter


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
    plan = decide(args)
    from mcp_review.encodings import UnknownEncoding
    from mcp_review.tokens import TokenCounter

    try:
        counter = TokenCounter(args.encoding)
    except UnknownEncoding as e:
        raise UsageError(str(e)) from e
    launched = launch(plan)  # first: what follows loads while the server starts (its own start takes longer)
    counter.preload()  # the encoding is built on a thread meanwhile
    import asyncio

    from mcp_review.review import ExitCode

    snapshot, report, text = asyncio.run(_listed(args, plan, counter, launched))
    if text is not None:
        print(text)
    else:
        from mcp_review import render  # rich: only for the table

        render.print_listing(snapshot, report)
    return ExitCode.OK


Listed = tuple["ServerSnapshot", dict[str, Any], str | None]  # the snapshot, its report, the JSON text if wanted


async def _listed(args: argparse.Namespace, plan: Plan, counter: TokenCounter, launched: Launched | None) -> Listed:
    """The snapshot, its token report and (`--format json`) its text, the server's time overlapped with ours: the
    server was started before anything it does not need was loaded, the encoding is built while it starts (a
    few hundred ms, on the preload thread), and the figures are counted and the JSON written while it shuts
    down (`aclose` waits for it to exit)."""
    import asyncio

    from mcp_review.catalog import take_snapshot
    from mcp_review.skills import read_skills

    async def work(session: Any) -> tuple[ServerSnapshot, asyncio.Future[Listed]]:
        snapshot = await take_snapshot(session)
        if snapshot.skills is not None:  # each SKILL.md, for what a skill costs once loaded
            await read_skills(session, snapshot.skills.skills, manifests=False)
        return snapshot, asyncio.ensure_future(asyncio.to_thread(_report, snapshot, counter, args.format == "json"))

    _, reporting = await with_session(args, plan, work, launched)
    return await reporting


def _report(snapshot: ServerSnapshot, counter: TokenCounter, as_json: bool) -> Listed:
    """Off the loop, while the server exits: the figures, and the JSON text if asked for (it needs no rich), else
    the table's module loaded (rich)."""
    from mcp_review.costs import token_report
    from mcp_review.output import json_text

    if not as_json:
        importlib.import_module("mcp_review.render")  # rich loads here, while the server exits, not after it

    report = token_report(snapshot, counter)
    return snapshot, report, json_text(report) if as_json else None
