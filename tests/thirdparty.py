"""Launch specs and fixtures for the third-party MCP servers that `scripts/test-deps` installs into `.deps/`.

Real servers nobody on this team wrote, pinned exactly (see scripts/test-deps and docs in
/work/shared/reference/servers.md):

- npm `@modelcontextprotocol/server-everything@2026.8.31` -> `.deps/npm/node_modules/.bin/`
- PyPI `mcp-server-time==2026.10.19`, `mcp-server-git==2026.10.19` -> `.deps/py/bin/` (their own venv)

The argv helpers call `require()`, so use them inside a test or fixture: a missing server skips the test,
or fails it when `MCP_REVIEW_REQUIRE_THIRDPARTY=1` (which `scripts/test` sets). Test modules import the
fixtures they use: `from tests.thirdparty import everything_http_url`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from tests.support import ROOT, free_port, running

DEPS = ROOT / ".deps"
NPM_BIN = DEPS / "npm" / "node_modules" / ".bin"
PY_BIN = DEPS / "py" / "bin"

EVERYTHING = NPM_BIN / "mcp-server-everything"
TIME = PY_BIN / "mcp-server-time"
GIT = PY_BIN / "mcp-server-git"

REQUIRE_ENV = "MCP_REVIEW_REQUIRE_THIRDPARTY"


def _missing(what: str) -> NoReturn:
    msg = f"{what} is not installed: run scripts/test-deps"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(msg, pytrace=False)
    pytest.skip(msg)


def require(path: Path) -> Path:
    """`path` if it is an installed executable; otherwise fail (MCP_REVIEW_REQUIRE_THIRDPARTY=1) or skip."""
    if not (path.is_file() and os.access(path, os.X_OK)):
        _missing(str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path))
    return path


# ---- stdio launch specs -------------------------------------------------------------------------


def everything_stdio_argv() -> list[str]:
    return [str(require(EVERYTHING)), "stdio"]


def time_argv() -> list[str]:
    return [str(require(TIME)), "--local-timezone", "UTC"]


def git_argv(repo: Path) -> list[str]:
    return [str(require(GIT)), "--repository", str(repo)]


# ---- server-everything over HTTP ----------------------------------------------------------------


def _everything_served(mode: str, path: str) -> Iterator[str]:
    # Checked by running it: `PORT=P mcp-server-everything streamableHttp` serves POST/GET/DELETE /mcp, and
    # `sse` serves GET /sse + POST /message?sessionId=...; neither touches the network. Both bind ALL
    # interfaces (there is no host option) and the server has a `get-env` tool, so it runs with an emptied
    # environment: nothing from CI's environment is readable from the LAN while the tests run.
    exe = require(EVERYTHING)
    port = free_port()
    argv = ["env", "-i", f"PATH={os.environ.get('PATH', os.defpath)}", f"PORT={port}", str(exe), mode]
    with running(argv, port, env={"PORT": str(port)}):
        yield f"http://127.0.0.1:{port}{path}"


@pytest.fixture(scope="module")
def everything_http_url() -> Iterator[str]:
    """server-everything over Streamable HTTP: `http://127.0.0.1:P/mcp`."""
    yield from _everything_served("streamableHttp", "/mcp")


@pytest.fixture(scope="module")
def everything_sse_url() -> Iterator[str]:
    """server-everything over the 2024 HTTP+SSE transport: `http://127.0.0.1:P/sse` (posts go to /message)."""
    yield from _everything_served("sse", "/sse")


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
