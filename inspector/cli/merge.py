"""`mcp-review merge REVIEW.json...`: JSON reviews made into one fleet report.

The files are `check --format json` reviews or a fleet's state files (a job of `fleet matrix` writes one); the
report is the one `fleet` writes of its own state files, by the same code (`mcp_review.fleet.aggregate`), so a
fleet spread over CI jobs and merged at the end reports what one fleet run would. The exit code is the fleet's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mcp_review.cli.common import UsageError
from mcp_review.cli.fleet import files, output_options, write_reports


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("reviews", nargs="+", metavar="REVIEW.json")
    output_options(p)


def run(args: argparse.Namespace) -> int:
    from mcp_review.fleet.aggregate import NotAReview, exit_code, load

    to = files(args)
    try:
        rows = load(Path(p) for p in args.reviews)
    except NotAReview as e:
        raise UsageError(str(e)) from e
    write_reports(args, rows, to)
    return exit_code(rows)
