"""How the app looks, at a fixed terminal size (pytest-textual-snapshot; `--snapshot-update` after a deliberate change)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual.pilot import Pilot

from mcp_review.targets import demo_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.panes.checklist import ChecklistPane
from tests.tui_pilot import settled, until

SIZE = (100, 30)


@pytest.fixture
def app(tmp_path) -> ReviewApp:
    review_app = ReviewApp(demo_target(), state_dir=tmp_path, export_dir=tmp_path)
    review_app.animation_level = "none"  # a tab underline still sliding under load is not a change of looks
    return review_app


async def connected(pilot: Pilot) -> None:
    await until(pilot, lambda: pilot.app.workspace.snapshot is not None)  # type: ignore[attr-defined]
    await settled(pilot)


async def tab(pilot: Pilot, pane: str) -> None:
    from textual.widgets import TabbedContent

    pilot.app.main.query_one(TabbedContent).active = pane  # type: ignore[attr-defined]
    await settled(pilot)


async def reviewed(pilot: Pilot) -> None:
    await connected(pilot)
    await pilot.press("r")  # the first run asks which tools checks may call: read-only ones
    await pilot.pause()
    await pilot.click("#run")
    await until(pilot, lambda: pilot.app.workspace.review is not None, 60)  # type: ignore[attr-defined]
    await settled(pilot)


@pytest.mark.quick
def test_overview(snap_compare, app):
    assert snap_compare(app, run_before=connected, terminal_size=SIZE)


def test_tools(snap_compare, app):
    async def tools(pilot: Pilot) -> None:
        await connected(pilot)
        await tab(pilot, "tab-tools")

    assert snap_compare(app, run_before=tools, terminal_size=SIZE)


def test_checklist(snap_compare, app):
    async def checklist(pilot: Pilot) -> None:
        await reviewed(pilot)
        await tab(pilot, "tab-checks")

    assert snap_compare(app, run_before=checklist, terminal_size=SIZE)


def test_call(snap_compare, app):
    async def call(pilot: Pilot) -> None:
        await connected(pilot)
        await tab(pilot, "tab-tools")
        await pilot.press("c")
        from mcp_review.tui.dialogs import CallScreen

        await until(pilot, lambda: isinstance(pilot.app.screen, CallScreen), 10)  # mounted: no fixed wait
        await settled(pilot)

    assert snap_compare(app, run_before=call, terminal_size=SIZE)


class Clock:
    """One fixed wire time, so the t and ms columns are the same on every run.

    A clock that ticks per entry is not enough: the server's stderr lines land between messages at
    moments that vary from run to run, and each shifted every later time (the snapshot failed in CI).
    """

    @staticmethod
    def time() -> float:
        return 1_800_000_000.0


def test_wire(snap_compare, app, monkeypatch):
    monkeypatch.setattr("mcp_review.connection.wire.time", Clock())

    async def wire(pilot: Pilot) -> None:
        await connected(pilot)
        await tab(pilot, "tab-wire")
        await until(pilot, lambda: not pilot.app.workspace.wire, 10)  # type: ignore[attr-defined]  # drawn 10x a second
        pilot.app.main.query_one("#wire-filter").value = "tools/list"  # type: ignore[attr-defined]
        await settled(pilot)

    assert snap_compare(app, run_before=wire, terminal_size=SIZE)


def test_checklist_at_80x24(snap_compare, app):
    """The smallest terminal the app supports: the checklist and the footer's first keys still fit."""

    async def checklist(pilot: Pilot) -> None:
        await reviewed(pilot)
        await tab(pilot, "tab-checks")

    assert snap_compare(app, run_before=checklist, terminal_size=(80, 24))


# ---------------------------------------------------------------- 80x24, the smallest terminal supported: every
# tab and every dialog, each with its own footer (issue 12); and one at 60x20, squeezed but whole
SMALL = (80, 24)


@pytest.mark.parametrize("pane", ["tab-tools", "tab-calls", "tab-primitives", "tab-wire", "tab-logs"])
def test_tab_at_80x24(snap_compare, app, monkeypatch, pane):
    monkeypatch.setattr("mcp_review.connection.wire.time", Clock())

    async def shown(pilot: Pilot) -> None:
        await connected(pilot)
        await until(pilot, lambda: not pilot.app.workspace.wire, 10)  # type: ignore[attr-defined]
        await tab(pilot, pane)
        if pane == "tab-wire":  # the server's stderr lands between messages at moments that vary (see Clock)
            pilot.app.main.query_one("#wire-filter").value = "tools/list"  # type: ignore[attr-defined]
            await settled(pilot)

    assert snap_compare(app, run_before=shown, terminal_size=SMALL)


def test_overview_with_help_at_80x24(snap_compare, app):
    assert snap_compare(app, run_before=connected, press=["question_mark"], terminal_size=SMALL)


def test_tools_at_60x20(snap_compare, app):
    """Narrower than supported: the tab bar scrolls to the shown tab, the table and footer are cut, nothing breaks."""
    assert snap_compare(app, run_before=connected, press=["2"], terminal_size=(60, 20))


async def until_screen(pilot: Pilot, name: str) -> None:
    await until(pilot, lambda: type(pilot.app.screen).__name__ == name, 10)  # mounted and drawn: no fixed wait
    await settled(pilot)


async def on_row(pilot: Pilot, table: str, first: str) -> None:
    """Highlight the row of `table` whose first cell is `first`."""
    from mcp_review.tui.grid import Grid

    rows = pilot.app.main.query_one(table, Grid)  # type: ignore[attr-defined]
    rows.move_cursor(row=next(i for i in range(rows.row_count) if str(rows.get_cell_at((i, 0))) == first))
    await pilot.pause()


def opener(tab_key: str, table: str, row: str, key: str, dialog: str) -> Callable[[Pilot], Awaitable[None]]:
    """Show a tab, highlight a row of its table, press a key and wait for the dialog."""

    async def open_dialog(pilot: Pilot) -> None:
        await connected(pilot)
        await pilot.press(tab_key)
        await on_row(pilot, table, row)
        await pilot.press(key)
        await until_screen(pilot, dialog)

    return open_dialog


async def open_confirm(pilot: Pilot) -> None:
    await opener("2", "#tools", "delete_note", "c", "CallScreen")(pilot)
    await pilot.press("1", "ctrl+s")  # the note_id field starts empty, with the cursor in it
    await until_screen(pilot, "ConfirmScreen")


async def open_run(pilot: Pilot) -> None:
    await connected(pilot)
    await pilot.press("r")
    await until_screen(pilot, "RunScreen")


async def open_connect(pilot: Pilot) -> None:
    await connected(pilot)
    await pilot.press("ctrl+o")
    await until_screen(pilot, "ConnectScreen")
    pilot.app.screen.query_one("#what").value = "python server.py"  # not this checkout's path to its python
    await pilot.pause()


def decision(key: str, rule: str = "review.descriptions-grounded") -> Callable[[Pilot], Awaitable[None]]:
    """The waive, attest or note dialog on `rule`'s first finding."""

    async def open_decision(pilot: Pilot) -> None:
        await reviewed(pilot)
        await pilot.press("5")
        rows = pilot.app.main.query_one("#checks")  # type: ignore[attr-defined]
        findings = pilot.app.main.query_one(ChecklistPane).shown_findings  # type: ignore[attr-defined]
        rows.move_cursor(row=next(i for i, f in enumerate(findings) if f and f.rule == rule))
        await pilot.press(key)
        await until_screen(pilot, "DecisionScreen")

    return open_decision


async def open_export(pilot: Pilot) -> None:
    await reviewed(pilot)
    review = pilot.app.workspace.review  # type: ignore[attr-defined]
    review.created = "2026-01-01T00:00:00+00:00"  # the preview's date, and not this checkout's path to its python
    review.target = {"kind": "stdio", "command": "python", "args": ["-m", "mcp_review.demo"]}
    await pilot.press("e")
    await until_screen(pilot, "ExportScreen")
    await until(pilot, lambda: pilot.app.screen.preview is not None, 10)  # type: ignore[attr-defined]  # off the loop


DIALOGS = {
    "call": opener("2", "#tools", "search_notes", "c", "CallScreen"),
    "confirm": open_confirm,
    "tool": opener("2", "#tools", "search_notes", "enter", "ToolScreen"),
    "run": open_run,
    "fill": opener("4", "#primitives", "template", "o", "TemplateScreen"),
    "result": opener("4", "#primitives", "resource", "o", "ResultScreen"),
    "connect": open_connect,
    "waive": decision("w"),
    "attest": decision("a", "review.injection-safe"),
    "note": decision("n"),
    "export": open_export,
}


@pytest.mark.parametrize("dialog", list(DIALOGS))
def test_dialog_at_80x24(snap_compare, app, monkeypatch, dialog):
    from mcp_review.tui.settings import save_settings

    save_settings({"who": "reviewer"})  # the name used last: not this machine's git user.name
    monkeypatch.setattr("mcp_review.tui.dialogs.connect.known_servers", lambda: [])  # not this machine's configs
    assert snap_compare(app, run_before=DIALOGS[dialog], terminal_size=SMALL)


def test_elicitation_at_80x24(snap_compare, tmp_path):
    """A server's request: the elicitation form, with its footer (accept, decline)."""
    from mcp_review.targets import stdio_target
    from tests.support import fixture_argv

    asking = ReviewApp(stdio_target(fixture_argv("asking")), state_dir=tmp_path)
    asking.animation_level = "none"

    async def elicited(pilot: Pilot) -> None:
        await opener("2", "#tools", "greet", "c", "CallScreen")(pilot)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: type(pilot.app.screen).__name__ in ("ConfirmScreen", "ElicitScreen"), 10)
        if type(pilot.app.screen).__name__ == "ConfirmScreen":
            await pilot.click("#yes")
        await until_screen(pilot, "ElicitScreen")

    assert snap_compare(asking, run_before=elicited, terminal_size=SMALL)
