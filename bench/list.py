"""Benchmark: `mcp-review list` against the official Inspector CLI and a bare mcp SDK client.

    bash scripts/bench-deps     # once: the Inspector, pinned, into .deps/bench-npm (the tests never need it)
    .venv/bin/python bench/list.py [--sizes 100,1000,10000] [--runs 3]

For each size, all run as whole processes against `tests/servers/many.py --tools N` over stdio (server
start-up included on every side; each lists every page): `mcp-review list --format json`, `mcp-review list`
(the table, written to a pipe), `mcp-inspector --cli ... --method tools/list` (Node) and the SDK's own Client,
taking turns run by run, with a bare client of the standard library (`bare`: what is left is the server's own
start, listing and exit, which every client waits for; `bare/Insp` is the floor of `json/Insp`). The median wall
time of `--runs` runs is printed with the ratios to the Inspector and to the SDK. The Inspector stops after 64
pages (`listMaxPages`), 6,400 tools at the server's 100 a page: above that it is not run and its columns show "-".
Then token-counting throughput (MB/s of canonical JSON) per encoding. Targets (issue 12): faster than the
Inspector CLI (ratio < 1), the table too; counting >= 5 MB/s. Issue 22: `json/Insp` at most 0.7 at 1,000 tools.

On the 2-core development machine (shared, loaded), 3 runs taking turns: at 1,000 tools the table took 1.18-1.54 s
(the Inspector 1.30-1.43 s); at 10,000 tools 3.63-3.85 s, as long as the JSON (3.66-3.72 s). Before the table
was drawn a line a row (rich's `Table` measured and rendered 90,000 cells) it took 1.86-2.73 s and 11.7-13.1 s.
Issue 22 (the server started before asyncio, the session and the encoding load; the quick exit), at 1,000 tools,
`--runs 7` twice on a quiet hour: json/Insp 0.79 and 0.78 (table/Insp 0.80, 0.79; bare/Insp 0.71, 0.68), against
0.84 (table 0.86, bare 0.66) for the code before, run the same hour. Left over `bare`: ~30 ms of imports before the
server starts (the plan's modules, argparse) and our counting on the second core while the server starts and
exits; on a loaded machine that contention grows (json/Insp 0.71-0.86 at a load of 5-6, the code before 0.94).
With the counting threads and the encoding's preload at a lower priority (nice 10: the server's start and exit come
first on the two cores), `--runs 7` and `--runs 9` on a quiet machine: json/Insp 0.73 and 0.74 (bare/Insp 0.68, 0.67),
against 0.78 (bare 0.64) an hour before. Then the figures printed while the server exits, at that priority too,
and the counter loaded after the server starts: 0.70 on a slow hour (bare 0.67), 0.74 twice on a quiet one (bare
0.66). What is left over `bare`, timed with the server wrapped in `sh` (`date` at its start, its atexit and its
end; 21 runs taking turns): its start ~23 ms later (the modules that decide the plan: argparse, dataclasses,
hashlib, subprocess, ctypes, the plan's own), its interpreter's exit ~20 ms longer (~5 ms of it our counting on
the other core; the era or its environment did not account for the rest in repeated runs), ours ~3 ms after its
exit; its serving was ~25 ms shorter (one request fewer, each next page asked for within 0.3 ms).
Later, `--runs 9` twice: json/Insp 0.75 and 0.74 with bare/Insp 0.67 and 0.65. The floor leaves ~9 ms for all a
client does beyond a bare JSON-RPC loop; ours is ~50 ms over it (server wrapped in `sh`, 11 runs: ~26 ms of imports
that decide the plan before the launch, ~1 ms more per page for bounded parsing, the rest the server's import
and exit beside our work on the other core). Against a stdlib 1,000-tool server (its own start ~60 ms), where
the client's cost is what shows, the ratio was 0.74 too (0.24 s against 0.33 s, bare 0.06 s).
"""

from __future__ import annotations

import argparse
import compileall
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.tokens import sample_tools, throughput  # noqa: E402

SERVER = ROOT / "tests" / "servers" / "many.py"
INSPECTOR = ROOT / ".deps" / "bench-npm" / "node_modules" / ".bin" / "mcp-inspector"
INSPECTOR_MOST = 64 * 100  # its listMaxPages times many.py's page size: it refuses to list more

SDK_CLIENT = """
import asyncio, sys
from mcp import Client, StdioServerParameters

async def main() -> None:
    params = StdioServerParameters(command=sys.executable, args=sys.argv[1:])
    async with Client(params, cache=None) as client:
        tools, cursor = [], None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools += page.tools
            cursor = page.next_cursor
            if not cursor:
                break
    print(len(tools))

asyncio.run(main())
"""

# The floor: a client of the standard library alone (no parsing beyond json, no checks, nothing counted). Started,
# listed and closed as the others (stdin closed, then its exit awaited), so what is left is the server's own time.
BARE_CLIENT = """
import json, subprocess, sys
server = subprocess.Popen([sys.executable, *sys.argv[1:]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def ask(i, method, params):
    server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}).encode() + b"\\n")
    server.stdin.flush()
    return json.loads(server.stdout.readline())["result"]
ask(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}})
server.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\\n')
tools, page = [], {"nextCursor": None}
while "tools" not in page or page.get("nextCursor"):
    page = ask(len(tools) + 1, "tools/list", {"cursor": page["nextCursor"]} if page.get("nextCursor") else {})
    tools += page["tools"]
server.stdin.close()
server.wait()
print(len(tools))
"""


def timed(argv: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=ROOT)
    return time.perf_counter() - started, out.stdout


def median_times(commands: list[list[str]], runs: int) -> list[tuple[float, str]]:
    """Each command's median wall time and last output; the commands take turns, so a change in the machine's
    load (it is shared) weighs on each of them alike."""
    results: list[list[tuple[float, str]]] = [[] for _ in commands]
    for _ in range(runs):
        for argv, result in zip(commands, results, strict=True):
            result.append(timed(argv))
    return [(statistics.median(t for t, _ in result), result[-1][1]) for result in results]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="100,1000,10000")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    if not INSPECTOR.exists():
        sys.exit(f"{INSPECTOR} is missing: run `bash scripts/bench-deps` first")
    # As installed: pip writes the bytecode of what it installs; under PYTHONDONTWRITEBYTECODE (CI, containers, the
    # development machine) a source tree is otherwise compiled again on every run (~35 modules, ~0.1 s of `list`).
    for folder in ("inspector", "checks", "themes"):
        compileall.compile_dir(ROOT / folder, quiet=1)
    heads = ("tools", "json s", "table s", "Inspector s", "SDK client s", "bare s", "json/Insp", "table/Insp")
    heads += ("bare/Insp", "json/SDK")
    print(" ".join(f"{h:>{max(len(h), 6)}}" for h in heads))
    for size in (int(s) for s in args.sizes.split(",")):
        server = [sys.executable, str(SERVER), "--tools", str(size)]
        commands = {
            "json": [sys.executable, "-m", "mcp_review", "list", "--format", "json", "--", *server],
            "table": [sys.executable, "-m", "mcp_review", "list", "--", *server],
            "sdk": [sys.executable, "-c", SDK_CLIENT, *server[1:]],
            "bare": [sys.executable, "-c", BARE_CLIENT, *server[1:]],
        }
        if size <= INSPECTOR_MOST:
            commands["inspector"] = [str(INSPECTOR), "--cli", *server, "--method", "tools/list"]
        runs = dict(zip(commands, median_times(list(commands.values()), args.runs), strict=True))
        outs = {name: out for name, (_, out) in runs.items()}
        listed = [len(json.loads(outs["json"])["tools"]), int(outs["sdk"].strip()), int(outs["bare"].strip())]
        if "inspector" in outs:
            listed.append(len(json.loads(outs["inspector"])["tools"]))
        assert listed == [size] * len(listed) and f"{size} tools" in outs["table"], (size, listed)
        secs = {name: t for name, (t, _) in runs.items()}
        insp = secs.get("inspector")
        ratios = [(secs["json"], insp), (secs["table"], insp), (secs["bare"], insp), (secs["json"], secs["sdk"])]
        figures = [secs["json"], secs["table"], insp, secs["sdk"], secs["bare"]]
        figures += [a / b if b else None for a, b in ratios]
        cells = [str(size), *("-" if f is None else f"{f:.2f}" for f in figures)]
        print(" ".join(f"{c:>{max(len(h), 6)}}" for c, h in zip(cells, heads, strict=True)))

    tools = sample_tools(2000)
    for encoding in ("cl100k_base", "o200k_base"):
        print(f"token counting {encoding}: {throughput(encoding, tools):.1f} MB/s")


if __name__ == "__main__":
    main()
