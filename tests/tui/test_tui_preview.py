"""`b` on an app tool (issue 23): the app in the reviewer's browser through the preview's host page on 127.0.0.1,
against the real apps fixture over stdio. The browser step is played (`Previewer.launch`): what it would open is
fetched as a browser would, so the test sees what the page would be fed."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from mcp_review import preview_browser
from mcp_review.checking import CheckPlan
from mcp_review.targets import stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.dialogs import CallScreen, ConfirmScreen, ResultScreen
from mcp_review.tui.grid import Grid
from tests.support import fixture_argv
from tests.tui.test_tui_app_page import open_app, until
from tests.tui_pilot import notifications


def session_of(url: str) -> Any:
    with urllib.request.urlopen(url + "session.json", timeout=10) as reply:
        return json.loads(reply.read())


def played(app: ReviewApp, browse: bool = False) -> list[tuple[str, str, tuple[int, ...]]]:
    """The browser step, played: what it was asked to open, through which proxy, for which ports; `browse`: opened
    in the confined Chromium the preview would start, headless (no display here)."""
    asked: list[tuple[str, str, tuple[int, ...]]] = []

    def launch(url: str, proxy: str, ports: tuple[int, ...], profile: str) -> preview_browser.Launch:
        asked.append((url, proxy, ports))
        browser = preview_browser.find() if browse else None
        if browser is None:
            return preview_browser.Launch(None)
        return preview_browser.Launch(
            preview_browser.start(preview_browser.confined(browser, url, profile, proxy, ports, headless=True))
        )

    app.previewer.launch = launch
    return asked


@pytest.mark.parametrize("consent", [True, False])
async def test_b_opens_the_app_in_the_browser_fed_by_a_consented_call(tmp_path, consent):
    target = stdio_target(fixture_argv("apps", "well-formed"), env={"APPS_WRITES": "1"})  # needs consent
    app = ReviewApp(target, plan=CheckPlan(packs=["apps"]), state_dir=tmp_path)
    app.animation_level = "none"
    asked = played(app, browse=consent)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await pilot.press("2")
        await until(pilot, lambda: app.main.query_one("#tools", Grid).row_count > 0)
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, CallScreen))
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))  # the call feeding the app: consent first
        await pilot.click("#yes" if consent else "#no")
        await until(pilot, lambda: bool(asked))
        url, proxy, ports = asked[0]
        assert url.startswith("http://127.0.0.1:") and proxy.startswith("http://127.0.0.1:") and len(ports) == 2
        result = (await asyncio.to_thread(session_of, url))["result"]
        if consent:
            assert result["structuredContent"] == {"city": "Lisbon", "summary": "Sunny in Lisbon, 21 C"}
            assert [(c["tool"], c["consent"]) for c in app.workspace.call_log] == [("show_weather", "reviewer")]
            running = app.previewer.running
            assert running is not None and running[1].process is not None
            await until(pilot, lambda: running[0].seen.rendered is not None)  # the browser showed the result
        else:
            assert result is None and app.workspace.call_log == []  # nothing was called
        await pilot.press("b")  # again: the preview closes and says what it saw
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert isinstance(app.screen, ResultScreen)
        shown = app.screen.body.plain
        assert shown.startswith(f"ui://weather/app.html in the host page at {url}")
        if consent:  # what the browser did: the bridge, the declared origins the lockdown and the refuser stopped
            assert "host:ui/notifications/tool-result" in shown
            assert "the app reaches maps.weather.example:443; the preview refused the connection" in shown
        else:
            assert "the page was never opened: nothing was observed" in shown  # the played browser opened nothing
        assert app.previewer.running is None
        with pytest.raises(urllib.error.URLError):
            await asyncio.to_thread(session_of, url)  # its servers are gone


async def test_b_on_the_app_resource_opens_it_through_the_tool_that_shows_it(tmp_path):
    app = ReviewApp(
        stdio_target(fixture_argv("apps", "well-formed")), plan=CheckPlan(packs=["apps"]), state_dir=tmp_path
    )
    app.animation_level = "none"
    asked = played(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_app(pilot)
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, CallScreen))
        assert app.screen.tool["name"] == "show_weather"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")  # read-only: no consent asked
        await until(pilot, lambda: bool(asked))
        assert (await asyncio.to_thread(session_of, asked[0][0]))["result"]["structuredContent"]["city"] == "Lisbon"
        app.previewer.stop()


@pytest.mark.skipif(preview_browser.find() is None, reason="needs Chromium (scripts/test-deps installs it)")
async def test_capital_b_runs_the_app_in_a_confined_headless_chromium_without_a_display(tmp_path, monkeypatch):
    """No display: `b` serves the app and says `B` runs it here; `B` runs it in the confined headless Chromium of
    `mcp-review app TOOL --headless` and shows what it did, no toast over that dialog."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    heard: list = []
    app = ReviewApp(
        stdio_target(fixture_argv("apps", "well-formed")), plan=CheckPlan(packs=["apps"]), state_dir=tmp_path
    )
    app.animation_level = "none"
    async with app.run_test(size=(80, 24), message_hook=heard.append) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await pilot.press("2")
        await until(pilot, lambda: app.main.query_one("#tools", Grid).row_count > 0)
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, CallScreen))
        await pilot.press("ctrl+s")  # read-only: no consent asked
        await until(pilot, lambda: app.previewer.running is not None)
        assert any("B runs it here in a confined headless Chromium" in n for n in notifications(heard))
        app.previewer.stop()
        await pilot.press("B")
        await until(pilot, lambda: isinstance(app.screen, CallScreen))
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), 60)
        shown = app.screen.body.plain
        assert "ui://weather/app.html in the host page at http://127.0.0.1:" in shown
        assert "in a confined headless Chromium" in shown and "host:ui/notifications/tool-result" in shown
        assert not app._notifications, "no toast lies over what the page did"
