"""How fast this machine goes now, and hang bounds that follow it.

A bound fixed in wall seconds at the start of a wait fails on a machine whose load rises during the wait (the suite
on 2 cores beside other work: load 12 to 20), and a bound made generous enough for that catches a hang late on a
quiet one. So a bound here is in seconds of the reference machine (the 2-core machine the suite's bounds were set
on, idle), and `Patience` counts them on a clock that runs slower while the machine is slower: each wall second
counts 1/pace, the pace re-read at every look. A hang never ends, so it is still caught; a wait that makes
progress at the machine's pace never is.

The pace is the CPU's speed (a fixed piece of work, in CPU time: the machine, not its load; measured once and
passed to the processes a test starts) times its contention (tasks ready to run per core, read from the kernel
now, not a minute's average: /proc/loadavg's running count, which lags nothing; the 1-minute load average lags a
rising load by a minute). It assumes the tasks share the cores fairly (one niceness) and that the cores are the
ones this process may run on (a CPU quota below them is not seen: the bound is then shorter than it should be).

What a wait cannot count itself (a timeout handed to mcp-review, to a server, to another test tool) is scaled by
`slowness()`, the pace now and over the last minute, whichever is slower.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

SPEED = "MCP_REVIEW_TEST_SPEED"  # a test process's measure of the CPU, passed to the processes it starts
REFERENCE_CPU = 0.05  # CPU seconds _work() takes on the reference machine
CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
LOADAVG = Path("/proc/loadavg")


def _work() -> float:
    """CPU seconds a fixed piece of hashing takes here (process time: the machine's speed, not its load)."""
    started, digest = time.process_time(), hashlib.sha256()
    for _ in range(1_000_000):
        digest.update(b"0123456789abcdef" * 4)
    return time.process_time() - started


def speed() -> float:
    """How many times slower than the reference machine's this CPU is, at least 1; measured once per process
    tree (the processes started after the measure inherit it)."""
    if not os.environ.get(SPEED):
        os.environ[SPEED] = f"{max(1.0, _work() / REFERENCE_CPU):.2f}"
    return float(os.environ[SPEED])


def contention() -> float:
    """Tasks ready to run per core at this instant, at least 1: how many times longer than alone a task that
    needs the CPU takes now. The count includes the process asking (it runs as it asks)."""
    try:
        running = float(LOADAVG.read_text().split()[3].split("/")[0])
    except (OSError, IndexError, ValueError):  # no /proc: the last minute's average
        running = os.getloadavg()[0]
    return max(1.0, running / CORES)


def pace() -> float:
    """How many times slower than the reference machine this one goes at this instant."""
    return speed() * contention()


def slowness() -> float:
    """How many times slower than the reference machine this one is now, for a bound that is handed on and
    cannot follow the machine itself (a --timeout, a tool's own timer): the slower of the pace now and the
    last minute's load, so a load that comes and goes counts at its height."""
    return round(speed() * max(contention(), os.getloadavg()[0] / CORES), 2)


class Patience:
    """A hang bound of `seconds` on the reference machine, counted at this machine's pace: `spent()` when they
    are used up. Look at it often (every ~50 ms to a second): the pace read at a look counts for the time since
    the last one."""

    def __init__(self, seconds: float) -> None:
        speed()  # measured now, before the processes the wait is for start: they inherit it
        self.seconds = seconds
        self.used = 0.0
        self.wall = 0.0
        self._last = time.monotonic()

    def spent(self) -> bool:
        now = time.monotonic()
        self.wall += now - self._last
        self.used += (now - self._last) / pace()
        self._last = now
        return self.used >= self.seconds

    @property
    def remaining(self) -> float:
        """Seconds of the bound left, at the reference machine's pace, as of the last look."""
        return max(0.0, self.seconds - self.used)

    def left(self) -> float:
        """Wall seconds left if the pace stays as it is now (for one blocking wait between two looks)."""
        return self.remaining * pace()

    def __str__(self) -> str:
        return f"{self.seconds:g}s at this machine's pace ({self.wall:.1f}s of wall time)"
