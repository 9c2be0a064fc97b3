"""A server that asks again as soon as it is answered keeps no dialog over the tabs (issue 35): a digit sets its
request aside and shows that tab, three declines in a row set aside what it asks next, a line over the tabs says
what waits, and `i` brings it back. Against tests/hostile/flood_server.py's sampling-loop, a real stdio server."""

from __future__ import annotations

import sys

from textual.widgets import Static, TabbedContent

from mcp_review.targets import stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.asking import STREAK
from mcp_review.tui.dialogs import AnswerScreen, SampleScreen
from tests.support import ROOT
from tests.tui_pilot import until

LOOP = [sys.executable, str(ROOT / "tests" / "hostile" / "flood_server.py"), "sampling-loop"]


def aside_line(app: ReviewApp) -> str | None:
    line = app.main.query_one("#aside", Static)
    return str(line.render()) if line.display else None


async def test_a_request_asked_again_at_once_is_set_aside_and_the_tabs_stay(tmp_path):
    app = ReviewApp(stdio_target(LOOP).with_(timeout=10), state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SampleScreen))
        assert aside_line(app) is None
        await pilot.press("5")  # the Checklist tab's key: the request waits, the tab shows
        await until(pilot, lambda: app.screen is app.main)
        assert app.main.query_one(TabbedContent).active == "tab-checks"
        await pilot.pause(0.5)
        assert app.screen is app.main, "the request set aside came back over the tab"
        line = aside_line(app)
        assert line is not None and line.startswith("i answers") and "The server asks for an LLM completion" in line
        await pilot.press("2")  # every key works meanwhile
        assert app.main.query_one(TabbedContent).active == "tab-tools"

        await pilot.press("i")  # the same request, again
        await until(pilot, lambda: isinstance(app.screen, SampleScreen))
        assert aside_line(app) is None
        asked = len([e for e in app.workspace.connection.wire.entries if e.method == "sampling/createMessage"])
        for _ in range(STREAK):  # each decline brings the next at once
            await until(pilot, lambda: isinstance(app.screen, AnswerScreen))
            await pilot.press("escape")
        await until(pilot, lambda: aside_line(app) is not None)
        await pilot.pause(0.5)
        assert app.screen is app.main, "what the server asked after three declines was shown"
        now = len([e for e in app.workspace.connection.wire.entries if e.method == "sampling/createMessage"])
        assert now == asked + STREAK, "the server was answered while its request was set aside: the loop went on"
        await pilot.press("3")
        assert app.main.query_one(TabbedContent).active == "tab-calls"
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, SampleScreen))
