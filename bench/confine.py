"""Benchmark: what confinement (bubblewrap) and observation (strace) cost on a real server's review.

    .venv/bin/python bench/confine.py [--rounds 5] [--calls all]

`mcp-review check --calls all` on mcp-server-time (from the registry, installed by scripts/test-deps into .deps/py),
run three ways in one invocation, the ways interleaved round by round so a busy machine slows each alike:
unconfined and unobserved (`--no-confine --no-observe`), confined (`--no-observe`), confined and observed
(`--observe`). Per way, the median of the rounds: wall time, CPU time and peak memory of the whole process tree
(mcp-review, strace, bwrap, the server and what it starts), each as a ratio to the unconfined run. CPU and memory are
read from a cgroup made for each run (v1 cpuacct and memory, or v2), which counts every process in it however it
ends: a server in bubblewrap's pid namespace is never waited for by mcp-review, so getrusage would miss it. Without
a writable cgroup (not root), only wall time is printed. First, the cost of one bare start of the server's
interpreter each way (`python -c pass`), which is what every stdio server start of the test suite pays.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / ".deps" / "py" / "bin" / "mcp-server-time"
WAYS = {
    "unconfined": ["--no-confine", "--no-observe"],
    "confined": ["--no-observe"],
    "confined+observed": ["--observe"],
}


CGROUP_V1 = Path("/sys/fs/cgroup")
CGROUP_V2 = Path("/sys/fs/cgroup/cgroup.controllers")


class Group:
    """A cgroup around one run: CPU seconds and peak memory (MB) of everything in it. None of each when the machine
    offers no cgroup this process may make."""

    def __init__(self, name: str) -> None:
        self.dirs: dict[str, Path] = {}
        v1 = {"cpu": CGROUP_V1 / "cpuacct" / name, "memory": CGROUP_V1 / "memory" / name}
        v2 = CGROUP_V1 / name
        for kind, folder in ({"cpu": v2, "memory": v2} if CGROUP_V2.exists() else v1).items():
            try:
                folder.mkdir(exist_ok=True)
                self.dirs[kind] = folder
            except OSError:
                pass

    def enter(self) -> None:
        """In the child, before exec: join the group."""
        for folder in set(self.dirs.values()):
            (folder / "cgroup.procs").write_text(str(os.getpid()))

    def read(self) -> tuple[float | None, float | None]:
        cpu = mem = None
        if (folder := self.dirs.get("cpu")) is not None:
            if (folder / "cpuacct.usage").exists():
                cpu = int((folder / "cpuacct.usage").read_text()) / 1e9
            elif (folder / "cpu.stat").exists():
                usage = dict(line.split() for line in (folder / "cpu.stat").read_text().splitlines())
                cpu = int(usage["usage_usec"]) / 1e6
        if (folder := self.dirs.get("memory")) is not None:
            for name in ("memory.max_usage_in_bytes", "memory.peak"):
                if (folder / name).exists():
                    mem = int((folder / name).read_text()) / 2**20
        return cpu, mem

    def remove(self) -> None:
        for folder in set(self.dirs.values()):
            with contextlib.suppress(OSError):
                folder.rmdir()


def measured(argv: list[str]) -> tuple[float, float | None, float | None]:
    """(wall s, CPU s, peak MB) of one run and everything it started."""
    group = Group(f"mcp-review-bench-{os.getpid()}-{time.monotonic_ns()}")
    started = time.monotonic()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(argv, capture_output=True, cwd=ROOT, env=env, check=False, preexec_fn=group.enter)
    wall = time.monotonic() - started
    time.sleep(0.2)  # what the tree left behind ends (bwrap's namespace goes with its first process)
    cpu, mem = group.read()
    group.remove()
    return wall, cpu, mem


def check(way: list[str], calls: str) -> list[str]:
    return [sys.executable, "-m", "mcp_review", "check", "-q", "--calls", calls, *way, "--", str(SERVER)]


def bare(way: str) -> list[str]:
    """One start of the server's interpreter as mcp-review would wrap it (the wrapping alone)."""
    from mcp_review.sandbox import prepare
    from mcp_review.targets import Confinement, stdio_target

    python = str(SERVER.parent / "python")
    spec = Confinement(confine=way != "unconfined", observe=way == "confined+observed", run="bench")
    target = stdio_target([python, "-c", "pass"]).with_(confinement=spec)
    return prepare(target, [python, "-c", "pass"], dict(os.environ)).argv


Measure = tuple[float, float | None, float | None]


def report(title: str, rows: dict[str, list[Measure]]) -> None:
    print(title)
    print(f"  {'way':<18} {'wall s':>8} {'ratio':>6} {'cpu s':>8} {'ratio':>6} {'peak MB':>8} {'ratio':>6}")

    def median(runs: list[Measure], i: int) -> float | None:
        values = [m[i] for m in runs if m[i] is not None]
        return statistics.median(values) if values else None  # type: ignore[type-var]

    base = [median(rows["unconfined"], i) for i in range(3)]
    for way, runs in rows.items():
        cells = ""
        for i in range(3):
            value = median(runs, i)
            cells += (
                f" {value:>8.3f} {value / base[i]:>6.2f}" if value is not None and base[i] else f" {'-':>8} {'':>6}"
            )
        print(f"  {way:<18}{cells}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--calls", default="all")
    args = p.parse_args()
    if not SERVER.exists():
        sys.exit(f"{SERVER} is missing: run scripts/test-deps")
    for tool in ("bwrap", "strace"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is missing: run scripts/test-deps")
    starts: dict[str, list[Measure]] = {way: [] for way in WAYS}
    checks: dict[str, list[Measure]] = {way: [] for way in WAYS}
    for _ in range(args.rounds):
        for way, flags in WAYS.items():
            starts[way].append(measured(bare(way)))
            checks[way].append(measured(check(flags, args.calls)))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; median of {args.rounds} rounds")
    report("one start of the server's interpreter (python -c pass):", starts)
    report(f"mcp-review check --calls {args.calls} -- mcp-server-time (whole process tree):", checks)


if __name__ == "__main__":
    main()
