"""`mcp-review list`: what the server offers, each tool (and skill) with its token cost."""

from __future__ import annotations

import argparse
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
    from mcp_review.encodings import ENCODINGS, UnknownEncoding

    if args.encoding not in ENCODINGS:  # before the server starts; the counter loads after (`launch`)
        raise UsageError(str(UnknownEncoding(args.encoding)))
    launched = launch(plan)  # first: what follows loads while the server starts (its own start takes longer)
    import asyncio

    from mcp_review.review import ExitCode
    from mcp_review.tokens import TokenCounter

    counter = TokenCounter(args.encoding)
    counter.preload()  # the encoding is built on a thread meanwhile
    asyncio.run(_listed(args, plan, counter, launched))
    return ExitCode.OK


async def _listed(args: argparse.Namespace, plan: Plan, counter: TokenCounter, launched: Launched | None) -> None:
    """List, then count and print, the server's time overlapped with ours: the server was started before anything
    it does not need was loaded, the encoding is built while it starts (a few hundred ms, on the preload thread),
    and the figures are counted and printed while it shuts down (`aclose` waits for it to exit), on a thread of
    their own (`tokens.in_background`)."""
    import asyncio
    import gc

    from mcp_review.catalog import take_snapshot
    from mcp_review.skills import read_skills
    from mcp_review.tokens import in_background

    shown: list[asyncio.Future[None]] = []

    async def work(session: Any) -> None:
        snapshot = await take_snapshot(session)
        if snapshot.skills is not None:  # each SKILL.md, for what a skill costs once loaded
            await read_skills(session, snapshot.skills.skills, manifests=False)
        # The listing lives until the command ends: the collector stops scanning it (its passes over 10,000 tools'
        # objects while they were counted and printed took ~0.25 s of CPU). It is still freed as usual, and what
        # comes after is collected as usual: a server's flood of requests while it exits cannot pile up.
        gc.freeze()
        shown.append(asyncio.wrap_future(in_background(lambda: _show(snapshot, counter, args.format == "json"))))

    try:
        await with_session(args, plan, work, launched)
    finally:
        if shown:  # printed whole before the command ends, even when something failed after the listing
            await asyncio.wait(shown)
    shown[0].result()  # its errors (a reader gone: BrokenPipeError) are the command's


def _show(snapshot: ServerSnapshot, counter: TokenCounter, as_json: bool) -> None:
    """The figures, printed: as JSON (it needs no rich), else as the table (rich loads here, while the server
    exits, not after it)."""
    from mcp_review.costs import Costs, document, document_text

    report = document(snapshot, Costs(snapshot).of(counter.encoding))
    if as_json:
        from mcp_review.output import inert_json

        print(inert_json(document_text(report)))  # what `output.json_text` writes, the tools written faster
    else:
        from mcp_review import render

        render.print_listing(snapshot, report)
