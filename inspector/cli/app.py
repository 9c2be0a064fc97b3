"""`mcp-review tui` (also what `mcp-review` runs with no command): the review app."""

from __future__ import annotations

import argparse

from mcp_review.cli.check import review_options
from mcp_review.cli.common import decide, target_options
from mcp_review.review import ExitCode


def arguments(p: argparse.ArgumentParser) -> None:
    target_options(p)
    review_options(p)  # the same as check's: a blocking finding's advice (--baseline) works in the app too


def run(args: argparse.Namespace) -> int:
    plan = decide(args, review=True)
    from mcp_review.tui.app import ReviewApp  # Textual loads only here: the headless commands never pay for it

    assert plan.target is not None  # decided with a target
    era = "auto" if plan.era == "both" else plan.era  # the app's own connection; both eras are a run's (its dialog)
    ReviewApp(plan.target, era=era, plan=plan.check, state_dir=plan.state_dir, source_root=args.source_root).run()
    return ExitCode.OK
