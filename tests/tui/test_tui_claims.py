"""Issue 35: the app says whose verdict it shows, whole, at 80 columns. In a directory outside git whose review config
(named with a long relative path) skips the pack that warns, the app's run is the reviewer's (the warn stays), and
the status line and the Overview say, without cutting either, that the file's decision was not applied and what the
verdict would be with it. Driven with Pilot against tests/servers/good.py, the plan made as `mcp-review tui` makes
it."""

from __future__ import annotations

from textual.widgets import Static

from mcp_review import claims
from mcp_review.plan import Asked, decide
from mcp_review.tui.app import ReviewApp
from tests.support import fixture_argv
from tests.tui_pilot import run_checks, screen_text, show_tab, until

CONFIG = "review-configs/the-notes-server-as-its-author-would-like-it.toml"


def read(screen: str) -> str:
    """The screen as one text, each wrapped line joined to the next by the space the wrap took."""
    return " ".join(line.strip(" ▎▊▃▇") for line in screen.splitlines() if line.strip())


async def test_the_status_line_and_overview_say_the_verdict_with_the_claims_whole_at_80_columns(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / CONFIG).parent.mkdir()
    (tmp_path / CONFIG).write_text('ignore = ["spec"]\n')
    plan = decide(
        Asked(server_command=tuple(fixture_argv("good")), review_config=CONFIG, pack=("spec",)), {}, review=True
    )
    assert plan.check is not None and plan.target is not None
    app = ReviewApp(plan.target, plan=plan.check, export_dir=tmp_path, state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await run_checks(pilot, app)
        review = app.workspace.review
        assert review is not None and review.verdict == "PASS_WITH_WARNINGS", "the reviewer's: spec ran"
        assert claims.verdict_with(review) == "PASS"
        await show_tab(pilot, app, "tab-overview")
        await until(pilot, lambda: "not applied" in screen_text(app))
        status = app.main.query_one("#status", Static)
        assert status.size.height >= 2, "wrapped, not cut"
        shown = read(screen_text(app))
        said = claims.said(review)
        assert said is not None and CONFIG in said and "with them the verdict would be PASS;" in said
        assert f"verdict PASS_WITH_WARNINGS · gate PASS · {claims.short(review)} (the Overview, 1, says which)" in shown
        assert "would be PASS with 1 decision of the repository's " + CONFIG in shown, "the status line names it"
        assert said in shown, "the Overview says it all"
        assert "…" not in screen_text(app).splitlines()[1], "nothing cut on the status line"
