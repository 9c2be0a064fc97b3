"""How the app looks, at a fixed terminal size (pytest-textual-snapshot; `--snapshot-update` after a deliberate change)."""

from __future__ import annotations

import asyncio

import pytest
from textual.pilot import Pilot

from inspector.targets import demo_target
from inspector.tui.app import ReviewApp

SIZE = (100, 30)


@pytest.fixture
def app(tmp_path) -> ReviewApp:
    review_app = ReviewApp(demo_target(), state_dir=tmp_path, export_dir=tmp_path)
    review_app.animation_level = "none"  # a tab underline still sliding under load is not a change of looks
    return review_app


async def connected(pilot: Pilot) -> None:
    app = pilot.app
    async with asyncio.timeout(30):
        while app.snapshot is None:  # type: ignore[attr-defined]
            await pilot.pause(0.05)
    await pilot.pause()


async def tab(pilot: Pilot, pane: str) -> None:
    from textual.widgets import TabbedContent

    pilot.app.main.query_one(TabbedContent).active = pane  # type: ignore[attr-defined]
    await pilot.pause()


async def reviewed(pilot: Pilot) -> None:
    await connected(pilot)
    await pilot.press("r")  # the first run asks which tools checks may call: read-only ones
    await pilot.pause()
    await pilot.click("#run")
    async with asyncio.timeout(60):
        while pilot.app.review is None:  # type: ignore[attr-defined]
            await pilot.pause(0.05)
    await pilot.pause()


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
        from inspector.tui.dialogs import CallScreen

        async with asyncio.timeout(10):  # the dialog, mounted and drawn: no fixed wait that load can outrun
            while not isinstance(pilot.app.screen, CallScreen):
                await pilot.pause(0.05)
        await pilot.pause()

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
    monkeypatch.setattr("inspector.connection.wire.time", Clock())

    async def wire(pilot: Pilot) -> None:
        await connected(pilot)
        await tab(pilot, "tab-wire")
        async with asyncio.timeout(10):
            while pilot.app.wire_pending:  # type: ignore[attr-defined]  # drawn ten times a second
                await pilot.pause(0.05)
        pilot.app.main.query_one("#wire-filter").value = "tools/list"  # type: ignore[attr-defined]
        await pilot.pause()

    assert snap_compare(app, run_before=wire, terminal_size=SIZE)


def test_checklist_at_80x24(snap_compare, app):
    """The smallest terminal the app supports: the checklist and the footer's first keys still fit."""

    async def checklist(pilot: Pilot) -> None:
        await reviewed(pilot)
        await tab(pilot, "tab-checks")

    assert snap_compare(app, run_before=checklist, terminal_size=(80, 24))
