"""A resource template opens a form of its URI template's variables (RFC 6570, every operator), draws the URI it
will read as the reviewer types, leaves an empty query variable out, and Read gives back what expands it; Escape
cancels. (The read against a real server: tests/tui/test_tui_calls.py.)"""

from __future__ import annotations

from textual.app import App
from textual.widgets import Input

from mcp_review.tui.dialogs import TemplateScreen
from tests.tui_pilot import until

TEMPLATE = "file:///{+root}/logs/{day}{?level,grep}"


def live(app: App) -> str:
    shown = app.screen.query("#live")  # none until the dialog is composed
    return str(shown.first().render()) if shown else ""


async def test_a_template_is_a_form_of_its_variables_and_the_uri_is_drawn_as_typed():
    answers: list[object] = []
    app = App()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = TemplateScreen(TEMPLATE, {"uriTemplate": TEMPLATE, "name": "logs"})
        app.push_screen(screen, answers.append)
        await until(pilot, lambda: app.screen is screen)
        fields = [i.id for i in screen.query("#form Input")]
        assert fields == ["field-root", "field-day", "field-level", "field-grep"], "one field per variable, in order"
        assert live(app) == "reads: file:////logs/"
        await pilot.press("ctrl+s")  # root and day are required: nothing is read yet
        assert screen.is_current and "'root' is required" in str(screen.query_one("#problems").render())

        await pilot.press(*"srv/app")  # the cursor is in the first field; + keeps the slash (reserved expansion)
        screen.query_one("#field-day", Input).value = "2026 01 02"
        screen.query_one("#field-grep", Input).value = "a&b"
        await pilot.pause()
        assert live(app) == "reads: file:///srv/app/logs/2026%2001%2002?grep=a%26b", "level, empty, is left out"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: answers)
        assert screen.uri(answers[0]) == "file:///srv/app/logs/2026%2001%2002?grep=a%26b"


async def test_escape_cancels_a_template_and_keeps_what_was_typed():
    answers: list[object] = []
    app = App()
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(TemplateScreen("notes://{id}", {}), answers.append)
        await pilot.pause()
        await pilot.press("n", "7", "escape")
        await until(pilot, lambda: answers == [None])
        app.push_screen(TemplateScreen("notes://{id}", {}), answers.append)
        await until(pilot, lambda: live(app) == "reads: notes://n7")
