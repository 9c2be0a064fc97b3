"""Issue 39 in the app: a waiver bound to a tool's definition applies in the app while the definition is the one it
was made on, and stops applying, saying so in the checklist's detail, when the server's definition changed. The
server is tests/servers/surface.py at two versions (v2 rewords `notes_list`'s description), the waiver the
reviewer's own, written with the digest a first review bound it to (tests/integration/test_bound_decisions.py
proves the same in `check` and the Action); driven with Pilot, the plan made as `mcp-review tui` makes it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcp_review.plan import Asked, decide
from mcp_review.tui.app import ReviewApp
from tests.integration.test_bound_decisions import RULE, TOOL, reviewed, server, waiver
from tests.tui_pilot import run_checks, screen_text, show_tab, until


async def finding_in_app(folder: Path, version: str, state: Path):
    plan = decide(Asked(server_command=tuple(server(folder, version)), pack=("review",)), {}, review=True)
    assert plan.check is not None and plan.target is not None
    app = ReviewApp(plan.target, plan=plan.check, export_dir=folder, state_dir=state)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await run_checks(pilot, app)
        review = app.workspace.review
        assert review is not None
        await show_tab(pilot, app, "tab-overview")
        shown = " ".join(line.strip() for line in screen_text(app).splitlines())
        return next(f for f in review.findings if f.rule == RULE and f.subject == TOOL), shown


@pytest.mark.slow
async def test_a_waiver_on_a_definition_stops_applying_in_the_app_when_it_changes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    own = Path(os.environ["MCP_REVIEW_CONFIG_DIR"]) / "mcp-review.toml"
    own.write_text(waiver())
    bound = reviewed(tmp_path, "v1")[0]["waivers"][0]  # what `check` bound it to on first use
    own.write_text(waiver(digest=bound["digest"], version=1, parts=bound["parts"]))
    same, shown = await finding_in_app(tmp_path, "v1", tmp_path / "state-v1")
    assert same.effective == "waived" and same.lapsed is None and "decisions: 1 live" in shown
    changed, shown = await finding_in_app(tmp_path, "v2", tmp_path / "state-v2")
    assert changed.effective == "warn", "the definition changed: the waiver no longer applies"
    assert changed.lapsed is not None and "its description changed" in changed.lapsed
    assert "decisions: 1 stale (made on an earlier version)" in shown, "the Overview counts it stale"
