"""Reading a review in the app, driven with Pilot against the demo server over stdio (wait on state, never on
the worker): every tab end to end and its exports, the filters of tools and findings, sorting, jumping by name and a
remembered theme, the detail of a finding and of a tool."""

from __future__ import annotations

import json

from textual.widgets import Input, Static

from mcp_review.targets import demo_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.grid import Grid
from mcp_review.tui.panes.checklist import ChecklistPane
from tests.tui_pilot import highlight, run_checks, show_tab, until


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
            str(checks.get_cell_at((i, 3)))  # status, sev, rule, finding
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
        await until(pilot, lambda: isinstance(app.screen, ExportScreen) and app.screen.preview is not None)
        assert "**Verdict: ❌ FAIL**" in str(app.screen.preview), "a preview of the markdown (rendered off the loop)"
        assert "also writes mcp-review-demo-notes.full.md beside it" in str(app.screen.query_one("#files").render())
        await pilot.click("#export")  # the short review, and the complete one beside it (as check --out writes)
        short, full = tmp_path / "mcp-review-demo-notes.md", tmp_path / "mcp-review-demo-notes.full.md"
        await until(pilot, lambda: short.is_file())
        assert (
            "**Verdict: ❌ FAIL**" in short.read_text()
            and "`mcp-review-demo-notes.full.md` beside" in short.read_text()
        )
        assert "evidence (wire)" in full.read_text()
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ExportScreen))
        app.screen.query_one("#path", Input).value = str(tmp_path / "mine.md")  # typed first, then the format:
        app.screen.query_one("#format", Select).value = "sarif"  # the path keeps its folder and name
        await pilot.pause()
        assert app.screen.query_one("#path", Input).value == str(tmp_path / "mine.sarif.json")
        await pilot.click("#export")
        await until(pilot, lambda: (tmp_path / "mine.sarif.json").is_file())
        assert json.loads((tmp_path / "mine.sarif.json").read_text())["version"] == "2.1.0"


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
