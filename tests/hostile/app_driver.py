"""Drive the review app against a server like a reviewer would, headless, and report what it showed.

    python app_driver.py OUT_DIR -- mcp-review target arguments (--url ... | -- command ...)

Connect, wait, run the default packs with every tool callable (or those `--calls` allows), call `probe` (a
consent dialog is declined: escape), copy the call as CLI and JSON, export the review in every format (markdown
through the export dialog; the others rendered as that dialog renders them: a dialog each cost the corpus a minute
of CPU), quit. Writes OUT_DIR/app.json: the text of every screen seen, the clipboard, the files exported, and any
exception (a crash). The harness greps all of it for secrets.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import sys
import time
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.widgets import DataTable, Input, Static, Tabs, TextArea

from mcp_review.cli import parse, prepare_process
from mcp_review.cli.common import decide
from mcp_review.connection import procs
from mcp_review.output import write_text
from mcp_review.report import FORMATS, render_chunks
from mcp_review.tui.app import ReviewApp
from tests.pace import Patience

FIRST = "md"  # the format the export dialog opens on; the others are rendered as its export renders them


def screen_text(app: ReviewApp) -> str:
    """Everything the screens hold as text: widgets' content, table cells, and what was drawn."""
    parts = []
    for screen in app.screen_stack:
        for widget in screen.query("*"):
            if isinstance(widget, Static):
                parts.append(str(widget.render()))
            elif isinstance(widget, DataTable):
                parts += [" ".join(map(str, widget.get_row_at(r))) for r in range(widget.row_count)]
            elif isinstance(widget, TextArea | Input):
                parts.append(widget.text if isinstance(widget, TextArea) else widget.value)
    svg = app.export_screenshot()
    parts.append(html.unescape(re.sub(r"<[^>]+>", "", svg)))
    return "\n".join(parts)


async def press(pilot: Any, key: str) -> None:
    """The key as the terminal posts it, then the screen's pending events processed (`pause` waits for them). Not
    `pilot.press`, which also waits for the process to go idle, up to a second twice per key: a flooding server
    keeps it busy, and every key cost two seconds of flood, on both sides."""
    pilot.app.simulate_key(key)
    await pilot.pause(0.05)


async def until(pilot: Any, condition: Any, seconds: float) -> bool:
    """Whether `condition()` came to hold within `seconds`, a hang bound at this machine's pace (tests/pace.py)."""
    patience = Patience(seconds)
    while not patience.spent():
        if condition():
            return True
        await pilot.pause(0.05)
    return False


def status_line(app: ReviewApp) -> str:
    return str(app.main.query_one("#status", Static).render())


async def connecting(pilot: Any, app: ReviewApp, report: dict[str, Any], budget: float) -> None:
    """Wait for the connection (or its failure) without answering what the server asks meanwhile, as a reviewer
    who has not looked yet: report["connecting"] is the last status line seen while the connection was still
    opening (what it says it waits for), while a server's dialog was up if one came up on time, or None."""
    from mcp_review.tui.dialogs import AnswerScreen

    ws, asked = app.workspace, False
    report["connecting"] = None
    patience = Patience(budget)
    while not patience.spent() and ws.snapshot is None and ws.failure is None:
        asked = asked or isinstance(app.screen, AnswerScreen)
        if isinstance(app.screen, AnswerScreen) or not asked:
            report["connecting"] = status_line(app)
        await pilot.pause(0.05)


async def drive(app: ReviewApp, out: Path, report: dict[str, Any], budget: float, calls: str = "all") -> None:
    from mcp_review.tui.dialogs import AnswerScreen, CallScreen, ExportScreen, ResultScreen

    async with app.run_test(size=(80, 24)) as pilot:
        report["first_paint"] = await until(pilot, lambda: app.main.ready, 10)
        await connecting(pilot, app, report, budget)
        report["screens"].append(screen_text(app))

        async def answered(done: Any, seconds: float) -> bool:
            """Wait for `done()`, declining whatever the server asks meanwhile."""
            patience = Patience(seconds)
            while (
                not done()
                and not patience.spent()
                and await until(pilot, lambda: done() or isinstance(app.screen, AnswerScreen), patience.remaining)
            ):
                await decline()
            return bool(done())

        async def decline() -> None:
            while isinstance(app.screen, AnswerScreen):  # the server asks: decline what it asks
                report["screens"].append(screen_text(app))
                everything = app.screen.query("#decline-all")
                if everything:
                    everything.first().press()
                else:
                    await press(pilot, "escape")
                await pilot.pause(0.1)

        await decline()
        if app.workspace.snapshot is None:
            report["connected"] = False
            return
        report["connected"] = True
        ws = app.workspace  # the packs r runs by default; the tools --calls allows
        ws.choose(ws.plan.packs, replace(ws.options, calls=calls))
        app.action_run_checks()
        await answered(
            lambda: app.workspace.review is not None and not app.workspace.checking, budget
        )  # the checklist's calls ask too
        for tab in ("tab-overview", "tab-tools", "tab-checks", "tab-wire", "tab-logs", "tab-calls"):
            app.main.query_one("TabbedContent").active = tab
            await pilot.pause(0.05)
            report["screens"].append(screen_text(app))
        probe = app.workspace.snapshot.tool("probe") if app.workspace.snapshot else None
        if probe is not None:
            app.jump_to_tool(probe.index)
            await pilot.pause(0.2)
            await press(pilot, "c")

            # drawn, as a reviewer sees it before typing: composed (its editor there: a screen pushed but not yet
            # composed has no Tabs, and `all` of none held, so a loaded machine typed into nothing) and its tabs
            # mounted. (Typing before that once stopped the app: a dialog answered as it opens, fixed in
            # tui/closed.py and tested in tests/tui/test_tui_closed.py.)
            def drawn() -> bool:
                screen = app.screen
                composed = isinstance(screen, CallScreen) and bool(screen.query("#editor"))
                return composed and all(t.active for t in screen.query(Tabs))

            if await until(pilot, drawn, 5):
                from mcp_review.rules.util import valid_arguments

                app.screen.query_one("#editor", TextArea).text = json.dumps(valid_arguments(probe))  # starts empty
                await pilot.pause(0.05)
                report["screens"].append(screen_text(app))
                await press(pilot, "ctrl+s")
                result = lambda: isinstance(app.screen, ResultScreen) or not app.caller.running  # noqa: E731
                if not await answered(result, 5):
                    await press(pilot, "x")  # a call that only reports progress: the reviewer cancels it, as one would
                    await answered(result, budget)
                await until(pilot, lambda: isinstance(app.screen, ResultScreen), 2)
                report["screens"].append(screen_text(app))
                await press(pilot, "escape")
            app.main.query_one("TabbedContent").active = "tab-calls"
            await pilot.pause(0.1)
            for key in ("y", "Y"):
                await press(pilot, key)
                report["clipboard"].append(app.clipboard)
        app.action_export()  # through the dialog, as a reviewer does: it saves the review and previews it
        if await until(pilot, lambda: isinstance(app.screen, ExportScreen) and app.screen.query("#format"), 5):
            screen = app.screen
            screen.query_one("#path", Input).value = str(out / f"export.{FIRST}")
            screen.query_one("#export").press()
            await pilot.pause(0.1)
            report["exported"].append(FIRST)
            review = app.workspace.decided_on()  # every other format: what the dialog's export writes for it
            for fmt in (f for f in FORMATS if f != FIRST):
                write_text(out / f"export.{fmt}", render_chunks(review, fmt))
                report["exported"].append(fmt)
        report["screens"].append(screen_text(app))
        await app.action_quit()


async def keys(app: ReviewApp, out: Path, report: dict[str, Any], budget: float) -> None:
    """While the server keeps a dialog up (a sampling loop, a hostile elicitation), the reviewer presses `r`
    (the run dialog must open), `5` (the Checklist tab must show, and stay shown a second later), `i` (what the
    server asked comes back), declines three times (what the server asks next must wait, set aside: the tabs
    stay), and `q` (the app must quit): report["keys"] says how long each took, or None."""
    from mcp_review.tui.dialogs import AnswerScreen, RunScreen

    report["keys"] = {"r": None, "5": None, "i": None, "declined": None, "q": None}

    def tab_shown() -> bool:
        return app.screen is app.main and app.main.query_one("TabbedContent").active == "tab-checks"

    async def decline_three() -> bool:
        for i in range(3):  # a loop asks again at once: 2 s is long for it (elicit-huge asks once, and waits them)
            if not await until(pilot, lambda: isinstance(app.screen, AnswerScreen), 4 if i == 0 else 2):
                return False
            await press(pilot, "escape")
        return await until(pilot, lambda: app.screen is app.main, 2)

    steps = (
        ("r", lambda: isinstance(app.screen, RunScreen)),
        ("5", tab_shown),
        ("i", lambda: isinstance(app.screen, AnswerScreen)),
        ("declined", None),
        ("q", lambda: not app.is_running),
    )
    async with app.run_test(size=(80, 24)) as pilot:
        report["first_paint"] = await until(pilot, lambda: app.main.ready, 10)
        ws = app.workspace
        await until(pilot, lambda: ws.snapshot is not None or ws.failure is not None, budget)
        report["connected"] = ws.snapshot is not None  # else no dialog can come: not waited for (a budget more)
        if not report["connected"] or not await until(pilot, lambda: isinstance(app.screen, AnswerScreen), budget):
            return
        report["screens"].append(screen_text(app))
        for key, done in steps:
            started = time.monotonic()
            if done is None:
                reached = await decline_three()
            else:
                await press(pilot, key)
                reached = await until(pilot, done, 4)
            if key == "5" and reached:
                await pilot.pause(1)  # a dialog the server reopened at once would be over it again
                reached = tab_shown()
            if reached:
                report["keys"][key] = round(time.monotonic() - started, 2)
            if key == "r":
                await press(pilot, "escape")
                await pilot.pause(0.2)
        if app.is_running:
            await app.action_quit()


def main() -> int:
    out = Path(sys.argv[1])
    pressing = "--keys" in sys.argv  # press r and q while the server keeps asking, instead of a whole review
    args = parse(["tui", *[a for a in sys.argv[2:] if a != "--keys"]])
    target = decide(args).target
    prepare_process()  # as `mcp-review tui` does
    report: dict[str, Any] = {"screens": [], "clipboard": [], "exported": [], "error": None}
    app = ReviewApp(target, era=args.era, export_dir=out, state_dir=out)
    try:
        budget = max(20.0, args.timeout * 8)  # the harness gave it a --timeout for this machine
        if pressing:
            asyncio.run(keys(app, out, report, budget=budget))
        else:
            asyncio.run(drive(app, out, report, budget=budget, calls=args.calls or "all"))
    except Exception:
        report["error"] = traceback.format_exc()
    finally:
        procs.reap_strays()
    (out / "app.json").write_text(json.dumps(report, ensure_ascii=False), encoding="utf-8", errors="replace")
    return 1 if report["error"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
