"""Benchmark: the headless review of generated servers, as a CI job runs it.

    .venv/bin/python bench/check.py [--sizes 1000,10000] [--calls none,read-only] [--format json]

For each size and calling policy: `mcp-review check --pack review --pack spec` against
`tests/servers/many.py --tools N` over stdio, as a whole process (server start-up included): wall time,
peak RSS of mcp-review (the server's own memory is not counted), the findings and the review's size.
Target (issue 9): 10,000 tools in about 8 s with `--calls none`, under 300 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "tests" / "servers" / "many.py"
# `main` rather than `python -m mcp_review`, whose quick exit (`cli.entry`) would end this wrapper before it measured.
MEASURE = "import resource, sys; from mcp_review.cli import main; sys.argv = sys.argv[1:]; code = 0\n" + (
    "try:\n    code = main()\nexcept SystemExit as e:\n    code = e.code\n"
    "sys.stderr.write(f'\\nPEAK_KB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n')\nsys.exit(code)\n"
)


def run(size: int, calls: str, fmt: str) -> tuple[float, float, int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"review.{fmt}"
        argv = [sys.executable, "-c", MEASURE, "mcp-review", "check", "-q", "--pack", "review", "--pack", "spec"]
        argv += ["--calls", calls, "--format", fmt, "--out", str(out), "--timeout", "60"]
        argv += ["--", sys.executable, str(SERVER), "--tools", str(size)]
        started = time.monotonic()
        done = subprocess.run(
            argv, capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}
        )
        wall = time.monotonic() - started
        peak = next(int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("PEAK_KB"))
        findings = len(json.loads(out.read_text())["findings"]) if fmt == "json" else -1
        return wall, peak / 1024, findings, out.stat().st_size


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="1000,10000")
    p.add_argument("--calls", default="none,read-only")
    p.add_argument("--format", default="json")
    args = p.parse_args()
    print(f"{'tools':>6}  {'calls':<9}  {'wall s':>7}  {'peak MB':>7}  {'findings':>8}  {'review MB':>9}")
    for size in (int(s) for s in args.sizes.split(",")):
        for calls in args.calls.split(","):
            wall, peak, findings, size_bytes = run(size, calls, args.format)
            print(f"{size:>6}  {calls:<9}  {wall:>7.2f}  {peak:>7.1f}  {findings:>8}  {size_bytes / 1e6:>9.1f}")


if __name__ == "__main__":
    main()
