"""The review app driven with Pilot against real servers over stdio (wait on state, never on the worker)."""

from __future__ import annotations

import asyncio
import json
import re

from textual.pilot import Pilot
from textual.widgets import Input, Static

from mcp_review.targets import demo_target, stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.grid import Grid
from mcp_review.tui.panes.checklist import ChecklistPane
from tests.support import fixture_argv
from tests.tui_pilot import find_and_call, highlight, run_checks, show_tab, until


async def test_demo_overview_tools_checks_wire_and_export(tmp_path):
    app = ReviewApp(demo_target(), export_dir=tmp_path, state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        tools = app.main.query_one("#tools", Grid)
        assert tools.row_count == 7
        assert "demo-notes" in str(app.main.query_one("#status", Static).render())
        await run_checks(pilot, app)
        assert app.workspace.review.verdict == "FAIL"
        assert {c["consent"] for c in app.workspace.review.coverage} == {"read-only"}, (
            "read-only tools only, no consent asked"
        )
        checks = app.main.query_one("#checks", Grid)
        headers = sum(1 for f in app.main.query_one(ChecklistPane).shown_findings if f is None)
        assert checks.row_count == len(app.workspace.review.findings) + headers and headers >= 10, (
            "grouped by pack and section"
        )
        sections = [
            str(checks.get_cell_at((i, 2)))
            for i, f in enumerate(app.main.query_one(ChecklistPane).shown_findings)
            if f is None
        ]
        assert any("seed 003" in s for s in sections) and any("seed 002" in s for s in sections)
        await until(pilot, lambda: not app.workspace.wire)
        await show_tab(pilot, app, "tab-wire")
        wire = app.main.query_one("#wire", Grid)
        rows = [[str(wire.get_cell_at((i, c))) for c in range(len(wire.columns))] for i in range(wire.row_count)]
        answers = [r for r in rows if r[3] == "response"]
        assert len(answers) >= 3 and all(r[6].isdigit() and r[4].isdigit() for r in answers), "tokens and ms"
        from textual.widgets import Select

        from mcp_review.tui.dialogs import ExportScreen

        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ExportScreen))
        assert "**Verdict: ❌ FAIL**" in str(app.screen.preview), "a preview of the markdown"
        await pilot.click("#export")
        await until(pilot, lambda: (tmp_path / "mcp-review-demo-notes.md").is_file())
        assert "**Verdict: ❌ FAIL**" in (tmp_path / "mcp-review-demo-notes.md").read_text()
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ExportScreen))
        app.screen.query_one("#path", Input).value = str(tmp_path / "mine.md")  # typed first, then the format:
        app.screen.query_one("#format", Select).value = "sarif"  # the path keeps its folder and name
        await pilot.pause()
        assert app.screen.query_one("#path", Input).value == str(tmp_path / "mine.sarif.json")
        await pilot.click("#export")
        await until(pilot, lambda: (tmp_path / "mine.sarif.json").is_file())
        assert json.loads((tmp_path / "mine.sarif.json").read_text())["version"] == "2.1.0"
        await pilot.press("e")  # the complete review, every finding with its evidence
        await until(pilot, lambda: isinstance(app.screen, ExportScreen))
        app.screen.query_one("#format", Select).value = "md-full"
        await pilot.pause()
        await pilot.click("#export")
        await until(pilot, lambda: (tmp_path / "mcp-review-demo-notes.full.md").is_file())
        assert "evidence (wire)" in (tmp_path / "mcp-review-demo-notes.full.md").read_text()


async def test_filter_tools_and_findings(tmp_path):
    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        app.main.query_one("#tool-filter").value = "delete"
        await pilot.pause()
        assert app.main.query_one("#tools", Grid).row_count == 1
        await run_checks(pilot, app)
        app.main.query_one("#check-filter").value = "fail"
        await pilot.pause()
        fails = sum(
            1
            for f in app.workspace.review.findings
            if "fail" in f"{f.effective} {f.rule} {f.subject or 'server'}: {f.message}".lower()
        )
        shown = [f for f in app.main.query_one(ChecklistPane).shown_findings if f is not None]
        assert len(shown) == fails > 0
        app.main.query_one("#check-filter").value = "status:blocking reviewer"
        await pilot.pause()
        shown = [f for f in app.main.query_one(ChecklistPane).shown_findings if f is not None]
        assert {f.effective for f in shown} == {"blocking"}, "status:X is exact"
        assert all("reviewer" in f"{f.rule} {f.subject} {f.message}".lower() for f in shown)
        app.main.query_one("#check-filter").value = "export_notes: description"  # as the row reads
        await pilot.pause()
        shown = [f for f in app.main.query_one(ChecklistPane).shown_findings if f is not None]
        assert shown and all(f.subject == "export_notes" for f in shown)
        app.main.query_one("#tool-filter").value = "status:fail"
        await pilot.pause()
        tools = app.main.query_one("#tools", Grid)
        failing = {str(tools.get_cell_at((i, 0))) for i in range(tools.row_count)}
        assert failing == {
            f.subject for f in app.workspace.review.findings if f.effective == "fail" and f.subject_kind == "tool"
        }
        app.main.query_one("#tool-filter").value = "status:fail export"
        await pilot.pause()
        assert tools.row_count == 1


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


async def test_waive_attest_and_reopen_finds_them_saved(tmp_path):
    from mcp_review.tui.dialogs import DecisionScreen

    async def decide(pilot: Pilot, app: ReviewApp, key: str, rule: str, why: str) -> None:
        row = next(
            i
            for i, f in enumerate(app.main.query_one(ChecklistPane).shown_findings)
            if f and f.rule == rule and f.status in ("fail", "blocking")
        )
        await pilot.press("5")  # the Checklist tab: its keys
        app.main.query_one("#checks", Grid).move_cursor(row=row)
        await pilot.press(key)
        await until(pilot, lambda: isinstance(app.screen, DecisionScreen))
        app.screen.query_one("#who", Input).value = "carol"
        app.screen.query_one("#why", Input).value = why
        await pilot.click("#ok")
        await until(pilot, lambda: not isinstance(app.screen, DecisionScreen))

    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await run_checks(pilot, app)
        await decide(pilot, app, "w", "review.descriptions-grounded", "known demo defect")
        await decide(pilot, app, "a", "review.injection-safe", "no shell, SQL or path building in server.py")
        await decide(pilot, app, "n", "review.descriptions-grounded", "ask upstream to drop the <IMPORTANT> block")
        waived = [f for f in app.workspace.review.findings if f.effective == "waived"]
        assert waived and waived[0].waiver.by == "carol"
        status = app.main.query_one("#status")
        await until(pilot, lambda: "saved to" in str(status.render()))  # written off the app's loop, then said
        assert "known demo defect" in app.workspace.review_path.read_text(), "on disk while the app runs"
    assert app.workspace.review_path.is_file()

    again = ReviewApp(demo_target(), state_dir=tmp_path)
    async with again.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: again.workspace.snapshot is not None and again.workspace.review is not None)
        assert [w.reason for w in again.workspace.review.waivers] == ["known demo defect"]
        assert [a.note for a in again.workspace.review.attestations] == ["no shell, SQL or path building in server.py"]
        assert [(r.by, r.rule, r.text) for r in again.workspace.review.remarks] == [
            ("carol", "review.descriptions-grounded", "ask upstream to drop the <IMPORTANT> block")
        ]
        await until(pilot, lambda: not again.workspace.wire and len(again.main.wire_log.entries) > 3)
        cited = next(
            f
            for f in again.workspace.review.findings
            if f.evidence and min(f.evidence) <= len(again.main.wire_log.entries)
        )
        body = again.checklist.finding_text(cited).plain
        # a saved review's seqs name other entries in this session: its proof is the exchanges it saved, said so
        assert f"recorded on {again.workspace.review.created} (saved with the review)" in body
        saved = again.workspace.review.exchanges[cited.evidence[0]]
        assert json.dumps(saved["message"]["id"]) in body and "re-run the rule" not in body
        await run_checks(pilot, again)
        await until(
            pilot,
            lambda: (
                again.workspace.review is not None and again.workspace.review.created != app.workspace.review.created
            ),
        )
        kept = [
            f
            for f in again.workspace.review.findings
            if f.rule == "review.descriptions-grounded" and f.effective == "waived"
        ]
        attested = [
            f for f in again.workspace.review.findings if f.rule == "review.injection-safe" and f.status == "pass"
        ]
        assert kept and attested, "a re-run keeps the reviewer's decisions"
        assert len(again.workspace.review.remarks) == 1, "and the notes"
        from mcp_review.report import render

        notes = render(again.workspace.review, "md").split("## Reviewer notes")[1]
        assert "ask upstream to drop the &lt;IMPORTANT&gt; block" in notes, "in the export, as inert text"


async def test_sort_by_column_jump_by_name_and_theme_is_remembered(tmp_path):
    from mcp_review.tui.grid import Grid

    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await pilot.press("2")
        table = app.main.query_one("#tools", Grid)
        totals = [table.get_cell_at((i, 1)) for i in range(table.row_count)]
        assert totals == sorted(totals, reverse=True), "cost, highest first"
        await pilot.click("#tools", offset=(2, 0))  # the "tool" header
        names = [str(table.get_cell_at((i, 0))) for i in range(table.row_count)]
        assert names == sorted(names)
        await pilot.click("#tools", offset=(2, 0))
        assert [str(table.get_cell_at((i, 0))) for i in range(table.row_count)] == sorted(names, reverse=True)
        app.jump_to_tool(app.workspace.snapshot.tool("delete_note").index)
        await pilot.pause()
        assert str(table.get_cell_at((table.cursor_row, 0))) == "delete_note"
        app.theme = "mcp-review-contrast"
        await pilot.pause()
    again = ReviewApp(demo_target(), state_dir=tmp_path)
    async with again.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert again.theme == "mcp-review-contrast"


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
        recent = [r["what"] for r in load_settings()["recent"]]
        assert recent == [good], "servers that answered; not the demo, not the one that failed"
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
        assert app.screen.query_one("#what", Input).value == good, "the current target is prefilled to edit"
        await pilot.press("escape")


async def test_finding_detail_quotes_its_wire_evidence_and_tool_detail_lists_findings(tmp_path):
    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await run_checks(pilot, app)
        row = next(
            i
            for i, f in enumerate(app.main.query_one(ChecklistPane).shown_findings)
            if f and f.rule == "review.descriptions-grounded"
        )
        checks = app.main.query_one("#checks", Grid)
        checks.move_cursor(row=row)
        await pilot.pause()
        detail = str(app.main.query_one("#check-detail", Static).render())
        assert "review.descriptions-grounded" in detail and "recv response" in detail and "IMPORTANT" in detail
        await highlight(pilot, app, "export_notes")
        tool_detail = str(app.main.query_one("#tool-detail", Static).render())
        assert "fail review.descriptions-grounded" in tool_detail and "cl100k_base: total" in tool_detail
        from textual.widgets import Collapsible

        from mcp_review.tui.dialogs import ToolScreen

        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ToolScreen))
        sections = {c.title: c for c in app.screen.query(Collapsible)}
        titles = list(sections)
        assert titles[0] == "description" and titles[1].startswith("findings (") and titles[2] == "tokens"
        assert sections["inputSchema"].collapsed is False and sections["annotations"].collapsed is True
        tokens = str(sections["tokens"].query_one(Collapsible.Contents).query_one(Static).render())
        assert "cl100k_base: total" in tokens and "o200k_base: total" in tokens, "every encoding"
        hints = str(sections["annotations"].query_one(Collapsible.Contents).query_one(Static).render())
        assert "readOnlyHint: true (set by the server)" in hints
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ToolScreen))


async def test_choose_packs_and_calls_with_consent_then_rerun_one_rule(tmp_path):
    from textual.widgets import Select

    from mcp_review.tui.dialogs import ConfirmScreen, RunScreen

    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        app.screen.query_one("#packs", Input).value = "review registry"
        app.screen.query_one("#calls", Select).value = "all"
        app.screen.query_one("#probe", Select).value = "security"
        await pilot.click("#run")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.click("#yes")
        await until(pilot, lambda: app.workspace.review is not None)
        assert app.workspace.review.packs == ["registry", "review"] and app.workspace.options.calls == "all"
        probed = [f for f in app.workspace.review.findings if f.rule == "review.commands-not-injected"]
        assert probed and not any("--probe security" in f.message for f in probed), "the dialog's probe choice ran"
        assert {c["consent"] for c in app.workspace.review.coverage} == {"read-only", "reviewer"}, (
            "calls were made, with consent"
        )
        before = len(app.workspace.review.findings)
        await pilot.press("5")
        row = next(
            i
            for i, f in enumerate(app.main.query_one(ChecklistPane).shown_findings)
            if f and f.rule == "registry.list-budget"
        )
        app.main.query_one("#checks", Grid).move_cursor(row=row)
        app.main.query_one("#checks", Grid).focus()
        created = app.workspace.review.created
        old = next(f for f in app.workspace.review.findings if f.rule == "registry.list-budget")
        await pilot.press("u")
        await until(
            pilot, lambda: not app.workspace.checking and all(f is not old for f in app.workspace.review.findings)
        )
        assert len(app.workspace.review.findings) == before and app.workspace.review.created == created, (
            "one rule merged in place"
        )
        others = [f for f in app.workspace.review.findings if f.pack != "registry"]
        old = next(f for f in app.workspace.review.findings if f.rule == "registry.list-budget")
        await pilot.press("p")
        await until(
            pilot, lambda: not app.workspace.checking and all(f is not old for f in app.workspace.review.findings)
        )
        assert len(app.workspace.review.findings) == before and app.workspace.review.created == created, (
            "one pack merged in place"
        )
        assert [f for f in app.workspace.review.findings if f.pack != "registry"] == others, "the other packs are kept"


async def test_the_checklist_lists_every_selected_rule_live_while_it_runs(tmp_path):
    from mcp_review.rules.core import DEFAULT_PACKS, select
    from mcp_review.tui.dialogs import RunScreen

    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        gate = asyncio.Event()

        async def hold(_session, _snapshot) -> None:
            await gate.wait()

        app.workspace.connection.submit(
            hold
        )  # the connection worker is busy: the run stays queued until the gate opens
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        assert "rules call tools" in str(app.screen.why), "the first run asks what call rules may call"
        await pilot.click("#run")
        await until(pilot, lambda: app.workspace.checking)
        rules = select(list(DEFAULT_PACKS))  # what a run of the app selects
        checks = app.main.query_one("#checks", Grid)
        statuses = [str(checks.get_cell_at((i, 0))) for i in range(checks.row_count)]
        assert statuses.count("queued") == len(rules) and checks.row_count > len(rules), "every rule, grouped"
        gate.set()
        await until(pilot, lambda: not app.workspace.checking, 60)
        assert set(app.main.query_one(ChecklistPane).live) == {r.id for r in rules}
        assert not {"queued", "running"} & set(app.main.query_one(ChecklistPane).live.values()), (
            "each rule's status arrived as it finished"
        )
        assert app.main.query_one(ChecklistPane).live["review.descriptions-grounded"] == "fail"


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
        assert token not in app.workspace.review_path.read_text(), "nor in the saved review"
        assert all(token not in json.dumps(e.to_json()) for e in app.main.wire_log.entries)
