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
    return ReviewApp(demo_target(), state_dir=tmp_path, export_dir=tmp_path)


async def connected(pilot: Pilot) -> None:
    app = pilot.app
    async with asyncio.timeout(30):
        while app.snapshot is None:  # type: ignore[attr-defined]
            await pilot.pause(0.05)
    await pilot.pause()


async def reviewed(pilot: Pilot) -> None:
    await connected(pilot)
    await pilot.press("r")
    async with asyncio.timeout(60):
        while pilot.app.review is None:  # type: ignore[attr-defined]
            await pilot.pause(0.05)
    await pilot.pause()


def test_overview(snap_compare, app):
    assert snap_compare(app, run_before=connected, terminal_size=SIZE)


def test_tools(snap_compare, app):
    async def tools(pilot: Pilot) -> None:
        await connected(pilot)
        await pilot.press("right")
        await pilot.pause()

    assert snap_compare(app, run_before=tools, terminal_size=SIZE)


def test_checklist(snap_compare, app):
    async def checklist(pilot: Pilot) -> None:
        await reviewed(pilot)
        await pilot.press("right", "right")
        await pilot.pause()

    assert snap_compare(app, run_before=checklist, terminal_size=SIZE)


def test_call(snap_compare, app):
    async def call(pilot: Pilot) -> None:
        await connected(pilot)
        await pilot.press("right")
        await pilot.press("c")
        await pilot.pause(0.3)

    assert snap_compare(app, run_before=call, terminal_size=SIZE)


def test_wire(snap_compare, app):
    async def wire(pilot: Pilot) -> None:
        await connected(pilot)
        await pilot.press("right", "right", "right")
        pilot.app.main.query_one("#wire-filter").value = "tools/list"  # type: ignore[attr-defined]
        await pilot.pause()

    assert snap_compare(app, run_before=wire, terminal_size=SIZE)
