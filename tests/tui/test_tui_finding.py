"""Finding things in the review app (issue 25): Wire rows name the tool and link answers to requests, `/` searches
what was said (bodies, arguments), the palette teaches the keys and reaches every tab, the footer says more keys
exist, filters count what they let through and start again for another server, empty tables say what to press, the
call editor switches Form and JSON, dialogs keep their form's rows at 60x20 and 80x24, and a finding's evidence
opens at its subject's own entry. Against real fixture servers over stdio."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from textual.pilot import Pilot
from textual.widgets import Input, TabbedContent, TextArea

from mcp_review.targets import demo_target, stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.dialogs import CallScreen, ElicitScreen, ResultScreen, RootsScreen
from mcp_review.tui.dialogs.form import SchemaForm
from mcp_review.tui.grid import Grid
from mcp_review.tui.panes.checklist import ChecklistPane
from mcp_review.tui.panes.keys import FilteredPane
from mcp_review.tui.panes.tools import ToolsPane
from mcp_review.tui.panes.wire import WirePane
from tests.support import fixture_argv
from tests.thirdparty import everything_stdio_argv
from tests.tui_pilot import call_with_consent, open_call, run_checks, screen_text, settled, show_tab, until


@contextlib.asynccontextmanager
async def connected(tmp_path, argv: list[str] | None = None, size=(80, 24)) -> AsyncIterator[tuple[ReviewApp, Pilot]]:
    """The app on a fixture server (good.py unless told), connected; server-everything's roots question answered."""
    app = ReviewApp(stdio_target(argv or fixture_argv("good")), state_dir=tmp_path, export_dir=tmp_path)
    async with app.run_test(size=size) as pilot:
        if argv == everything_stdio_argv():  # it asks for roots once connected: share the working directory
            await until(pilot, lambda: isinstance(app.screen, RootsScreen))
            await pilot.press("ctrl+s")
        await until(pilot, lambda: app.workspace.snapshot is not None and not isinstance(app.screen, RootsScreen))
        yield app, pilot


def rows(grid: Grid, column: int) -> list[str]:
    return [str(grid.get_cell_at((i, column))) for i in range(grid.row_count)]


async def filtered(pilot: Pilot, pane: FilteredPane, needle: str) -> None:
    """Type `needle` into the pane's filter as the reviewer would (`/`, then the keys), then back to the table."""
    pane.query_one(Input).value = ""
    await pilot.press("slash", *needle)
    await pilot.press("escape")
    await settled(pilot)  # the Wire searches in a thread


async def test_wire_rows_name_the_tool_and_answers_link_to_their_request(tmp_path):
    async with connected(tmp_path) as (app, pilot):
        await open_call(pilot, app, "notes_search")
        app.screen.query_one("#editor", TextArea).text = '{"query": "zebra-crossing-42"}'
        await pilot.pause()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.workspace.call_log)
        if isinstance(app.screen, ResultScreen):
            await pilot.press("escape")
        await show_tab(pilot, app, "tab-wire")
        wire = app.main.query_one(WirePane)
        grid = wire.query_one(Grid)
        what = rows(grid, 7)
        request = next(i for i, text in enumerate(what) if text.startswith("tools/call"))
        assert what[request] == "tools/call notes_search", "the request's row names the tool"
        seq = rows(grid, 0)[request]
        answer = next(i for i, text in enumerate(what) if text.startswith(f"← #{seq} "))
        assert "tools/call notes_search" in what[answer], "the answer's row names the request it answers, and its tool"
        grid.focus()
        grid.move_cursor(answer)
        await pilot.pause()
        assert f"answers #{seq} tools/call notes_search" in str(app.main.query_one("#wire-detail").render())
        await pilot.press("p")  # to the request it answers
        assert grid.cursor_row == request
        await pilot.press("p")  # and back to its answer
        assert grid.cursor_row == answer


async def test_slash_searches_what_was_said_and_the_tools_arguments(tmp_path):
    async with connected(tmp_path) as (app, pilot):
        await call_with_consent(pilot, app, "notes_search", '{"query": "zebra-crossing-42"}')
        await until(pilot, lambda: app.workspace.call_log)
        if isinstance(app.screen, ResultScreen):
            await pilot.press("escape")
        await show_tab(pilot, app, "tab-wire")
        wire = app.main.query_one(WirePane)
        await filtered(pilot, wire, "zebra-crossing")
        grid = wire.query_one(Grid)
        assert rows(grid, 7) == ["tools/call notes_search"], "an argument's value is searched"
        grid.focus()
        await pilot.press("p")  # to its answer, which the filter hides: the filter goes, the answer is on screen
        await pilot.pause()
        assert wire.query_one(Input).value == "" and rows(grid, 7)[grid.cursor_row].startswith("← #")
        assert grid.scroll_y <= grid.cursor_row < grid.scroll_y + grid.size.height - 1, "scrolled to it"
        await filtered(pilot, wire, "search before you create")  # the instructions, in initialize's answer
        assert len(rows(wire.query_one(Grid), 7)) == 1
        await show_tab(pilot, app, "tab-tools")
        tools = app.main.query_one(ToolsPane)
        await filtered(pilot, tools, "limit")  # an argument of notes_search only, in no description
        assert rows(tools.query_one(Grid), 0) == ["notes_search"]


async def test_the_palette_shows_each_commands_key_and_reaches_every_tab(tmp_path):
    from mcp_review.tui.screen import TABS, tab_key

    async with connected(tmp_path) as (app, pilot):
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert commands["Run checks"].help.startswith("r · ")
        assert commands["Filter"].help.startswith("/ · ")
        for number, tab in enumerate(TABS, 1):
            command = commands[f"{tab.title} tab"]
            assert command.help.startswith(f"{tab_key(number)} · ")
            await command.callback()
            await pilot.pause()
            shown = tab.id != "tab-skills"  # only for a server that declares skills: good.py does not
            assert (app.main.query_one(TabbedContent).active == tab.id) == shown, tab.id


async def test_the_footer_says_more_keys_exist_and_they_fit_their_lines_at_80_columns(tmp_path):
    async with connected(tmp_path) as (app, pilot):
        for tab in ("tab-checks", "tab-tools"):  # the tabs with the most keys in the footer
            await show_tab(pilot, app, tab)
            footer = screen_text(app).splitlines()[-1]
            # the Checklist's own keys and r fit, e and q give way; ? (at the right edge) says where they are
            last = "q Quit" if tab == "tab-tools" else "r Run checks"
            assert footer.rstrip().endswith("? Keys") and last in footer, "the footer says where the other keys are"
        await pilot.press("question_mark")
        await pilot.pause()
        shown = screen_text(app)
        tools = app.main.query_one(ToolsPane)
        for binding in tools._bindings.key_to_bindings.values():
            for b in binding:
                if b.tooltip and tools.check_action(b.action, ()):  # a and b only for a server with an app
                    assert f"{b.description} {b.tooltip}" in shown, f"{b.description}: its line is not wrapped"


async def test_filters_count_what_they_show_start_again_for_another_server_and_empty_tables_say_what_to_press(
    tmp_path,
):
    async with connected(tmp_path) as (app, pilot):
        checklist = app.main.query_one(ChecklistPane)
        assert "r runs the checks" in checklist.query_one(Grid).empty, "an empty checklist says what to press"
        await show_tab(pilot, app, "tab-tools")
        tools = app.main.query_one(ToolsPane)
        await filtered(pilot, tools, "note_id")
        assert tools.count == "3 of 4"
        assert "3 of 4" in screen_text(app), "the count is drawn"
        await filtered(pilot, tools, "nothing-like-this")
        assert tools.query_one(Grid).row_count == 0 and "ctrl+u" in tools.query_one(Grid).empty
        await show_tab(pilot, app, "tab-checks")
        await filtered(pilot, checklist, "notes_search")
        app.switcher.try_target(stdio_target(fixture_argv("banner")))
        await until(pilot, lambda: app.workspace.snapshot is not None and app.workspace.snapshot.tools.items[0].key)
        await until(pilot, lambda: app.workspace.snapshot.server_name != "good-server")
        assert checklist.query_one(Input).value == "" and tools.query_one(Input).value == "", "no filter carried over"
        assert checklist.count == ""


async def test_ctrl_t_switches_form_and_json_and_a_form_that_starts_with_a_choice_opens_on_it(tmp_path):
    async with connected(tmp_path, everything_stdio_argv()) as (app, pilot):
        await open_call(pilot, app, "get-annotated-message")  # its first field is an enum
        tabs = app.screen.query_one(TabbedContent)
        assert tabs.active == "tab-form" and app.screen.focused in tabs.get_pane("tab-form").query("*")
        await pilot.press("ctrl+t")
        assert tabs.active == "tab-json" and isinstance(app.screen.focused, TextArea)
        await pilot.press("ctrl+t")
        assert tabs.active == "tab-form"


async def test_the_call_form_keeps_its_rows_at_60x20(tmp_path):
    async with connected(tmp_path, everything_stdio_argv(), size=(60, 20)) as (app, pilot):
        for tool in ("gzip-file-as-resource", "trigger-url-elicitation", "simulate-research-query"):
            await open_call(pilot, app, tool)
            await pilot.pause()
            form = app.screen.query_one(SchemaForm)
            assert form.region.height >= 4, f"{tool}: the form has {form.region.height} rows"
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, CallScreen))


async def test_the_elicitation_form_is_on_screen_at_80x24(tmp_path):
    """server-everything asks with a schema of 8 fields, printed above the form (it scrolls there)."""
    async with connected(tmp_path, everything_stdio_argv()) as (app, pilot):
        await call_with_consent(pilot, app, "trigger-elicitation-request")
        await until(pilot, lambda: isinstance(app.screen, ElicitScreen))
        await pilot.pause()
        form = app.screen.query_one(SchemaForm)
        assert form.region.height >= 6 and form.region.bottom <= 24, form.region
        assert "requested schema" in screen_text(app), "what was asked is still shown"


async def test_a_findings_evidence_opens_at_its_subjects_own_entry(tmp_path):
    """A finding about one tool cites tools/list: its detail quotes that tool's entry, as the markdown export does."""
    app = ReviewApp(demo_target(), state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await run_checks(pilot, app)
        tools = {item.key for item in app.workspace.snapshot.tools}
        checklist = app.main.query_one(ChecklistPane)
        wire = checklist.wire
        assert wire is not None

        def cites_tools_list(seq: int) -> bool:
            entry = wire.get(seq)
            return entry is not None and entry.link is not None and entry.link.method == "tools/list"

        finding = next(
            f for f in checklist.shown_findings if f and f.subject in tools and any(map(cites_tools_list, f.evidence))
        )
        text = checklist.finding_text(finding).plain
        assert "result.tools[" in text and f"the entry of {finding.subject}" in text
        others = tools - {finding.subject}
        assert not any(f'"{name}"' in text for name in others), "not the whole tools/list"
