"""Benchmark: `mcp-review fleet` over many small stdio servers, as a platform team's nightly job runs it.

    .venv/bin/python bench/fleet.py [--sizes 20,100] [--jobs 1,2,4] [--server profiled]

For each fleet size and concurrency: one `mcp-review fleet --list` run of that many small servers (each
`tests/servers/profiled.py exemplary`, a raw stdio server, told apart by an `--env`), fresh state, the default
packs, the whole process timed. Peak RSS is sampled from /proc every 50 ms over the fleet's whole process tree (the
fleet, its `check` processes and their servers, summed). Prints a table; the machine and its load are printed with
it, since both move the figures.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVERS = ROOT / "tests" / "servers"
PAGE = os.sysconf("SC_PAGE_SIZE")


def _tree_rss(root: int) -> int:
    """Bytes resident in `root` and every process under it, now."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_bytes()
            fields = stat[stat.rindex(b")") + 2 :].split()
            parents[int(entry.name)], rss[int(entry.name)] = int(fields[1]), int(fields[21]) * PAGE
        except (OSError, ValueError, IndexError):
            continue
    total, stack, seen = 0, [root], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += rss.get(pid, 0)
        stack += [child for child, parent in parents.items() if parent == pid]
    return total


def run(size: int, jobs: int, server: str) -> tuple[float, float, str]:
    with tempfile.TemporaryDirectory() as tmp:
        listed = Path(tmp) / "servers.txt"
        target = f"{sys.executable} {SERVERS / server}.py exemplary"
        listed.write_text("".join(f"--env FLEET_N={i} -- {target}\n" for i in range(size)))
        argv = [sys.executable, "-m", "mcp_review", "fleet", "--list", str(listed), "--jobs", str(jobs)]
        argv += ["--state", str(Path(tmp) / "state"), "--format", "json", "-q"]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "MCP_REVIEW_STATE_DIR": tmp, "MCP_REVIEW_CONFIG_DIR": tmp}
        started = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=tmp, env=env)
        peak = [0]

        def sample() -> None:
            while proc.poll() is None:
                peak[0] = max(peak[0], _tree_rss(proc.pid))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        out, _ = proc.communicate()
        wall = time.monotonic() - started
        sampler.join()
        verdicts = out.decode().split('"verdicts": ')[1].split("}")[0].replace("\n", "").replace(" ", "") + "}"
        return wall, peak[0] / 2**20, verdicts


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="20,100")
    p.add_argument("--jobs", default="1,2,4")
    p.add_argument("--server", default="profiled")
    args = p.parse_args()
    print(f"# {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; servers: {args.server}.py exemplary over stdio")
    print(f"{'servers':>7}  {'jobs':>4}  {'wall s':>7}  {'s/server':>8}  {'peak RSS MB (tree)':>18}  verdicts")
    for size in map(int, args.sizes.split(",")):
        for jobs in map(int, args.jobs.split(",")):
            wall, peak, verdicts = run(size, jobs, args.server)
            print(f"{size:>7}  {jobs:>4}  {wall:>7.1f}  {wall / size:>8.2f}  {peak:>18.0f}  {verdicts}", flush=True)
    print(f"# load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
