"""`mcp-review check`: run the review checklist and write the review."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any

from mcp_review.cli.common import UsageError, decide, target_options
from mcp_review.report import FORMATS
from mcp_review.targets import Target

if TYPE_CHECKING:
    from mcp_review.plan import Permissions  # loaded with the record, in `decide`: --help stays fast


def review_options(p: argparse.ArgumentParser, one_server: bool = True) -> None:
    """What a review runs and with what: `check` and `tui` take the same; `fleet` (not `one_server`) passes them on
    to each check but for `--baseline` (it pins one server) and `--budget` (its own: each server's)."""
    from mcp_review.calls import POLICIES
    from mcp_review.rules.arguments import CALLS_PER_TOOL, CALLS_SEND, PROBES_SEND
    from mcp_review.rules.core import DEFAULT_PACKS, PACKS

    policies = "; ".join(f"{name}: {lets}" for name, lets in POLICIES.items())
    packs = f"{', '.join(PACKS)}, all (repeatable; default: {' '.join(DEFAULT_PACKS)})"
    p.add_argument("--pack", action="append", default=[], help=packs)
    p.add_argument("--ignore", action="append", default=[], metavar="RULE|PACK", help="skip a rule or pack")
    p.add_argument(
        "--calls",
        choices=list(POLICIES),
        help=f"which tools checks may call (default none): {policies}; {CALLS_SEND}".replace("%", "%%"),
    )
    p.add_argument(
        "--probe",
        action="append",
        default=[],
        choices=["security", "security-all"],
        help="active probes with canaries (opt-in): security (every string a tool takes, the payload shaped for "
        "what it carries, within --calls-per-tool), security-all (the same without that budget); tools are called "
        f"only as --calls allows; {PROBES_SEND}",
    )
    p.add_argument(
        "--calls-per-tool",
        type=int,
        metavar="N",
        help=f"calls one rule may make to one tool (default {CALLS_PER_TOOL}): the values the tool's own text "
        "offers (each sent once) and a probe's payloads; what it leaves out is said in the finding and the "
        "review's coverage (`calls_per_tool` under [options] in mcp-review.toml)",
    )
    p.add_argument(
        "--preview",
        action="store_true",
        help="run each MCP App page in headless Chromium, confined to 127.0.0.1, for apps.preview (it launches a "
        "browser; the tool result it shows is the review's sample call, as --calls allows)",
    )
    p.add_argument(
        "--fail-on",
        dest="gate",  # `diff --fail-on` names change classes: another option, another name in the record
        action="append",
        default=[],
        metavar="TERMS",
        help=f"{gate_help()} (README: The gate)",
    )
    p.add_argument(
        "--review-config",
        metavar="FILE",
        help="mcp-review.toml (default: ./mcp-review.toml or [tool.mcp-review] in ./pyproject.toml)",
    )
    if one_server:
        p.add_argument("--baseline", metavar="FILE", help="pinned tool hashes (written on the first run)")
        p.add_argument(
            "--source-root",
            metavar="DIR",
            help="SARIF: the server's repository, searched for the line defining each finding's tool, prompt or "
            "resource (default: the git repository of the current directory; '' for none)",
        )
    p.add_argument(
        "--server-json",
        metavar="FILE",
        help="the server's MCP Registry server.json, compared with the live server (default: ./server.json)",
    )
    p.add_argument(
        "--base",
        metavar="REF",
        help="the git revision the change is compared with (default: the merge base with the upstream and the "
        "default branch; README: Only the reviewer decides): only the decisions already in its review config "
        "count; those the change adds are listed, not applied",
    )
    if one_server:
        p.add_argument(
            "--budget",
            type=float,
            metavar="SECONDS",
            help="how long the whole check may wait on the server, plus 1 s per request (default 4 x --timeout)",
        )


def gate_help() -> str:
    from mcp_review.verdicts import HELP

    return HELP


def consent_notice(granted: Permissions) -> str:
    """What the calls and probes of a review will send, and who consented, said before any is made."""
    from mcp_review.calls import POLICIES
    from mcp_review.rules.arguments import CALLS_SEND, PROBES_SEND

    who = f"{granted.calls_from.who}: {granted.calls_from.how}"
    probes = f"; {PROBES_SEND}" if granted.probes else "; no probe payloads (no --probe)"
    return f"checks may call {POLICIES[granted.calls]} ({who}): {CALLS_SEND}{probes}"


def arguments(p: argparse.ArgumentParser) -> None:
    target_options(p)
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="md",
        help="; ".join(f"{f.name}: {f.help}" for f in FORMATS.values()),
    )
    beside = ", ".join(f"--format {f.name} also {f.beside.name}" for f in FORMATS.values() if f.beside)
    p.add_argument(
        "--out",
        metavar="FILE",
        help=f"write the review here instead of stdout; with {beside} beside it (review.md: review.full.md)",
    )
    review_options(p)
    p.add_argument(
        "--no-pins",
        action="store_true",
        help="compare with neither ./mcp-review.lock nor a baseline (they pin one server; `fleet` passes this)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line on stderr")


def run(args: argparse.Namespace) -> int:
    decided = decide(args, review=True)
    from mcp_review import claims
    from mcp_review.decisions import remember
    from mcp_review.report import headline
    from mcp_review.report.formats import write
    from mcp_review.report.locate import repository_root
    from mcp_review.review import EXIT_CODES

    target, plan = decided.target, decided.check
    assert target is not None and plan is not None and plan.options is not None  # decided with review=True
    tty = sys.stderr.isatty()

    said: list[Any] = []  # what makes every request slow, once said

    def progress(done: int, total: int, rule: Any, _findings: Any, slow: Any) -> None:
        """A live line on a terminal; in a CI log, one line at the start and one at the end. What makes every
        request slow (`pace.Slow`) is said in full once, on a line of its own, as soon as it shows; the live line
        keeps naming it ("~N s a request")."""
        if args.quiet:
            return
        if slow and not said:
            said.append(slow)
            clear = "\r\x1b[K" if tty else ""  # over the live line, which comes back below it
            print(f"{clear}mcp-review: {slow}", file=sys.stderr)
        if tty:
            label = rule.id if rule is not None else "done"
            pace = f" · {slow.short}" if slow else ""
            line = f"\r\x1b[Kchecking {done}/{total} {label}{pace}"
            print(line, end="" if done < total else "\n", file=sys.stderr)
        elif done in (0, total):
            print(f"mcp-review: {'checking' if done == 0 else 'checked'} {total} rules", file=sys.stderr)

    if not args.quiet and decided.permissions.calls != "none":
        print(f"mcp-review: {consent_notice(decided.permissions)}", file=sys.stderr)

    try:
        review = asyncio.run(_run_check(args, target, plan, progress))
    except ValueError as e:  # unknown pack, or a lock that does not read
        raise UsageError(str(e)) from e
    for note in review.notes:  # another server's lock beside this one is said, never compared silently
        if plan.lock and note.startswith(f"{plan.lock} pins "):
            print(f"mcp-review: {note}", file=sys.stderr)
    if line := claims.verdict_line(review):  # never a verdict read without whose decisions made it, or would
        print(f"mcp-review: {line}", file=sys.stderr)
    code = EXIT_CODES[review.gate() or review.verdict]  # the gate's verdict: what --fail-on selects
    if remember(review) and not args.quiet:  # decisions written without a digest: bound to what this review saw
        for line in bound_lines(review):
            print(f"mcp-review: {line}", file=sys.stderr)

    fmt = FORMATS[args.format]
    root = repository_root(args.source_root) if fmt.root else None  # only a format that places findings asks
    if not args.out:
        sys.stdout.writelines(fmt.chunks(review, root=root))
    else:
        wrote = write(fmt, review, args.out, root=root)  # with its companion beside it: review.md, review.full.md
        if not args.quiet:
            print(f"mcp-review: {review.verdict}: wrote {' and '.join(map(str, wrote))}", file=sys.stderr)
    if not args.quiet:  # security first, then the concerns that fail; the overall verdict; the gate and its exit
        print(f"mcp-review: {headline.line(review, icons=False)}", file=sys.stderr)
        print(f"mcp-review: verdict {review.verdict}; {headline.gate(review, icons=False)}", file=sys.stderr)
    return code


def bound_lines(review: Any, most: int = 10) -> list[str]:
    """One line per decision this review bound on first use: what to write in its file to keep it bound."""
    bound = [
        d for d in [*review.waivers, *review.attestations] if d.bound and d.bound.endswith(str(review.created)[:10])
    ]
    out = [
        f"{d.source}: {d.rule}" + (f" on {d.subject}" if d.subject else "") + " bound on first use; keep it bound "
        "with " + ", ".join(f"{k} = {_toml(v)}" for k, v in d.binding().items())
        for d in bound[:most]
    ]
    return out + (
        [f"… and {len(bound) - most} more (the JSON review's waivers and attestations)"] if bound[most:] else []
    )


def _toml(value: Any) -> str:
    """A binding's value as TOML writes it: JSON's strings and numbers, an inline table for `parts` (its keys are a
    definition's top-level field names, quoted: a hostile server may name a field anything)."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {json.dumps(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


async def _run_check(args: argparse.Namespace, target: Target, plan: Any, progress: Any) -> Any:
    from mcp_review.checking import run_check

    keep = (lambda wire: wire.save(args.wire_log)) if args.wire_log else None
    return await run_check(target, plan, progress, keep_wire=keep)
