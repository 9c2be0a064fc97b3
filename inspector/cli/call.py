"""`mcp-review call TOOL`: call one tool and print its result."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp_review.cli.common import Failure, UsageError, decide, target_options, with_session
from mcp_review.output import json_text
from mcp_review.review import ExitCode
from mcp_review.untrusted import strict_loads

if TYPE_CHECKING:
    from mcp_review.tasks import Observation, TaskRun


def call_options(p: argparse.ArgumentParser) -> None:
    """The arguments and the consent of a call (`call`, and `app`, which calls the tool its app shows)."""
    p.add_argument("--args", default="{}", metavar="JSON", help="arguments object (JSON, or @file.json)")
    p.add_argument("--yes", action="store_true", help="consent to call a tool that may have side effects")


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tool", help="tool name")
    call_options(p)
    p.add_argument(
        "--task",
        action="store_true",
        help="run the tool as a task (2025-11-25 tasks or the 2026-07-28 tasks extension, as the server speaks): "
        "the status live on stderr, the result on stdout; Ctrl-C cancels the task",
    )
    p.add_argument("--task-wait", type=float, default=300.0, metavar="SECONDS", help="give up on a task after this")
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
    from mcp_review.calls import CallGate, consent_reason, reply_tokens
    from mcp_review.catalog import take_snapshot
    from mcp_review.tokens import TokenCounter

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
        gate = CallGate.for_reviewer(session)
        if args.task:
            from mcp_review.text import one_line

            made = await gate.run_task(
                tool,
                arguments,
                purpose="reviewer",
                consented=args.yes,
                deadline=args.task_wait,
                on_status=status_printer(),
            )
            assert made is not None  # refused above when it needs consent the reviewer did not give
            record, run = made
            if run.ended == "ran without a task":  # said, never silent: the reviewer asked for a task
                execution = tool.raw.get("execution") if isinstance(tool.raw, dict) else None
                support = execution.get("taskSupport") if isinstance(execution, dict) else None
                print(
                    f"mcp-review: the server made no task: it answered the call itself (the tool's taskSupport: "
                    f"{one_line(str(support), 40) if support is not None else 'not declared'})",
                    file=sys.stderr,
                )
        else:
            called = await gate.call(tool, arguments, purpose="reviewer", consented=args.yes)
            assert called is not None
            record = called
        return record, reply_tokens(record, session.wire, TokenCounter())  # the figure the app's views show

    try:
        record, tokens = asyncio.run(with_session(args, plan, work))
    except KeyboardInterrupt:
        print("mcp-review: interrupted: the task was asked to cancel (tasks/cancel)", file=sys.stderr)
        return ExitCode.FAILED
    if args.format == "json":
        out = record.result if record.error is None else {"error": record.error}
        print(json_text(out))
    else:
        render.print_call(record, tokens)
    if record.failure:
        raise Failure(record.failure)
    return ExitCode.FAILED if record.error is not None or record.is_error else ExitCode.OK


def status_printer() -> Callable[[TaskRun, Observation], None]:
    """A line on stderr each time the task's status or message changes, its text made safe for a terminal."""
    from mcp_review.text import one_line

    last: list[tuple[str, str]] = []

    def show(run: TaskRun, seen: Observation) -> None:
        status, message = one_line(str(seen.status), 40), one_line(seen.message or "", 160)
        if last and last[-1] == (status, message):
            return
        last[:] = [(status, message)]
        said = f": {message}" if message else ""
        print(f"task {one_line(str(run.task_id), 60)}: {status}{said} ({seen.source})", file=sys.stderr, flush=True)

    return show
