"""The app at scale (issue 12): every figure with the longest a key press could wait meanwhile.

    .venv/bin/python bench/tui.py

Measured in-process with Textual's headless driver (no terminal I/O), from the moment the app object
is created; the import of the TUI modules is timed separately. Servers: the bundled demo and
`tests/servers/many.py --tools 10000`. Printed per server: first paint, first screen with tools (the
table's rows drawn), and every tool back on screen after the filter is cleared (the table filled); then
the checklist (default packs, `--calls none`) on the 10,000 tools in the app against `mcp-review check`
as a whole process on the same server; then
`tests/servers/hostile.py`'s 20 MB result, from the call to its dialog on screen.

"Longest key wait" is the event loop's worst lag meanwhile: how long a key press could have waited to
be handled. Target: under 0.25 s everywhere; the checklist in the app within 1.0x the command's time (issue 40),
measured alternately with it (`--rounds N`), and again with `--busy N` CPU spinners running. After each checklist
the app is started again on the review it saved: the first key answered, the verdict restored (issue 40: the
review is read in the background) and the saved review's size.

Then a notification flood: `tests/servers/hostile.py`'s `flood` tool sends 30,000 log notifications
during one call. Printed: the time until every one is in the wire log and the tables, and the
event loop's worst lag meanwhile (how long a key press could wait).
"""

from __future__ import annotations

import asyncio
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp_review.calls import Policy

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class Lag:
    """The event loop's worst lag while it runs: how long a key press could have waited."""

    def __enter__(self) -> Lag:
        self.worst = 0.0
        self.task = asyncio.create_task(self.tick())
        return self

    async def tick(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(0.01)
            self.worst = max(self.worst, time.perf_counter() - started - 0.01)

    def __exit__(self, *_: object) -> None:
        self.task.cancel()


async def one(target: object) -> tuple[float, float, float, float]:
    """First paint, first screen with tools, the table filled again (the filter cleared), longest key wait."""
    from textual.widgets import Input

    from mcp_review.tui.app import ReviewApp

    started = time.perf_counter()
    app = ReviewApp(target)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 30)) as pilot:
        painted = time.perf_counter() - started
        with Lag() as lag:
            table = app.main.query_one("#tools")
            while app.workspace.snapshot is None or not table.row_count:  # type: ignore[attr-defined]
                await pilot.pause(0.01)
            await pilot.pause()
            first = time.perf_counter() - started
            tools = len(app.workspace.snapshot.tools)
            search = app.main.query_one("#tool-filter", Input)
            search.value = "no tool has this name"
            while table.row_count:  # type: ignore[attr-defined]
                await pilot.pause(0.01)
            refilled = time.perf_counter()
            search.value = ""  # as a reviewer clears the filter: every tool back, sorted, on screen
            while table.row_count < tools:  # type: ignore[attr-defined]
                await pilot.pause(0.01)
            await pilot.pause()
            refilled = time.perf_counter() - refilled
        return painted, first, refilled, lag.worst


async def checklist(target: object, state: Path, calls: Policy = "read-only") -> tuple[float, float, int]:
    """The default packs with `calls` (the Run dialog's default: read-only) in the app on an open session, its
    review saved in `state`: seconds, longest key wait, findings."""
    from mcp_review.encodings import ENCODINGS
    from mcp_review.tui.app import ReviewApp

    app = ReviewApp(target, state_dir=state)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 30)) as pilot:
        while (costs := app.workspace.costs) is None or not all(costs.counted(e) for e in ENCODINGS):
            await pilot.pause(0.05)  # the connection's own work (every encoding counted) is done: the app is idle
        app.workspace.choose(app.workspace.plan.packs, replace(app.workspace.options, calls=calls))
        with Lag() as lag:
            started = time.perf_counter()
            app.action_run_checks()
            while app.workspace.checking:
                # not `pilot.pause`: it waits for every widget to answer a callback, work a reviewer never adds
                await asyncio.sleep(0.05)
            took = time.perf_counter() - started
        assert app.workspace.review is not None
        return took, lag.worst, len(app.workspace.review.findings)


async def reopen(target: object, state: Path) -> tuple[float, float, float, float, float, int]:
    """The app started again on the server whose review `state` holds. The screen up after how long; then a key
    (`2`, the Tools tab) sent as a terminal sends it, answered after how long; the server listed, and the verdict
    restored (the Overview says it), after how long from the start; the longest key wait meanwhile; the saved
    review's size. Not `pilot.press`: it waits until the process is idle, and the review being read is not."""
    from textual import events
    from textual.widgets import Static, TabbedContent

    from mcp_review.tui.app import ReviewApp

    size = sum(p.stat().st_size for p in state.iterdir())
    started = time.perf_counter()
    app = ReviewApp(target, state_dir=state)  # type: ignore[arg-type]
    listed, connected = [], app.workspace.connected

    def connecting(*args: Any) -> bool:  # the listing is done: the app is told the server answered
        listed.append(time.perf_counter() - started)
        return connected(*args)

    app.workspace.connected = connecting  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)):
        up = time.perf_counter() - started
        with Lag() as lag:
            pressed = time.perf_counter()
            assert app._driver is not None
            app._driver.send_message(events.Key("2", "2"))
            while app.main.query_one(TabbedContent).active != "tab-tools":
                await asyncio.sleep(0.01)
            key = time.perf_counter() - pressed
            overview = app.main.query_one("#overview", Static)
            while not re.search(r"verdict [A-Z_]+", str(overview.render())):  # the saved verdict, not "verdict: …"
                await asyncio.sleep(0.01)
            restored = time.perf_counter() - started
        return up, key, listed[0], restored, lag.worst, size


def cli_check(server: list[str], calls: Policy = "read-only") -> float:
    """`mcp-review check` with the app's default packs and `--calls` as the app's run, as a whole process."""
    from mcp_review.rules.core import DEFAULT_PACKS

    with tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-m", "mcp_review", "check", "-q", "--calls", calls, "--format", "json"]
        argv += [a for p in DEFAULT_PACKS for a in ("--pack", p)] + ["--out", f"{tmp}/review.json", "--", *server]
        started = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, capture_output=True, check=False)
        return time.perf_counter() - started


async def huge_result() -> tuple[float, float]:
    """hostile.py's 20 MB result, from the call until its dialog is on screen: seconds, longest key wait."""
    from mcp_review.targets import stdio_target
    from mcp_review.tui.app import ReviewApp
    from mcp_review.tui.dialogs import ResultScreen

    target = stdio_target([sys.executable, str(ROOT / "tests/servers/hostile.py"), "--tools", "10"])
    with tempfile.TemporaryDirectory() as state:
        app = ReviewApp(target, state_dir=Path(state))
        async with app.run_test(size=(100, 30)) as pilot:
            while app.workspace.snapshot is None:
                await pilot.pause(0.01)
            await pilot.pause(0.2)
            tool = app.workspace.snapshot.tool("huge_result")
            assert tool is not None
            with Lag() as lag:
                started = time.perf_counter()
                app.caller.consent_then_call(tool, {})
                while not isinstance(app.screen, ResultScreen):
                    await pilot.pause(0.01)
                await pilot.pause()
                took = time.perf_counter() - started
            return took, lag.worst


async def flood() -> tuple[float, float, int]:
    from mcp_review.calls import CallGate
    from mcp_review.targets import stdio_target
    from mcp_review.tui.app import ReviewApp

    target = stdio_target([sys.executable, str(ROOT / "tests/servers/hostile.py"), "--tools", "10"])
    app = ReviewApp(target)
    async with app.run_test(size=(100, 30)) as pilot:
        while app.workspace.snapshot is None:
            await pilot.pause(0.01)
        app.main.show_tab("tab-wire")  # drawn as it arrives, as a reviewer watching the wire sees it
        await pilot.pause(0.2)
        before = len(app.main.wire_log.entries)
        with Lag() as lag:
            started = time.perf_counter()
            app.workspace.connection.submit(
                lambda session, snap: CallGate.for_reviewer(session).call(
                    snap.tool("flood"), {}, purpose="bench", consented=True
                )
            )
            while len(app.main.wire_log.entries) - before < 30000 or app.workspace.wire:
                await pilot.pause(0.01)
            drained = time.perf_counter() - started
        return drained, lag.worst, app.main.query_one("#wire").row_count  # type: ignore[attr-defined]


def busy(processes: int) -> list[subprocess.Popen[bytes]]:
    """`processes` programs that spin on the CPU until killed: a busy machine, on top of whatever else runs."""
    spin = "while True: pass"
    return [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(processes)]


def load() -> str:
    import os

    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def at_scale(many: list[str], rounds: int) -> None:
    """The checklist in the app and `mcp-review check` alternately, `rounds` times each (the machine's load drifts:
    each ratio is of neighbouring runs), then the app reopened on the review it saved."""
    from mcp_review.targets import stdio_target

    target = stdio_target(many)
    ratios, lags, reopened = [], [], []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as state:
            took, lag, findings = asyncio.run(checklist(target, Path(state)))
            cli = cli_check(many)
            ratios.append(took / cli)
            lags.append(lag)
            print(
                f"  checklist on 10000 tools with read-only calls: in the app {took:.2f} s ({findings:,} findings), "
                f"longest key wait {lag * 1000:.0f} ms; mcp-review check {cli:.2f} s (whole process); app ÷ CLI "
                f"{took / cli:.2f}x ({load()})"
            )
            reopened.append(asyncio.run(reopen(target, Path(state))))
            up, key, listed, restored, lag, size = reopened[-1]
            print(
                f"  reopened with its saved review ({size / 1e6:.2f} MB): screen up after {up:.2f} s, a key then "
                f"answered after {key:.2f} s; the server listed after {listed:.2f} s, the verdict restored after "
                f"{restored:.2f} s; longest key wait {lag * 1000:.0f} ms ({load()})"
            )
    print(
        f"checklist app ÷ CLI: median {statistics.median(ratios):.2f}x, worst {max(ratios):.2f}x of {rounds} (target "
        f"<= 1.0x); worst key wait {max(lags) * 1000:.0f} ms (target < 250 ms); reopen: a key answered after "
        f"{max(r[1] for r in reopened):.2f} s, the verdict {max(r[3] - r[2] for r in reopened):.2f} s after the "
        f"listing, worst key wait {max(r[4] for r in reopened) * 1000:.0f} ms (worst of {rounds})"
    )


def main() -> None:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=1, help="checklist and reopen rounds, app and CLI alternately")
    p.add_argument("--busy", type=int, default=0, help="also measure at scale with this many CPU spinners running")
    p.add_argument("--scale-only", action="store_true", help="only the 10,000-tool checklist and its reopening")
    args = p.parse_args()
    started = time.perf_counter()
    import mcp_review.tui.app  # noqa: F401

    print(f"import of the TUI: {time.perf_counter() - started:.2f} s ({load()})")
    from mcp_review.targets import demo_target, stdio_target

    many = [sys.executable, str(ROOT / "tests/servers/many.py"), "--tools", "10000"]
    print("at scale, as the machine is:")
    at_scale(many, args.rounds)
    if args.busy:
        print(f"at scale, with {args.busy} CPU spinners besides:")
        spinners = busy(args.busy)
        try:
            at_scale(many, args.rounds)
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
    if args.scale_only:
        return
    servers = {"demo": demo_target(), "10000 tools": stdio_target(many)}
    for label, target in servers.items():
        runs = [asyncio.run(one(target)) for _ in range(3)]
        paint, first, filled, lag = (statistics.median(r[i] for r in runs) for i in range(4))
        print(
            f"{label:>12}: first paint {paint:.2f} s, first screen with tools {first:.2f} s, every tool back "
            f"after the filter is cleared {filled:.2f} s, longest key wait while loading {lag * 1000:.0f} ms "
            "(medians of 3)"
        )
    took, lag = asyncio.run(huge_result())
    print(f"20 MB result: on screen after {took:.2f} s, longest key wait {lag * 1000:.0f} ms")
    drained, lag, rows = asyncio.run(flood())
    print(
        f"flood of 30,000 notifications: shown after {drained:.2f} s, longest key wait {lag * 1000:.0f} ms, "
        f"{rows:,} rows in the wire table"
    )


if __name__ == "__main__":
    main()
