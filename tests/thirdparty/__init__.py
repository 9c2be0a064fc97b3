"""Launch specs and fixtures for the third-party MCP servers that `scripts/test-deps` installs into `.deps/`.

Real servers nobody on this team wrote, pinned exactly (see scripts/test-deps and docs in
/work/shared/reference/servers.md), one venv per Python stack so their `mcp` versions never meet.
`NPM` is `.deps/npm/node_modules/.bin`; every HTTP server is reached on 127.0.0.1 only.

TypeScript SDK (`@modelcontextprotocol/sdk@1.32.2`), npm, `.deps/npm`:
- `@modelcontextprotocol/server-everything@2026.8.31`: stdio, Streamable HTTP, SSE.
  `NPM/mcp-server-everything stdio`, `PORT=P NPM/mcp-server-everything streamableHttp|sse` (binds all interfaces).
- `@modelcontextprotocol/server-memory@2026.8.31`: stdio. `MEMORY_FILE_PATH=FILE NPM/mcp-server-memory`.
- `@modelcontextprotocol/server-filesystem@2026.8.31`: stdio. `NPM/mcp-server-filesystem DIR`.
- `@modelcontextprotocol/server-sequential-thinking@2026.8.31`: stdio. `NPM/mcp-server-sequential-thinking`.
- `@modelcontextprotocol/sdk@1.32.2`'s bundled example `dist/esm/examples/server/simpleStreamableHttp.js`:
  Streamable HTTP (stateful). `MCP_PORT=P node simpleStreamableHttp.js` (binds all interfaces).

MCP Apps examples (`@modelcontextprotocol/ext-apps@2.0.4`, the TypeScript SDK 2.0.0), npm, `.deps/apps`:
- `@modelcontextprotocol/server-basic-vanillajs@2.0.3`: stdio. `APPS/mcp-server-basic-vanillajs --stdio`.
- `@modelcontextprotocol/server-budget-allocator@2.0.3`: stdio. `APPS/mcp-budget-allocator-server --stdio`.
  Without `--stdio` both serve Streamable HTTP on PORT (default 3001) bound to 0.0.0.0, with no host option or
  variable (checked in their dist/index.js: `createMcpExpressApp({ host: "0.0.0.0" })`): over HTTP each runs in a
  fresh network namespace whose only interface is loopback, with mcp-review beside it (app_example_http_prefix).

mcp 2.x, PyPI, `.deps/py`:
- `mcp-server-time==2026.10.19`: stdio. `mcp-server-time --local-timezone UTC`.
- `mcp-server-git==2026.10.19`: stdio. `mcp-server-git --repository REPO`.
- `mcp-server-fetch==2026.10.24`: stdio. `mcp-server-fetch --allow-private-ips --ignore-robots-txt` (it refuses
  loopback URLs without them; the tests only fetch a page served on 127.0.0.1).

mcp 1.x (`mcp==1.30.0`, the last 1.x release), PyPI, `.deps/mcp1`:
- `mcp-server-calculator==0.2.1` (FastMCP 1.x): stdio. `mcp-server-calculator`.
- `mcp-server-sqlite==2025.4.25` (1.x low-level `Server`): stdio. `mcp-server-sqlite --db-path DB`.
- ours on that stack, `tests/servers/fastmcp1.py` (`mcp.server.fastmcp.FastMCP`) run by `.deps/mcp1/bin/python`:
  stdio, Streamable HTTP stateful (`--http`) and stateless (`--http --stateless`), SSE (`--sse`).

FastMCP 2+ (`fastmcp==4.1.2`, on mcp 2.x), PyPI, `.deps/fastmcp`:
- its bundled example `fastmcp/contrib/bulk_tool_caller/example.py`: stdio, Streamable HTTP, SSE.
  `fastmcp run EXAMPLE:mcp --no-banner [-t http|sse --host 127.0.0.1 --port P]`.

A server published to the MCP Registry, PyPI, `.deps/gdbstub` (its own venv, mcp 2.x):
- `gdbstub-mcp==0.1.0`: stdio. `gdbstub-mcp` (it talks to QEMU only when a tool is called). Its `server.json`, from
  the same release's source distribution, is `.deps/gdbstub/server.json` (tests/thirdparty/test_declared.py).

The skills extension (SEP-2640), PyPI, `.deps/skills` (its own venv, mcp 2.3.0, Python 3.12):
- `agentskills-mcp-server==0.7.0`: stdio. `agentskills-mcp-server --config FILE` (make_skills writes FILE and SKILLS).

The argv helpers call `require()`, so use them inside a test or fixture: a missing server skips the test,
or fails it when `MCP_REVIEW_REQUIRE_THIRDPARTY=1` (which `scripts/test` sets). Test modules import the
fixtures they use: `from tests.thirdparty import everything_http_url`.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import sqlite3
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from tests.support import ROOT, SERVERS, free_port, running

DEPS = ROOT / ".deps"
NPM_BIN = DEPS / "npm" / "node_modules" / ".bin"
APPS_BIN = DEPS / "apps" / "node_modules" / ".bin"
PY_BIN = DEPS / "py" / "bin"
MCP1_BIN = DEPS / "mcp1" / "bin"
FASTMCP_BIN = DEPS / "fastmcp" / "bin"
GDBSTUB = DEPS / "gdbstub"
SKILLS_SERVER = DEPS / "skills" / "bin" / "agentskills-mcp-server"

EVERYTHING = NPM_BIN / "mcp-server-everything"
MEMORY = NPM_BIN / "mcp-server-memory"
FILESYSTEM = NPM_BIN / "mcp-server-filesystem"
SEQUENTIAL_THINKING = NPM_BIN / "mcp-server-sequential-thinking"
APP_EXAMPLES = {  # the official MCP Apps examples: name -> binary
    "basic-vanillajs": APPS_BIN / "mcp-server-basic-vanillajs",
    "budget-allocator": APPS_BIN / "mcp-budget-allocator-server",
}
SDK_EXAMPLE = DEPS / "npm/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js"
TIME = PY_BIN / "mcp-server-time"
GIT = PY_BIN / "mcp-server-git"
FETCH = PY_BIN / "mcp-server-fetch"
MCP1_PYTHON = MCP1_BIN / "python"
CALCULATOR = MCP1_BIN / "mcp-server-calculator"
SQLITE = MCP1_BIN / "mcp-server-sqlite"
FASTMCP = FASTMCP_BIN / "fastmcp"
FASTMCP_EXAMPLE = "fastmcp/contrib/bulk_tool_caller/example.py"  # inside the fastmcp venv's site-packages

REQUIRE_ENV = "MCP_REVIEW_REQUIRE_THIRDPARTY"


def _missing(what: str) -> NoReturn:
    msg = f"{what} is not installed: run scripts/test-deps"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(msg, pytrace=False)
    pytest.skip(msg)


def require(path: Path, *, executable: bool = True) -> Path:
    """`path` if it is an installed file (executable unless told otherwise); else fail or skip (see above)."""
    if not (path.is_file() and (not executable or os.access(path, os.X_OK))):
        _missing(str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path))
    return path


def _which(program: str) -> str:
    found = shutil.which(program)
    if found is None:
        _missing(program)
    return found


# ---- stdio launch specs -------------------------------------------------------------------------


def everything_stdio_argv() -> list[str]:
    return [str(require(EVERYTHING)), "stdio"]


def time_argv() -> list[str]:
    return [str(require(TIME)), "--local-timezone", "UTC"]


def git_argv(repo: Path) -> list[str]:
    return [str(require(GIT)), "--repository", str(repo)]


def fetch_argv() -> list[str]:
    # By default it refuses private and loopback addresses and asks for robots.txt first: the tests fetch
    # only a page served on 127.0.0.1 (loopback_page_url), so both are lifted.
    return [str(require(FETCH)), "--allow-private-ips", "--ignore-robots-txt"]


def memory_argv(memory_file: Path) -> list[str]:
    # Without MEMORY_FILE_PATH it keeps its graph beside its own code in node_modules.
    return ["env", f"MEMORY_FILE_PATH={memory_file}", str(require(MEMORY))]


def filesystem_argv(root: Path) -> list[str]:
    return [str(require(FILESYSTEM)), str(root)]


def sequential_thinking_argv() -> list[str]:
    return [str(require(SEQUENTIAL_THINKING))]


def app_example_argv(name: str) -> list[str]:
    """An official MCP Apps example (APP_EXAMPLES) over stdio."""
    return [str(require(APP_EXAMPLES[name])), "--stdio"]


# The server in the background on port 3001, the command after it once that port answers, then the server ended.
_BESIDE = (
    '{ PORT=3001 "$1" >/dev/null 2>&1 & } ; server=$!; '
    "for i in $(seq 600); do (: </dev/tcp/127.0.0.1/3001) 2>/dev/null && break; sleep 0.1; done; "
    'shift; "$@"; rc=$?; kill $server; exit $rc'
)
APP_EXAMPLE_URL = "http://127.0.0.1:3001/mcp"


def app_example_http_prefix(name: str) -> list[str]:
    """An official MCP Apps example over HTTP (it binds 0.0.0.0): the prefix that runs a command beside it, both in
    a fresh network namespace whose only interface is loopback (`unshare -n`), the server at APP_EXAMPLE_URL."""
    return ["unshare", "-n", "bash", "-c", "ip link set lo up && " + _BESIDE, "bash", str(require(APP_EXAMPLES[name]))]


def skills_argv(config: Path) -> list[str]:
    return [str(require(SKILLS_SERVER)), "--config", str(config)]


def gdbstub_argv() -> list[str]:
    return [str(require(GDBSTUB / "bin" / "gdbstub-mcp"))]


def gdbstub_server_json() -> Path:
    return require(GDBSTUB / "server.json", executable=False)


def calculator_argv() -> list[str]:
    return [str(require(CALCULATOR))]


def sqlite_argv(db: Path) -> list[str]:
    return [str(require(SQLITE)), "--db-path", str(db)]


def fastmcp1_argv(*mode: str) -> list[str]:
    """tests/servers/fastmcp1.py on mcp 1.x: stdio, or `--http [--stateless] --port P`, `--sse --port P`."""
    return [str(require(MCP1_PYTHON)), str(SERVERS / "fastmcp1.py"), *mode]


def fastmcp_argv(*transport: str) -> list[str]:
    """fastmcp's bundled example: stdio, or `-t http|sse --host 127.0.0.1 --port P`."""
    exe = require(FASTMCP)
    example = next((DEPS / "fastmcp" / "lib").glob(f"python3*/site-packages/{FASTMCP_EXAMPLE}"), None)
    if example is None:
        _missing(f".deps/fastmcp/lib/python3*/site-packages/{FASTMCP_EXAMPLE}")
    return [str(exe), "run", f"{example}:mcp", "--no-banner", *transport]


# ---- servers over HTTP (module scope: one process per test module and worker) ------------------------


def _served(argv: list[str], path: str, port: int) -> Iterator[str]:
    with running(argv, port):
        yield f"http://127.0.0.1:{port}{path}"


def _everything_served(mode: str, path: str) -> Iterator[str]:
    # Checked by running it: `PORT=P mcp-server-everything streamableHttp` serves POST/GET/DELETE /mcp, and
    # `sse` serves GET /sse + POST /message?sessionId=...; neither touches the network. Both bind ALL
    # interfaces (there is no host option) and the server has a `get-env` tool, so it runs with an emptied
    # environment: nothing from CI's environment is readable from the LAN while the tests run.
    exe = require(EVERYTHING)
    port = free_port()
    argv = ["env", "-i", f"PATH={os.environ.get('PATH', os.defpath)}", f"PORT={port}", str(exe), mode]
    yield from _served(argv, path, port)


def _sdk_example_served() -> Iterator[str]:
    # It binds all interfaces (express's default) with no host option; like server-everything it gets an
    # emptied environment. MCP_PORT is its port variable (PORT is ignored).
    example = require(SDK_EXAMPLE, executable=False)
    port = free_port()
    argv = ["env", "-i", f"PATH={os.environ.get('PATH', os.defpath)}", f"MCP_PORT={port}", _which("node"), str(example)]
    yield from _served(argv, "/mcp", port)


def _fastmcp1_served(*mode: str, path: str) -> Iterator[str]:
    port = free_port()
    yield from _served(fastmcp1_argv(*mode, "--port", str(port)), path, port)


def _fastmcp_served(transport: str, path: str) -> Iterator[str]:
    port = free_port()
    yield from _served(fastmcp_argv("-t", transport, "--host", "127.0.0.1", "--port", str(port)), path, port)


def _url_fixture(serve: Callable[..., Iterator[str]], *args: str, **kwargs: str) -> Any:
    """A module-scoped fixture yielding the URL that `serve(*args, **kwargs)` serves at. pytest names a fixture
    after the variable it is assigned to: the table below is every HTTP fixture, a line a server and transport."""

    def url() -> Iterator[str]:
        yield from serve(*args, **kwargs)

    call = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
    url.__doc__ = f"http://127.0.0.1:P/... as served by {serve.__name__}({call})."
    return pytest.fixture(url, scope="module")


# Streamable HTTP at /mcp, the 2024 HTTP+SSE transport at /sse (posts go where its `endpoint` event says).
everything_http_url = _url_fixture(_everything_served, "streamableHttp", "/mcp")
everything_sse_url = _url_fixture(_everything_served, "sse", "/sse")
sdk_example_http_url = _url_fixture(_sdk_example_served)  # the TypeScript SDK's simpleStreamableHttp (stateful)
fastmcp1_http_url = _url_fixture(_fastmcp1_served, "--http", path="/mcp")  # tests/servers/fastmcp1.py, sessions
fastmcp1_stateless_url = _url_fixture(_fastmcp1_served, "--http", "--stateless", path="/mcp")  # stateless_http=True
fastmcp1_sse_url = _url_fixture(_fastmcp1_served, "--sse", path="/sse")
fastmcp_http_url = _url_fixture(_fastmcp_served, "http", "/mcp")  # fastmcp's bundled example
fastmcp_sse_url = _url_fixture(_fastmcp_served, "sse", "/sse")


# ---- data the servers read ----------------------------------------------------------------------

LOOPBACK_PAGE = "<html><body><h1>Review notes</h1><p>The wire is the truth.</p></body></html>"
MEMORY_GRAPH = ({"type": "entity", "name": "Ada", "entityType": "person", "observations": ["reviews MCP servers"]},)
SQLITE_NOTES = (("n1", "Buy milk"), ("n2", "Review the MCP server"))
FILESYSTEM_FILES = {"notes.txt": "Buy milk\n", "todo.md": "# Review\n"}


class _PageHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = LOOPBACK_PAGE.encode()
        self.send_response(200)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # quiet: the test output is not its log
        pass


@pytest.fixture(scope="module")
def loopback_page_url() -> Iterator[str]:
    """LOOPBACK_PAGE served on 127.0.0.1 (for mcp-server-fetch): `http://127.0.0.1:P/page.html`."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _PageHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/page.html"
    finally:
        server.shutdown()
        server.server_close()


SKILLS = {  # two skills for agentskills-mcp-server, one with a reference file
    "pdf-notes/SKILL.md": "---\nname: pdf-notes\ndescription: Summarise a PDF into short notes.\n---\n# PDF notes\n\n"
    "Read the PDF, then write five bullet notes. See references/FORMAT.md.\n",
    "pdf-notes/references/FORMAT.md": "# Format\n\nOne line per note.\n",
    "release-notes/SKILL.md": "---\nname: release-notes\ndescription: Draft release notes from merged changes.\n"
    "license: MIT\n---\n# Release notes\n\nOne line per change, grouped by area.\n",
}


def make_skills(where: Path) -> Path:
    """SKILLS in `where/skills` and the server's config naming them, `where/server.json` (returned)."""
    for path, text in SKILLS.items():
        (where / "skills" / path).parent.mkdir(parents=True, exist_ok=True)
        (where / "skills" / path).write_text(text)
    skills = [
        {"id": n, "provider": "fs", "options": {"root": str(where / "skills")}} for n in ("pdf-notes", "release-notes")
    ]
    (where / "server.json").write_text(json.dumps({"name": "Skills Server", "skills": skills}))
    return where / "server.json"


def make_memory_file(path: Path) -> Path:
    """server-memory's store (JSON lines) holding MEMORY_GRAPH."""
    path.write_text("".join(json.dumps(item) + "\n" for item in MEMORY_GRAPH))
    return path


def make_sqlite_db(path: Path) -> Path:
    """A SQLite database with one table, `notes(id, body)`, holding SQLITE_NOTES."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT)")
        db.executemany("INSERT INTO notes VALUES (?, ?)", SQLITE_NOTES)
    return path


def make_files(root: Path) -> Path:
    """A directory holding FILESYSTEM_FILES (for server-filesystem)."""
    root.mkdir(parents=True, exist_ok=True)
    for name, content in FILESYSTEM_FILES.items():
        (root / name).write_text(content)
    return root


# ---- a deterministic git repository for mcp-server-git ------------------------------------------

GIT_AUTHOR = {
    "GIT_AUTHOR_NAME": "Ada Reviewer",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada Reviewer",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
}
# (date, file, content, subject) per commit; same inputs -> same commit ids on every machine.
GIT_COMMITS = (
    ("2026-01-01T12:00:00+00:00", "README.md", "# demo\n", "Initial commit"),
    ("2026-01-02T12:00:00+00:00", "notes.txt", "second\n", "Add notes"),
)
GIT_REPO_HEAD = "73bcf65239443189eee704e74e4b0c67481e4b62"


def _git_env(date: str) -> dict[str, str]:
    # Drop GIT_* from the caller (a hook's GIT_DIR would redirect every command) and ignore user and
    # system config (signing, hooks, init.defaultBranch), so the repository is the same everywhere.
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR)
    env.update(
        GIT_AUTHOR_DATE=date,
        GIT_COMMITTER_DATE=date,
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        TZ="UTC",
        LC_ALL="C",
    )
    return env


def make_git_repo(path: Path) -> Path:
    """A git repository at `path` with the two commits of GIT_COMMITS on branch `main`."""
    git = shutil.which("git")
    if git is None:
        _missing("git")
    path.mkdir(parents=True, exist_ok=True)

    def run(*args: str, date: str = GIT_COMMITS[0][0]) -> None:
        subprocess.run([git, *args], cwd=path, env=_git_env(date), check=True, capture_output=True)

    run("init", "-q", "-b", "main")
    for date, name, content, subject in GIT_COMMITS:
        (path / name).write_text(content)
        run("add", name, date=date)
        run("commit", "-q", "-m", subject, date=date)
    return path


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A fresh two-commit repository (function scope: mcp-server-git's tools can change it)."""
    return make_git_repo(tmp_path / "repo")
