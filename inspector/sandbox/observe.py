"""Observation with strace: every file a server's processes open, write, remove or rename, every program they start,
every connection they attempt and every datagram (a DNS query's name) they send, as it happens.

Why strace (ptrace): it needs no root and no kernel feature beyond ptrace of one's own child, it follows every
process the server starts (`-f`), and it records calls the confinement refused (a connect answered ENETUNREACH is
recorded with its address). With `--seccomp-bpf` the kernel stops the server only on the calls traced, so a server's
own work costs nothing more (bench/confine.py measures it). fanotify needs CAP_SYS_ADMIN and sees no connections,
eBPF needs root or CAP_BPF, seccomp user notification would need a supervisor written for it.

strace runs outside the confinement (`strace ... bwrap ... server`) and writes into a FIFO in the run's private
directory, which the server cannot see: nothing it does can add a line. mcp-review holds the FIFO open both ways, so
reading never meets an end and never blocks (`Trace.read`); a server that floods it is slowed to the pace it is
read at, and nothing piles up on disk.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from mcp_review.sandbox.strace import SYSCALLS, Event, Parser

STRACE = "strace"
F_SETPIPE_SZ = 1031  # fcntl: the FIFO's capacity (what strace may write ahead of the reader)
PIPE_SIZE = 1024 * 1024
READ_AT_ONCE = 4 * 1024 * 1024  # bytes one `read` takes before it lets the caller go on
_counter = itertools.count(1)


@functools.cache
def unavailable() -> str | None:
    """Why strace cannot observe a server here, in a few words; None when it can (tried once per process)."""
    if not sys.platform.startswith("linux"):
        return f"strace runs on Linux only (this is {sys.platform})"
    path = shutil.which(STRACE)
    if path is None:
        return "strace is not installed (Debian, Ubuntu: apt-get install strace)"
    try:
        done = subprocess.run(
            [path, "-f", "-qq", "--seccomp-bpf", "-e", "trace=execve", "-o", "/dev/null", "true"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"strace could not run: {e}"
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return f"strace cannot trace here (ptrace not permitted?): {said[:200]}"
    return None


class Trace:
    """One server process's strace output, read as events."""

    def __init__(self, folder: Path, launcher: str | None) -> None:
        import fcntl  # here: POSIX only, and a trace is made only where strace runs (Linux)

        self.path = folder / f"trace-{os.getpid()}-{next(_counter)}"
        os.mkfifo(self.path, 0o600)
        self.fd: int | None = os.open(self.path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        with contextlib.suppress(OSError):  # a smaller FIFO still works: strace waits for the reader sooner
            fcntl.fcntl(self.fd, F_SETPIPE_SZ, PIPE_SIZE)
        self.parser = Parser(skip_until_exec=launcher)

    def argv(self, command: list[str]) -> list[str]:
        """`command` run under strace, writing into this trace."""
        calls = ",".join(SYSCALLS)
        options = ["-f", "-qq", "--seccomp-bpf", "-ttt", "-y", "-xx", "-s", "4096", "-e", "signal=none"]
        return [shutil.which(STRACE) or STRACE, *options, "-e", f"trace={calls}", "-o", str(self.path), "--", *command]

    def read(self) -> list[Event]:
        """Every event strace has written so far (up to READ_AT_ONCE bytes of it)."""
        if self.fd is None:
            return []
        chunks, size = [], 0
        while size < READ_AT_ONCE:
            try:
                chunk = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return self.parser.feed(b"".join(chunks)) if chunks else []

    def close(self) -> list[Event]:
        """The rest, once the process has ended; the FIFO is gone after."""
        rest: list[Event] = []
        while more := self.read():
            rest += more
        rest += self.parser.end()
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        with contextlib.suppress(OSError):
            self.path.unlink()
        return rest
