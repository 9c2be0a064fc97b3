"""Regenerate docs/examples/: every third-party server of the suite, over every transport it serves, reviewed.

    .venv/bin/python scripts/examples.py [NAME ...]      # after scripts/test-deps

Each review is `mcp-review check --pack all --calls read-only --format md` (the short review, the complete one
is `--format md-full`) written to docs/examples/NAME.md. Then the default packs (review, spec, apps) run again as
JSON, and every `fail` is printed, one line each: the list docs/examples/README.md judges. A launch gives the
review's target and, for a server that must not be reached from outside (the MCP Apps examples bind 0.0.0.0), a
prefix that runs mcp-review beside it in a network namespace of its own.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import thirdparty as tp  # noqa: E402  (launch specs and data shared with the test suite)

OUT = ROOT / "docs" / "examples"
Target = tuple[list[str], list[str]]  # (prefix the review runs under, its target arguments)
Launch = Callable[[Path], contextlib.AbstractContextManager[Target]]


def served(start: Callable[..., Iterator[str]], *args: str, transport: str = "http", **kw: str) -> Launch:
    """A server over HTTP for one review: started, reviewed at its URL, stopped."""

    @contextlib.contextmanager
    def launch(_data: Path) -> Iterator[Target]:
        with contextlib.contextmanager(start)(*args, **kw) as url:
            yield [], ["--url", url, *(["--transport", "sse"] if transport == "sse" else [])]

    return launch


def on_stdio(argv: Callable[[Path], list[str]], options: Callable[[], list[str]] = list) -> Launch:
    @contextlib.contextmanager
    def launch(data: Path) -> Iterator[Target]:
        yield [], [*options(), "--", *argv(data)]

    return launch


def app_over_http(name: str) -> Launch:
    """An MCP Apps example over HTTP, started afresh beside each review inside `unshare -n` (as the tests run it)."""

    @contextlib.contextmanager
    def launch(_data: Path) -> Iterator[Target]:
        yield tp.app_example_http_prefix(name), ["--url", tp.APP_EXAMPLE_URL]

    return launch


SERVERS: dict[str, Launch] = {
    "everything-stdio": on_stdio(lambda _d: tp.everything_stdio_argv()),
    "everything-http": served(tp._everything_served, "streamableHttp", "/mcp"),
    "everything-sse": served(tp._everything_served, "sse", "/sse", transport="sse"),
    "memory-stdio": on_stdio(lambda d: tp.memory_argv(tp.make_memory_file(d / "memory.jsonl"))),
    "filesystem-stdio": on_stdio(lambda d: tp.filesystem_argv(tp.make_files(d / "files"))),
    "sequential-thinking-stdio": on_stdio(lambda _d: tp.sequential_thinking_argv()),
    "sdk-example-http": served(tp._sdk_example_served),
    "time-stdio": on_stdio(lambda _d: tp.time_argv()),
    "git-stdio": on_stdio(lambda d: tp.git_argv(tp.make_git_repo(d / "repo"))),
    "fetch-stdio": on_stdio(lambda _d: tp.fetch_argv()),
    "calculator-stdio": on_stdio(lambda _d: tp.calculator_argv()),
    "sqlite-stdio": on_stdio(lambda d: tp.sqlite_argv(tp.make_sqlite_db(d / "notes.db"))),
    "fastmcp1-stdio": on_stdio(lambda _d: tp.fastmcp1_argv()),
    "fastmcp1-http": served(tp._fastmcp1_served, "--http", path="/mcp"),
    "fastmcp1-http-stateless": served(tp._fastmcp1_served, "--http", "--stateless", path="/mcp"),
    "fastmcp1-sse": served(tp._fastmcp1_served, "--sse", path="/sse", transport="sse"),
    "fastmcp-stdio": on_stdio(lambda _d: tp.fastmcp_argv()),
    "fastmcp-http": served(tp._fastmcp_served, "http", "/mcp"),
    "fastmcp-sse": served(tp._fastmcp_served, "sse", "/sse", transport="sse"),
    # the official MCP Apps examples; over HTTP they bind 0.0.0.0, so they run in a network namespace of their own
    **{f"app-{name}-stdio": on_stdio(lambda _d, n=name: tp.app_example_argv(n)) for name in sorted(tp.APP_EXAMPLES)},
    **{f"app-{name}-http": app_over_http(name) for name in sorted(tp.APP_EXAMPLES)},
    "skills-stdio": on_stdio(lambda d: tp.skills_argv(tp.make_skills(d))),
    "gdbstub-stdio": on_stdio(lambda _d: tp.gdbstub_argv(), lambda: ["--server-json", str(tp.gdbstub_server_json())]),
}


def check(target: Target, *options: str) -> str:
    prefix, args = target
    argv = [*prefix, sys.executable, "-m", "mcp_review", "check", "-q", "--calls", "read-only", "--timeout", "15"]
    done = subprocess.run([*argv, *options, *args], capture_output=True, text=True, timeout=600, cwd=ROOT)
    if done.returncode not in (0, 1, 3):
        raise SystemExit(f"mcp-review check {' '.join(args)} exited {done.returncode}: {done.stderr[-500:]}")
    return done.stdout


def main() -> None:
    names = sys.argv[1:] or list(SERVERS)
    for name in names:
        with tempfile.TemporaryDirectory() as tmp, SERVERS[name](Path(tmp)) as target:
            (OUT / f"{name}.md").write_text(check(target, "--pack", "all", "--format", "md"), encoding="utf-8")
            review = json.loads(check(target, "--format", "json"))
        fails = [f for f in review["findings"] if f["status"] == "fail"]
        print(f"## {name}: {review['server'].get('name')} {review['server'].get('version')}, {review['verdict']}")
        for f in fails:
            print(f"- `{f['rule']}` {f['subject'] or '(server)'}: {f['message']}")


if __name__ == "__main__":
    main()
