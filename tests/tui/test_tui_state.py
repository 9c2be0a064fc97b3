"""Issue #12: the app's state stays true (connection, forms, consent, filters, highlights, dialogs) and every
exchange is readable in full. Driven with Pilot against real fixture servers, like tests/tui/test_tui_review.py."""

from __future__ import annotations

import contextlib
import json
import shlex
from pathlib import Path

from textual.widgets import Input, Static, TextArea

from mcp_review import trust
from mcp_review.targets import Target, demo_target, stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.dialogs import CallScreen, ConfirmScreen, ConnectScreen
from mcp_review.tui.grid import Grid
from mcp_review.tui.panes.checklist import ChecklistPane
from mcp_review.tui.panes.tools import ToolsPane
from mcp_review.tui.settings import load_settings
from tests.support import fixture_argv
from tests.tui_pilot import highlight, notifications, open_call, run_checks, until


@contextlib.asynccontextmanager
async def connected(
    tmp_path: Path, target: Target | None = None, size: tuple[int, int] = (100, 30), heard: list | None = None
):
    """The app on `target` (the demo by default), once its server is listed; `heard` collects what it was posted."""
    app = ReviewApp(target or demo_target(), state_dir=tmp_path)
    async with app.run_test(size=size, message_hook=None if heard is None else heard.append) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        yield app, pilot


def status_line(app: ReviewApp) -> str:
    return str(app.main.query_one("#status", Static).render())


async def test_a_failed_connect_leaves_the_working_connection_as_it_was(tmp_path):
    good = shlex.join(fixture_argv("good"))
    async with connected(tmp_path, stdio_target(fixture_argv("good"))) as (app, pilot):
        assert [r["what"] for r in load_settings()["recent"]] == [good], "the server named on the command line"
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
        app.screen.query_one("#what", Input).value = shlex.join(fixture_argv("crash"))
        await pilot.click("#connect")
        await until(pilot, lambda: "could not connect" in status_line(app))
        assert "exited with code 3" in status_line(app)
        assert (
            app.workspace.snapshot is not None
            and app.workspace.snapshot.server_name == "good-server"
            and app.workspace.failure is None
        )
        assert [r["what"] for r in load_settings()["recent"]] == [good], "a failure is not a recent server"
        await open_call(pilot, app, "notes_get")  # the working connection still calls
        app.screen.query_one("#field-note_id", Input).value = "n1"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.workspace.call_log)
        assert app.workspace.call_log[-1]["tool"] == "notes_get" and app.workspace.call_log[-1]["outcome"] == "ok"
        await pilot.press("escape")
        await pilot.press("ctrl+r")  # reconnects to the working server, not the typo
        await until(
            pilot, lambda: app.workspace.snapshot is not None and app.workspace.snapshot.server_name == "good-server"
        )
        assert app.workspace.failure is None


async def test_required_fields_start_empty_and_typing_goes_to_the_first_field(tmp_path):
    async with connected(tmp_path) as (app, pilot):
        await open_call(pilot, app, "create_note")
        field = app.screen.query_one("#field-text", Input)
        assert field.value == "" and json.loads(app.screen.query_one(TextArea).text) == {}
        assert app.screen.focused is field, "focus on the first field, not on the Form/JSON tabs"
        await pilot.press(*"milk")
        assert json.loads(app.screen.query_one(TextArea).text) == {"text": "milk"}


async def test_consent_shows_the_exact_arguments_and_escape_goes_back_to_them(tmp_path):
    async with connected(tmp_path) as (app, pilot):
        await open_call(pilot, app, "create_note")
        await pilot.press(*"buy milk")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        shown = " ".join(str(s.render()) for s in app.screen.query(Static))
        assert '"text": "buy milk"' in shown, "the arguments to consent to"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, CallScreen))
        assert json.loads(app.screen.query_one(TextArea).text) == {"text": "buy milk"}, "what was typed is kept"
        assert app.workspace.call_log == [], "going back is not a refusal"


def tool_detail(app: ReviewApp) -> str:
    return str(app.main.query_one("#tool-detail", Static).render()).split("\n")[0]


async def test_the_tool_detail_follows_the_highlighted_row_after_sorting_and_a_jump(tmp_path):
    async with connected(tmp_path, size=(120, 40)) as (app, pilot):
        await highlight(pilot, app, "export_notes")
        table = app.main.query_one("#tools", Grid)
        await pilot.click("#tools", offset=(2, 0))  # sort by name: another tool under the cursor
        await pilot.pause()
        highlighted = app.main.query_one(ToolsPane).highlighted()
        assert highlighted is not None and tool_detail(app).startswith(highlighted.key)
        app.jump_to_tool(app.workspace.snapshot.tool("create_note").index)
        await until(pilot, lambda: str(table.get_cell_at((table.cursor_row, 0))) == "create_note")
        assert tool_detail(app).startswith("create_note")
        assert app.main.query_one(ToolsPane).highlighted().key == "create_note"


async def test_rerunning_a_rule_keeps_the_filter(tmp_path):
    async with connected(tmp_path, size=(120, 40)) as (app, pilot):
        await run_checks(pilot, app)
        await pilot.press("right", "right", "right")  # Checklist
        app.main.query_one("#check-filter", Input).value = "status:fail"
        await pilot.pause()
        table = app.main.query_one("#checks", Grid)
        row = next(i for i, f in enumerate(app.main.query_one(ChecklistPane).shown_findings) if f is not None)
        table.move_cursor(row=row)
        table.focus()
        app.main.status("")
        await pilot.press("u")
        await until(pilot, lambda: status_line(app).startswith("security"))  # the verdict, security first
        shown = [f for f in app.main.query_one(ChecklistPane).shown_findings if f is not None]
        assert shown and {f.effective for f in shown} == {"fail"}, "the filter the box shows is the one applied"
        assert app.main.query_one("#check-filter", Input).value == "status:fail"


async def test_the_checklist_leads_with_failures_and_section_rows_are_not_findings(tmp_path):
    async with connected(tmp_path, size=(120, 40)) as (app, pilot):
        await run_checks(pilot, app)
        first = next(f for f in app.main.query_one(ChecklistPane).shown_findings if f is not None)
        assert first.effective in ("fail", "blocking"), first.effective
        table = app.main.query_one("#checks", Grid)
        statuses = [
            str(table.get_cell_at((i, 0)))
            for i, f in enumerate(app.main.query_one(ChecklistPane).shown_findings)
            if f is None
        ]
        assert statuses and not {"fail", "pass", "warn", "blocking"} & set(statuses), statuses


async def test_the_first_screen_says_what_the_server_is_and_that_it_is_not_checked_yet(tmp_path):
    async with connected(tmp_path, stdio_target(fixture_argv("good")), size=(80, 24)) as (app, pilot):
        overview = str(app.main.query_one("#overview", Static).render())
        assert "not checked yet" in overview
        assert "1 template ·" in overview and "1 prompt\n" in overview and "1 templates" not in overview
        assert "notes_search" in overview, "the tools with their token cost"
        await pilot.press("right", "right")  # Calls, before any call
        assert "no calls yet" in str(app.main.query_one("#calls-empty", Static).render())
        await run_checks(pilot, app)
        assert "not checked yet" not in str(app.main.query_one("#overview", Static).render())
        assert "good-server" in app.sub_title, "the server's identity stays in the header"
        assert "good-server" not in status_line(app), "the status line says what happened last"


async def test_the_wire_columns_fit_80_columns(tmp_path):
    from tests.tui_pilot import show_tab

    async with connected(tmp_path, size=(80, 24)) as (app, pilot):
        await until(pilot, lambda: not app.workspace.wire)
        await show_tab(pilot, app, "tab-wire")
        table = app.main.query_one("#wire", Grid)
        await until(pilot, lambda: table.row_count > 3)
        assert table.labels[4] == "ms"
        needed = sum(w + 2 for w in table.widths[:-1])  # the last, the method, may be cut
        assert needed <= table.scrollable_content_region.width, "the ms column is not cut"
        assert table.virtual_size.width <= table.scrollable_content_region.width, "nothing scrolls sideways"


async def test_a_call_in_the_background_ends_in_a_notification_not_a_window(tmp_path):
    import sys

    from tests.tui_pilot import call_with_consent

    flood = stdio_target([sys.executable, "tests/hostile/stdio_server.py", "progress-flood"])
    heard: list = []
    async with connected(tmp_path, flood, heard=heard) as (app, pilot):
        await call_with_consent(pilot, app, "probe")
        await until(pilot, lambda: "x to cancel" in status_line(app))  # the call runs
        await pilot.press("down", "x")  # the reviewer moves on (and then cancels the call)
        await until(pilot, lambda: app.workspace.call_log)
        await pilot.pause(0.2)
        assert app.screen is app.main, "no window took the keys"
        assert any("probe" in n for n in notifications(heard)), "the outcome came as a notification"


async def test_a_finding_a_wire_message_and_a_call_open_in_full_with_copy(tmp_path):
    from mcp_review.targets import http_target
    from mcp_review.tui.dialogs import ResultScreen
    from tests.support import http_fixture
    from tests.tui_pilot import show_tab

    with http_fixture("good") as url:
        async with connected(tmp_path, http_target(url)) as (app, pilot):
            await run_checks(pilot, app)
            await pilot.press("right", "right", "right")  # Checklist
            table = app.main.query_one("#checks", Grid)
            row, finding = max(
                ((i, f) for i, f in enumerate(app.main.query_one(ChecklistPane).shown_findings) if f is not None),
                key=lambda pair: len(pair[1].evidence),
            )
            assert len(finding.evidence) > 3
            table.move_cursor(row=row)
            table.focus()
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ResultScreen))
            body = app.screen.body.plain
            assert all(f"#{seq} " in body for seq in finding.evidence), "every exchange the finding cites"
            assert "request_headers" in body, "with the HTTP headers that carried them"
            await pilot.click("#copy")
            assert app.clipboard == body
            await pilot.press("escape")
            await until(pilot, lambda: not app.workspace.wire)
            await show_tab(pilot, app, "tab-wire")
            wire = app.main.query_one("#wire", Grid)
            row = next(i for i in range(wire.row_count) if str(wire.get_cell_at((i, 7))) == "tools/list")
            wire.move_cursor(row=row)
            wire.focus()
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ResultScreen))
            assert '"method": "tools/list"' in app.screen.body.plain and "request_headers" in app.screen.body.plain
            await pilot.press("escape")
            await open_call(pilot, app, "notes_get")
            app.screen.query_one("#field-note_id", Input).value = "n1"
            await pilot.pause()
            await pilot.press("ctrl+s")
            await until(pilot, lambda: isinstance(app.screen, ResultScreen))
            await pilot.press("escape")
            await show_tab(pilot, app, "tab-calls")
            app.main.query_one("#calls", Grid).move_cursor(row=0)
            await pilot.pause()
            detail = str(app.main.query_one("#call-detail", Static).render())
            assert '"method": "tools/call"' in detail and '"result"' in detail, "the request and its answer"


async def test_a_request_the_server_withdraws_closes_its_dialog_and_says_so(tmp_path):
    from mcp_review.tui.dialogs import RootsScreen

    app, heard = ReviewApp(stdio_target(fixture_argv("withdraws")), state_dir=tmp_path), []
    async with app.run_test(size=(100, 30), message_hook=heard.append) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RootsScreen) and app.workspace.snapshot is not None)
        app.caller.consent_then_call(
            app.workspace.snapshot.tool("echo"), {"text": "hi"}
        )  # the server then withdraws it
        await until(pilot, lambda: app.workspace.call_log)
        assert not any(isinstance(s, RootsScreen) for s in app.screen_stack), "the dialog closed"
        assert any("withdrew" in n for n in notifications(heard)), "and said why"
        await until(pilot, lambda: not app.workspace.wire)
        answers = [e for e in app.main.wire_log.entries if e.direction == "send" and e.rpc_id == "roots-1"]
        assert answers == [], "nothing answers a request the server abandoned"


async def test_the_app_takes_checks_review_options_baseline_config_packs_and_calls(tmp_path):
    from mcp_review.cli import parse
    from mcp_review.cli.common import decide

    pins, config = tmp_path / "pins.json", tmp_path / "mcp-review.toml"
    config.write_text('[[waive]]\nrule = "review.descriptions-grounded"\nreason = "known"\nby = "lead"\n')
    trust.trust(config)  # the reviewer's own (else its waiver is a claim, not applied: tests/tui/test_tui_claims.py)
    argv = ["tui", "--baseline", str(pins), "--review-config", str(config), "--pack", "review", "--calls", "read-only"]
    args = parse([*argv, "--", *fixture_argv("good")])
    app = ReviewApp(stdio_target(args.server_command), state_dir=tmp_path, plan=decide(args, review=True).check)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await pilot.press("r")  # --calls was given: no dialog asks again
        await until(pilot, lambda: app.workspace.review is not None and not app.workspace.checking, 60)
        assert pins.is_file(), "the first run with --baseline pins the tools"
        assert {f.pack for f in app.workspace.review.findings} == {"review"}
        rug = next(f for f in app.workspace.review.findings if f.rule == "review.rug-pull-mitigation")
        assert rug.effective != "blocking"
        assert any(w.rule == "review.descriptions-grounded" for w in app.workspace.review.waivers), (
            "the config's waivers"
        )
        assert {c["consent"] for c in app.workspace.review.coverage} == {"read-only"}
        said = app.workspace.review.decisions["provenance"]  # the record the command line decided, in the review
        assert said["calls"]["how"] == "--calls" and said["baseline"] == {"who": "reviewer", "how": "--baseline"}


async def test_an_elicitation_starts_empty_with_the_cursor_in_its_first_field(tmp_path):
    from mcp_review.tui.dialogs import ElicitScreen

    async with connected(tmp_path, stdio_target(fixture_argv("asking"))) as (app, pilot):
        await open_call(pilot, app, "greet")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ElicitScreen))
        assert json.loads(app.screen.query_one(TextArea).text) == {}, "no made-up answer"
        assert app.screen.focused is app.screen.query_one("#field-name", Input)
        await pilot.press(*"Ada", "ctrl+s")
        await until(pilot, lambda: app.workspace.call_log)
        sent = [e.message for e in app.main.wire_log.entries if e.direction == "send"] + [
            e.message for e in app.workspace.wire if e.direction == "send"
        ]
        assert '"name": "x"' not in json.dumps(sent) and '"Ada"' in json.dumps(sent)


async def test_a_review_and_a_config_shipped_in_the_checkout_are_not_the_reviewers(tmp_path, monkeypatch):
    """Issue 21: a `.mcp-review/` review shipped with the repository, where the app used to keep its own, is never
    loaded as the reviewer's (no PASS before any run); a config that grants itself calls is refused, on screen."""
    import hashlib

    from mcp_review.cli import parse
    from mcp_review.cli.common import decide
    from mcp_review.review import Finding, Review

    checkout = tmp_path / "checkout"
    checkout.mkdir()
    monkeypatch.chdir(checkout)
    (checkout / "mcp-review.toml").write_text('[calls]\npolicy = "all"\n')
    args = parse(["tui", "--", *fixture_argv("good")])
    target = stdio_target(args.server_command)
    public = target.public()
    key = json.dumps({k: public.get(k) for k in ("kind", "command", "args", "url", "name")}, sort_keys=True)
    shipped = checkout / ".mcp-review" / f"{Path(target.command).name}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"
    shipped.parent.mkdir()
    fake = [Finding("review.injection-safe", "review", "pass", "shipped with the change")]
    Review(server={}, target=public, revision=None, era=None, transport="stdio", findings=fake).save(
        f"{shipped}.review.json"
    )
    app, heard = ReviewApp(target, plan=decide(args, review=True).check), []
    async with app.run_test(size=(100, 30), message_hook=heard.append) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        assert app.workspace.review is None, "a review shipped in the checkout was read as the reviewer's"
        assert not app.workspace.review_path.is_relative_to(checkout)
        shown = notifications(heard)
        assert any('mcp-review.toml asks for calls.policy = "all"' in m and "refused" in m for m in shown), shown
        assert app.workspace.options.calls == "none" and not app.workspace.calls_chosen, (
            "the repository chose what checks may call"
        )


async def test_evidence_and_a_calls_exchange_are_still_shown_after_a_reconnect(tmp_path):
    """One wire log per server, reconnects too (issue 22): what a finding or a call cites before ctrl+r is still
    shown after it, as those entries (each reconnect used to number a new log from 1)."""
    async with connected(tmp_path, stdio_target(fixture_argv("good"))) as (app, pilot):
        await open_call(pilot, app, "notes_get")
        app.screen.query_one("#field-note_id", Input).value = "n1"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.workspace.call_log)
        await pilot.press("escape")
        await run_checks(pilot, app)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: app.workspace.snapshot is not None and not app.workspace.wire)
        entries = app.main.wire_log.entries
        assert [e.seq for e in entries] == list(range(1, len(entries) + 1)), "one numbering across the reconnect"
        assert len({e.conn for e in entries if e.conn}) >= 2, "the reconnect is another connection of the same log"
        cited = next(f for f in app.workspace.review.findings if f.evidence)
        body = app.checklist.finding_text(cited).plain
        assert "earlier session" not in body and f"#{cited.evidence[0]} " in body
        await pilot.press("3")  # the Calls tab: the call's request and its answer, linked when recorded
        app.main.query_one("#calls", Grid).move_cursor(row=0)
        await pilot.pause()
        detail = str(app.main.query_one("#call-detail", Static).render())
        assert "earlier session" not in detail
        assert "send request" in detail and "recv response" in detail
