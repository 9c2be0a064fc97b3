"""Helpers shared by the test suite: start real servers on 127.0.0.1 and stop them cleanly."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp_review.catalog import ServerSnapshot

ROOT = Path(__file__).resolve().parent.parent
SERVERS = ROOT / "tests" / "servers"
PYTHON = sys.executable
SLOWNESS = "MCP_REVIEW_TEST_SLOWNESS"  # a parent test process's measure, passed to the processes it starts
REFERENCE_CPU = 0.05  # CPU seconds _work() takes on the 2-core machine the suite's bounds were set on
_measured: tuple[float, float] = (0.0, -60.0)  # (slowness, when)


def _work() -> float:
    """CPU seconds a fixed piece of hashing takes here (process time: the machine's speed, not its load)."""
    started, digest = time.process_time(), hashlib.sha256()
    for _ in range(1_000_000):
        digest.update(b"0123456789abcdef" * 4)
    return time.process_time() - started


def slowness() -> float:
    """How many times slower than the machine the bounds were set on this one is now, at least 1: its CPU speed
    (a fixed piece of work, in CPU time) times its load (runnable processes per core, /proc/loadavg's last
    minute). Hang bounds are multiplied by it, so a loaded or slow machine waits longer instead of failing,
    and a quiet one still catches a hang as soon as before. Measured at most every 30 s per process."""
    global _measured
    if os.environ.get(SLOWNESS):
        return float(os.environ[SLOWNESS])
    value, when = _measured
    if time.monotonic() - when > 30:
        load = os.getloadavg()[0] / (os.cpu_count() or 1)
        value = round(max(1.0, _work() / REFERENCE_CPU) * max(1.0, load), 2)
        _measured = (value, time.monotonic())
    return value


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """`mcp-review ARGS` as a user runs it: a process of its own, this environment plus `env`, the repository on
    PYTHONPATH (a target may import `tests`), its output captured; `timeout` is a hang bound."""
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [PYTHON, "-m", "mcp_review", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd, env=full
    )


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


@functools.cache
def _on_sdk(script: Path) -> bool:
    return any(line.startswith(("from mcp", "import mcp")) for line in script.read_text().splitlines())


def eventually(holds: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll a state until it holds or `timeout` (a hang bound, scaled by `slowness()`) passes (no fixed sleep:
    returns as soon as it holds)."""
    deadline = time.monotonic() + timeout * slowness()
    while not holds():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    timeout *= slowness()  # a hang bound: a loaded machine starts a server later, it does not fail to
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening on {port}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listened on 127.0.0.1:{port} within {timeout}s")


@contextlib.contextmanager
def running(argv: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """Run an HTTP server process until the block ends; its output goes to a log file, not the test."""
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"mcp-review-test-server-{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}, start_new_session=True
        )
    try:
        wait_for_port(port, proc)
        yield proc
    finally:
        stop(proc)


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
