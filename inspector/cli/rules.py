"""`mcp-review rules [RULE]`: every rule in one line each, or one rule's documentation."""

from __future__ import annotations

import argparse
from typing import Any

from mcp_review.cli.common import UsageError
from mcp_review.review import ExitCode


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rule", nargs="?", help="a rule id")
    p.add_argument(
        "--markdown", action="store_true", help="every rule's documentation as docs/rules.md (the SARIF helpUri's page)"
    )


def run(args: argparse.Namespace) -> int:
    from mcp_review.rules.core import load_rules

    rules = load_rules()
    if args.markdown:
        print(markdown(rules), end="")
        return ExitCode.OK
    if args.rule:
        rule = rules.get(args.rule)
        if rule is None:
            raise UsageError(f"no rule {args.rule!r}; `mcp-review rules` lists them")
        rated = f"concern {rule.concern}, severity {rule.severity}, version {rule.version}"
        print(f"{rule.id}  ({rule.pack}, {rule.mode})\n{rated}\nsource: {rule.cites}\n\n{rule.doc}")
        return ExitCode.OK
    width = max(len(r) for r in rules)
    for rule in rules.values():
        rated = f"{rule.concern:<11}  {rule.severity:<8}"
        print(f"{rule.id:<{width}}  {rule.pack:<8}  {rated}  {rule.mode:<16}  {rule.summary}")
    return ExitCode.OK


def markdown(rules: dict[str, Any]) -> str:
    """docs/rules.md: a heading per rule (the anchor SARIF's `helpUri` names), its pack, mode, concern, default
    severity and version, sources and docs."""
    out = [
        "# Rules",
        "",
        "Every rule's documentation, from its docstring. Generated: `mcp-review rules --markdown > docs/rules.md`.",
        "",
    ]
    for rule in rules.values():
        rated = f"concern `{rule.concern}`, severity `{rule.severity}`, version {rule.version}"
        out += [
            f"## {rule.id}",
            "",
            f"Pack `{rule.pack}`, mode `{rule.mode}`, {rated}; {rule.cites}.",
            "",
            rule.doc,
            "",
        ]
    return "\n".join(out)
