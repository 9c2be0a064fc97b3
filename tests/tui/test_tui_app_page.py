"""An MCP App's resource in the app (issue 23): from the Resources tab and from its tool, against the real apps
fixture server over stdio; and a hostile page (markup, escapes, 5 MB) shown as text without freezing the app."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, Static

from mcp_review.apps import Page
from mcp_review.checking import CheckPlan
from mcp_review.targets import stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.dialogs import AppPageScreen
from mcp_review.tui.grid import Grid
from tests.support import fixture_argv
from tests.tui_pilot import until


def apps_app(tmp_path, mode: str) -> ReviewApp:
    app = ReviewApp(stdio_target(fixture_argv("apps", mode)), plan=CheckPlan(packs=["apps"]), state_dir=tmp_path)
    app.animation_level = "none"
    return app


async def open_app(pilot: Pilot) -> AppPageScreen:
    """The Resources tab, its app resource opened."""
    await until(pilot, lambda: pilot.app.workspace.snapshot is not None)  # type: ignore[attr-defined]
    await pilot.press("4")
    await until(pilot, lambda: pilot.app.main.query_one("#primitives", Grid).row_count > 0)  # type: ignore[attr-defined]
    await pilot.press("o")
    await until(pilot, lambda: isinstance(pilot.app.screen, AppPageScreen))
    assert isinstance(pilot.app.screen, AppPageScreen)
    return pilot.app.screen


def summary(screen: AppPageScreen) -> str:
    return str(screen.query_one("#app-summary Static", Static).render())


def column(grid: Grid, j: int) -> list[str]:
    return [str(grid.get_cell_at((i, j))) for i in range(grid.row_count)]


async def test_well_formed_app_shows_its_tools_csp_page_and_how_to_get_findings(tmp_path):
    app = apps_app(tmp_path, "well-formed")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await pilot.press("4")
        await pilot.pause()
        assert column(app.main.query_one("#primitives", Grid), 0) == ["app"]  # marked as an app in the list
        screen = await open_app(pilot)
        text = summary(screen)
        assert "ui://weather/app.html" in text and "text/html;profile=mcp-app" in text
        assert "shown by: show_weather, refresh_weather" in text
        assert "run the checklist (r)" in text
        csp = screen.query_one("#app-csp", Grid)
        assert list(zip(column(csp, 0), column(csp, 1), strict=True)) == [
            ("_meta.ui.csp.connectDomains", "https://api.weather.example"),
            ("_meta.ui.csp.resourceDomains", "https://cdn.weather.example"),
            ("_meta.ui.csp.frameDomains", "https://maps.weather.example"),
            ("_meta.ui.permissions", "geolocation"),
            ("_meta.ui.domain", "weather.example"),
        ]
        html = screen.query_one("#app-html", Grid)
        assert column(html, 1)[0] == "<!DOCTYPE html>"
        await pilot.press("slash")
        await pilot.press(*"getcurrentposition")
        await pilot.pause()
        assert column(html, 1) == ["navigator.geolocation.getCurrentPosition((pos) => {"]
        assert html.labels[1] == "html · 1 row found"
        await pilot.press("escape")  # from the find back to the page, the screen still open
        assert isinstance(app.screen, AppPageScreen) and app.screen.focused is html
        await pilot.press("escape")
        assert not isinstance(app.screen, AppPageScreen)


async def test_tool_names_its_app_and_a_opens_it(tmp_path):
    app = apps_app(tmp_path, "openai")  # the Apps SDK's keys: openai/outputTemplate, openai/widgetCSP
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await pilot.press("2")
        await pilot.pause()
        detail = str(app.main.query_one("#tool-detail", Static).render())
        assert "ui://weather/app.html (its _meta.openai/outputTemplate; a: open it)" in detail
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, AppPageScreen))
        assert app.main.query_one("Tabbed").active == "tab-primitives"
        csp = app.screen.query_one("#app-csp", Grid)
        assert column(csp, 0)[0] == "_meta.openai/widgetCSP.connect_domains"
        assert "_meta.openai/widgetDomain" in column(csp, 0)


async def test_a_defect_shows_the_apps_findings_about_the_resource(tmp_path):
    app = apps_app(tmp_path, "csp-wildcard")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await pilot.press("r")  # the first run asks which tools checks may call
        await until(pilot, lambda: bool(app.screen.query("#run")))
        await pilot.click("#run")
        await until(pilot, lambda: app.workspace.review is not None, 60)
        screen = await open_app(pilot)
        text = summary(screen)
        assert "run the checklist" not in text
        assert text.splitlines()[4].startswith("fail apps.csp-origins-only")  # worst first, under "findings (n)"
        assert ("_meta.ui.csp.connectDomains", "*") in zip(
            column(screen.query_one("#app-csp", Grid), 0), column(screen.query_one("#app-csp", Grid), 1), strict=True
        )


HOSTILE = "[bold red]ALERT[/] \x1b[2J\x1b]8;;https://evil.example\x07link\n"


class PageApp(App[None]):
    def __init__(self, page: Page) -> None:
        super().__init__()
        self.page = page

    def compose(self) -> ComposeResult:
        yield Static()

    def on_mount(self) -> None:
        self.push_screen(AppPageScreen(self.page, None))


@pytest.mark.parametrize("shape", ["one line", "many lines"])
async def test_hostile_page_is_text_and_5mb_does_not_freeze(shape):
    filler = ("x" * 5_000_000) if shape == "one line" else ("\n" * 5_000_000)
    page = Page("ui://evil/app.html", None, html=HOSTILE + filler + "\nneedle at the end")
    app = PageApp(page)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, AppPageScreen))
        screen = app.screen
        html = screen.query_one("#app-html", Grid)
        first = html.get_cell_at((0, 1))
        assert isinstance(first, Text) and not first.spans and first.style == ""  # markup never read as style
        assert first.plain.startswith("[bold red]ALERT[/] \\e[2J\\e]8;;https://evil.example\\alink")
        assert "\x1b" not in first.plain
        find = screen.query_one("#app-find", Input)
        find.value = "needle"  # found within one pause: the find scans rows on the loop, never the whole page's text
        await pilot.pause()
        if shape == "one line":  # 78,000 rows: every one kept, the needle found
            assert column(html, 1) == ["needle at the end"]
        else:  # five million lines: the first MAX_ROWS shown, and the header says the page is cut
            assert html.row_count == 0 and "the page cut at 100,000" in html.labels[1]


def test_app_page_snapshot(snap_compare, tmp_path):
    """The well-formed app's resource at 80x24: linkage, CSP table, the page's first lines."""

    async def opened(pilot: Pilot) -> None:
        await open_app(pilot)

    assert snap_compare(apps_app(tmp_path, "well-formed"), run_before=opened, terminal_size=(80, 24))
