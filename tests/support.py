"""Helpers shared by the test suite: start real servers on 127.0.0.1 and stop them cleanly."""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.pace import Patience

if TYPE_CHECKING:
    from mcp_review.catalog import ServerSnapshot

ROOT = Path(__file__).resolve().parent.parent
SERVERS = ROOT / "tests" / "servers"
PYTHON = sys.executable


def finish(argv: list[str], seconds: float, **options: Any) -> subprocess.CompletedProcess[str]:
    """`subprocess.run(argv, capture_output=True, text=True, **options)` with a hang bound that follows the
    machine (`seconds` on the reference machine, tests/pace.py) instead of a wall time fixed at the start: past it,
    the process is killed and `subprocess.TimeoutExpired` raised, as `subprocess.run` does."""
    patience = Patience(seconds)
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **options) as proc:
        while True:
            try:
                out, err = proc.communicate(timeout=min(0.5, patience.left()) or 0.05)
                break
            except subprocess.TimeoutExpired:
                if patience.spent():
                    proc.kill()
                    out, err = proc.communicate()
                    raise subprocess.TimeoutExpired(argv, patience.wall, out, err) from None
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """`mcp-review ARGS` as a user runs it: a process of its own, this environment plus `env`, the repository on
    PYTHONPATH (a target may import `tests`), its output captured; `timeout` is a hang bound."""
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return finish([PYTHON, "-m", "mcp_review", *args], timeout, cwd=cwd, env=full)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


FORKSERVER = "MCP_REVIEW_TEST_FORKSERVER"  # the session's fork server socket (tests/forkserver.py, tests/conftest.py)


def fixture_argv(name: str, *extra: str) -> list[str]:
    """The command line that runs fixture server `tests/servers/<name>.py` (over stdio, or HTTP as `extra` says):
    a fixture built on the `mcp` SDK starts as a fork of the session's fork server when there is one (the same
    real process on real pipes, without importing the SDK again: tests/forkserver.py)."""
    return script_argv(SERVERS / f"{name}.py", *extra)


def script_argv(script: Path, *extra: str) -> list[str]:
    """The command line that runs a script of the repository, as a fork of the session's fork server when it
    imports the SDK or mcp-review (which imports the SDK) and there is one."""
    if (path := os.environ.get(FORKSERVER)) and _on_sdk(script):
        return [PYTHON, "-S", str(ROOT / "tests" / "forkserver.py"), path, str(script), *extra]
    return [PYTHON, str(script), *extra]


def copied_server(folder: Path, name: str = "good.py") -> Path:
    """Fixture server `tests/servers/NAME` and the fixture modules beside it copied into the project `folder`; its
    path there. A command that names a path outside its project (a repository's entry, a wrapper script in a test's
    folder) is not shown to the confined server (Confinement.named_paths), and this repository's own clone may sit
    under a hidden root (/tmp, /home)."""
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    for path in (SERVERS / name, *(SERVERS / m for m in ("serve.py", "rawserver.py"))):
        shutil.copy(path, folder / path.name)
    return folder / name


@functools.cache
def _on_sdk(script: Path) -> bool:
    return any(line.startswith(("from mcp", "import mcp")) for line in script.read_text().splitlines())


def eventually(holds: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll a state until it holds or `timeout` (a hang bound at this machine's pace, tests/pace.py) passes (no
    fixed sleep: returns as soon as it holds)."""
    patience = Patience(timeout)
    while not holds():
        if patience.spent():
            return False
        time.sleep(0.05)
    return True


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """Until something listens on `port`; `timeout` is a hang bound at this machine's pace: a loaded machine
    starts a server later, it does not fail to."""
    patience = Patience(timeout)
    while not patience.spent():
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening on {port}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listened on 127.0.0.1:{port} within {patience}")


@contextlib.contextmanager
def running(argv: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """Run an HTTP server process until the block ends; its output goes to a log file, not the test. The log is
    removed with the server (a suite run left over a thousand in /tmp); when the server never listens, its tail is
    in the error."""
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"mcp-review-test-server-{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}, start_new_session=True
        )
    try:
        try:
            wait_for_port(port, proc)
        except (RuntimeError, TimeoutError) as error:
            tail = log.read_bytes()[-2000:].decode(errors="replace")
            raise type(error)(f"{error}; the server's output ends:\n{tail}") from None
        yield proc
    finally:
        stop(proc)
        log.unlink(missing_ok=True)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group, then SIGKILL: no orphans."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


@contextlib.contextmanager
def http_fixture(name: str, *extra: str, mode: str = "--http", path: str = "/mcp") -> Iterator[str]:
    """Run `tests/servers/<name>.py --http --port P` (or `--sse`) and yield its URL."""
    port = free_port()
    with running(fixture_argv(name, mode, "--port", str(port), *extra), port):
        yield f"http://127.0.0.1:{port}{path}"


def listed(tools: list[Any], prompts: list[Any] = ()) -> ServerSnapshot:  # type: ignore[assignment]
    """A snapshot that lists `tools` (and `prompts`) as a server sent them on one page, without a server: for what
    only reads a listing (costs, tests/unit/test_tokens_fast.py and bench/tokens.py)."""
    from mcp_review.catalog import LISTS, Item, Listing, ServerSnapshot, _problems

    snapshot = ServerSnapshot.unreachable({}, "")
    for kind, raws in (("tool", tools), ("prompt", prompts)):
        spec = next(s for s in LISTS if s.kind == kind)
        items = [Item(kind, raw, 1, 1, i, _problems(kind, raw)) for i, raw in enumerate(raws)]
        snapshot.lists[kind] = Listing(spec, items)
    return snapshot


def saved_text(path: Path) -> str:
    """The text of a review the app saved (gzip of JSON lines, `mcp_review.saved`): what a secret or a decision would
    be found in; empty before it is written."""
    import gzip

    return gzip.decompress(path.read_bytes()).decode() if path.is_file() else ""


def verdict_line(md: str) -> str:
    """A markdown review's overall verdict line: after the title (with security's verdict) and the line of every
    concern's (report/headline.py)."""
    return next(line for line in md.splitlines() if line.startswith("**Verdict: "))
