"""The review app driven with Pilot against real servers: calling tools and answering what the server asks (wait on state, never on the worker)."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Static

from mcp_review.targets import demo_target, stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.grid import Grid
from tests.support import fixture_argv
from tests.tui_pilot import (
    call_with_consent,
    calling_everything,
    notifications,
    open_call,
    screen_text,
    show_tab,
    until,
)


async def test_call_a_read_only_tool_through_the_editor(tmp_path):
    from textual.widgets import Button, TextArea

    from mcp_review.tui.dialogs import ResultScreen

    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await open_call(pilot, app, "search_notes")
        editor = app.screen.query_one(TextArea)
        editor.text = '{"query": 5}'
        await pilot.pause()
        assert app.screen.query_one("#call", Button).disabled, "schema-invalid arguments cannot be sent"
        editor.text = '{"query": "spec"}'
        await pilot.pause()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        body = str(app.screen.body)
        assert "Read the MCP spec" in body and "isError: false" in body and " ms " in body
        assert app.workspace.call_log[-1]["consent"] == "read-only" and app.workspace.call_log[-1]["outcome"] == "ok"


async def test_a_tool_with_side_effects_needs_consent_and_the_decision_is_logged(tmp_path):
    from mcp_review.tui.dialogs import CallScreen, ConfirmScreen, ResultScreen

    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await open_call(pilot, app, "create_note")
        await pilot.press(*"milk", "ctrl+s")  # focus starts on the required field, empty
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "not annotated readOnlyHint" in str(app.screen.reason)
        await pilot.click("#no")
        await until(pilot, lambda: app.workspace.call_log and app.workspace.call_log[-1]["consent"] == "refused")
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CallScreen))
        await pilot.press(*"milk", "ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.click("#yes")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert (
            app.workspace.call_log[-1]["consent"] == "reviewer" and app.workspace.call_log[-1]["tool"] == "create_note"
        )
        await pilot.press("escape")
        from textual.widgets import Input

        await open_call(pilot, app, "delete_note")  # destructive, called through the form
        app.screen.query_one("#field-note_id", Input).value = "1"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "destructive" in str(app.screen.reason)
        await pilot.click("#yes")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert "deleted" in str(app.screen.body)
        last = app.workspace.call_log[-1]
        assert (last["tool"], last["arguments"], last["consent"]) == ("delete_note", {"note_id": "1"}, "reviewer")


@pytest.mark.thirdparty
async def test_answer_an_elicitation_from_server_everything(tmp_path):
    from textual.widgets import TextArea

    from mcp_review.tui.dialogs import ElicitScreen, ResultScreen

    async with calling_everything(tmp_path, "trigger-elicitation-request") as (app, pilot):
        await until(pilot, lambda: isinstance(app.screen, ElicitScreen))
        from mcp_review.rules.util import example_value

        assert json.loads(app.screen.query_one(TextArea).text) == {}, "nothing the reviewer did not type"
        app.screen.query_one(TextArea).text = json.dumps(example_value(app.screen.params["requestedSchema"]))
        await pilot.pause()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert "accept" in str(app.screen.body).lower()


@pytest.mark.thirdparty
async def test_answer_a_sampling_request_from_server_everything(tmp_path):
    from textual.widgets import TextArea

    from mcp_review.tui.dialogs import ResultScreen, SampleScreen

    request = '{"prompt": "Say hi", "maxTokens": 20}'
    async with calling_everything(tmp_path, "trigger-sampling-request", request) as (app, pilot):
        await until(pilot, lambda: isinstance(app.screen, SampleScreen))
        assert "Say hi" in str(app.screen.describe())
        app.screen.query_one(TextArea).text = '{"text": "hello from the reviewer"}'
        await pilot.pause()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert "hello from the reviewer" in str(app.screen.body)


async def test_read_a_resource_fill_a_template_and_get_a_prompt(tmp_path):
    from textual.widgets import TextArea

    from mcp_review.tui.dialogs import FillScreen, ResultScreen, TemplateScreen

    app = ReviewApp(stdio_target(fixture_argv("good")), state_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await pilot.press("4")
        table = app.main.query_one("#primitives", Grid)
        kinds = [table.get_cell_at((i, 0)) for i in range(table.row_count)]
        assert kinds == ["resource", "resource", "template", "prompt"]

        async def open_row(row: int) -> None:
            table.move_cursor(row=row)
            table.focus()
            await pilot.press("o")

        async def fill(row: int, arguments: str) -> str:
            """Open a row that asks for arguments (a template, a prompt), give them, and read the result."""
            await open_row(row)
            await until(pilot, lambda: isinstance(app.screen, FillScreen))  # the prompt's (a PromptScreen)
            app.screen.query_one(TextArea).text = arguments
            await pilot.pause()
            await pilot.press("ctrl+s")
            await until(pilot, lambda: isinstance(app.screen, ResultScreen))
            return str(app.screen.body)

        await open_row(0)
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert "n1" in str(app.screen.body)
        await pilot.press("escape")
        await open_row(2)  # the template: a field per variable, the URI drawn as it is typed, Read
        await until(pilot, lambda: isinstance(app.screen, TemplateScreen))
        await pilot.press("n", "2")  # the cursor is in the first field
        assert str(app.screen.query_one("#live").render()) == "reads: notes://note/n2"
        shown = screen_text(app)
        assert "Read" in shown and "Cancel" in shown and "Decline" not in shown and "Accept" not in shown
        assert "^s Read" in shown.splitlines()[-1]
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert "Review the MCP server" in str(app.screen.body)
        assert [e.message["params"]["uri"] for e in app.main.wire_log.entries if e.method == "resources/read"][-1] == (
            "notes://note/n2"
        )
        await pilot.press("escape")
        assert "Summarize my notes about groceries." in await fill(3, '{"topic": "groceries"}')


@pytest.mark.thirdparty
async def test_a_long_call_shows_progress_and_can_be_cancelled(tmp_path):
    thirty_seconds = '{"duration": 30, "steps": 30}'
    heard: list = []
    async with calling_everything(tmp_path, "trigger-long-running-operation", thirty_seconds, heard) as (app, pilot):
        await until(pilot, lambda: " · progress " in str(app.main.query_one("#status", Static).render()), 20)
        status = str(app.main.query_one("#status", Static).render())
        assert "calling trigger-long-running-operation" in status and " s · x to cancel · progress " in status
        await pilot.press("x")  # a key on the main screen: the outcome comes as a notification
        await until(pilot, lambda: app.workspace.call_log, 20)
        assert app.screen is app.main and any("cancelled by the reviewer" in n for n in notifications(heard))
        assert app.workspace.call_log[-1]["outcome"].startswith("failed: cancelled")
        sent = [e.message for e in app.main.wire_log.entries if e.method == "notifications/cancelled"]
        assert sent and "cancelled by the reviewer" in sent[0]["params"]["reason"]


async def test_call_history_copy_as_cli_and_json_and_rerun(tmp_path, monkeypatch):
    """y and Y copy through the terminal (OSC 52) and say so; where the text cannot arrive (GNU screen, a tmux
    without set-clipboard on), they say why instead of "copied"."""
    import shlex

    from mcp_review.tui import clipboard
    from mcp_review.tui.dialogs import CallScreen, ResultScreen

    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.delenv("STY", raising=False)
    clipboard.blocked.cache_clear()
    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await call_with_consent(pilot, app, "search_notes", '{"query": "coffee"}')
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        await pilot.press("escape")
        await pilot.press("3")  # Calls tab
        calls = app.main.query_one("#calls", Grid)
        assert calls.row_count == 1
        calls.focus()
        await pilot.press("y")
        assert "copied the call as an mcp-review call command (through the terminal, OSC 52)" in [
            n.message for n in app._notifications
        ]
        command = shlex.split(app.clipboard)
        assert command[:5] == ["mcp-review", "call", "search_notes", "--args", '{"query": "coffee"}']
        assert command[5] == "--" and command[-2:] == ["-m", "mcp_review.demo"]
        monkeypatch.setenv("STY", "4242.pts-0.host")
        clipboard.blocked.cache_clear()
        await pilot.press("Y")
        assert json.loads(app.clipboard) == {"name": "search_notes", "arguments": {"query": "coffee"}}
        said = [n.message for n in app._notifications][-1]
        assert said.startswith("cannot reach your clipboard: GNU screen drops it")
        clipboard.blocked.cache_clear()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, CallScreen))
        assert json.loads(app.screen.query_one("#editor").text) == {"query": "coffee"}


async def test_call_form_generated_from_the_schema(tmp_path):
    from textual.widgets import Button, Input, Select, TextArea

    from mcp_review.tui.dialogs import ConfirmScreen, ResultScreen

    app = ReviewApp(stdio_target(fixture_argv("many", "--tools", "4")), state_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        tools = app.main.query_one("#tools", Grid)
        cells = {str(tools.get_cell_at((i, 0))): str(tools.get_cell_at((i, 5))) for i in range(tools.row_count)}
        assert cells["users_search_3"].split() == ["RO", "OW"], "a read-only tool has no default D (nor I)"
        await open_call(pilot, app, "users_search_3")  # query (string), limit (1..100), three enum filters
        screen = app.screen
        assert screen.query_one("#field-limit", Input).placeholder == "default: 20", (
            "an optional field says its default"
        )
        screen.query_one("#field-query", Input).value = "carol"
        screen.query_one("#field-filter_1", Select).value = '"closed"'
        screen.query_one("#field-limit", Input).value = "500"
        await pilot.pause()
        sent = json.loads(screen.query_one(TextArea).text)
        assert sent == {"query": "carol", "limit": 500, "filter_1": "closed"}
        assert screen.query_one("#call", Button).disabled and "limit: 500 is greater than the maximum of 100" in str(
            screen.query_one("#problems").render()
        )
        screen.query_one("#field-limit", Input).value = "5"
        await pilot.pause()
        assert not screen.query_one("#call", Button).disabled
        await pilot.press("ctrl+s")
        # read-only, but it does not say openWorldHint: false: open-world by MCP's default, so it asks first
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "open-world is MCP's default" in str(app.screen.query_one("#result Static").render())
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]  # the keys say the buttons' words: one vocabulary
        assert all(k in footer for k in ("esc Edit arguments", "y Call it", "n Refuse")), footer
        await pilot.click("#yes")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert app.workspace.call_log[-1]["arguments"] == {"query": "carol", "limit": 5, "filter_1": "closed"}


async def test_modern_input_required_rounds_are_answered_in_the_dialogs(tmp_path):
    """2026-07-28: the server asks through `input_required` results; the same dialogs answer every round."""
    from textual.widgets import Input, TextArea

    from mcp_review.tui.dialogs import ElicitScreen, ResultScreen, RootsScreen, SampleScreen

    app = ReviewApp(stdio_target(fixture_argv("asking")), state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        assert (app.workspace.snapshot.revision, app.workspace.snapshot.era) == ("2026-07-28", "modern")
        await call_with_consent(pilot, app, "greet")
        await until(pilot, lambda: isinstance(app.screen, ElicitScreen))
        assert "asked by the call of greet" in str(app.screen.query_one("#asked-for").render())  # its round
        app.screen.query_one("#field-name", Input).value = "Ada"  # the form generated from requestedSchema
        await pilot.pause()
        assert json.loads(app.screen.query_one("#editor", TextArea).text) == {"name": "Ada"}
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert "Hello, Ada!" in str(app.screen.body)
        await pilot.press("escape")

        answers = [
            (
                "summarize",
                '{"topic": "owls"}',
                SampleScreen,
                "One line about owls",
                '{"text": "Owls fly."}',
                "Owls fly.",
            ),
            ("show_roots", None, RootsScreen, "roots", '[{"uri": "file:///srv/p", "name": "p"}]', "file:///srv/p"),
        ]
        for tool, arguments, dialog, asked, answer, shown in answers:
            await call_with_consent(pilot, app, tool, arguments)
            await until(pilot, lambda dialog=dialog: isinstance(app.screen, dialog))
            assert asked in str(app.screen.describe())
            app.screen.query_one("#editor", TextArea).text = answer
            await pilot.pause()
            await pilot.press("ctrl+s")
            await until(pilot, lambda: isinstance(app.screen, ResultScreen))
            assert shown in str(app.screen.body)
            await pilot.press("escape")

        await call_with_consent(pilot, app, "greet")
        await until(pilot, lambda: isinstance(app.screen, ElicitScreen))
        await pilot.press("escape")  # dismissed without a choice: the spec's cancel
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert "No name given (cancel)" in str(app.screen.body)

    rounds = [e.message for e in app.main.wire_log.entries if e.direction == "recv" and e.kind == "response"]
    asked = [m["result"] for m in rounds if m["result"].get("resultType") == "input_required"]
    assert len(asked) == 4, "each call was answered through an input_required round, not a server request"
    retried = [
        e.message
        for e in app.main.wire_log.entries
        if e.method == "tools/call" and "inputResponses" in e.message["params"]
    ]
    assert len(retried) == 4
    assert not [e for e in app.main.wire_log.entries if e.direction == "recv" and e.kind == "request"], (
        "no push requests"
    )


async def test_url_elicitation_opens_nothing_without_consent(monkeypatch):
    import webbrowser

    from textual.app import App

    from mcp_review.tui.dialogs import ConfirmScreen, ElicitScreen

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", opened.append)
    answers: list[object] = []
    params = {"mode": "url", "message": "Sign in", "url": "https://auth.example/start?x=1", "elicitationId": "e1"}
    app = App()
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(ElicitScreen(params), answers.append)
        await pilot.pause()
        assert "https://auth.example/start?x=1" in str(app.screen.describe())
        await pilot.click("#open-url")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.click("#no")
        await until(pilot, lambda: isinstance(app.screen, ElicitScreen))
        assert opened == []
        await pilot.click("#open-url")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.click("#yes")
        await until(pilot, lambda: isinstance(app.screen, ElicitScreen))
        assert opened == ["https://auth.example/start?x=1"]
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert answers == [{"action": "accept"}]


async def test_a_server_that_never_answers_times_out_and_the_app_stays_usable(tmp_path):
    import dataclasses

    target = dataclasses.replace(stdio_target(fixture_argv("hang")), timeout=2.0)
    app = ReviewApp(target, state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("2")  # the screen answers keys while the connection waits
        assert app.main.query_one("#tools", Grid).display
        await until(pilot, lambda: app.workspace.failure is not None, 30)
        assert "timed out" in app.workspace.failure or "no answer" in app.workspace.failure.lower(), (
            app.workspace.failure
        )
        assert "ctrl+r" in str(app.main.query_one("#status", Static).render())
        await pilot.press("r")  # nothing to check: said on screen, no run started, not crashed
        await until(pilot, lambda: any("not connected" in n.message for n in app._notifications))
        assert not app.workspace.checking and app.workspace.review is None


async def test_the_call_form_survives_hostile_property_names_and_enum_values():
    """Property names are the server's: not valid widget ids, markup, escapes. The form still works."""
    from textual.app import App
    from textual.widgets import Checkbox, Input, Select, TextArea

    from mcp_review.tui.dialogs import CallScreen, SchemaForm

    schema = {
        "type": "object",
        "properties": {
            "a b": {"type": "string"},
            "[/]": {"type": "boolean"},
            "ключ": {"enum": ["[/]", "[bold]x", "\x1b[31mred"]},
            "ok_name": {"type": "integer"},
            "untouched": {"type": "boolean"},  # optional, never chosen: not sent (a checkbox sent false)
            "must": {"type": "boolean"},  # required: a checkbox, sent as it is
        },
        "required": ["must"],
    }
    sent: list[object] = []
    app = App()
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(CallScreen({"name": "t", "inputSchema": schema}, {}), sent.append)
        await pilot.pause()
        form = app.screen.query_one(SchemaForm)
        assert app.screen.query_one("#field-ok_name", Input)
        app.screen.query_one(f"#{form.field_id('a b')}", Input).value = "x y"
        app.screen.query_one(f"#{form.field_id('[/]')}", Select).value = "true"  # optional: true, false or not sent
        app.screen.query_one(f"#{form.field_id('ключ')}", Select).value = '"[/]"'
        app.screen.query_one("#field-must", Checkbox).value = True
        await pilot.pause()
        untouched = app.screen.query_one("#field-untouched", Select)
        assert untouched.prompt == "not sent" and untouched.is_blank()
        wanted = {"a b": "x y", "[/]": True, "ключ": "[/]", "must": True}
        assert json.loads(app.screen.query_one(TextArea).text) == wanted
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert sent == [wanted]


async def test_the_schema_form_posts_changed_and_never_touches_an_editor():
    """The form says what it holds (and whether the schema accepts it) in a message; the dialog owns the editor."""
    from textual.app import App, ComposeResult
    from textual.widgets import Input

    from mcp_review.tui.dialogs import SchemaForm

    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]}
    seen: list[tuple[dict[str, object], bool]] = []

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield SchemaForm(schema, {})

        def on_schema_form_changed(self, event: SchemaForm.Changed) -> None:
            seen.append((event.arguments, event.valid))

    app = Host()
    async with app.run_test(size=(80, 20)) as pilot:
        app.query_one("#field-n", Input).value = "0"
        await pilot.pause()
        app.query_one("#field-n", Input).value = "3"
        await pilot.pause()
    assert seen[-2:] == [({"n": 0}, False), ({"n": 3}, True)]


async def test_schema_invalid_arguments_are_sent_anyway_behind_the_same_consent_and_recorded_so(tmp_path):
    """Issue 40: the reviewer tests a server's own validation by hand: Call stays disabled for arguments the
    inputSchema refuses, Send anyway sends them (not JSON never), after the same consent, and coverage says so."""
    from textual.widgets import Button, TextArea

    from mcp_review.tui.dialogs import ConfirmScreen, ResultScreen

    app = ReviewApp(stdio_target(fixture_argv("many", "--tools", "4")), state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await open_call(pilot, app, "users_search_3")
        screen = app.screen
        screen.query_one(TextArea).text = '{"query": "carol", "limit": '
        await pilot.pause()
        assert screen.query_one("#send-anyway", Button).disabled, "not JSON: nothing to send"
        screen.query_one(TextArea).text = '{"query": "carol", "limit": "five"}'
        await pilot.pause()
        problems = str(screen.query_one("#problems").render())
        assert "'five' is not of type 'integer'" in problems and "Send anyway" in problems
        assert screen.query_one("#call", Button).disabled and not screen.query_one("#send-anyway", Button).disabled
        await pilot.click("#send-anyway")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))  # open-world: consent, as any call
        assert "the inputSchema refuses them" in str(app.screen.query_one("#result Static").render())
        await pilot.click("#yes")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        call = app.workspace.call_log[-1]
        assert call["arguments"] == {"query": "carol", "limit": "five"} and call["consent"] == "reviewer"
        assert any("'five' is not of type 'integer'" in p for p in call["sentInvalid"])
        await pilot.press("escape")
        await show_tab(pilot, app, "tab-calls")
        table = app.main.query_one("#calls", Grid)
        assert "arguments invalid, sent on purpose" in str(table.get_cell_at((0, 2)))
