"""The Skills tab (issue 24) on tests/servers/skills.py: hidden for a server without skills, shown with each skill's
cost for one that declares them; opening a skill reads its SKILL.md and says whether its bytes match the digest."""

from __future__ import annotations

from textual.widgets import Static, TabbedContent

from mcp_review.targets import stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.dialogs.result import ResultScreen
from mcp_review.tui.grid import Grid
from mcp_review.tui.panes.skills import SkillsPane
from tests.support import fixture_argv
from tests.tui_pilot import until


async def test_the_skills_tab_lists_costs_and_reads_a_skill_against_its_digest(tmp_path):
    app = ReviewApp(stdio_target(fixture_argv("skills", "digest-mismatch")), state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        status = str(app.main.query_one("#status", Static).render())
        assert status.endswith("· 1 tool"), status  # its one tool, in the singular
        await pilot.press("9")
        tabs = app.main.query_one(TabbedContent)
        await until(pilot, lambda: tabs.active == "tab-skills")
        grid = app.main.query_one(SkillsPane).query_one(Grid)
        assert [str(grid.get_cell_at((i, 0))) for i in range(grid.row_count)] == [
            "release-notes",
            "acme/billing/refunds",
        ]
        assert all(grid.get_cell_at((i, 2)) > 10 for i in range(grid.row_count))  # type: ignore[operator]
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen), 10)
        body = app.screen.body.plain
        assert "NOT the manifest's digest" in body and "tokens once loaded" in body and "# Release notes" in body
