"""Issue 25: the reviewer's decisions are kept and recorded as meant. Driven with Pilot against tests/servers/good.py
(pack spec: one warn with evidence): a note and an export before any run, a warn waived with its expiry shown, the
review's own notes on a key, the review file named after the server, a reopened review that shows its proof as
saved and says when it was made, and a decision dialog that fills "who" and puts the cursor where it is needed."""

from __future__ import annotations

import json
import os

from textual.pilot import Pilot
from textual.widgets import Input, Static

from mcp_review.checking import CheckPlan
from mcp_review.targets import stdio_target
from mcp_review.tui import settings
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.dialogs import ConfirmScreen, DecisionScreen, ExportScreen
from mcp_review.tui.grid import Grid
from mcp_review.tui.panes.checklist import ChecklistPane
from tests.support import fixture_argv, saved_text
from tests.tui_pilot import run_checks, show_tab, until


def good_app(folder) -> ReviewApp:
    app = ReviewApp(
        stdio_target(fixture_argv("good")), plan=CheckPlan(packs=["spec"]), export_dir=folder, state_dir=folder
    )
    app.animation_level = "none"
    return app


async def decide(pilot: Pilot, key: str, why: str, expires: str = "") -> DecisionScreen:
    await pilot.press(key)
    await until(pilot, lambda: isinstance(pilot.app.screen, DecisionScreen))
    screen = pilot.app.screen
    assert isinstance(screen, DecisionScreen)
    screen.query_one("#why", Input).value = why
    if expires:
        screen.query_one("#expires", Input).value = expires
    await pilot.click("#ok")
    await until(pilot, lambda: not isinstance(pilot.app.screen, DecisionScreen))
    return screen


async def export(pilot: Pilot, path: str) -> None:
    await pilot.press("e")
    await until(pilot, lambda: isinstance(pilot.app.screen, ExportScreen))
    pilot.app.screen.query_one("#path", Input).value = path
    await pilot.click("#export")
    await until(pilot, lambda: not isinstance(pilot.app.screen, ExportScreen))


def detail(app: ReviewApp) -> str:
    return str(app.main.query_one("#check-detail", Static).render())


async def highlight_finding(pilot: Pilot, app: ReviewApp, rule: str) -> None:
    await show_tab(pilot, app, "tab-checks")
    pane = app.main.query_one(ChecklistPane)
    grid = app.main.query_one("#checks", Grid)
    await until(pilot, lambda: any(f and f.rule == rule for f in pane.shown_findings))
    grid.move_cursor(row=next(i for i, f in enumerate(pane.shown_findings) if f and f.rule == rule))
    grid.focus()
    await pilot.pause()


async def test_decisions_before_and_after_a_run_are_kept_and_a_reopened_review_shows_its_proof(tmp_path):
    app = good_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        path = app.workspace.review_path
        assert path.name.startswith("good-server-")  # the server's own name, not python's
        await show_tab(pilot, app, "tab-checks")
        app.main.query_one("#checks", Grid).focus()
        # a note on the review, before any run, without filtering the table down to nothing: saved at once
        await decide(pilot, "N", "first look: notes server")
        await until(pilot, lambda: "first look" in saved_text(path))
        assert "first look: notes server" in str(app.main.query_one("#overview", Static).render())
        # an export before a run: the token report and the calls, said to be unchecked
        await export(pilot, "before.md")
        await until(pilot, lambda: (tmp_path / "before.md").is_file())  # written off the app's loop
        before = (tmp_path / "before.md").read_text()
        assert "NOT_CHECKED" in before and "notes_search" in before
        # issue 40: said whole, no empty pieces, and signed by whom the app knows (the note's author)
        assert "NOT_CHECKED**  ·  no checklist ran" in before and "No packs run" in before
        assert "**  ·\n" not in before and "Packs:   ·" not in before and "Passed and not applicable" not in before
        who = app.workspace.review.remarks[0].by
        assert who and f"- Reviewer: {who}  Date:" in before

        await run_checks(pilot, app)
        await highlight_finding(pilot, app, "spec.pagination")  # a warn: it can be waived too
        await pilot.press("w")  # an expiry in the past is refused: that waiver would never apply
        await until(pilot, lambda: isinstance(app.screen, DecisionScreen))
        app.screen.query_one("#why", Input).value = "pagination is not needed for 4 tools"
        app.screen.query_one("#expires", Input).value = "2020-01-01"
        await pilot.press("ctrl+s")
        assert "in the past" in str(app.screen.query_one("#problems", Static).render())
        assert app.screen.focused is app.screen.query_one("#expires", Input)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, DecisionScreen))
        await decide(pilot, "w", "pagination is not needed for 4 tools", expires="2099-01-31")
        assert app.workspace.review.counts().get("warn") is None
        assert "until 2099-01-31" in detail(app)
        await pilot.press("w")  # on the waived finding: its waiver, to change
        await until(pilot, lambda: isinstance(app.screen, DecisionScreen))
        given = {i.id: i.value for i in app.screen.query(Input)}
        assert given["why"] == "pagination is not needed for 4 tools" and given["expires"] == "2099-01-31"
        await pilot.press("escape")
        await until(pilot, lambda: "2099-01-31" in saved_text(path))
        status = app.main.query_one("#status", Static)  # one line: a long path is cut, never wrapped out of sight
        await until(pilot, lambda: f"saved to {path.parent}"[:60] in status.render_line(0).text)
        created = app.workspace.review.created
        await pilot.press("N")  # the review's notes, shown where one is added
        await until(pilot, lambda: isinstance(app.screen, DecisionScreen))
        assert "first look: notes server" in " ".join(str(s.render()) for s in app.screen.query(Static))
        await pilot.press("escape")

        # an existing file is replaced only when the reviewer says so; a missing folder is never made
        await export(pilot, "before.md")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.click("#no")
        assert (tmp_path / "before.md").read_text() == before
        await export(pilot, "missing/r.md")
        assert not (tmp_path / "missing").exists()

    again = good_app(tmp_path)
    heard: list = []
    async with again.run_test(size=(100, 30), message_hook=heard.append) as pilot:
        await until(pilot, lambda: again.workspace.review is not None and again.workspace.review.findings)
        said = [m.notification.message for m in heard if hasattr(m, "notification")]
        assert any(f"reviewed {created}" in m for m in said)
        await highlight_finding(pilot, again, "spec.pagination")
        shown = detail(again)
        assert f"recorded on {created} (saved with the review)" in shown and "re-run the rule" not in shown
        assert "tools/list" in shown  # the exchange itself, as saved
        assert "answers #" in shown and "no answer yet" not in shown  # paired as it was when recorded
        assert "until 2099-01-31" in shown


async def test_who_is_remembered_and_the_cursor_goes_to_what_is_missing(tmp_path, monkeypatch):
    """No $USER and no git user.name: "who" starts empty and has the cursor; an error moves the cursor to its
    field; the name saved comes back in the next dialog."""
    monkeypatch.delenv("USER", raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.chdir(tmp_path)  # no repository here: no local user.name either
    settings._git_user.cache_clear()
    try:
        app = good_app(tmp_path)
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.workspace.snapshot is not None)
            await show_tab(pilot, app, "tab-checks")
            app.main.query_one("#checks", Grid).focus()
            await pilot.press("N")
            await until(pilot, lambda: isinstance(app.screen, DecisionScreen))
            screen = app.screen
            await until(pilot, lambda: screen.focused is not None)
            assert screen.focused is screen.query_one("#who", Input)
            await pilot.press(*"carol", "enter")  # the name lands in "who"; Enter submits without a reason
            assert screen.query_one("#who", Input).value == "carol"
            assert "note is required" in str(screen.query_one("#problems", Static).render()), "named as shown"
            assert [screen.query_one(f"#{f}", Input).border_title for f in ("who", "why")] == ["who", "note"]
            assert screen.focused is screen.query_one("#why", Input)
            await pilot.press(*"ok", "enter")
            await until(pilot, lambda: not isinstance(app.screen, DecisionScreen))
            await pilot.press("N")
            await until(pilot, lambda: isinstance(app.screen, DecisionScreen))
            assert app.screen.query_one("#who", Input).value == "carol"
            await until(pilot, lambda: app.screen.focused is not None)
            assert app.screen.focused is app.screen.query_one("#why", Input)
        assert json.loads(settings.settings_path().read_text())["who"] == "carol"
    finally:
        settings._git_user.cache_clear()


async def test_a_run_never_waits_on_a_person(tmp_path):
    """tests/servers/asking.py's read-only tools elicit, sample and list roots when called: during a run the Run
    dialog's policy answers (shown there), each answer recorded in the review's notes, and no dialog opens."""
    from textual.widgets import Select

    from mcp_review.rules.core import load_rules
    from mcp_review.tui.dialogs import RunScreen

    keep = "review.results-safe"  # a rule that calls every read-only tool with arguments it makes
    ignore = [r for r in load_rules() if r.startswith("review.") and r != keep]
    plan = CheckPlan(packs=["review"], ignore=ignore)
    app = ReviewApp(stdio_target(fixture_argv("asking")), plan=plan, export_dir=tmp_path, state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        assert app.screen.query_one("#requests", Select).value == "auto"
        assert "sampling and elicitation declined" in " ".join(str(s.render()) for s in app.screen.query("Static"))
        app.screen.query_one("#calls", Select).value = "read-only"
        await pilot.click("#run")
        await until(pilot, lambda: not app.workspace.checking and app.workspace.review is not None, 60)
        notes = " ".join(app.workspace.review.notes)
        assert "elicitation/create: declined" in notes and "sampling/createMessage: declined" in notes


async def test_the_roots_dialog_offers_the_servers_own_directories_and_says_what_the_answer_does(tmp_path):
    from mcp_review.tui.dialogs import RootsScreen
    from tests.tui_pilot import call_with_consent

    own = tmp_path / "allowed"
    own.mkdir()
    app = ReviewApp(stdio_target(fixture_argv("asking", str(own))), state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await call_with_consent(pilot, app, "show_roots")
        await until(pilot, lambda: isinstance(app.screen, RootsScreen))
        said = " ".join(str(s.render()) for s in app.screen.query("Static"))
        assert "replace the directories they were started with" in said
        assert json.loads(app.screen.query_one("#editor").text) == [{"uri": own.as_uri(), "name": "allowed"}]


async def test_a_reason_typed_at_once_and_tab_keep_the_fields_apart():
    """The dialog's first field takes the focus before any key is handled: keys typed as it opens (before a
    frame is drawn) went nowhere, and the focus landing a frame later pulled Tab's move back into the reason."""
    from types import SimpleNamespace

    from textual.app import App

    app: App[None] = App()
    async with app.run_test(size=(80, 24)) as pilot:
        finding = SimpleNamespace(rule="spec.pagination", subject="notes_search", message="no cursor")
        await app.push_screen(DecisionScreen("waive", finding, who="carol"))
        for key in [*"ok for now", "tab"]:
            app.simulate_key(key)  # as the terminal driver posts them, before the dialog's first frame
        await pilot.pause()
        await pilot.press(*"2099-01-31")
        assert app.screen.query_one("#why", Input).value == "ok for now"
        assert app.screen.query_one("#expires", Input).value == "2099-01-31"
