"""The elicitation dialog gives the spec's three answers (accept, decline, cancel: Escape is cancel, Decline the
explicit no) and says which call asks: the tool, and the task when a task asks; over stdio, where a legacy
server's request names no call, it says only that the reviewer's call runs meanwhile. Against real servers
(tests/servers/asking.py, tests/servers/tasks.py), the answers read on the wire."""

from __future__ import annotations

from textual.widgets import Static

from mcp_review.targets import http_target, stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.dialogs import ElicitScreen, ResultScreen
from tests.support import fixture_argv, http_fixture
from tests.tui_pilot import call_with_consent, open_call, screen_text, until


def answers_sent(app: ReviewApp) -> list:
    """The results we sent back to the server's elicitation requests (legacy: JSON-RPC responses)."""
    asked = {e.seq for e in app.main.wire_log.entries if e.direction == "recv" and e.method == "elicitation/create"}
    return [
        e.message.get("result")
        for e in app.main.wire_log.entries
        if e.direction == "send" and e.link is not None and e.link.request in asked
    ]


def asked_for(app: ReviewApp) -> str:
    return str(app.screen.query_one("#asked-for", Static).render())


async def elicited(pilot, app: ReviewApp) -> None:
    await call_with_consent(pilot, app, "greet")
    await until(pilot, lambda: isinstance(app.screen, ElicitScreen))


async def test_escape_cancels_and_decline_declines_on_the_wire(tmp_path):
    app = ReviewApp(stdio_target(fixture_argv("asking")), era="legacy", state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await elicited(pilot, app)
        shown = screen_text(app)
        assert "Cancel" in shown and "Decline" in shown and "Accept" in shown
        assert "esc Cancel" in shown.splitlines()[-1], "the footer says Escape cancels"
        # stdio, legacy: nothing on the wire ties the request to the call, and the dialog does not pretend it does
        assert asked_for(app) == "came while your call of greet runs: nothing on the wire ties it to that call"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert "No name given (cancel)" in str(app.screen.body)
        assert answers_sent(app) == [{"action": "cancel"}]
        await pilot.press("escape")

        await elicited(pilot, app)
        await pilot.click("#decline")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert "No name given (decline)" in str(app.screen.body)
        assert answers_sent(app)[-1] == {"action": "decline"}


async def test_over_http_the_dialog_names_the_call_whose_stream_asks(tmp_path):
    """The SDK sends a tool's elicitation on the SSE stream of that tools/call's POST: the wire ties them."""
    with http_fixture("asking") as url:
        app = ReviewApp(http_target(url), era="legacy", state_dir=tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.workspace.snapshot is not None)
            await elicited(pilot, app)
            assert asked_for(app) == "asked by the call of greet"
            await pilot.click("#cancel-request")
            await until(pilot, lambda: isinstance(app.screen, ResultScreen))
            assert answers_sent(app) == [{"action": "cancel"}]


async def test_a_task_that_asks_is_named_with_its_tool(tmp_path):
    """2026-07-28: the task's tasks/get carries the elicitation (`inputRequests`); the answer goes in tasks/update."""
    app = ReviewApp(stdio_target(fixture_argv("tasks", "asks", "--modern")), state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await open_call(pilot, app, "slow_report")
        await pilot.press(*"tides", "ctrl+g", "ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ElicitScreen))
        task_id = app.caller.driver.state.task_id
        assert asked_for(app) == f"asked by task {task_id} of the tool slow_report"
        assert f"asked by task {task_id}" in screen_text(app), "drawn at 80 columns"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        updates = [e.message["params"] for e in app.main.wire_log.entries if e.method == "tasks/update"]
        assert updates[0]["inputResponses"] == {"topic": {"action": "cancel"}}
