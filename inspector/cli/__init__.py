"""The `mcp-review` command line.

    mcp-review [tui|list|call|check|fleet|merge|pin|diff|rules|servers|auth|trust] [TARGET OPTIONS] [-- command args...]

Target: everything after `--` is a stdio command; or `--url`; or `--config FILE --server NAME`; with no
target, the bundled demo server. Exit codes: 0 ok, 1 the server reported an error, 2 usage or
connection error (one readable line; `--debug` for a traceback). Heavy modules load lazily so that
`--help` and failures answer fast.

One module per command, named in `COMMANDS` with its name and help line. A new command is a module here with
`arguments(parser)` (its options; `common.target_options` for one that talks to a server) and
`run(args) -> int` (it reads what it runs from one record, `common.decide(args)`, raises `common.UsageError` for
wrong arguments, and imports what it needs inside `run`), added to `COMMANDS`. Everything around a command
(the `--` split, the streams guard, process setup, turning errors into one line and an exit code) is here.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import NoReturn

from mcp_review import __version__
from mcp_review.cli.common import Failure, UsageError

# name -> (its module here, its line in `--help`), in the order `mcp-review --help` lists them. Named, not imported,
# as pip's `commands_dict` does: a run imports only its own command's module (`list` starts its server sooner).
COMMANDS: dict[str, tuple[str, str]] = {
    "tui": ("app", "the review app (the default command)"),
    "list": ("listing", "what the server offers, each tool with its token cost"),
    "call": ("call", "call one tool and print its result"),
    "app": ("preview", "open a tool's MCP App in a sandboxed host page on 127.0.0.1 and report what broke"),
    "check": ("check", "run the review checklist; exit 0 pass, 1 fail, 3 blocked, 2 error"),
    "fleet": (
        "fleet",
        "review many servers (config files, a list, server.json); `fleet matrix`: a GitHub Actions matrix",
    ),
    "merge": ("merge", "merge JSON reviews (check --format json, fleet state files) into one fleet report"),
    "pin": ("pin", "write mcp-review.lock: every definition as sent, its hash and token cost"),
    "diff": (
        "diff",
        "what changed since the lock (live server vs lock, or OLD.lock NEW.lock); exit 0 none failing, "
        "1 changes of a --fail-on class, 2 error",
    ),
    "rules": ("rules", "every rule (id, pack, mode, one line), or one rule's documentation"),
    "servers": ("servers", "every server found in the usual MCP config files"),
    "auth": ("auth", "log in to OAuth-protected servers; list or forget the stored tokens"),
    "trust": ("trust", "trust a repository's review config as it is now (its grants apply until the file changes)"),
    "action": (
        "action",
        "the GitHub Action's step: review, diff against the base's lock, summary, PR comment, SARIF, gates",
    ),
}
DEFAULT = "tui"  # what `mcp-review` runs with no command


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with a known `command`, only that command's parser is made and its module
    imported (some import what their help names, e.g. `check`'s the rules'): its usage, help and errors are the
    same, and `list` starts its server ~1.5 ms sooner. Otherwise every command is listed, for `--help` and for
    the error that names the choices."""
    p = argparse.ArgumentParser(
        prog="mcp-review",
        description="Review a live MCP server: list it with token costs, call tools, run the checklist.",
        epilog="Everything after -- is a stdio server command, e.g.: mcp-review list -- python server.py",
    )
    p.add_argument("--version", action="version", version=f"mcp-review {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_line) in COMMANDS.items():
        if command in COMMANDS and command != name:
            continue
        cp = sub.add_parser(name, help=help_line)
        if command in (None, name):
            module = importlib.import_module(f"{__name__}.{module_name}")
            module.arguments(cp)
            cp.set_defaults(run=module.run)
    return p


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """The arguments of `mcp-review ARGV`; what follows `--` (a stdio server's command) is `server_command`."""
    own, server_command = list(argv), []
    if "--" in own:
        i = own.index("--")
        own, server_command = own[:i], own[i + 1 :]
    if not own or (own[0].startswith("-") and own[0] not in ("-h", "--help", "--version")):
        own = [DEFAULT, *own]  # no command: the review app
    named = [a for a in own[1:] if a.startswith(("npm:", "pypi:"))]  # a package to review: `check npm:NAME@V`
    if named and not server_command:
        own, server_command = [a for a in own if a != named[0]], [named[0]]
    args = parser(own[0]).parse_args(own)
    args.server_command = server_command
    args.own_argv = own  # its own arguments as given (`tui --web` runs the app again with them)
    return args


def _fail(message: str, detail: Sequence[str] = ()) -> NoReturn:
    from mcp_review.review import ExitCode  # here: the review's module loads after a server starts
    from mcp_review.text import one_line

    print(f"mcp-review: error: {one_line(message, 500)}", file=sys.stderr)
    for line in detail[-5:]:
        print(f"  | {one_line(line, 300)}", file=sys.stderr)
    raise SystemExit(ExitCode.USAGE)


def prepare_process() -> None:
    """What `mcp-review` does to its own process before it starts a server (the command line and the app).

    Orphans of a server come back to us and end with us (see `procs`); big buffers go back to the system.
    """
    from mcp_review.connection import procs

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
    args = parse(sys.argv[1:] if argv is None else argv)
    from mcp_review.connection import procs
    from mcp_review.connection.errors import ConnectionFailed
    from mcp_review.output import guard_streams

    guard_streams()  # every byte to the terminal: secrets masked, no server escape sequence (see output)
    prepare_process()
    run: Callable[[argparse.Namespace], int] = args.run  # the command's `run`, set by its subparser
    try:
        return run(args)
    except UsageError as e:
        if args.__dict__.get("debug"):
            raise
        _fail(str(e))
    except ConnectionFailed as e:
        if args.__dict__.get("debug"):
            raise
        _fail(str(e), e.detail)
    except Failure as e:
        _fail(str(e))
    except KeyboardInterrupt:
        print("mcp-review: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `mcp-review rules | head`: the reader left; say nothing more, and no traceback
        from mcp_review.review import ExitCode

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitCode.FAILED
    finally:
        procs.reap_strays()


def entry() -> NoReturn:
    """What `mcp-review` and `python -m mcp_review` run: `main`, then an exit without the interpreter's teardown
    when nothing depends on it (`_exit_now`). Tests call `main`, which never ends their process."""
    code = main()
    _exit_now(code)
    raise SystemExit(code)


def _exit_now(code: int) -> None:
    """End the process now, skipping the interpreter's teardown (it frees every module and object: 55-130 ms after
    `list` of 1,000 tools, measured), once what of it matters is done: the counting threads joined, the exit
    handlers run (`procs` ends any server still registered), stdout and stderr flushed; the files mcp-review
    writes are closed when written (`output.write_text`). Returns, for the usual exit, while another thread still
    runs (the app's file writer: the interpreter waits for it), when a stream cannot be flushed (its reader left:
    the usual exit says so), or under a profiler or tracer (cProfile, coverage: they write what they measured at
    the interpreter's exit, which `os._exit` would skip)."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return
    tokens = sys.modules.get("mcp_review.tokens")
    if tokens is not None:
        tokens.shutdown()
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return
    atexit._run_exitfuncs()
    try:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    except (OSError, ValueError):
        return
    os._exit(code)
