"""Issue 12: quitting the app while the checklist's rules run in their own thread (`inspector/tui/checking.py`).

The rules ask the server through `OnLoop`, on the app's loop. A rule that asks after the app quit must end the
rules' thread with a cancellation, and no request may be left made but never run (Python's "coroutine ... was
never awaited", which the suite printed wherever the collector happened to find it)."""

from __future__ import annotations

import asyncio
import gc
import threading
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from mcp_review.checking import review_session
from mcp_review.targets import stdio_target
from mcp_review.tui import checking
from mcp_review.tui.app import ReviewApp
from tests.support import eventually, fixture_argv
from tests.tui_pilot import until


def new_checklist_thread(before: set[threading.Thread]) -> threading.Thread:
    """The rules' thread this test started (another test's may still be ending)."""
    return next(t for t in threading.enumerate() if t.name == "checklist" and t not in before)


def test_a_rule_asking_the_server_after_the_app_quit_ends_the_checklist_and_leaves_no_request_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    working, quit_ = threading.Event(), threading.Event()
    ended: list[BaseException] = []

    async def busy_then_review(*args: object, **kwargs: object) -> object:
        """The real rules, after working a while without awaiting anything (as on 10,000 tools)."""
        working.set()
        quit_.wait(30)
        try:
            return await review_session(*args, **kwargs)  # type: ignore[arg-type]
        except BaseException as e:
            ended.append(e)
            raise

    monkeypatch.setattr(checking, "review_session", busy_then_review)

    async def quit_while_checking() -> threading.Thread:
        before = set(threading.enumerate())
        app = ReviewApp(stdio_target(fixture_argv("good")), state_dir=tmp_path)
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.workspace.snapshot is not None)
            app.workspace.choose(app.workspace.plan.packs, replace(app.workspace.options, calls="none"))
            await pilot.press("r")  # calls chosen: the run starts without its dialog
            await until(pilot, working.is_set)
            rules = new_checklist_thread(before)
            await pilot.press("q")
        assert not app.is_running and app.workspace.checking, "it quit before the checklist finished"
        return rules

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rules = asyncio.run(quit_while_checking())  # the app's loop is closed now
        quit_.set()  # and the rules go on to ask the server
        rules.join(10)
        gc.collect()
    assert not rules.is_alive(), "the rules' thread went on"
    assert [type(e) for e in ended] == [asyncio.CancelledError], ended
    assert not [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


async def test_work_cancelled_before_its_thread_has_started_is_cancelled_there_too() -> None:
    """The app quits as the checklist starts: the rules' thread must not run the whole checklist for nothing.
    (A race: the old code, which heard of the thread's loop through the app's, failed 4 runs of 5.)"""
    ran: list[str] = []

    async def rules() -> None:
        try:
            await asyncio.sleep(30)
            ran.append("all of it")
        except asyncio.CancelledError:
            ran.append("cancelled")
            raise

    checklist = asyncio.create_task(checking.off_the_ui(rules))
    await asyncio.sleep(0)  # the thread is started, its loop not yet
    checklist.cancel()
    with pytest.raises(asyncio.CancelledError):
        await checklist
    assert eventually(lambda: bool(ran), 5) and ran == ["cancelled"]
