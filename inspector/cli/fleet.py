"""`mcp-review fleet [matrix]`: review many servers in one run, or print them as a GitHub Actions matrix.

Servers come from `--list FILE`, `--registry server.json`, `--config FILE` (each repeatable), and with none of
those from the discovered client config files (`mcp_review.fleet.sources`). `fleet` reviews each with its own
`check` process (`mcp_review.fleet.runner`) and writes one report for all of them (`mcp_review.fleet.aggregate`,
the same as `mcp-review merge` makes of the state files); `fleet matrix` prints `{"include": [{"key", "name"}]}`,
one job per server, each running `fleet ... --only KEY`.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_review.cli.check import review_options
from mcp_review.cli.common import UsageError, confinement_options, out_option, outs

if TYPE_CHECKING:
    from mcp_review.fleet.aggregate import Row
    from mcp_review.fleet.runner import Outcome
    from mcp_review.fleet.sources import Entry
    from mcp_review.report.formats import Format

BUDGET = 60.0
MATRIX_LIMIT = 256  # jobs GitHub Actions runs from one matrix
FORWARDED = {  # option -> how it goes on to each `check`
    "pack": "--pack",
    "ignore": "--ignore",
    "gate": "--fail-on",
    "calls": "--calls",
    "probe": "--probe",
    "calls_per_tool": "--calls-per-tool",
    "review_config": "--review-config",
    "base": "--base",
    "era": "--era",
    "ca": "--ca",
    "allow_env": "--allow-env",
    "allow_env_file": "--allow-env-file",
    "allow_net": "--allow-net",
    "allow_read": "--allow-read",
    "allow_write": "--allow-write",
}


FOLDER = ", or DIR/: one SARIF file per server (code scanning takes 20 runs a file)"


def output_options(p: argparse.ArgumentParser) -> None:
    """The report options `fleet` and `merge` share: the fleet's formats (`fleet.aggregate.FORMATS`)."""
    from mcp_review.fleet.aggregate import FORMATS

    p.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="the report on stdout (default text): " + "; ".join(f"{f.name}: {f.help}" for f in FORMATS.values()),
    )
    out_option(p, FORMATS, FOLDER)


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", nargs="?", choices=["run", "matrix"], default="run", help="default run")
    g = p.add_argument_group("servers (default: the discovered client config files)")
    g.add_argument("--list", action="append", default=[], metavar="FILE", help="a target a line: URL, command, options")
    g.add_argument("--registry", action="append", default=[], metavar="FILE", help="registry server.json entries")
    g.add_argument("--config", action="append", default=[], metavar="FILE", help="every server of an mcp.json file")
    g.add_argument("--discover", action="store_true", help="the discovered config files too, beside the sources above")
    g.add_argument("--only", action="append", default=[], metavar="KEY", help="only this server (a matrix job's key)")
    g.add_argument("--allow-env", action="append", default=[], metavar="NAME", help="as check's")
    g.add_argument("--allow-env-file", action="append", default=[], metavar="PATH", help="as check's")
    r = p.add_argument_group("run")
    r.add_argument("--jobs", type=int, default=2, metavar="N", help="servers reviewed at once (default 2)")
    r.add_argument("--state", metavar="DIR", help="one JSON review per finished server (default: in the state dir)")
    r.add_argument("--resume", action="store_true", help="skip the servers whose review is in --state already")
    r.add_argument("--timeout", type=float, default=30.0, help="seconds per request (default 30, at most --budget)")
    r.add_argument("--era", choices=["auto", "legacy", "modern"], default="auto")
    r.add_argument("--ca", metavar="FILE", help="CA bundle to verify TLS with")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    r.add_argument(
        "--budget",
        type=float,
        default=BUDGET,
        metavar="SECONDS",
        help=f"each server's: its check may wait on it this long (default {BUDGET:g}); stopped at 2 x this + 15 s",
    )
    confinement_options(p)  # check's, passed on to every check: each stdio server runs confined as they say
    review_options(p, one_server=False)  # check's, passed on to every check
    output_options(p)


def entries(args: argparse.Namespace) -> tuple[list[Entry], list[str]]:
    """The fleet's servers, each once, and the lines to say about what was dropped or skipped."""
    from mcp_review.configs import Allowed
    from mcp_review.fleet.registry import registry_entries
    from mcp_review.fleet.sources import (
        SourceError,
        config_entries,
        discovered_entries,
        list_entries,
        unique,
    )

    allowed = Allowed.by_flags(args.allow_env, args.allow_env_file)
    found: list[Entry] = []
    try:
        for path in args.list:
            found += list_entries(path)
        for path in args.registry:
            found += registry_entries(path)
        for path in args.config:
            found += config_entries(path, allowed)
    except SourceError as e:
        raise UsageError(str(e)) from e
    if args.discover or not (args.list or args.registry or args.config):
        found += discovered_entries(args.config, allowed)
    kept, said = unique(found)
    if args.only:
        missing = set(args.only) - {e.key for e in kept}
        if missing:
            raise UsageError(f"--only: no server with key {', '.join(sorted(missing))} in these sources")
        kept = [e for e in kept if e.key in args.only]
    said += [f"skipped {e.name} ({e.origin}): {e.skipped}" for e in kept if e.skipped]
    return [e for e in kept if not e.skipped], said


def check_args(args: argparse.Namespace) -> tuple[str, ...]:
    out: list[str] = ["--timeout", f"{min(args.timeout, args.budget):g}"]
    for dest, flag in FORWARDED.items():
        value = getattr(args, dest, None)
        for one in value if isinstance(value, list) else [value]:
            if one is not None and not (dest == "era" and one == "auto"):
                out += [flag, str(one)]
    out += ["--no-confine"] if args.no_confine else []
    out += [] if args.observe is None else ["--observe" if args.observe else "--no-observe"]
    return tuple(out)


def run(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    found, said = entries(args)
    for line in said:
        print(f"mcp-review: {line}", file=sys.stderr)
    if args.action == "matrix":
        return _matrix(found)
    to = files(args)
    if not found:
        raise UsageError("no server to review (--list, --registry, --config, or an MCP config file found)")
    from mcp_review.fleet.aggregate import exit_code, headline, load
    from mcp_review.fleet.runner import Runner, Settings
    from mcp_review.trust import state_dir

    forwarded = check_args(args)
    default = hashlib.sha256("\n".join([*sorted(e.key for e in found), *forwarded]).encode()).hexdigest()[:12]
    state = Path(args.state) if args.state else state_dir() / "fleet" / default
    budget = args.budget
    shown = Progress(len(found), quiet=args.quiet)
    runner = Runner(Settings(state, args.jobs, budget, forwarded, args.resume), started=shown.started)
    if not args.quiet:
        print(f"mcp-review: reviewing {len(found)} servers, {args.jobs} at once, state in {state}", file=sys.stderr)
    try:
        outcomes = runner.run(found, shown.done)
    except KeyboardInterrupt:
        print(f"\nmcp-review: stopped; finished reviews are in {state}: --resume continues", file=sys.stderr)
        raise
    rows = load(o.file for o in outcomes)
    write_reports(args, rows, to)
    if not args.quiet:
        print(f"mcp-review: fleet: {headline(rows)}", file=sys.stderr)
    return exit_code(rows)


def _matrix(found: list[Entry]) -> int:
    import json

    from mcp_review.output import inert_json

    if len(found) > MATRIX_LIMIT:
        said = f"{len(found)} jobs: GitHub runs {MATRIX_LIMIT} from one matrix (split the sources)"
        print(f"mcp-review: {said}", file=sys.stderr)
    jobs = {"include": [{"key": e.key, "name": e.name} for e in found]}
    print(inert_json(json.dumps(jobs, ensure_ascii=False)))  # one line: `matrix=...` in $GITHUB_OUTPUT
    return 0


def files(args: argparse.Namespace) -> list[tuple[str, Format[Any] | None]]:
    """Each `--out` with the fleet format its name says (None: DIR/, a SARIF file per server), checked before any
    server is reviewed."""
    from mcp_review.fleet.aggregate import FORMATS

    named = dict(outs(FORMATS, [out for out in args.out if not out.endswith("/")], FOLDER))
    return [(out, named.get(out)) for out in args.out]


def write_reports(args: argparse.Namespace, rows: list[Row], to: list[tuple[str, Format[Any] | None]]) -> None:
    """The report on stdout in `--format`, and in each `--out` file (`files`) in the format its name says."""
    from mcp_review.fleet.aggregate import FORMATS
    from mcp_review.report.formats import write
    from mcp_review.report.sarif_valid import MAX_RUNS

    sarif = FORMATS["sarif"]
    for out, fmt in to:
        if fmt is None:  # code scanning takes 20 runs a file: a folder of one SARIF file per server
            for row in rows:
                write(sarif, [row], f"{out}{row.key}.{sarif.suffix}")
            continue
        if fmt is sarif and len(rows) > MAX_RUNS:
            print(
                f"mcp-review: {out} holds {len(rows)} servers' runs; GitHub code scanning takes {MAX_RUNS} a file: "
                "--out DIR/ writes one file per server (upload the folder)",
                file=sys.stderr,
            )
        write(fmt, rows, out)
    sys.stdout.writelines(FORMATS[args.format].chunks(rows))


class Progress:
    """A line per server as it finishes; on a terminal, below them, which are running now."""

    def __init__(self, total: int, quiet: bool) -> None:
        import threading

        self.total, self.quiet, self.tty = total, quiet, sys.stderr.isatty()
        self.running: list[str] = []
        self.count = 0
        self.lock = threading.Lock()

    def started(self, entry: Entry) -> None:
        with self.lock:
            self.running.append(entry.name)
            self._live()

    def done(self, outcome: Outcome) -> None:
        from mcp_review.text import one_line

        with self.lock:
            self.count += 1
            if outcome.entry.name in self.running:
                self.running.remove(outcome.entry.name)
            if self.quiet:
                return
            counts = outcome.detail
            said = (
                f"not reviewed: {counts.get('error')}"
                if outcome.verdict == "ERROR"
                else f"{counts.get('fail', 0)} fail, {counts.get('blocking', 0)} blocking"
            )
            how = "kept from the last run" if outcome.resumed else f"{outcome.seconds:.1f}s"
            line = f"[{self.count}/{self.total}] {outcome.entry.name}: {outcome.verdict} ({one_line(said, 200)}) {how}"
            print(("\r\x1b[K" if self.tty else "") + f"mcp-review: {line}", file=sys.stderr)
            self._live()

    def _live(self) -> None:
        if self.tty and not self.quiet and self.running:
            import shutil

            width = shutil.get_terminal_size().columns - 1  # one row: `\r\x1b[K` erases no more than that
            line = f"reviewing {self.count}/{self.total}: {', '.join(self.running)}"
            print(f"\r\x1b[K{line[:width]}", end="", file=sys.stderr, flush=True)
