"""`mcp-review tui` (also what `mcp-review` runs with no command): the review app."""

from __future__ import annotations

import argparse

from inspector.cli.check import review_options, review_plan
from inspector.cli.common import build_target, target_options
from inspector.review import ExitCode

NAME = "tui"
HELP = "the review app (the default command)"


def arguments(p: argparse.ArgumentParser) -> None:
    target_options(p)
    review_options(p)  # the same as check's: a blocking finding's advice (--baseline) works in the app too


def run(args: argparse.Namespace) -> int:
    target = build_target(args)
    from inspector.tui.app import ReviewApp  # Textual loads only here: the headless commands never pay for it

    ReviewApp(target, era=args.era, plan=review_plan(args)).run()
    return ExitCode.OK
