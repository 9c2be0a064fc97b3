"""Issue #12: the app's state stays true (connection, forms, consent, filters, highlights, dialogs) and every
exchange is readable in full. Driven with Pilot against real fixture servers, like tests/test_tui.py."""

from __future__ import annotations

import json
import shlex

from textual.widgets import DataTable, Input, Static, TextArea

from inspector.targets import demo_target, stdio_target
from inspector.tui.app import ReviewApp
from inspector.tui.dialogs import CallScreen, ConfirmScreen, ConnectScreen
from inspector.tui.settings import load_settings
from tests.support import fixture_argv
from tests.test_tui import _highlight, _open_call, run_checks, until


def status_line(app: ReviewApp) -> str:
    return str(app.main.query_one("#status", Static).render())


async def test_a_failed_connect_leaves_the_working_connection_as_it_was(tmp_path):
    good = shlex.join(fixture_argv("good"))
    app = ReviewApp(stdio_target(fixture_argv("good")), state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.snapshot is not None)
        assert [r["what"] for r in load_settings()["recent"]] == [good], "the server named on the command line"
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
        app.screen.query_one("#what", Input).value = shlex.join(fixture_argv("crash"))
        await pilot.click("#connect")
        await until(pilot, lambda: "could not connect" in status_line(app))
        assert "exited with code 3" in status_line(app)
        assert app.snapshot is not None and app.snapshot.server_name == "good-server" and app.failure is None
        assert [r["what"] for r in load_settings()["recent"]] == [good], "a failure is not a recent server"
        await _open_call(pilot, app, "notes_get")  # the working connection still calls
        app.screen.query_one("#field-note_id", Input).value = "n1"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.call_log)
        assert app.call_log[-1]["tool"] == "notes_get" and app.call_log[-1]["outcome"] == "ok"
        await pilot.press("escape")
        await pilot.press("ctrl+r")  # reconnects to the working server, not the typo
        await until(pilot, lambda: app.snapshot is not None and app.snapshot.server_name == "good-server")
        assert app.failure is None


async def test_required_fields_start_empty_and_typing_goes_to_the_first_field(tmp_path):
    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.snapshot is not None)
        await _open_call(pilot, app, "create_note")
        field = app.screen.query_one("#field-text", Input)
        assert field.value == "" and json.loads(app.screen.query_one(TextArea).text) == {}
        assert app.screen.focused is field, "focus on the first field, not on the Form/JSON tabs"
        await pilot.press(*"milk")
        assert json.loads(app.screen.query_one(TextArea).text) == {"text": "milk"}


async def test_consent_shows_the_exact_arguments_and_escape_goes_back_to_them(tmp_path):
    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.snapshot is not None)
        await _open_call(pilot, app, "create_note")
        await pilot.press(*"buy milk")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        shown = " ".join(str(s.render()) for s in app.screen.query(Static))
        assert '"text": "buy milk"' in shown, "the arguments to consent to"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, CallScreen))
        assert json.loads(app.screen.query_one(TextArea).text) == {"text": "buy milk"}, "what was typed is kept"
        assert app.call_log == [], "going back is not a refusal"
