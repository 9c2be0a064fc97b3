"""The call dialog runs a tool as a task (tests/servers/tasks.py): the choice is offered only when the server declares
tasks, the status shows live in the status line, and `x` cancels the task (tasks/cancel)."""

from __future__ import annotations

from textual.widgets import Checkbox, Static

from mcp_review.targets import stdio_target
from mcp_review.tui.app import ReviewApp
from tests.support import fixture_argv
from tests.tui_pilot import notifications, open_call, screen_text, until


def sent(app: ReviewApp, method: str) -> list:
    return [e.message for e in app.main.wire_log.entries if e.method == method and e.direction == "send"]


async def test_a_tool_runs_as_a_task_to_its_result(tmp_path):
    from mcp_review.tui.dialogs import ResultScreen

    app = ReviewApp(stdio_target(fixture_argv("tasks", "well-formed")), state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await open_call(pilot, app, "slow_report")
        await pilot.press(*"tides", "ctrl+g")
        assert app.screen.query_one("#as-task", Checkbox).value
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        assert "Report: all good." in str(app.screen.body)
        assert sent(app, "tools/call")[-1]["params"]["task"] == {"ttl": 60000} and sent(app, "tasks/result")


async def test_the_task_status_shows_live_and_x_cancels_it(tmp_path):
    heard: list = []
    app = ReviewApp(stdio_target(fixture_argv("tasks", "never-ends", "--modern")), state_dir=tmp_path)
    async with app.run_test(size=(80, 24), message_hook=heard.append) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await open_call(pilot, app, "flaky_job")
        await pilot.press("ctrl+g", "ctrl+s")
        status = app.main.query_one("#status", Static)
        await until(pilot, lambda: " · task working: step " in str(status.render()))
        shown = screen_text(app).splitlines()
        assert "x to cancel" in shown[1], "at 80 columns the way out is drawn, the task's status after it"
        assert "x Cancel call" in shown[-1], "and the footer has it, while the task runs"
        await pilot.press("x")
        await until(pilot, lambda: app.workspace.call_log)
        await until(pilot, lambda: "x Cancel" not in screen_text(app).splitlines()[-1])  # nothing left to cancel
        assert app.workspace.call_log[-1]["outcome"] == "failed: cancelled by the reviewer (tasks/cancel sent)"
        assert len(sent(app, "tasks/cancel")) == 1
        assert any("cancelled by the reviewer" in n for n in notifications(heard))
