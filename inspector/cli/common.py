"""What the commands share: usage errors, the target options, the target they build, and a session."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

from mcp_review.targets import Target, demo_target, http_target, stdio_target


class UsageError(Exception):
    """Wrong arguments: exit 2 with the message."""


class Failure(Exception):
    """The command ran but could not do its work (e.g. a call with no answer): exit 2 with the message."""


def target_options(p: argparse.ArgumentParser) -> None:
    """The options of a command that talks to a server; `build_target` reads them."""
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
        "--allow-env",
        action="append",
        default=[],
        metavar="NAME",
        help="let a project's config file (not your own) expand ${NAME} / ${env:NAME} from your environment",
    )
    g.add_argument("--allow-env-file", action="append", default=[], metavar="PATH", help="let it read this envFile")
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


def _pairs(values: list[str], sep: str, what: str) -> dict[str, str]:
    out = {}
    for value in values:
        key, found, val = value.partition(sep)
        if not found or not key.strip():
            raise UsageError(f"{what} must look like K{sep}V, got {value!r}")
        out[key.strip()] = val.strip() if sep == ":" else val
    return out


def build_target(args: argparse.Namespace) -> Target:
    """The server the target options name: `args.server_command` (what followed `--`), `--url`, `--config` /
    `--server`, or the bundled demo server."""
    command = args.server_command
    given = [bool(command), bool(args.url), bool(args.config or args.server)]
    if sum(given) > 1:
        raise UsageError("give one target: a command after --, --url, or --config / --server")
    if command:
        target = stdio_target(command, _pairs(args.env, "=", "--env"), args.cwd)
    elif args.url:
        bearer = args.bearer or os.environ.get("MCP_REVIEW_BEARER") or _stored_token(args)
        target = http_target(
            args.url, transport=args.transport, headers=_pairs(args.header, ":", "--header"), bearer=bearer
        )
    elif args.config or args.server:
        target = _configured(args)
    else:
        target = demo_target()
    changes: dict[str, Any] = {"timeout": args.timeout}
    if args.insecure:
        changes["verify"] = False
    elif args.ca:
        changes["verify"] = args.ca
    from mcp_review.redact import remember

    remember(target.secret_values())  # masked in every output from here on, errors included
    return target.with_(**changes)


def _stored_token(args: argparse.Namespace) -> str | None:
    """The token `mcp-review auth login` stored for `--url`, refreshed first if it has expired."""
    from mcp_review.auth.refresh import RefreshFailed, usable_token  # here: a stdio target never loads ssl

    verify: bool | str = False if args.insecure else (args.ca or True)
    try:
        return usable_token(args.url, verify=verify, timeout=args.timeout)
    except RefreshFailed as e:
        raise Failure(f"{e}; log in again: mcp-review auth login {args.url}") from e


def _configured(args: argparse.Namespace) -> Target:
    """An entry of an mcp.json-style file: `--config FILE [--server NAME]`, or `--server NAME` alone (found in
    the files `mcp-review servers` lists). What a project's file asked of the reviewer's environment and was
    not allowed (`--allow-env`, `--allow-env-file`) is withheld, and said in one line."""
    from mcp_review.configs import Allowed, ConfigError, find_discovered, find_server

    allowed = Allowed.by_flags(args.allow_env, args.allow_env_file)
    try:
        if args.config:
            chosen, note = find_server(args.config, args.server, allowed), None
        else:
            chosen, note = find_discovered(args.server, allowed=allowed)
    except ConfigError as e:
        raise UsageError(str(e)) from e
    for line in (note, chosen.withheld_line()):
        if line:
            print(f"mcp-review: {line}", file=sys.stderr)
    assert chosen.target is not None  # find_* raise for an unusable entry
    return chosen.target


def review_config(path: str | None, base: str | None = None) -> Any:
    """The review config resolved (`mcp_review.decisions`): `--review-config FILE`, else ./mcp-review.toml or
    [tool.mcp-review] in pyproject.toml, with the reviewer's own; what a repository file asked for and was
    refused is said here, one line per file."""
    from mcp_review.config import ConfigFileError
    from mcp_review.decisions import resolve
    from mcp_review.rules.core import PACKS, load_rules

    try:
        resolved = resolve(path, base, (set(load_rules()), set(PACKS)))
    except ConfigFileError as e:
        raise UsageError(str(e)) from e
    for line in resolved.refused:
        print(f"mcp-review: {line}", file=sys.stderr)
    return resolved


async def with_session(
    args: argparse.Namespace, target: Target, work: Callable[[Any], Any], started: Callable[[], object] | None = None
) -> Any:
    """`work(session)` on a headless session with `target`; the wire log saved to `--wire-log` whatever happens.
    `started` is called once, when the first message goes to the server (a stdio server's process is running):
    what a command prepares meanwhile is ready by the time the server answers."""
    from mcp_review.connection.channel import Budget
    from mcp_review.connection.session import Session, headless_handlers

    session = Session(target, era=args.era, handlers=headless_handlers(), timeout=args.timeout)
    session.budget = Budget(4 * args.timeout)  # a listing of endless pages, each slow, still ends
    if started is not None:
        pending = [started]

        def on_entry(entry: Any) -> None:
            if entry.direction == "send" and pending:
                pending.pop()()

        session.wire.subscribe(on_entry)
    try:
        async with session:
            return await work(session)
    finally:
        if args.wire_log:
            session.wire.save(args.wire_log)
