"""TUI start-up: time from launch to the first painted screen, and to a filled tools table.

    .venv/bin/python bench/tui.py

Measured in-process with Textual's headless driver (no terminal I/O), from the moment the app object
is created; the import of the TUI modules is timed separately. Servers: the bundled demo and
`tests/servers/many.py --tools 10000`.

Then a notification flood: `tests/servers/hostile.py`'s `flood` tool sends 30,000 log notifications
during one call. Printed: the time until every one is in the wire log and the tables, and the
event loop's worst lag meanwhile (how long a key press could wait).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

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


async def one(target: object) -> tuple[float, float, float]:
    from inspector.tui.app import ReviewApp

    started = time.perf_counter()
    app = ReviewApp(target)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 30)) as pilot:
        painted = time.perf_counter() - started
        with Lag() as lag:
            while app.snapshot is None or app.tools.filling:
                await pilot.pause(0.01)
            await pilot.pause()
        return painted, time.perf_counter() - started, lag.worst


async def flood() -> tuple[float, float, int]:
    from inspector.calls import call_tool
    from inspector.targets import stdio_target
    from inspector.tui.app import ReviewApp

    target = stdio_target([sys.executable, str(ROOT / "tests/servers/hostile.py"), "--tools", "10"])
    app = ReviewApp(target)
    async with app.run_test(size=(100, 30)) as pilot:
        while app.snapshot is None:
            await pilot.pause(0.01)
        await pilot.pause(0.2)
        before = len(app.wire_log.entries)
        with Lag() as lag:
            started = time.perf_counter()
            app.connection.submit(
                lambda session, _snap: call_tool(session, "flood", {}, consent="read-only", purpose="bench")
            )
            while len(app.wire_log.entries) - before < 30000 or app.wire_pending:
                await pilot.pause(0.01)
            drained = time.perf_counter() - started
        return drained, lag.worst, app.main.query_one("#wire").row_count  # type: ignore[attr-defined]


def main() -> None:
    started = time.perf_counter()
    import inspector.tui.app  # noqa: F401

    print(f"import of the TUI: {time.perf_counter() - started:.2f} s")
    from inspector.targets import demo_target, stdio_target

    servers = {
        "demo": demo_target(),
        "10000 tools": stdio_target([sys.executable, str(ROOT / "tests/servers/many.py"), "--tools", "10000"]),
    }
    for label, target in servers.items():
        runs = [asyncio.run(one(target)) for _ in range(3)]
        paint, filled, lag = (statistics.median(r[i] for r in runs) for i in range(3))
        print(
            f"{label:>12}: first paint {paint:.2f} s, tools table filled {filled:.2f} s, "
            f"worst event-loop lag while loading {lag * 1000:.0f} ms (medians of 3)"
        )
    drained, lag, rows = asyncio.run(flood())
    print(
        f"flood of 30,000 notifications: shown after {drained:.2f} s, worst event-loop lag {lag * 1000:.0f} ms, "
        f"{rows:,} rows in the wire table"
    )


if __name__ == "__main__":
    main()
