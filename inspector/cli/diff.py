"""`mcp-review diff`: what changed since mcp-review.lock (the live server, or another lock), each change classed
breaking, safety, behaviour or cost (see `mcp_review.diff`). Exit 0 when no change of a `--fail-on` class is
found (approved changes do not count), 1 when one is, 2 on a usage or connection error. The diff goes to stdout in
`--format` (the terminal's table, or one of the diff's report formats, `report.changes.FORMATS`), and to each `--out`
file in the format its name says.

With two locks, OLD is the base: of NEW's approvals only those OLD already has count. Those NEW adds are the
change approving itself: listed under "decisions this change adds" (stderr, and `decisionsThisChangeAdds` in
the JSON) with the file and commit they came from, and not applied."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from mcp_review.cli.common import UsageError, decide, out_option, outs, target_options, with_session
from mcp_review.review import ExitCode

TABLE = "table"  # the terminal's view of a diff (rich, as wide as the terminal), not one of its report formats


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "locks",
        nargs="*",
        metavar="LOCK",
        help="none: ./mcp-review.lock vs the live server; one: that lock vs the live server; two: OLD NEW, no server",
    )
    from mcp_review.report.changes import FORMATS

    target_options(p)
    p.add_argument(
        "--format",
        choices=[TABLE, *FORMATS],
        default=TABLE,
        help=f"on stdout (default {TABLE}: the terminal's view); "
        + "; ".join(f"{f.name}: {f.help}" for f in FORMATS.values()),
    )
    out_option(p, FORMATS)
    p.add_argument(
        "--fail-on",
        default="breaking,safety",
        metavar="CLASSES",
        help="breaking, safety, behaviour, cost (over a budget), any, none; comma-separated (default breaking,safety)",
    )
    p.add_argument("--review-config", metavar="FILE", help="mcp-review.toml with the token budgets ([options])")
    p.add_argument(
        "--other-server",
        action="store_true",
        help="compare a lock that pins another server (its serverInfo name differs) anyway; without it, exit 2",
    )


def run(args: argparse.Namespace) -> int:
    from mcp_review import diff, lock
    from mcp_review.report import changes

    fail_on = [c.strip() for c in args.fail_on.split(",") if c.strip()]
    unknown = sorted(set(fail_on) - {*diff.CLASSES, "any", "none"})
    if unknown or len(args.locks) > 2:
        raise UsageError(f"--fail-on: unknown {', '.join(unknown)}" if unknown else "give at most two locks")
    to = outs(changes.FORMATS, args.out)
    try:
        plan = decide(args, target=len(args.locks) < 2, review=True)  # two locks: no server
        assert plan.check is not None and plan.check.diff_budget is not None
        budget = plan.check.diff_budget
        if len(args.locks) == 2:
            old, new = lock.load(args.locks[0]), lock.load(args.locks[1])
        else:
            found = args.locks[0] if args.locks else lock.find_lock()
            if found is None:
                raise UsageError(f"no {lock.LOCK_NAME} here: write one with `mcp-review pin`, or name a lock")
            old = lock.load(found)
            new = lock.build(asyncio.run(with_session(args, plan, _snapshot)))
    except lock.LockError as e:
        raise UsageError(str(e)) from e
    other = lock.other_server(old, new.server.get("name"))
    if other is not None and not args.other_server:  # every item would differ: said, not diffed
        raise UsageError(f"{other} (--other-server compares them anyway)")
    inherited = [a for a in new.approvals if a in old.approvals]
    result = diff.diff(old, new, budget, inherited)
    document = result.to_json()
    if inherited:  # the approvals that count are the base's: said with the file and commit they came from
        from mcp_review.trust import commit_of

        base = {"file": old.source, "commit": commit_of(old.source) if old.source else None}
        for change in document["changes"]:
            if change.get("approval"):
                change["approval"].update(base)
    added = [a for a in new.approvals if a not in old.approvals]
    if added:
        document["decisionsThisChangeAdds"] = _self_approvals(added, new.source)
    from mcp_review.report.formats import write

    for out, fmt in to:
        write(fmt, document, out)
    if args.format == TABLE:
        from mcp_review.render import print_table

        print_table(*changes.table(document))
    else:
        sys.stdout.writelines(changes.FORMATS[args.format].chunks(document))
    return ExitCode.FAILED if result.fails(fail_on) else ExitCode.OK


def _self_approvals(added: list[Any], source: str | None) -> list[dict[str, Any]]:
    """The approvals a change adds to its own lock, with their provenance; said on stderr, one line."""
    from mcp_review.trust import commit_of

    commit = commit_of(source) if source else None
    shown = ", ".join(f"{a.kind} {a.key} {a.change_class} by {a.by}" for a in added[:5])
    more = f" and {len(added) - 5} more" if len(added) > 5 else ""
    print(
        f"mcp-review: decisions this change adds: {source} approves {shown}{more}; not applied (not on the base)",
        file=sys.stderr,
    )
    return [{**a.to_json(), "file": source, "commit": commit} for a in added]


async def _snapshot(session: Any) -> Any:
    from mcp_review.catalog import take_snapshot

    return await take_snapshot(session)
