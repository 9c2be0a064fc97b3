"""TUI start-up: time from launch to the first painted screen, and to a filled tools table.

    .venv/bin/python bench/tui.py

Measured in-process with Textual's headless driver (no terminal I/O), from the moment the app object
is created; the import of the TUI modules is timed separately. Servers: the bundled demo and
`tests/servers/many.py --tools 10000`.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


async def one(target: object) -> tuple[float, float]:
    from inspector.tui.app import ReviewApp

    started = time.perf_counter()
    app = ReviewApp(target)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 30)) as pilot:
        painted = time.perf_counter() - started
        while app.snapshot is None:
            await pilot.pause(0.01)
        await pilot.pause()
        return painted, time.perf_counter() - started


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
        paint = statistics.median(r[0] for r in runs)
        filled = statistics.median(r[1] for r in runs)
        print(f"{label:>12}: first paint {paint:.2f} s, tools table filled {filled:.2f} s (median of 3)")


if __name__ == "__main__":
    main()
