"""The app's export of a big review (issue 36): how long a key could wait while it is previewed and written.

    .venv/bin/python bench/export.py [FINDINGS]

A review of FINDINGS findings (default 100,000: what a server of 10,000 tools makes), each a real rule's, about one
of 10,000 tools, is given to the app (on the bundled demo server) and exported through its dialog, as a reviewer
does, in md (the complete review beside it), json and sarif. Printed per format: how long the export took to write
(from the key to the `Exported` message), and the event loop's worst lag meanwhile (how long a key press could have
waited), from opening the dialog (its preview rendered) until the files are written, beside the same for the demo
server's own small review (what opening and closing the dialog costs the loop anyway); then the same render and
write done directly, which is how long the loop was held when the export ran on it. Ratios from this one run.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.tui import Lag  # noqa: E402


def big_review(size: int) -> object:
    from mcp_review.review import Finding, Review
    from mcp_review.rules.core import load_rules

    rules = list(load_rules().values())
    statuses = ("pass", "fail", "warn", "blocking", "n/a")
    findings = [
        Finding(
            rule.id,
            rule.pack,
            statuses[i % len(statuses)],
            f"tool_{i % 10_000} says something about {rule.id} ({i})",
            f"tool_{i % 10_000}",
            "tool",
            rule.source,
            rule.mode,
            [i % 50],
        )
        for i, rule in zip(range(size), (rules[i % len(rules)] for i in range(size)), strict=True)
    ]
    return Review(
        server={"name": "big", "version": "1"},
        target={"kind": "stdio", "command": "big"},
        revision="2025-11-25",
        era="legacy",
        transport="stdio",
        findings=findings,
        tools=[f"tool_{i}" for i in range(10_000)],
        packs=["review", "spec"],
    )


async def through_the_app(review: object | None, fmt: str, folder: Path) -> tuple[float, float, float]:
    """Seconds until the preview shows, seconds to write, the loop's worst lag over both (`review` None: the demo
    server's own, before any run: what the dialog itself costs the loop)."""
    from textual.widgets import Input, Select

    from mcp_review.targets import demo_target
    from mcp_review.tui import messages as msg
    from mcp_review.tui.app import ReviewApp
    from mcp_review.tui.dialogs import ExportScreen

    heard: list[object] = []
    app = ReviewApp(demo_target(), export_dir=folder, state_dir=folder)
    async with app.run_test(size=(80, 24), message_hook=heard.append) as pilot:
        while app.workspace.snapshot is None:
            await pilot.pause(0.05)
        app.workspace.review = review or app.workspace.decided_on()  # type: ignore[assignment]
        await pilot.pause(0.2)
        with Lag() as lag:
            started = time.perf_counter()
            await pilot.press("e")
            while not (isinstance(app.screen, ExportScreen) and app.screen.preview is not None):
                await pilot.pause(0.01)
            previewed = time.perf_counter() - started
            app.screen.query_one("#format", Select).value = fmt
            await pilot.pause()
            app.screen.query_one("#path", Input).value = str(folder / f"big.{fmt}")
            started = time.perf_counter()
            await pilot.press("ctrl+s")
            while not any(isinstance(m, msg.Exported) for m in heard):
                await pilot.pause(0.01)
            written = time.perf_counter() - started
        return previewed, written, lag.worst


def directly(review: object, fmt: str, folder: Path) -> float:
    """The preview and the export rendered and written in this thread, as the dialog did on the loop."""
    from mcp_review.report import FORMATS
    from mcp_review.report.formats import write

    started = time.perf_counter()
    FORMATS["md"].render(review)  # the preview
    write(FORMATS[fmt], review, folder / f"direct.{fmt}")
    return time.perf_counter() - started


def main() -> None:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    review = big_review(size)
    print(f"a review of {size:,} findings, exported from the app at 80x24 (the demo server)")
    for fmt in ("md", "json", "sarif"):
        with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as other:
            _, _, small = asyncio.run(through_the_app(None, fmt, Path(one)))
            previewed, written, lag = asyncio.run(through_the_app(review, fmt, Path(other)))
            held = directly(review, fmt, Path(other))
        print(
            f"{fmt:>6}: preview shown after {previewed:.2f} s, written {written:.2f} s after the key; longest key "
            f"wait {lag * 1000:.0f} ms (the demo's own small review: {small * 1000:.0f} ms); rendered and written on "
            f"the loop it held it {held:.2f} s; longest wait ÷ that {lag / held:.3f}"
        )


if __name__ == "__main__":
    main()
