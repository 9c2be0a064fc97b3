"""The `mcp-review` command line.

    mcp-review [list|call|servers] [TARGET OPTIONS] [-- command args...]

Target: everything after `--` is a stdio command; or `--url`; or `--config FILE --server NAME`; with no
target, the bundled demo server. Exit codes: 0 ok, 1 the server reported an error, 2 usage or
connection error (one readable line; `--debug` for a traceback). Heavy modules load lazily so that
`--help` and failures answer fast.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from inspector import __version__
from inspector.report import FORMATS
from inspector.review import ExitCode
from inspector.targets import Target, demo_target, http_target, stdio_target


class UsageError(Exception):
    """Wrong arguments: exit 2 with the message."""


def _target_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("target (default: the bundled demo server)")
    g.add_argument("--url", help="Streamable HTTP (or SSE) endpoint, e.g. http://127.0.0.1:8000/mcp")
    g.add_argument("--transport", choices=["http", "sse"], help="for --url: default http (sse if it ends in /sse)")
    g.add_argument("--header", action="append", default=[], metavar="'K: V'", help="HTTP header (repeatable)")
    g.add_argument("--bearer", metavar="TOKEN", help="bearer token (or env MCP_REVIEW_BEARER); never logged")
    g.add_argument("--env", action="append", default=[], metavar="K=V", help="stdio server env (repeatable)")
    g.add_argument("--cwd", help="stdio server working directory")
    g.add_argument("--config", metavar="FILE", help="an mcp.json-style file (Claude, Cursor, VS Code, .mcp.json)")
    g.add_argument("--server", metavar="NAME", help="which server of --config (alone: from the files `servers` finds)")
    g.add_argument(
        "--era",
        choices=["auto", "legacy", "modern"],
        default="auto",
        help="legacy = initialize (2025 revisions), modern = 2026-07-28, auto = ask the server",
    )
    g.add_argument("--timeout", type=float, default=30.0, help="seconds per request (default 30)")
    g.add_argument("--insecure", action="store_true", help="do not verify TLS certificates")
    g.add_argument("--ca", metavar="FILE", help="CA bundle to verify TLS with")
    g.add_argument("--wire-log", metavar="FILE", help="save every message (JSONL, secrets masked)")
    g.add_argument("--debug", action="store_true", help="show tracebacks")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mcp-review",
        description="Review a live MCP server: list it with token costs, call tools, run the checklist.",
        epilog="Everything after -- is a stdio server command, e.g.: mcp-review list -- python server.py",
    )
    p.add_argument("--version", action="version", version=f"mcp-review {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    tui = sub.add_parser("tui", help="the review app (the default command)")
    _target_options(tui)

    ls = sub.add_parser("list", help="what the server offers, each tool with its token cost")
    _target_options(ls)
    ls.add_argument("--format", choices=["table", "json"], default="table")
    ls.add_argument("--encoding", default="cl100k_base", help="cl100k_base (default) or o200k_base")

    call = sub.add_parser("call", help="call one tool and print its result")
    call.add_argument("tool", help="tool name")
    call.add_argument("--args", default="{}", metavar="JSON", help="arguments object (JSON, or @file.json)")
    call.add_argument("--yes", action="store_true", help="consent to call a tool that may have side effects")
    call.add_argument("--format", choices=["text", "json"], default="text")
    _target_options(call)

    chk = sub.add_parser("check", help="run the review checklist; exit 0 pass, 1 fail, 3 blocked, 2 error")
    _target_options(chk)
    chk.add_argument(
        "--pack", action="append", default=[], help="review, spec, tokens, design, registry, all (repeatable)"
    )
    chk.add_argument("--ignore", action="append", default=[], metavar="RULE|PACK", help="skip a rule or pack")
    chk.add_argument("--calls", choices=["none", "read-only", "all"], help="which tools checks may call (default none)")
    chk.add_argument(
        "--probe",
        action="append",
        default=[],
        choices=["security", "security-all"],
        help="active probes with canaries (opt-in): security (parameters chosen by name and schema), "
        "security-all (every string parameter); tools are called only as --calls allows",
    )
    chk.add_argument(
        "--format",
        choices=FORMATS,
        default="md",
        help="md: the short review, grouped, sized for a PR comment; md-full: every finding with its evidence",
    )
    chk.add_argument(
        "--out",
        metavar="FILE",
        help="write the review here instead of stdout; with --format md also the complete one beside it "
        "(review.md: review.full.md)",
    )
    chk.add_argument(
        "--review-config",
        metavar="FILE",
        help="mcp-review.toml (default: ./mcp-review.toml or [tool.mcp-review] in ./pyproject.toml)",
    )
    chk.add_argument("--baseline", metavar="FILE", help="pinned tool hashes (written on the first run)")
    chk.add_argument(
        "--budget",
        type=float,
        metavar="SECONDS",
        help="how long the whole check may wait on the server, plus 1 s per request (default 4 x --timeout)",
    )
    chk.add_argument("-q", "--quiet", action="store_true", help="no progress line on stderr")

    rls = sub.add_parser("rules", help="every rule (id, pack, mode, one line), or one rule's documentation")
    rls.add_argument("rule", nargs="?", help="a rule id")

    srv = sub.add_parser("servers", help="every server found in the usual MCP config files")
    srv.add_argument("--format", choices=["table", "json"], default="table")
    return p


def _split_command(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    argv = list(argv)
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1 :]
    return argv, []


def _pairs(values: list[str], sep: str, what: str) -> dict[str, str]:
    out = {}
    for value in values:
        key, found, val = value.partition(sep)
        if not found or not key.strip():
            raise UsageError(f"{what} must look like K{sep}V, got {value!r}")
        out[key.strip()] = val.strip() if sep == ":" else val
    return out


def build_target(args: argparse.Namespace, command: list[str]) -> Target:
    given = [bool(command), bool(args.url), bool(args.config or args.server)]
    if sum(given) > 1:
        raise UsageError("give one target: a command after --, --url, or --config / --server")
    if command:
        target = stdio_target(command, _pairs(args.env, "=", "--env"), args.cwd)
    elif args.url:
        bearer = args.bearer or os.environ.get("MCP_REVIEW_BEARER")
        target = http_target(
            args.url, transport=args.transport, headers=_pairs(args.header, ":", "--header"), bearer=bearer
        )
    elif args.config or args.server:
        target = _configured(args.config, args.server)
    else:
        target = demo_target()
    changes: dict[str, Any] = {"timeout": args.timeout}
    if args.insecure:
        changes["verify"] = False
    elif args.ca:
        changes["verify"] = args.ca
    from inspector.redact import remember

    remember(target.secret_values())  # masked in every output from here on, errors included
    return target.with_(**changes)


def _configured(path: str | None, name: str | None) -> Target:
    """An entry of an mcp.json-style file: `--config FILE [--server NAME]`, or `--server NAME` alone (found in
    the files `mcp-review servers` lists)."""
    from inspector.configs import ConfigError, find_discovered, find_server

    try:
        if path:
            return find_server(path, name)
        assert name is not None
        target, note = find_discovered(name)
    except ConfigError as e:
        raise UsageError(str(e)) from e
    if note:
        print(f"mcp-review: {note}", file=sys.stderr)
    return target


async def _with_session(args: argparse.Namespace, target: Target, work: Callable[[Any], Any]) -> Any:
    from inspector.connection.channel import Budget
    from inspector.connection.session import Session, headless_handlers

    session = Session(target, era=args.era, handlers=headless_handlers(), timeout=args.timeout)
    session.budget = Budget(4 * args.timeout)  # a listing of endless pages, each slow, still ends
    try:
        async with session:
            return await work(session)
    finally:
        if args.wire_log:
            session.wire.save(args.wire_log)


# -------------------------------------------------------------------------------------- commands
def cmd_list(args: argparse.Namespace, target: Target) -> int:
    from inspector import render
    from inspector.catalog import take_snapshot
    from inspector.tokens import TokenCounter, UnknownEncoding

    try:
        counter = TokenCounter(args.encoding)
    except UnknownEncoding as e:
        raise UsageError(str(e)) from e
    snapshot = asyncio.run(_with_session(args, target, take_snapshot))
    report = render.token_report(snapshot, counter)
    if args.format == "json":
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        render.print_listing(snapshot, report)
    return ExitCode.OK


def _parse_args_json(text: str) -> Any:
    if text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise UsageError(f"cannot read {text[1:]}: {e.strerror}") from e
    try:
        value = json.loads(text)
    except ValueError as e:
        raise UsageError(f"--args is not valid JSON: {e}") from e
    if not isinstance(value, dict):
        raise UsageError("--args must be a JSON object")
    return value


def cmd_call(args: argparse.Namespace, target: Target) -> int:
    from inspector import render
    from inspector.calls import call_tool, side_effect_reason
    from inspector.catalog import take_snapshot

    arguments = _parse_args_json(args.args)

    async def work(session: Any) -> Any:
        snapshot = await take_snapshot(session, kinds=("tool",))
        tool = snapshot.tool(args.tool)
        if tool is None:
            names = ", ".join(t.key for t in snapshot.tools.items[:20]) or "none"
            raise UsageError(f"the server lists no tool named {args.tool!r} (tools: {names})")
        reason = side_effect_reason(tool.raw)
        if reason and not args.yes:
            raise UsageError(
                f"refusing to call {args.tool!r}: {reason}, so it may have side effects; add --yes to consent"
            )
        return await call_tool(session, args.tool, arguments, consent="reviewer" if reason else "read-only")

    record = asyncio.run(_with_session(args, target, work))
    if args.format == "json":
        out = record.result if record.error is None else {"error": record.error}
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        render.print_call(record)
    if record.failure:
        raise _Failure(record.failure)
    return ExitCode.FAILED if record.error is not None or record.is_error else ExitCode.OK


def cmd_servers(args: argparse.Namespace) -> int:
    from inspector import render
    from inspector.configs import discover

    found = discover()
    if args.format == "json":
        rows = [
            {
                "name": s.name,
                "client": s.client,
                "source": s.source,
                "problem": s.problem,
                "target": s.target.public() if s.target else None,
            }
            for s in found
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        render.print_servers(found)
    return ExitCode.OK


def cmd_check(args: argparse.Namespace, target: Target) -> int:

    from checks.core import DEFAULT_PACKS, PACKS, load_rules
    from inspector.checking import CheckPlan
    from inspector.config import ConfigFileError, ReviewConfig, find_config, load_config
    from inspector.output import write_text
    from inspector.report import render, render_chunks
    from inspector.review import EXIT_CODES

    rules = load_rules()
    config_path = args.review_config or find_config()
    try:
        config = load_config(config_path, set(rules), set(PACKS)) if config_path else ReviewConfig()
    except ConfigFileError as e:
        raise UsageError(str(e)) from e
    packs = args.pack or config.packs or list(DEFAULT_PACKS)
    for name in [*args.ignore]:
        if name not in rules and name not in PACKS:
            raise UsageError(f"--ignore: unknown rule or pack {name!r}")

    tty = sys.stderr.isatty()

    def progress(done: int, total: int, rule: Any, _findings: Any) -> None:
        """A live line on a terminal; in a CI log, one line at the start and one at the end."""
        if args.quiet:
            return
        if tty:
            label = rule.id if rule is not None else "done"
            print(f"\r\x1b[Kchecking {done}/{total} {label}", end="" if done < total else "\n", file=sys.stderr)
        elif done in (0, total):
            print(f"mcp-review: {'checking' if done == 0 else 'checked'} {total} rules", file=sys.stderr)

    plan = CheckPlan(
        packs=packs,
        ignore=[*config.ignore, *args.ignore],
        options=config.build_options(args.calls, args.probe),
        waivers=config.waivers,
        attestations=config.attestations,
        era=args.era,
        baseline=args.baseline or config.baseline,
        budget=args.budget,
    )
    try:
        review = asyncio.run(_run_check(args, target, plan, progress))
    except ValueError as e:  # unknown pack
        raise UsageError(str(e)) from e
    if not args.out:
        sys.stdout.writelines(render_chunks(review, args.format))
        return EXIT_CODES[review.verdict]
    wrote = [args.out]
    full = None
    if args.format == "md":  # the short review names the complete one, written beside it
        full = _full_path(args.out)
        write_text(full, render(review, "md-full"))
        wrote.append(full)
    write_text(args.out, render_chunks(review, args.format, os.path.basename(full) if full else None))
    if not args.quiet:
        print(f"mcp-review: {review.verdict}: wrote {' and '.join(wrote)}", file=sys.stderr)
    return EXIT_CODES[review.verdict]


def _full_path(out: str) -> str:
    """Where the complete markdown review goes beside the short one: review.md -> review.full.md."""
    stem, ext = os.path.splitext(out)
    return f"{stem}.full{ext or '.md'}"


async def _run_check(args: argparse.Namespace, target: Target, plan: Any, progress: Any) -> Any:
    from inspector.checking import run_check

    keep = (lambda wire: wire.save(args.wire_log)) if args.wire_log else None
    return await run_check(target, plan, progress, keep_wire=keep)


def cmd_tui(args: argparse.Namespace, target: Target) -> int:
    from inspector.tui.app import ReviewApp  # Textual loads only here: the headless commands never pay for it

    ReviewApp(target, era=args.era).run()
    return ExitCode.OK


def cmd_rules(args: argparse.Namespace) -> int:
    from checks.core import load_rules

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


class _Failure(Exception):
    pass


def _fail(message: str, detail: Sequence[str] = ()) -> NoReturn:
    from inspector.text import one_line

    print(f"mcp-review: error: {one_line(message, 500)}", file=sys.stderr)
    for line in detail[-5:]:
        print(f"  | {one_line(line, 300)}", file=sys.stderr)
    raise SystemExit(ExitCode.USAGE)


def prepare_process() -> None:
    """What `mcp-review` does to its own process before it starts a server (the command line and the app).

    Orphans of a server come back to us and end with us (see `procs`); big buffers go back to the system.
    """
    from inspector.connection import procs

    procs.become_subreaper()
    _return_big_buffers()


def _return_big_buffers() -> None:
    """Ask glibc to give every buffer over 1 MB back to the system when it is freed.

    A hostile server's 32 MB messages are parsed and dropped one after another; by default glibc raises its
    mmap threshold after the first large free and then keeps such buffers on the heap, so the process
    would look hundreds of MB bigger than what it holds (measured: 337 MB against 230 MB on
    tests/hostile's binary-blocks case). Nothing happens where glibc is not the allocator.
    """
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD


def main(argv: Sequence[str] | None = None) -> int:
    own, command = _split_command(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    if not own or (own[0].startswith("-") and own[0] not in ("-h", "--help", "--version")):
        own = ["tui", *own]  # no command: the review app
    args = parser.parse_args(own)
    from inspector.connection import procs
    from inspector.connection.errors import ConnectionFailed
    from inspector.output import guard_streams

    guard_streams()  # every byte to the terminal: secrets masked, no server escape sequence (see output)
    prepare_process()
    try:
        if args.command == "servers":
            return cmd_servers(args)
        if args.command == "rules":
            return cmd_rules(args)
        target = build_target(args, command)
        return {"list": cmd_list, "call": cmd_call, "check": cmd_check, "tui": cmd_tui}[args.command](args, target)
    except UsageError as e:
        if args.__dict__.get("debug"):
            raise
        _fail(str(e))
    except ConnectionFailed as e:
        if args.__dict__.get("debug"):
            raise
        _fail(str(e), e.detail)
    except _Failure as e:
        _fail(str(e))
    except KeyboardInterrupt:
        print("mcp-review: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `mcp-review rules | head`: the reader left; say nothing more, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitCode.FAILED
    finally:
        procs.reap_strays()


if __name__ == "__main__":
    raise SystemExit(main())
