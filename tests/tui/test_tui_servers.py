"""The app against servers that fail, attack it or are reached another way, driven with Pilot (wait on state,
never on the worker): markup and escapes shown as text, a server that fails to start, 10,000 tools with a 20 MB
result, floods of notifications and a crash mid-call, connecting to another server after a failure, and
Streamable HTTP with a bearer that never shows."""

from __future__ import annotations

import json
import re

from textual.widgets import Input, Static

from mcp_review.targets import demo_target, stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.grid import Grid
from tests.support import fixture_argv, saved_text
from tests.tui_pilot import find_and_call, run_checks, show_tab, until


async def test_hostile_text_is_shown_as_text(tmp_path):
    app = ReviewApp(stdio_target(fixture_argv("markup")), state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        overview = str(app.main.query_one("#overview", Static).render())
        assert "[bold red]ALERT[/]" in overview and "\x1b" not in overview and "\\e[2J" in overview
        names = [
            str(app.main.query_one("#tools", Grid).get_cell_at((i, 0)))
            for i in range(app.main.query_one("#tools", Grid).row_count)
        ]
        assert "[bold red]ALERT[/]" in names and all("\x1b" not in n for n in names)


async def test_a_server_that_fails_to_start_says_why(tmp_path):
    app = ReviewApp(stdio_target(fixture_argv("crash")), state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.failure is not None)
        assert "exited with code 3" in app.workspace.failure
        assert "fatal: missing config" in str(app.main.query_one("#overview", Static).render())
        await show_tab(pilot, app, "tab-logs")
        logs = app.main.query_one("#logs", Grid)
        lines = [str(logs.get_cell_at((i, 3))) for i in range(logs.row_count)]
        assert "fatal: missing config file /etc/crash-server.toml" in lines, "stderr has its own pane"
        for key in ("r", "e"):  # keys that need the server say why they cannot act, and what to press
            await pilot.press(key)
            said = [n.message for n in app._notifications]
            assert any("exited with code 3" in m and "ctrl+r tries again" in m for m in said), (key, said)
            app.clear_notifications()


async def test_hostile_server_at_scale_never_breaks_the_app(tmp_path):
    """10,000 tools with markup in their names, a 20 MB result, then the server dies mid-call."""
    from mcp_review.tui.dialogs import ResultScreen

    app = ReviewApp(stdio_target(fixture_argv("hostile")), state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None, 60)
        tools = app.main.query_one("#tools", Grid)
        await until(pilot, lambda: tools.row_count == 10003)
        assert all("\x1b" not in str(tools.get_cell_at((i, 0))) for i in range(50))
        app.main.query_one("#tool-filter").value = "tool_9999_"
        await pilot.pause()
        assert tools.row_count == 1
        await find_and_call(pilot, app, "huge_result")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), 60)
        body = str(app.screen.body)
        assert "more characters]" in body and len(body) < 30000, "a 20 MB result is shown capped"
        said = re.search(r"reply (≈[\d,]+) tokens \(an estimate", body)
        assert said and int(said[1][1:].replace(",", "")) > 2_000_000, "the 20 MB cut to 256 K is extrapolated"
        await pilot.press("escape")
        await show_tab(pilot, app, "tab-wire")
        reply = next(i for i, e in enumerate(app.main.wire_log.entries) if e.size > 20 * 1024 * 1024)
        assert str(app.main.query_one("#wire", Grid).get_cell_at((reply, 6))) == said[1], "the Wire says the same"
        await find_and_call(pilot, app, "flood")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), 60)
        await until(pilot, lambda: not app.workspace.wire)
        logs = [e for e in app.main.wire_log.entries if e.method == "notifications/message"]
        assert len(logs) == 30000, "every notification is kept"
        await pilot.press("escape")
        await show_tab(pilot, app, "tab-logs")
        await show_tab(pilot, app, "tab-wire")
        wire, log_table = app.main.query_one("#wire", Grid), app.main.query_one("#logs", Grid)
        assert wire.row_count == len(app.main.wire_log.entries) > 30000, "every entry is a row"
        assert log_table.row_count == len(app.main.wire_log.log_index) >= 30000
        assert "n29999" in str(log_table.get_cell_at((log_table.row_count - 1, 3)))
        log_table.action_last()  # the reviewer follows the log's end, then floods it again from another tab
        await find_and_call(pilot, app, "flood")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), 60)
        await until(pilot, lambda: not app.workspace.wire)
        await pilot.press("escape")
        await show_tab(pilot, app, "tab-logs")
        assert log_table.cursor_row == log_table.row_count - 1, "a cursor on the last row follows what came"
        last = str(log_table.get_cell_at((log_table.row_count - 1, 3)))
        assert "counted, not kept" in last, "over 50,000 lines the Logs tab says it keeps no more"
        app.main.query_one("#log-filter").value = "n2999"
        await pilot.pause()
        found = [str(log_table.get_cell_at((i, 3))) for i in range(log_table.row_count)]
        assert len(found) >= 11 and all("n2999" in line for line in found), "the filter searches every line"
        app.main.query_one("#log-filter").value = ""
        await pilot.pause()
        assert log_table.row_count == len(app.main.wire_log.log_index)
        await show_tab(pilot, app, "tab-wire")
        app.main.query_one("#wire-filter").value = "tools/list"
        await until(pilot, lambda: wire.row_count >= 2)  # searched in a thread, every message's JSON too
        found = [str(wire.get_cell_at((i, 7))) for i in range(wire.row_count)]
        first = found.index("tools/list")
        assert found[first + 1].startswith("← #") and "tools/list" in found[first + 1], "it searches the oldest too"
        await find_and_call(pilot, app, "crash_now")
        await until(pilot, lambda: app.workspace.failure is not None, 30)
        assert "exited with code 139" in app.workspace.failure and "segfault simulated" in app.workspace.failure
        status = str(app.main.query_one("#status", Static).render())
        assert "reconnect" in status.lower() or "failed" in status.lower()


async def test_connect_to_another_server_retry_after_a_failure_and_recent_targets(tmp_path):
    import shlex

    from mcp_review.tui.dialogs import ConnectScreen
    from mcp_review.tui.settings import load_settings

    good = " ".join(shlex.quote(p) for p in fixture_argv("good"))
    crash = " ".join(shlex.quote(p) for p in fixture_argv("crash"))
    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)

        async def connect(what: str) -> None:
            await pilot.press("ctrl+o")
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
            app.screen.query_one("#what", Input).value = what
            await pilot.click("#connect")

        await connect(crash)  # a failure leaves the demo connected (tests/tui/test_tui_state.py)
        await until(pilot, lambda: "exited with code 3" in str(app.main.query_one("#status", Static).render()))
        await connect(good)
        await until(
            pilot, lambda: app.workspace.snapshot is not None and app.workspace.snapshot.server_name == "good-server"
        )
        assert app.workspace.failure is None and app.main.query_one("#tools", Grid).row_count == 4
        chosen = app.workspace.target.confinement  # as the reviewer decided for the demo (plan.confined_like)
        assert chosen.confine and chosen.run and chosen.run != demo_target().confinement.run, "a run of its own"
        recent = [r["what"] for r in load_settings()["recent"]]
        assert recent == [good], "servers that answered; not the demo, not the one that failed"
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
        assert app.screen.query_one("#what", Input).value == good, "the current target is prefilled to edit"
        await pilot.press("escape")


async def test_review_over_streamable_http_with_a_bearer_that_never_shows(tmp_path):
    from mcp_review.targets import http_target
    from tests.support import free_port, running

    port, token = free_port(), "s3cret-bearer-T0KEN"
    with running(fixture_argv("good", "--http", "--port", str(port), "--auth", token), port):
        app = ReviewApp(http_target(f"http://127.0.0.1:{port}/mcp", bearer=token), state_dir=tmp_path)
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.workspace.snapshot is not None)
            assert app.main.query_one("#tools", Grid).row_count == 4
            await run_checks(pilot, app)
            await until(pilot, lambda: not app.workspace.wire)
            await show_tab(pilot, app, "tab-wire")
            wire = app.main.query_one("#wire", Grid)
            kinds = {str(wire.get_cell_at((i, 3))) for i in range(wire.row_count)}
            assert {"http", "request", "response"} <= kinds, "HTTP exchanges beside the JSON-RPC messages"
            http_rows = [i for i in range(wire.row_count) if str(wire.get_cell_at((i, 3))) == "http"]
            wire.move_cursor(row=http_rows[0])
            await pilot.pause()
            detail = str(app.main.query_one("#wire-detail", Static).render())
            assert "request_headers" in detail and token not in detail
        assert token not in saved_text(app.workspace.review_path), "nor in the saved review"
        assert all(token not in json.dumps(e.to_json()) for e in app.main.wire_log.entries)
