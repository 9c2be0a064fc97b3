"""Issue #40: a saved review reopens without holding a key (read in the background, with progress), and a review of
the same server made from another folder is found or hinted at. Driven with Pilot against a real fixture server."""

from __future__ import annotations

import threading

from textual.widgets import Static, TabbedContent

from mcp_review import saved
from mcp_review.review import Finding, Review
from mcp_review.targets import stdio_target
from mcp_review.tui.app import ReviewApp
from tests.support import fixture_argv
from tests.tui_pilot import notifications, until


def overview(app: ReviewApp) -> str:
    return str(app.main.query_one("#overview", Static).render())


def saved_review(target_public: dict, findings: int) -> Review:
    return Review(
        server={"name": "good-server"},
        target=target_public,
        revision="2025-11-25",
        era="legacy",
        transport="stdio",
        findings=[
            Finding("review.annotations-set", "review", "warn", f"tool_{i} has no annotations", f"tool_{i}", "tool")
            for i in range(findings)
        ],
        packs=["review"],
        created="2026-01-02T03:04:05+00:00",
    )


async def test_a_saved_review_reopens_in_the_background_and_every_key_works_meanwhile(tmp_path, monkeypatch):
    target = stdio_target(fixture_argv("good"))
    saved.write(saved.review_file(target.public(), tmp_path, "good-server"), saved_review(target.public(), 5000))
    release, real = threading.Event(), saved.read

    def held(path, progress=None):  # the real read, held after its first block until the test has pressed keys
        def step(done: int, total: int) -> None:
            if progress is not None:
                progress(done, total)
            release.wait(60)

        return real(path, step)

    monkeypatch.setattr(saved, "read", held)
    app, heard = ReviewApp(target, state_dir=tmp_path), []
    async with app.run_test(size=(80, 24), message_hook=heard.append) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None and "2,000 of 5,000 findings" in overview(app))
        assert "verdict: reopening the review saved before" in overview(app)
        await pilot.press("2")  # a key, answered while the review is read
        assert app.main.query_one(TabbedContent).active == "tab-tools"
        await pilot.press("r")  # a run would go into the review being read: it says so and waits
        await until(pilot, lambda: any("reopening the review saved before" in m for m in notifications(heard)))
        assert app.workspace.reopening is not None and app.workspace.review is None and not app.workspace.checking
        release.set()
        await until(pilot, lambda: app.workspace.review is not None)
        await pilot.press("1")
        await until(pilot, lambda: "verdict PASS_WITH_WARNINGS · reviewed 2026-01-02" in overview(app))
        assert len(app.checklist.shown_findings) > 5000, "every finding in the Checklist, with its section rows"
        assert any("the review saved before came back" in m for m in notifications(heard))


async def test_a_review_saved_for_another_server_started_the_same_way_is_not_shown(tmp_path):
    target = stdio_target(fixture_argv("good"))
    other = saved_review(target.public(), 3)
    other.server = {"name": "another-server"}
    saved.write(saved.review_file(target.public(), tmp_path, "good-server"), other)
    app, heard = ReviewApp(target, state_dir=tmp_path), []
    async with app.run_test(size=(80, 24), message_hook=heard.append) as pilot:
        await until(pilot, lambda: any("is of another-server, not good-server" in m for m in notifications(heard)))
        assert app.workspace.review is None and "not checked yet" in overview(app)


async def test_a_review_made_from_another_folder_is_found_or_hinted_at(tmp_path, monkeypatch):
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    state = tmp_path / "state"
    argv = fixture_argv("good")
    monkeypatch.chdir(project)
    started_here = stdio_target(argv, cwd=str(project))
    saved.write(saved.review_file(started_here.public(), state, "good-server"), saved_review(started_here.public(), 3))
    another = stdio_target([*argv, "--unused-flag-a-copy-would-have"])  # the same server, started another way
    monkeypatch.chdir(elsewhere)

    app = ReviewApp(started_here, state_dir=state)  # a recent server, started in its own folder from here
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.review is not None)
        assert "verdict PASS_WITH_WARNINGS" in overview(app)

    app, heard = ReviewApp(another, state_dir=state), []
    async with app.run_test(size=(80, 24), message_hook=heard.append) as pilot:
        await until(pilot, lambda: "a review of this server's name was saved from" in overview(app))
        assert str(project) in overview(app) and app.workspace.review is None
        assert any("verdict PASS_WITH_WARNINGS" in m for m in notifications(heard))


async def test_a_recent_server_started_by_a_relative_path_starts_again_from_another_folder(tmp_path, monkeypatch):
    """Issue 40: a recent server is kept with the folder it started in, so a relative path in its command still
    names the same server when the app runs elsewhere."""
    import sys

    from textual.widgets import DataTable

    from mcp_review.targets import demo_target
    from mcp_review.tui.dialogs import ConnectScreen
    from mcp_review.tui.settings import load_settings
    from tests.support import ROOT

    monkeypatch.chdir(ROOT)
    app = ReviewApp(stdio_target([sys.executable, "tests/servers/good.py"]), state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
    assert load_settings()["recent"][0]["cwd"] == str(ROOT)

    monkeypatch.chdir(tmp_path)  # where tests/servers/good.py names nothing
    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
        table = app.screen.query_one("#choices", DataTable)
        assert str(table.get_cell_at((0, 1))) == f"recent · in {ROOT}"
        table.focus()
        await pilot.press("enter")
        await until(
            pilot, lambda: app.workspace.snapshot is not None and app.workspace.snapshot.server_name == "good-server"
        )
        assert app.workspace.target.cwd == str(ROOT)
