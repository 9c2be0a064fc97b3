"""Driving the review app with Pilot as a reviewer would: switch tabs, wait on state (never a fixed sleep),
run the checks, open and make calls; shared by the test_tui_* files."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable

from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot

from mcp_review.targets import stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.grid import Grid
from tests.pace import Patience
from tests.thirdparty import everything_stdio_argv


async def show_tab(pilot: Pilot, app: ReviewApp, tab: str) -> None:
    """Switch to a tab as the reviewer would: its tables catch up with what arrived while it was hidden."""
    from textual.widgets import TabbedContent

    app.main.query_one(TabbedContent).active = tab
    await pilot.pause()


def screen_text(app: ReviewApp) -> str:
    """The screen as the terminal shows it, as text (what `export_screenshot` draws, without the SVG)."""
    import io

    from rich.console import Console

    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(), record=True)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


def notifications(heard: list[Message]) -> list[str]:
    """What the app told the reviewer in notifications, from the messages `run_test(message_hook=...)` heard
    (Textual posts each notification to the app as a `Notify`)."""
    return [m.notification.message for m in heard if isinstance(m, Notify)]


async def until(pilot: Pilot, condition: Callable[[], object], seconds: float = 30) -> None:
    """Wait until `condition()` holds; `seconds` is a hang bound at this machine's pace (tests/pace.py), so a
    loaded machine waits longer instead of failing. Past it, `TimeoutError`."""
    patience = Patience(seconds)
    while not condition():
        if patience.spent():
            raise TimeoutError(f"not within {patience}")
        await pilot.pause(0.05)
    await pilot.pause()


async def settled(pilot: Pilot) -> None:
    """Wait for a screen that no longer changes before it is captured: no worker pending or running but the
    connection's (it holds the session for the app's life), no blinking cursor, no animation scheduled, then one
    idle pass."""
    from textual.worker import WorkerState

    def busy() -> bool:
        return any(
            w.state in (WorkerState.PENDING, WorkerState.RUNNING) and not w.group.startswith("connection-")
            for w in pilot.app.workers
        )

    await until(pilot, lambda: not busy())
    for field in pilot.app.screen.query("Input, TextArea"):  # a blinking cursor is drawn or not by the clock
        field.cursor_blink = False  # type: ignore[attr-defined]
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def run_checks(pilot: Pilot, app: ReviewApp, calls: str = "read-only") -> None:
    """Press r; the first run asks which tools checks may call (read-only ones by default)."""
    from textual.widgets import Select

    from mcp_review.tui.dialogs import RunScreen

    await pilot.press("r")
    if not app.workspace.calls_chosen:
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        app.screen.query_one("#calls", Select).value = calls
        await pilot.click("#run")
    await until(pilot, lambda: not app.workspace.checking and app.workspace.review is not None, 60)


async def highlight(pilot: Pilot, app: ReviewApp, name: str) -> None:
    await pilot.press("2")  # Tools tab
    table = app.main.query_one("#tools", Grid)
    row = next(i for i in range(table.row_count) if str(table.get_cell_at((i, 0))) == name)
    table.move_cursor(row=row)
    table.focus()
    await pilot.pause()


async def open_call(pilot: Pilot, app: ReviewApp, name: str) -> None:
    """Highlight tool `name` and open its call dialog."""
    from mcp_review.tui.dialogs import CallScreen

    await highlight(pilot, app, name)
    await pilot.press("c")
    await until(pilot, lambda: isinstance(app.screen, CallScreen))


async def call_with_consent(pilot: Pilot, app: ReviewApp, name: str, arguments: str | None = None) -> None:
    from textual.widgets import TextArea

    from mcp_review.tui.dialogs import ConfirmScreen, ResultScreen

    await open_call(pilot, app, name)
    if arguments is not None:
        app.screen.query_one(TextArea).text = arguments
        await pilot.pause()
    await pilot.press("ctrl+s")
    await until(
        pilot,
        lambda: (
            isinstance(app.screen, ConfirmScreen | ResultScreen)
            or "x to cancel" in str(app.main.query_one("#status").render())  # the call runs
            or app.workspace.call_log
        ),
    )
    if isinstance(app.screen, ConfirmScreen):  # only tools that may have side effects ask
        await pilot.click("#yes")


@contextlib.asynccontextmanager
async def calling_everything(
    tmp_path, tool: str, arguments: str | None = None, heard: list[Message] | None = None
) -> AsyncIterator[tuple[ReviewApp, Pilot]]:
    """The app on server-everything (stdio), with `tool` called with the reviewer's consent.

    server-everything asks for roots once connected: the reviewer shares the working directory first.
    """
    from mcp_review.tui.dialogs import RootsScreen

    app = ReviewApp(stdio_target(everything_stdio_argv()), state_dir=tmp_path)
    hook = None if heard is None else heard.append
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RootsScreen))
        assert json.loads(app.screen.query_one("#editor").text)[0]["uri"].startswith("file://")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.workspace.snapshot is not None and not isinstance(app.screen, RootsScreen))
        await call_with_consent(pilot, app, tool, arguments)
        yield app, pilot


async def find_and_call(pilot: Pilot, app: ReviewApp, name: str) -> None:
    """Filter the tools table down to `name`, then call it with the arguments prefilled."""
    app.main.query_one("#tool-filter").value = name
    await pilot.pause()
    await open_call(pilot, app, name)
    await pilot.press("ctrl+s")
