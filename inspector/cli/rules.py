"""`mcp-review rules [RULE]`: every rule in one line each, or one rule's documentation."""

from __future__ import annotations

import argparse

from mcp_review.cli.common import UsageError
from mcp_review.review import ExitCode

NAME = "rules"
HELP = "every rule (id, pack, mode, one line), or one rule's documentation"


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rule", nargs="?", help="a rule id")


def run(args: argparse.Namespace) -> int:
    from mcp_review.rules.core import load_rules

    rules = load_rules()
    if args.rule:
        rule = rules.get(args.rule)
        if rule is None:
            raise UsageError(f"no rule {args.rule!r}; `mcp-review rules` lists them")
        print(f"{rule.id}  ({rule.pack}, {rule.mode})\nsource: {rule.cites}\n\n{rule.doc}")
        return ExitCode.OK
    width = max(len(r) for r in rules)
    for rule in rules.values():
        print(f"{rule.id:<{width}}  {rule.pack:<8}  {rule.mode:<16}  {rule.summary}")
    return ExitCode.OK
