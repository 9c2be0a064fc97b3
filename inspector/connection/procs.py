"""No server process left behind, however it detaches.

A stdio server starts in its own session and process group, so a signal to the group reaches what it
spawned. That is not enough against a server that escapes the group (`setsid`, a double fork) or ignores
SIGTERM, so every server is also:

- marked: its environment carries `MCP_REVIEW_SERVER=<token>`, which its descendants inherit;
- tracked: its descendants are found through /proc (by parent, and by the marker) before anything is
  signalled, and killed with it;
- adopted: the `mcp-review` process makes itself a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`), so
  a process that double-forks away from a server is re-parented to mcp-review instead of to init, and
  `reap_strays()` ends it when the command or the app exits;
- registered: at interpreter exit every server still registered is killed (SIGKILL) with its tree,
  even when the app or the command ended without closing it (an exception, a quit mid-call);
- told: the server gets SIGKILL if mcp-review itself dies (Linux `PR_SET_PDEATHSIG`).

Where /proc or prctl do not exist (macOS), the process group is what remains.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_review import sandbox
from mcp_review.targets import Target, child_env

MARK = "MCP_REVIEW_SERVER"
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
_PROC = Path("/proc")
_live: dict[int, str] = {}  # pid of each running server -> its marker token
_adopting = False  # this process is a subreaper: orphans of its servers are its children (see reap_strays)


def new_token() -> str:
    """A marker's value: 32 random hex digits, as long as uuid4().hex, without loading uuid before a server starts."""
    return os.urandom(16).hex()


def _load_prctl() -> Any:
    """libc's prctl, looked up once here: the child calls it between fork and exec, where loading is unsafe."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()
CAN_PRCTL = _PRCTL is not None


def _prctl(option: int, value: int) -> bool:
    return _PRCTL is not None and _PRCTL(option, value, 0, 0, 0) == 0


def become_subreaper() -> bool:
    """Orphans of our servers come to us, not to init. Only `mcp-review` itself calls this (the command line
    and the app it runs): a process that has other children of its own (a test runner) must not."""
    global _adopting
    _adopting = _prctl(PR_SET_CHILD_SUBREAPER, 1)
    return _adopting


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """In a child (a server, before exec; the app `tui --web` serves, itself): `sig` when its parent dies."""
    _prctl(PR_SET_PDEATHSIG, sig)


@dataclass(frozen=True)
class Launched:
    """A stdio server's process as `launch` started it, or the error that kept it from starting."""

    token: str  # its marker's value: it and everything it starts carry `MARK=token`
    process: subprocess.Popen[bytes] | None
    error: OSError | None = None
    ran: sandbox.Ran | None = None  # how it runs: confined, observed (`mcp_review.sandbox`)
    trace: sandbox.Trace | None = None  # what strace writes about it, when observed


def launch(target: Target) -> Launched:
    """Start `target`'s server: its own session and process group, marked, told to die with us, registered, and
    confined and observed as `target.confinement` asks and the machine allows (`mcp_review.sandbox`); its environment
    is `child_env(target)`, what the plan let it have. No event loop is needed (asyncio's modules need not even be
    loaded: `list` starts its server before them), so `connection.stdio` adopts the process later."""
    token = new_token()
    env = {**child_env(target), MARK: token}
    command = target.command or ""
    if target.cwd and not os.path.isdir(target.cwd):
        return Launched(token, None, FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), target.cwd))
    if not _found(command, env, target.cwd):  # as Popen would say it, before a launcher hides it
        return Launched(token, None, FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), command))
    prepared = sandbox.prepare(target, [command, *target.args], env)
    try:
        process = subprocess.Popen(  # as asyncio's create_subprocess_exec starts one; `stdio` makes the pipes streams
            prepared.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            env=env,
            cwd=target.cwd,
            start_new_session=True,  # its own process group: closing reaches grandchildren (npx -> node)
            preexec_fn=die_with_parent if CAN_PRCTL else None,
        )
    except OSError as e:
        if prepared.trace is not None:
            prepared.trace.close()
        return Launched(token, None, e)
    register(process.pid, token)
    return Launched(token, process, ran=prepared.ran, trace=prepared.trace)


def _found(command: str, env: dict[str, str], cwd: str | None) -> bool:
    if "/" in command:
        return os.path.exists(os.path.join(cwd or os.getcwd(), command))
    return shutil.which(command, path=env.get("PATH")) is not None


def _parents() -> dict[int, int]:
    """pid -> parent pid, for every process we can see."""
    out: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir(_PROC):
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = Path(entry.path, "stat").read_bytes()
                out[int(entry.name)] = int(stat[stat.rindex(b")") + 2 :].split()[1])
    return out


def _marked(token: str, pids: list[int]) -> set[int]:
    needle = f"{MARK}={token}".encode()
    found = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            if needle in (_PROC / str(pid) / "environ").read_bytes():
                found.add(pid)
    return found


def tree(pid: int, token: str | None = None) -> set[int]:
    """`pid`, its descendants, and every process carrying the marker `token` (with theirs)."""
    parents = _parents()
    if not parents:
        return {pid}
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    roots = {pid} | (_marked(token, list(parents)) if token else set())
    found: set[int] = set()
    stack = list(roots)
    while stack:
        p = stack.pop()
        if p in found or p == os.getpid():
            continue
        found.add(p)
        stack.extend(children.get(p, ()))
    return found


def kill(pids: set[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    _reap(pids)


def _reap(pids: set[int]) -> None:
    """Collect the exit status of adopted orphans (never of a child asyncio waits for: not registered)."""
    for pid in pids - set(_live):
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def kill_tree(pid: int, token: str | None, rounds: int = 5) -> None:
    """SIGKILL `pid` and everything `tree` finds, until nothing is left (a process may fork meanwhile)."""
    for _ in range(rounds):
        found = tree(pid, token) if _PROC.is_dir() else {pid}
        alive = {p for p in found if _alive(p)}
        if not alive:
            return
        kill(alive)


def _alive(pid: int) -> bool:
    try:
        state = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    return state[state.rindex(b")") + 2 : state.rindex(b")") + 3] != b"Z"


def children() -> set[int]:
    """This process's children still running (a zombie has ended)."""
    me = os.getpid()
    return {pid for pid, parent in _parents().items() if parent == me and _alive(pid)}


def register(pid: int, token: str) -> None:
    _live[pid] = token


def unregister(pid: int) -> None:
    _live.pop(pid, None)


def reap_strays(*, everything: bool = True) -> None:
    """End the processes re-parented to us (we are their subreaper): what servers left behind.

    `everything`: the registered servers too (when `mcp-review` exits, nothing it started may still run);
    else only the strays, so the connections still open are kept (the app, after a connection ended).
    Does nothing unless `become_subreaper()` succeeded in this process.
    """
    if everything:
        for pid, token in list(_live.items()):
            kill_tree(pid, token)
            _live.pop(pid, None)
    if not _adopting:
        return
    for pid in children() - set(_live):
        kill_tree(pid, None)


@atexit.register
def _at_exit() -> None:
    for pid, token in list(_live.items()):
        kill_tree(pid, token)
