"""`mcp-review tui` (also what `mcp-review` runs with no command): the review app; `--web`: the same app in a
browser (mcp_review.tui.web)."""

from __future__ import annotations

import argparse
import signal

from mcp_review.cli.check import review_options
from mcp_review.cli.common import Failure, UsageError, decide, target_options
from mcp_review.review import ExitCode


def arguments(p: argparse.ArgumentParser) -> None:
    web = p.add_argument_group("in a browser")
    web.add_argument(
        "--web",
        action="store_true",
        help="serve the app on 127.0.0.1 with a secret in its address (printed, and opened in your browser)",
    )
    web.add_argument("--port", type=int, default=0, help="for --web: the port (default: one that is free)")
    web.add_argument("--no-browser", action="store_true", help="for --web: print the address, open no browser")
    web.add_argument("--served", action="store_true", help=argparse.SUPPRESS)  # the app run by --web's server
    target_options(p)
    review_options(p)  # the same as check's: a blocking finding's advice (--baseline) works in the app too


def run(args: argparse.Namespace) -> int:
    if not args.web and (args.port or args.no_browser):
        raise UsageError("--port and --no-browser go with --web")
    # with --web too: a wrong argument is said here, not in a browser
    plan = decide(args, review=True, observed="the app (its Behaviour tab shows what each call does)")
    if args.web and not args.served:
        from mcp_review.tui import web

        try:
            sock = web.listen(args.port)
        except OSError as e:
            raise Failure(f"--web cannot listen on 127.0.0.1:{args.port}: {e.strerror or e}") from e
        web.serve(
            sock,
            args.own_argv[1:] + (["--", *args.server_command] if args.server_command else []),
            browser=not args.no_browser,
        )
        return ExitCode.OK
    if args.served:
        from mcp_review.connection import procs

        procs.die_with_parent(signal.SIGTERM)  # the web server gone, Textual's web driver quits the app on SIGTERM
    from mcp_review.tui.app import ReviewApp  # Textual loads only here: the headless commands never pay for it

    assert plan.target is not None  # decided with a target
    era = "auto" if plan.era == "both" else plan.era  # the app's own connection; both eras are a run's (its dialog)
    ReviewApp(plan.target, era=era, plan=plan.check, state_dir=plan.state_dir, source_root=args.source_root).run()
    return ExitCode.OK
