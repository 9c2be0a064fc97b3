"""The Changes tab with Pilot: surface.py v2 live against a lock pinned from v1; approvals one by one and by class
(a flipped safety annotation never in bulk), recorded in the review and in the lock pinned from the app; and how
the tab looks at 80x24."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Static

from mcp_review import saved
from mcp_review.report import render
from mcp_review.targets import stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.dialogs import ConfirmScreen, DecisionScreen, PinScreen
from mcp_review.tui.grid import Grid
from mcp_review.tui.panes.changes import ChangesPane, side_by_side
from tests.support import ROOT, fixture_argv
from tests.tui_pilot import run_checks, show_tab, until


@pytest.fixture
def folder(tmp_path):
    """A folder with mcp-review.lock pinned from v1."""
    argv = [sys.executable, "-m", "mcp_review", "pin", "--out", str(tmp_path / "mcp-review.lock"), "--"]
    subprocess.run([*argv, *fixture_argv("surface")], check=True, timeout=60, cwd=ROOT, capture_output=True)
    return tmp_path


def v2_app(folder) -> ReviewApp:
    app = ReviewApp(stdio_target(fixture_argv("surface", "--surface", "v2")), export_dir=folder, state_dir=folder)
    app.animation_level = "none"
    return app


async def opened(pilot: Pilot) -> ChangesPane:
    app = pilot.app
    await until(pilot, lambda: app.workspace.snapshot is not None)  # type: ignore[attr-defined]
    await show_tab(pilot, app, "tab-changes")  # type: ignore[arg-type]
    app.main.query_one("#changes", Grid).focus()  # type: ignore[attr-defined]
    pane = app.main.query_one(ChangesPane)  # type: ignore[attr-defined]
    await until(pilot, lambda: pane.compared is not None)  # the workspace compared the lock, off the app's loop
    return pane


def row_of(pane: ChangesPane, key: str, change_class: str) -> int:
    assert pane.diff is not None
    return next(i for i, c in enumerate(pane.diff.changes) if c.key == key and c.change_class == change_class)


async def approve(pilot: Pilot, note: str) -> None:
    await until(pilot, lambda: isinstance(pilot.app.screen, DecisionScreen))
    pilot.app.screen.query_one("#who", Input).value = "alice"
    pilot.app.screen.query_one("#why", Input).value = note
    await pilot.click("#ok")
    await until(pilot, lambda: not isinstance(pilot.app.screen, DecisionScreen))


async def test_approve_one_a_class_and_pin(folder):
    app = v2_app(folder)
    async with app.run_test(size=(100, 30)) as pilot:
        pane = await opened(pilot)
        table = app.main.query_one("#changes", Grid)
        assert table.row_count == 12
        table.move_cursor(row=row_of(pane, "notes_share", "safety"))
        await pilot.press("A")  # the safety class: the two flips are left for one by one
        await approve(pilot, "new sharing tool, reviewed in PR 12")
        approved = {(c.key, c.change_class) for c in pane.diff.changes if c.approval}
        assert approved == {("notes_share", "safety"), ("notes_tag", "safety")}
        table.move_cursor(row=row_of(pane, "notes_get", "safety"))
        await pilot.press("a")
        await approve(pilot, "get writes an audit entry now")
        flips = {c.key: c.approval for c in pane.diff.changes if c.flips_annotation}
        assert set(flips) == {"notes_get", "notes_archive"} and flips["notes_archive"] is None
        assert flips["notes_get"].note == "get writes an audit entry now"
        assert str(table.get_cell_at((row_of(pane, "notes_get", "safety"), 4))) == "✓ alice"
        assert "3 approvals not in the lock yet" in str(app.main.query_one("#changes-summary", Static).render())
        drift = str(app.main.query_one("#overview", Static).render())
        assert "12 changes since mcp-review.lock" in drift and "safety" in drift

        # saved the moment they were made, before any checklist run
        def saved_approvals() -> set[str]:
            path = app.workspace.review_path
            review = saved.read(path) if path.is_file() else None
            return {c["key"] for c in ((review and review.changes) or {}).get("changes", []) if c.get("approval")}

        await until(pilot, lambda: saved_approvals() == {"notes_share", "notes_tag", "notes_get"})

        await run_checks(pilot, app)  # the review carries the diff with its approvals, and exports it
        await until(pilot, lambda: app.workspace.review.changes is not None)
        recorded = [c for c in app.workspace.review.changes["changes"] if c["approval"]]
        assert {c["key"] for c in recorded} == {"notes_share", "notes_tag", "notes_get"}
        assert "approved by alice" in render(app.workspace.review, "md-full")

        await show_tab(pilot, app, "tab-changes")
        table.focus()
        before = (folder / "mcp-review.lock").read_text()
        await pilot.press("P")  # asks first: what is not approved, by class
        await until(pilot, lambda: isinstance(app.screen, PinScreen))
        asked = " ".join(str(w.render()) for w in app.screen.query(Static))
        assert "12 changes since the lock: 3 approved; not approved:" in asked and "safety" in asked
        await pilot.click("#pin")  # an unapproved breaking or safety change is not pinned without its own tick
        assert isinstance(app.screen, PinScreen) and "or tick each" in str(app.screen.query_one("#problems").render())
        assert isinstance(app.screen.focused, Checkbox)  # the error moved focus to the first unticked one
        assert (folder / "mcp-review.lock").read_text() == before
        for box in app.screen.query(Checkbox):
            box.value = True
        await pilot.pause()  # the ticks and the scroll to the first one settle: the click is aimed at where #pin is
        await pilot.click("#pin")
        await until(pilot, lambda: pane.diff is not None and not pane.diff.changes)
    pinned = json.loads((folder / "mcp-review.lock").read_text())
    assert pinned["server"]["version"] == "2.0.0"
    assert sorted(a["key"] for a in pinned["approvals"]) == ["notes_get", "notes_share", "notes_tag"]


async def test_without_a_lock_the_tab_says_how_to_pin(tmp_path):
    app = v2_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        pane = await opened(pilot)
        assert pane.diff is None and app.main.query_one("#changes", Grid).row_count == 0
        await pilot.press("P")
        await until(pilot, lambda: (tmp_path / "mcp-review.lock").is_file() and pane.diff is not None)
        assert pane.diff.changes == []


def test_side_by_side_highlights_only_the_changed_words_and_keeps_lines_against_lines():
    rows = side_by_side({"description": "List the newest notes."}, {"description": "List the recent notes."})
    [(old, new)] = [(a, b) for a, b in rows if a.plain != b.plain]
    assert [old.plain[s.start : s.end] for s in old.spans if s.style] == ["newest"]
    assert [new.plain[s.start : s.end] for s in new.spans if s.style] == ["recent"]
    before = {"annotations": {"readOnlyHint": True}, "description": "d", "name": "n"}
    after = {"description": "d", "name": "n"}
    rows = side_by_side(before, after)  # the lines the live side lacks face blanks: "description" faces itself
    assert [(a.plain.strip(), b.plain.strip()) for a, b in rows][-3:] == [
        ('"description": "d",', '"description": "d",'),
        ('"name": "n"', '"name": "n"'),
        ("}", "}"),
    ]
    assert ('"readOnlyHint": true', "") in [(a.plain.strip(), b.plain) for a, b in rows]


async def test_a_change_reads_in_full_at_80_columns_and_enter_opens_it(folder):
    """The table cuts "what changed" at 80 columns: the highlighted change's reasons are below it whole, and Enter
    opens the change in full (reasons, then a unified diff of the definitions)."""
    from mcp_review.tui.dialogs import ResultScreen
    from tests.tui_pilot import screen_text

    app = v2_app(folder)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await opened(pilot)
        app.main.query_one("#changes", Grid).move_cursor(row=row_of(pane, "notes_tag", "safety"))
        await pilot.pause()
        reason = next(c for c in pane.diff.changes if c.key == "notes_tag").reasons[0]
        assert reason.startswith("now says: hidden-instruction") and len(reason) > 80
        shown = " ".join(line.strip() for line in screen_text(app).splitlines())
        assert reason[-30:] in shown, "the end of the reason is on the screen"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        body = app.screen.body.plain
        assert reason in body and "--- in the lock" in body and "+++ live" in body
        dialog = app.screen.query_one("#dialog").region
        assert abs(dialog.x - (80 - dialog.right)) <= 1, "the dialog is in the middle, not flush left"


def test_changes_at_80x24(snap_compare, folder):
    async def changes(pilot: Pilot) -> None:
        pane = await opened(pilot)
        pilot.app.main.query_one("#changes", Grid).move_cursor(row=row_of(pane, "notes_tag", "safety"))
        await pilot.pause()

    assert snap_compare(v2_app(folder), run_before=changes, terminal_size=(80, 24))


async def test_a_lock_of_another_server_is_said_and_neither_diffed_nor_pinned_without_the_reviewers_word(folder):
    """Issue 40: beside the notes server's lock, another server (good.py) opened: the Changes tab and the Overview
    say whose lock it is, P asks before pinning over it (no leaves the lock as it was), c compares anyway."""
    app = ReviewApp(stdio_target(fixture_argv("good")), export_dir=folder, state_dir=folder)
    app.animation_level = "none"
    before = (folder / "mcp-review.lock").read_bytes()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await opened(pilot)
        summary = app.main.query_one("#changes-summary", Static)
        said = "mcp-review.lock pins surface-notes 1.0.0, not good-server: not compared"
        await until(pilot, lambda: said in str(summary.render()))
        assert pane.diff is None and app.main.query_one("#changes", Grid).row_count == 0
        assert said in str(app.main.query_one("#overview", Static).render())
        await pilot.press("P")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "A lock of another server" in " ".join(str(s.render()) for s in app.screen.query(Static))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert (folder / "mcp-review.lock").read_bytes() == before, "not pinned over without a yes"
        await pilot.press("c")
        await until(pilot, lambda: pane.diff is not None)
        assert "of another server, compared at your word" in str(summary.render())
        assert app.main.query_one("#changes", Grid).row_count > 0
        assert (folder / "mcp-review.lock").read_bytes() == before
