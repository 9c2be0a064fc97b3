"""Benchmark: where a check waits. server-everything (scripts/test-deps) over stdio, and behind a stateless gateway
that starts it for every request (tests/servers/gateway.py), checked with each calling policy.

    .venv/bin/python bench/waits.py [--calls none,read-only,all] [--against OTHER/.venv/bin/mcp-review]

Per run, as a whole `mcp-review check` process: wall time, the tool calls made, those a second rule read from an
earlier one instead of calling again (`calls.Share`), the seconds spent inside calls, and the line the check said
about a slow server, if any. `--against` runs another mcp-review (an older checkout) on the same servers in the same
run and prints this one's wall time as a ratio of it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support import free_port, running  # noqa: E402
from tests.thirdparty import EVERYTHING  # noqa: E402

HERE = ROOT / ".venv" / "bin" / "mcp-review"
GATEWAY = ROOT / "tests" / "servers" / "gateway.py"


@contextlib.contextmanager
def gateway() -> Iterator[list[str]]:
    port = free_port()
    with running([sys.executable, str(GATEWAY), "--port", str(port), "--", str(EVERYTHING), "stdio"], port):
        yield ["--url", f"http://127.0.0.1:{port}/mcp"]


def check(binary: Path, target: list[str], calls: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "review.json"
        argv = [str(binary), "check", "--format", "json", "--out", str(out), "--timeout", "60"]
        argv += [] if calls == "none" else ["--calls", calls]
        started = time.monotonic()
        done = subprocess.run([*argv, *target], capture_output=True, text=True, cwd=tmp)
        wall = time.monotonic() - started
        coverage = json.loads(out.read_text())["coverage"]
    slow = next((line for line in done.stderr.splitlines() if "each request takes" in line), "")
    return {
        "wall": wall,
        "calls": len(coverage),
        "shared": sum(len(c.get("reusedBy", [])) for c in coverage),
        "in calls": sum(c["latencyMs"] for c in coverage) / 1000,
        "slow": slow.removeprefix("mcp-review: ")[:100],
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--calls", default="none,read-only,all")
    p.add_argument("--against", type=Path, help="another mcp-review to time on the same servers")
    args = p.parse_args()
    binaries = [("this", HERE), *([("against", args.against)] if args.against else [])]
    print(
        f"{'server':<9} {'calls':<9} {'run':<8} {'wall s':>7} {'ratio':>6} {'calls':>5} {'shared':>6} {'in calls':>8}"
    )
    for server in ("stdio", "gateway"):
        for calls in args.calls.split(","):
            times: dict[str, float] = {}
            for name, binary in binaries:
                with (
                    gateway() if server == "gateway" else contextlib.nullcontext(["--", str(EVERYTHING), "stdio"]) as t
                ):
                    got = check(binary, t, calls)
                times[name] = float(got["wall"])  # type: ignore[arg-type]
                ratio = f"{times['this'] / times['against']:.2f}" if name == "against" else ""
                print(
                    f"{server:<9} {calls:<9} {name:<8} {got['wall']:>7.1f} {ratio:>6} {got['calls']:>5} "
                    f"{got['shared']:>6} {got['in calls']:>8.1f}"
                )
                if got["slow"]:
                    print(f"{'':<9} said: {got['slow']}")


if __name__ == "__main__":
    main()
