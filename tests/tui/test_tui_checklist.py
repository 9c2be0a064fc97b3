"""Running the checklist from the app, driven with Pilot against the demo server over stdio (wait on state, never
on the worker): every selected rule listed live while it runs, packs, calls and probes chosen in the run dialog,
then one rule or one pack re-run in place, and the reviewer's decisions (waive, attest, note) saved, found again
on reopening and kept by a re-run."""

from __future__ import annotations

import asyncio
import json

from textual.pilot import Pilot
from textual.widgets import Input

from mcp_review.targets import demo_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.grid import Grid
from mcp_review.tui.panes.checklist import ChecklistPane
from tests.support import saved_text
from tests.tui_pilot import run_checks, screen_text, until


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
        # a probe's bare request (on session.channel) answered through the app's loop, as in `check`: not timed out
        assert app.main.query_one(ChecklistPane).live["spec.request-meta"] == "pass"

        # the rule column fits the longest id: whole at 120 columns, without its pack (its section's row) at 80
        await pilot.press("5")
        longest = max(app.workspace.review.findings, key=lambda f: len(f.rule))
        assert longest.rule == "review.arguments-validated-and-authorized"
        for width, shown in ((120, longest.rule), (80, "arguments-validated-and-authorized")):
            await pilot.resize_terminal(width, 40)
            checks.move_cursor(next(i for i, f in enumerate(checks.rows) if getattr(f, "rule", "") == longest.rule))
            await pilot.pause()
            line = next(line for line in screen_text(app).splitlines() if f" {shown} " in line)
            status, sev = line.split()[:2]
            assert status == checks.current.effective and sev in ("crit", "high", "med", "low"), line


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

        async def rerun(key: str, what: str) -> None:
            """`u` re-runs the rule under the cursor, `p` its pack: merged into the review in place."""
            old = next(f for f in app.workspace.review.findings if f.rule == "registry.list-budget")
            await pilot.press(key)
            await until(
                pilot, lambda: not app.workspace.checking and all(f is not old for f in app.workspace.review.findings)
            )
            assert len(app.workspace.review.findings) == before and app.workspace.review.created == created, what

        await rerun("u", "one rule merged in place")
        others = [f for f in app.workspace.review.findings if f.pack != "registry"]
        await rerun("p", "one pack merged in place")
        assert [f for f in app.workspace.review.findings if f.pack != "registry"] == others, "the other packs are kept"


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
        await pilot.press("5")
        app.main.query_one("#checks", Grid).move_cursor(row=0)  # a section's row: what its "seed 003" means
        await pilot.pause()
        assert "A seed is one of the numbered source checklists" in str(app.main.query_one("#check-detail").render())
        await decide(pilot, app, "w", "review.descriptions-grounded", "known demo defect")
        await decide(pilot, app, "a", "review.injection-safe", "no shell, SQL or path building in server.py")
        await decide(pilot, app, "n", "review.descriptions-grounded", "ask upstream to drop the <IMPORTANT> block")
        waived = [f for f in app.workspace.review.findings if f.effective == "waived"]
        assert waived and waived[0].waiver.by == "carol"
        status = app.main.query_one("#status")
        await until(pilot, lambda: "saved to" in str(status.render()))  # written off the app's loop, then said
        assert "known demo defect" in saved_text(app.workspace.review_path), "on disk while the app runs"
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


async def test_the_run_dialog_estimates_the_calls_and_names_the_cap_when_it_would_bite(tmp_path, monkeypatch):
    """Issue 40: tools the checks may call times the calls each takes, per policy as it is chosen; the call cap named
    when the run would reach it (as 10,000 tools under `all` do: 30,000 calls against 20,000)."""
    from dataclasses import replace

    from textual.widgets import Select, Static

    from mcp_review import calls
    from mcp_review.targets import stdio_target
    from mcp_review.tui.dialogs import RunScreen
    from tests.support import fixture_argv

    monkeypatch.setattr(calls, "LIMITS", replace(calls.LIMITS, calls=100))
    app = ReviewApp(stdio_target(fixture_argv("many", "--tools", "40")), state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        estimate = app.screen.query_one("#estimate", Static)
        assert "no tool may be called" in str(estimate.render()), "none is read-only and closed-world"
        app.screen.query_one("#calls", Select).value = "all"
        await pilot.pause()
        said = str(estimate.render())
        assert "about 120 calls (40 tools, 3 each)" in said and "stops at 100 (MCP_REVIEW_LIMITS calls)" in said
        assert app.screen.query_one("#run").region.bottom <= 24, "the buttons still fit at 80x24"
