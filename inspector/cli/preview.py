"""`mcp-review app TOOL`: open a tool's MCP App as a host would, on 127.0.0.1, and report what broke."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING, Any

from mcp_review.cli.call import call_options, parse_args_json
from mcp_review.cli.common import Failure, UsageError, decide, target_options, with_session
from mcp_review.review import ExitCode

if TYPE_CHECKING:  # loaded in `run`: a command's heavy imports wait until it runs
    from mcp_review.preview import Finding
    from mcp_review.preview_server import Preview


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tool", help="the tool whose app to open (it names it in _meta.ui.resourceUri)")
    call_options(p)
    how = p.add_mutually_exclusive_group()
    how.add_argument(
        "--open",
        action="store_true",
        help="open the host page in your browser (a Chromium that reaches 127.0.0.1 only)",
    )
    how.add_argument(
        "--headless", action="store_true", help="run the page in headless Chromium until it is done, then report"
    )
    p.add_argument(
        "--for",
        dest="seconds",
        type=float,
        metavar="SECONDS",
        help="serve this long (default: until ^C; --headless: 20)",
    )
    p.add_argument("--format", choices=["text", "json"], default="text")
    target_options(p)


def run(args: argparse.Namespace) -> int:
    plan = decide(args)
    from mcp_review.output import json_text
    from mcp_review.preview import PreviewError, load
    from mcp_review.preview_server import Preview

    arguments = parse_args_json(args.args)

    async def work(session: Any) -> Any:
        return await load(session, args.tool, arguments, consent=args.yes)

    try:
        app = asyncio.run(with_session(args, plan, work))
    except PreviewError as e:
        raise UsageError(str(e)) from e
    if app.call is not None and app.call.failure:
        raise Failure(app.call.failure)
    preview = Preview(app)
    preview.start()
    print(f"mcp-review: {args.tool}'s app ({app.uri}) at {preview.url}", flush=True)
    if app.no_call:
        print(f"mcp-review: {app.no_call}", flush=True)
    try:
        findings = show(args, preview)
    finally:
        preview.stop()
    if args.format == "json":
        seen = preview.seen
        out = {
            "url": preview.url,
            "findings": [{"status": f.status, "message": f.message, "evidence": f.evidence} for f in findings],
            "bridge": preview.bridge(),
            "rendered": seen.rendered,
            "requests": seen.requests,
            "outside": seen.outside,
        }
        print(json_text(out))
    else:
        for f in findings:
            print(f"{f.status.upper():5} {f.message}")
        print(f"mcp-review: {len(preview.seen.requests)} requests to this page's own servers on 127.0.0.1", end="")
        print(f", {len(preview.seen.outside)} refused" if preview.seen.outside else "")
    return ExitCode.FAILED if any(f.status == "fail" for f in findings) else ExitCode.OK


def show(args: argparse.Namespace, preview: Preview) -> list[Finding]:
    """The page in a browser (headless, the reviewer's, or none: its URL is printed) until it is done or the time
    is up; then what the preview observed."""
    import contextlib

    from mcp_review import preview_browser
    from mcp_review.preview import Finding

    notes = []
    if args.headless:
        browser = preview_browser.find()
        if browser is None:
            raise Failure("--headless needs Chromium (chromium, google-chrome) on PATH")
        seconds = 20.0 if args.seconds is None else args.seconds
        if not preview_browser.run_headless(preview.url, preview.proxy, preview.ports, preview.done, seconds, browser):
            notes.append(Finding("warn", f"the page was not done within {seconds:g} s: what it did until then"))
        return preview.summary() + notes
    with contextlib.ExitStack() as stack:
        launch = None
        if args.open:  # a profile only for a browser started here
            profile = stack.enter_context(preview_browser.profile())
            launch = preview_browser.open_window(preview.url, preview.proxy, preview.ports, profile)
            if launch.process is not None:
                stack.callback(preview_browser.end_browser, launch.process)
            if launch.note:
                print(f"mcp-review: {launch.note}", flush=True)
                notes.append(Finding("info", launch.note))
        with contextlib.suppress(KeyboardInterrupt):
            preview.wait(args.seconds)
    return preview.summary() + notes
