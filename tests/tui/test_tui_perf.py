"""The app stays answerable at scale (issue 12): keys are handled while the checklist runs on 3,000 tools.

No time is asserted here (a loaded machine would fail it, not the app): how long a key waits meanwhile is
`bench/tui.py`'s figure ("longest key wait" during the checklist on 10,000 tools; target under 0.25 s). 3,000
tools keep the checklist running for seconds, long enough for keys to come in while it runs; 10,000 (110,000
findings) cost the suite two minutes of CPU on 2 cores to prove the same thing, and bench/tui.py measures them.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import replace

from textual.widgets import Input

from mcp_review.targets import stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.panes.checklist import ChecklistPane
from tests.pace import Patience
from tests.support import fixture_argv
from tests.tui_pilot import until


async def test_keys_are_answered_while_the_checklist_runs_on_3000_tools(tmp_path):
    app = ReviewApp(stdio_target(fixture_argv("many", "--tools", "3000")), state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None, 120)
        app.main.show_tab("tab-tools")
        app.workspace.choose(app.workspace.plan.packs, replace(app.workspace.options, calls="none"))
        await pilot.press("r")  # calls chosen: the run starts without its dialog
        await until(pilot, lambda: any(s == "running" for s in app.main.query_one(ChecklistPane).live.values()), 60)
        answered = 0
        keys = itertools.cycle([("slash", True), ("tab", False)])  # the tools filter, then the table, and again
        while app.workspace.checking:  # the rules, then the review saved and shown
            key, focused = next(keys)
            app.simulate_key(key)  # as the terminal driver posts it (Pilot.press also waits for an idle CPU)
            patience = Patience(60)  # a hang, not a slow key
            while isinstance(app.focused, Input) != focused:
                assert not patience.spent(), f"the key was not handled within {patience}"
                await asyncio.sleep(0.01)
            answered += app.workspace.checking  # handled while the rules still ran, not queued until they ended
            await asyncio.sleep(0.2)
        assert answered >= 2, "keys were handled while the checklist ran"
        assert app.workspace.review is not None and len(app.workspace.review.tools) == 3000
        assert any(f.rule == "review.rug-pull-mitigation" for f in app.workspace.review.findings), "every rule ran"


async def test_quitting_while_the_checklist_runs_does_not_wait_for_it(tmp_path):
    app = ReviewApp(stdio_target(fixture_argv("many", "--tools", "3000")), state_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None, 120)
        app.workspace.choose(app.workspace.plan.packs, replace(app.workspace.options, calls="none"))
        await pilot.press("r")  # calls chosen: the run starts without its dialog
        await until(pilot, lambda: any(s == "running" for s in app.main.query_one(ChecklistPane).live.values()), 60)
        await pilot.press("q")
        patience = Patience(30)  # a hang bound: quitting waits for nothing
        while app.is_running:
            assert not patience.spent(), f"still running after {patience}"
            await asyncio.sleep(0.05)
    assert app.workspace.checking, "it quit before the checklist finished"
