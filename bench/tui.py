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
be handled. Target: under 0.25 s everywhere; the checklist in the app within 1.5x the command's time.

Then a notification flood: `tests/servers/hostile.py`'s `flood` tool sends 30,000 log notifications
during one call. Printed: the time until every one is in the wire log and the tables, and the
event loop's worst lag meanwhile (how long a key press could wait).
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

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


async def checklist(target: object, calls: Policy = "read-only") -> tuple[float, float, int]:
    """The default packs with `calls` (the Run dialog's default: read-only) in the app on an open session:
    seconds, longest key wait, findings."""
    from mcp_review.tui.app import ReviewApp

    with tempfile.TemporaryDirectory() as state:
        app = ReviewApp(target, state_dir=Path(state))  # type: ignore[arg-type]
        async with app.run_test(size=(100, 30)) as pilot:
            while app.workspace.snapshot is None:
                await pilot.pause(0.05)
            app.workspace.choose(app.workspace.plan.packs, replace(app.workspace.options, calls=calls))
            with Lag() as lag:
                started = time.perf_counter()
                app.action_run_checks()
                while app.workspace.checking:
                    await pilot.pause(0.05)
                took = time.perf_counter() - started
            assert app.workspace.review is not None
            return took, lag.worst, len(app.workspace.review.findings)


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


def main() -> None:
    started = time.perf_counter()
    import mcp_review.tui.app  # noqa: F401

    print(f"import of the TUI: {time.perf_counter() - started:.2f} s")
    from mcp_review.targets import demo_target, stdio_target

    many = [sys.executable, str(ROOT / "tests/servers/many.py"), "--tools", "10000"]
    servers = {"demo": demo_target(), "10000 tools": stdio_target(many)}
    for label, target in servers.items():
        runs = [asyncio.run(one(target)) for _ in range(3)]
        paint, first, filled, lag = (statistics.median(r[i] for r in runs) for i in range(4))
        print(
            f"{label:>12}: first paint {paint:.2f} s, first screen with tools {first:.2f} s, every tool back "
            f"after the filter is cleared {filled:.2f} s, longest key wait while loading {lag * 1000:.0f} ms "
            "(medians of 3)"
        )
    took, lag, findings = asyncio.run(checklist(servers["10000 tools"]))
    cli = cli_check(many)
    print(
        f"checklist on 10000 tools with read-only calls: in the app {took:.2f} s ({findings:,} findings), longest "
        f"key wait {lag * 1000:.0f} ms; mcp-review check {cli:.2f} s (whole process); app ÷ CLI {took / cli:.2f}x "
        "(target <= 1.2x)"
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
