"""What the commands share: usage errors, the target options, the one record of what a run uses (`decide`), a
session, and the report files a command writes in the formats their names say (`out_option`, `outs`)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

    from mcp_review.connection.procs import Launched
    from mcp_review.plan import Plan  # the core record; loaded in `decide`, so --help stays fast
    from mcp_review.report.formats import Format


class UsageError(Exception):
    """Wrong arguments: exit 2 with the message."""


class Failure(Exception):
    """The command ran but could not do its work (e.g. a call with no answer): exit 2 with the message."""


def target_options(p: argparse.ArgumentParser) -> None:
    """The options of a command that talks to a server; `decide` reads them."""
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
        choices=["auto", "legacy", "modern", "both"],
        default="auto",
        help="legacy = initialize (2025 revisions), modern = 2026-07-28, auto = ask the server; "
        "both (check, app) = review under each era and show where the rules' verdicts differ",
    )
    g.add_argument("--timeout", type=float, default=30.0, help="seconds per request (default 30)")
    g.add_argument("--insecure", action="store_true", help="do not verify TLS certificates")
    g.add_argument("--ca", metavar="FILE", help="CA bundle to verify TLS with")
    g.add_argument("--wire-log", metavar="FILE", help="save every message (JSONL, secrets masked)")
    confinement_options(p)
    g.add_argument("--debug", action="store_true", help="show tracebacks")


def confinement_options(p: argparse.ArgumentParser) -> None:
    """How a stdio server runs (`mcp_review.plan`): the commands that start one, and `fleet`, which passes them on."""
    c = p.add_argument_group(
        "confinement (a stdio server runs confined: no network, read-only files, a home of canaries)"
    )
    c.add_argument("--no-confine", action="store_true", help="run the server with your own rights, files and network")
    c.add_argument(
        "--observe",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="record what the server does: files, connections, programs (default: with --calls all or --probe)",
    )
    c.add_argument("--allow-net", action="append", default=[], metavar="HOST", help="let it reach HOST (repeatable)")
    c.add_argument("--allow-read", action="append", default=[], metavar="PATH", help="let it read PATH (repeatable)")
    c.add_argument("--allow-write", action="append", default=[], metavar="PATH", help="let it change PATH (repeatable)")


def decide(args: argparse.Namespace, *, target: bool = True, review: bool = False, observed: str | None = None) -> Plan:
    """The one record of what this run uses and who decided each piece (`mcp_review.plan`), from the parsed
    command line, the environment and the working directory's files; what it has to say (a client config's
    withheld variables, a review config's refused grants) is said here, one line each. `observed`: see `plan.decide`."""
    from mcp_review.plan import Asked, LoginExpired, PlanError
    from mcp_review.plan import decide as decided

    try:
        plan = decided(Asked.of(args), os.environ, target=target, review=review, observed=observed)
    except PlanError as e:
        raise UsageError(str(e)) from e
    except LoginExpired as e:
        raise Failure(str(e)) from e
    for line in (*plan.notices, *_unavailable(plan)):
        print(f"mcp-review: {line}", file=sys.stderr)
    return plan


def _unavailable(plan: Plan) -> list[str]:
    """One line each when this machine cannot confine or observe the stdio server as the plan asks."""
    from mcp_review.sandbox import confine, observe

    spec = plan.target.confinement if plan.target is not None and plan.target.kind == "stdio" else None
    out = []
    if spec is not None and spec.confine and (why := confine.unavailable()):
        out.append(f"the server runs unconfined, with your files and network: {why}")
    if spec is not None and spec.observe and (why := observe.unavailable()):
        out.append(f"the server runs unobserved (its behaviour rules are blocking): {why}")
    return out


def launch(plan: Plan) -> Launched | None:
    """A stdio target's server, started now, as the plan decided it (its command, its environment): a command calls
    this before it loads what it needs (asyncio, the session), which then loads while the server starts."""
    from mcp_review.connection import procs

    assert plan.target is not None  # decided with a target
    return procs.launch(plan.target) if plan.target.kind == "stdio" else None


async def with_session(
    args: argparse.Namespace, plan: Plan, work: Callable[[Any], Any], launched: Launched | None = None
) -> Any:
    """`work(session)` on a headless session with the plan's target (its server already started if `launched`);
    the wire log saved to `--wire-log` whatever happens."""
    from mcp_review.connection.channel import Budget
    from mcp_review.connection.session import Session, headless_handlers

    assert plan.target is not None  # decided with a target
    timeout = plan.target.timeout
    assert plan.era != "both"  # refused by `decide` for a command that runs no review
    session = Session(plan.target, era=plan.era, handlers=headless_handlers(), timeout=timeout, launched=launched)
    session.budget = Budget(4 * timeout)  # a listing of endless pages, each slow, still ends
    try:
        async with session:
            return await work(session)
    finally:
        if args.wire_log:
            session.wire.save(args.wire_log)


def out_option(p: argparse.ArgumentParser, formats: Mapping[str, Format[Any]], more: str = "") -> None:
    """`--out FILE`, repeatable: the report written there too, in the format of the family `formats` its name says."""
    from mcp_review.report.formats import endings

    said = f"also write the report here, its format by its name: {', '.join(endings(formats))}{more} (repeatable)"
    p.add_argument("--out", action="append", default=[], metavar="FILE", help=said.replace("%", "%%"))


def outs(formats: Mapping[str, Format[Any]], given: list[str], more: str = "") -> list[tuple[str, Format[Any]]]:
    """Each `--out` with the format its name says, checked before anything runs; `more`: what else a name may be."""
    from mcp_review.report.formats import endings, named_by

    found = [(out, named_by(formats, out)) for out in given]
    for out, fmt in found:
        if fmt is None:
            raise UsageError(f"--out {out}: name it {', '.join(endings(formats))} (its format){more}")
    return [(out, fmt) for out, fmt in found if fmt is not None]
