"""The review TUI, a shell: it composes the panes (`screen.py`), binds the keys and routes messages; what
a key does lives in the module that owns it (checking, calling, asking, connection, the panes, the dialogs).
The footer and `?` list every binding, the command palette every one with a tooltip; the README tells them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import webbrowser
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from textual import events, on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import TabbedContent

from mcp_review import claims
from mcp_review.calls import refused_call
from mcp_review.checking import CheckPlan
from mcp_review.output import terminal_safe
from mcp_review.rules.core import load_rules
from mcp_review.targets import Target
from mcp_review.text import one_line, plural
from mcp_review.themes import TCSS
from mcp_review.tui import messages as msg
from mcp_review.tui.asking import Asker
from mcp_review.tui.calling import Caller
from mcp_review.tui.checking import choose_checks, run_checks
from mcp_review.tui.closed import ClosedScreensApp
from mcp_review.tui.commands import ToolJump, bound_commands
from mcp_review.tui.connection import Connection
from mcp_review.tui.dialogs import AnswerScreen, ResultScreen, ask_target, remember_target
from mcp_review.tui.exporting import Exporter
from mcp_review.tui.panes.calls import CallsPane
from mcp_review.tui.panes.changes import ChangesPane
from mcp_review.tui.panes.checklist import ChecklistPane
from mcp_review.tui.panes.overview import OverviewPane
from mcp_review.tui.panes.primitives import PrimitivesPane
from mcp_review.tui.panes.skills import SkillsPane
from mcp_review.tui.panes.tools import ToolsPane, worst_by_subject
from mcp_review.tui.previewing import Previewer
from mcp_review.tui.reopening import Reopener
from mcp_review.tui.screen import TABS, ReviewScreen, tab_key
from mcp_review.tui.settings import keep_theme
from mcp_review.tui.switching import Switcher
from mcp_review.workspace import Workspace, verdict_said

R = TypeVar("R")


class ReviewApp(ClosedScreensApp):
    TITLE = "mcp-review"
    COMMANDS = App.COMMANDS | {ToolJump}
    CSS_PATH = TCSS
    # Global keys; each tab's own are on its pane (panes/), each dialog's on the dialog. The footer shows the
    # focused tab's first, then these; the palette lists every one with a tooltip; README's keymap says them all.
    BINDINGS = [
        Binding("r", "run_checks", "Run checks", id="run-checks", tooltip="Run the chosen packs (R chooses)"),
        Binding("e", "export", "Export", id="export", tooltip="Markdown, JSON, SARIF or JUnit, with a preview"),
        # "Keys", as short as "Help" was: the footer fits a tab's first keys at 80 columns, and says the rest are there
        Binding("question_mark", "toggle_help", "Keys", id="help", tooltip="Every key of this tab, or hide them"),
        Binding("q", "quit", "Quit", id="quit"),
        Binding("R", "choose_checks", "Checks…", id="choose-checks", show=False, tooltip="Packs, calls and probes"),
        Binding("ctrl+o", "connect", "Connect", id="connect", show=False, tooltip="From config files, recent, typed"),
        Binding("ctrl+r", "reconnect", "Reconnect", id="reconnect", show=False, tooltip="The same server again"),
        Binding("ctrl+l", "auth", "Auth", id="auth", show=False, tooltip="OAuth: metadata, token, log in again"),
        # shown only while a call runs (`check_action`), at the footer's right edge where nothing clips it
        Binding("x", "cancel_call", "Cancel call", id="cancel-call", tooltip="Tells the server to stop"),
        Binding("i", "answer_server", "Server asks", id="answer-server", tooltip="What the server asked, set aside"),
        Binding("escape", "hide_help_panel", "Close help", id="close-help", show=False),
        # a key per tab, as lazygit numbers its panels; the tab bar shows each number (both from screen.TABS)
        *(
            Binding(
                tab_key(i),
                f"show_tab({tab.id!r})",
                f"{tab.title} tab",
                id=f"tab-{i}",
                show=False,
                tooltip=f"Go to the {tab.title} tab",
            )
            for i, tab in enumerate(TABS, 1)
        ),
    ]

    def __init__(
        self,
        target: Target,
        *,
        plan: CheckPlan | None = None,
        export_dir: Path | None = None,
        state_dir: Path | None = None,
        era: str = "auto",
        source_root: str | None = None,
    ) -> None:
        """The arguments are the workspace's (`mcp_review.workspace`), which holds what the app works on."""
        super().__init__()
        self.workspace = ws = Workspace(
            target, plan=plan, export_dir=export_dir, state_dir=state_dir, era=era, source_root=source_root
        )
        self.notices = plan.notices if plan else ()  # what a repository file asked for and was refused
        self.asker = Asker(self)  # the server's requests to the reviewer, one dialog at a time
        ws.connection = self._new_connection()
        self.open_browser: Callable[[str], Any] = webbrowser.open  # the Auth view's browser step (tests play it)
        self.switcher = Switcher(ws, self, self._new_connection)  # which server: ctrl+o, ctrl+r, ctrl+l
        self.caller = Caller(self, ws, self.status)  # the reviewer's tool calls
        self.previewer = Previewer(self, ws, self.caller, self._called)  # `b`: an app in the reviewer's browser
        self.exporter = Exporter(self, ws)  # `e`: rendered and written off the loop
        self.reopener = Reopener(self, ws)  # the review saved before, read while the server starts
        self._slow_said = False  # this run's slow server was notified (ChecksProgress.slow)
        self._told: object = None  # the connection whose wait a notification said over a server's dialog

    def _new_connection(self) -> Connection:
        return Connection(self, self.asker.handlers(), self.workspace.counter)

    def on_mount(self) -> None:
        keep_theme(self)
        self.main = ReviewScreen(self.workspace)
        self.push_screen(self.main)
        self.call_after_refresh(self.asker.painted.set)  # the server's requests wait for the first paint
        self.asker.on_aside = self._aside
        self.set_interval(0.1, self.main.flush_wire)
        self.switcher.reconnect()
        self.reopener.start()
        # Every pack's module imported in a thread while the server starts: on the loop, the first run's
        # `load_rules` held every key for 0.66 s on a busy machine.
        self.call_after_refresh(self.run_worker, load_rules, thread=True, group="rules", exit_on_error=False)
        for line in self.notices:
            self.notify(line, title="refused", severity="warning", timeout=30, markup=False)  # the file's own words

    async def on_unmount(self) -> None:
        self.previewer.stop()
        await self.switcher.close()
        assert isinstance(self.workspace.connection, Connection)
        await self.workspace.connection.close()
        await asyncio.to_thread(self.workspace.close)  # the review being written is written whole

    # ------------------------------------------------------------------------------ what helpers ask (tui/shell.py)
    def status(self, text: str, failed: bool = False, whole: bool = False) -> None:
        self.main.status(text, failed, whole)

    def ask(self, screen: Screen[R], then: Callable[[R | None], Any]) -> None:
        self.push_screen(screen, then)

    def saved(self, future: concurrent.futures.Future[Path | None], say: bool = True) -> None:
        """Hear when the workspace has written the review (or could not: that is always said)."""

        def done(written: concurrent.futures.Future[Path | None]) -> None:
            error = written.exception()
            self.post_message(msg.Saved(None if error else written.result(), str(error) if error else None, say))

        future.add_done_callback(done)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown) and self.screen is getattr(self, "main", None):
            self.caller.inputs += 1  # the reviewer turned to something: a call's result will not pop over it
        await super().on_event(event)

    def copy_to_clipboard(self, text: str) -> None:
        """Every copy passes the sinks' rules: no secret, no control sequence reaches the clipboard."""
        super().copy_to_clipboard(terminal_safe(text))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's own (theme, keys, quit, screenshot) and every action bound to a key."""
        yield from super().get_system_commands(screen)
        yield from bound_commands(self, self.main.query_one(TabbedContent))

    @property
    def tools(self) -> ToolsPane:
        return self.main.query_one(ToolsPane)

    @property
    def checklist(self) -> ChecklistPane:
        return self.main.query_one(ChecklistPane)

    @property
    def calls(self) -> CallsPane:
        return self.main.query_one(CallsPane)

    # ------------------------------------------------------------------------------ the connection
    def action_reconnect(self) -> None:
        self.switcher.reconnect()

    def action_auth(self) -> None:
        self.switcher.auth(self.open_browser)

    def action_connect(self) -> None:
        ask_target(self, self.workspace.target, self.switcher.try_target)

    @on(msg.Connected)
    def show_snapshot(self, message: msg.Connected) -> None:
        ws = self.workspace
        if self.switcher.adopt(message):
            self.main.forget()
            self.main.query_one(OverviewPane).elsewhere = None
            self.reopener.start()  # this server's own saved review
        if message.source is not ws.connection:  # a session replaced meanwhile
            return
        remember_target(ws.target)  # only servers that answered, the one named on the command line too
        snap = message.snapshot
        restored = ws.connected(snap, message.costs)  # this server's review, saved before, read already
        if restored:
            self._show_restored()
        elif ws.reopening is None:
            self._not_restored()
        self.sub_title = (  # the server's identity stays in the header; the status line says what happens
            f"{one_line(snap.server_name, 40)} {one_line(snap.server_version or '', 20)} · {snap.revision}"
        )
        self.status(
            f"{one_line(snap.server_name, 60)} {one_line(snap.server_version or '', 20)} · "
            f"{snap.revision} ({snap.era} era) · {ws.target.kind} · {plural(len(snap.tools), 'tool')}"
        )
        self._show_snapshot(self._restored_worst() if restored else None)

    def _show_restored(self) -> None:
        """The review saved before is the working one: the Checklist and the Calls tab show it (the caller shows
        the rest, `_show_snapshot`, with `_restored_worst`)."""
        ws = self.workspace
        assert ws.review is not None
        shown = self.reopener.shown_of(ws.review)
        self.checklist.show(ws.review, shown.order if shown else None)
        self.calls.show(ws.call_log, ws.target)
        made = f"reviewed {ws.review.created}" if ws.review.verdict != "NOT_CHECKED" else "not checked yet"
        self.notify(f"the review saved before came back: {made}, its evidence as recorded then", markup=False)
        if ws.call_log and ws.call_log[-1] not in ws.review.coverage:  # calls made while it was read
            self.saved(ws.save(), say=False)

    def _restored_worst(self) -> dict[str, str] | None:
        shown = self.reopener.shown_of(self.workspace.review)
        return shown.worst if shown else None

    @on(msg.Reopening)
    def show_reopening(self, message: msg.Reopening) -> None:
        """How far the review saved before is read: in the Overview's verdict line, and the status line until the
        server has answered."""
        said = message.state.said()
        self.main.query_one(OverviewPane).pending = said
        if self.workspace.snapshot is None:
            self.status(f"connecting… · {said}")
        self._show_overview()

    @on(msg.Reopened)
    def show_reopened(self, message: msg.Reopened) -> None:
        ws = self.workspace
        self.main.query_one(OverviewPane).pending = None
        if ws.reopened(message.state):
            self._show_restored()
            self._show_snapshot(self._restored_worst())
            return
        if message.state.future.exception() is None and message.state.future.result() is None:
            self.notify(f"the review saved at {message.state.path} could not be read", severity="warning")
        if ws.snapshot is not None:
            self._not_restored()
        self._show_overview()

    def _not_restored(self) -> None:
        """The server answered and no review of its own came back: why (one saved for another server started the
        same way), and a review of its name saved from elsewhere, looked for off the loop."""
        ws = self.workspace
        if ws.kept_aside is not None:
            self.notify(ws.kept_aside, severity="warning", markup=False)
            ws.kept_aside = None
        if ws.review is None:
            ws.elsewhere().add_done_callback(lambda found: self.post_message(msg.Elsewhere(found.result())))

    @on(msg.Elsewhere)
    def show_elsewhere(self, message: msg.Elsewhere) -> None:
        """A review of this server's name saved from another folder (or started another way): said where."""
        if message.found is not None and self.workspace.review is None:
            self.main.query_one(OverviewPane).elsewhere = message.found.said()
            self.notify(message.found.said(), timeout=15, markup=False)
            self._show_overview()

    def _show_snapshot(self, worst: dict[str, str] | None = None) -> None:
        """The overview and the tools, with what the review found in them (`worst`: each subject's worst status,
        when it was made off the loop already)."""
        ws = self.workspace
        if ws.snapshot is not None and ws.costs is not None:
            self._show_overview()
            worst = worst_by_subject(ws.review) if worst is None else worst
            self.tools.show(ws.snapshot, ws.costs, ws.review, worst)
            self.main.query_one(PrimitivesPane).show(ws.snapshot, ws.costs, ws.review)
            self.main.query_one(SkillsPane).show(ws.snapshot, ws.costs, ws.review, worst)
            self.main.show_skills(ws.snapshot.skills is not None)
            self.main.query_one(ChangesPane).show()

    def _show_overview(self) -> None:
        ws = self.workspace
        if ws.snapshot is not None and ws.costs is not None:
            self.main.query_one(OverviewPane).show(ws.snapshot, ws.target, ws.costs, ws.review)

    @on(msg.Costed)
    def show_costs(self, message: msg.Costed) -> None:
        """Every encoding counted: the Overview's totals (the tool screen reads them when it opens)."""
        if message.costs is self.workspace.costs:
            self._show_overview()

    @on(msg.Connecting)
    def show_wait(self, message: msg.Connecting) -> None:
        """What the opening connection waits for, in the status line; said once in a notification too when the
        server's own dialog covers it (answering that dialog is not what the connection waits for)."""
        if message.source is not self.workspace.connection or self.workspace.snapshot is not None:
            return
        self.status(message.line)
        if isinstance(self.screen, AnswerScreen) and self._told is not message.source:
            self._told = message.source
            self.notify(message.line, title="still connecting", timeout=15, markup=False)

    @on(msg.ConnectionLost)
    def show_failure(self, message: msg.ConnectionLost) -> None:
        if not self.switcher.failed(message):
            return
        self.workspace.lost(message.reason)
        # what to do first: at 80 columns the reason is cut, the key is not
        self.status(f"connection failed (ctrl+r reconnects): {one_line(message.reason, 200)}", failed=True)
        if "needs authorization" in message.reason and self.workspace.target.is_http:  # a 401 (AuthRequired)
            if self.screen is self.main:  # offered in place; over another dialog, said
                self.switcher.offer_login(self.open_browser)
            else:
                self.notify("the server wants a login: ctrl+l opens the Auth view, l logs in here", markup=False)
        self.main.query_one(OverviewPane).show_failure(message.reason, message.detail)

    def action_show_tab(self, tab: str) -> None:
        self.main.show_tab(tab)

    def action_toggle_help(self) -> None:
        """`?` shows the keys of the focused tab beside it, and hides them again (so does Escape)."""
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape belongs to the help panel only while it is shown; `i` is there while the server's requests are set
        aside, `x` only while a call runs."""
        if action == "answer_server":
            return self.asker.holding
        if action == "cancel_call":
            return self.caller.cancellable
        return action != "hide_help_panel" or bool(self.screen.query("HelpPanel"))

    # ------------------------------------------------------------------------------ the server's requests
    def _aside(self, line: str | None) -> None:
        """The line over the tabs while the server's requests wait, set aside (tui/asking.py)."""
        self.main.aside(line)
        self.refresh_bindings()

    def action_answer_server(self) -> None:
        self.asker.show_again()
        self.refresh_bindings()

    # ------------------------------------------------------------------------------ the checklist
    def action_run_checks(self, only: str | None = None) -> None:
        run_checks(self.workspace, self, only)

    def action_choose_checks(self, why: str = "", only: str | None = None) -> None:
        choose_checks(self.workspace, self, why, only)

    @on(msg.ChecksStarted)
    def show_rules(self, message: msg.ChecksStarted) -> None:
        self._slow_said = False
        if not message.merging:
            self.checklist.start_live(message.rules)

    @on(msg.ChecksProgress)
    def show_progress(self, message: msg.ChecksProgress) -> None:
        slow = f"{message.slow.short} · " if message.slow else ""  # before the rule: an 80-column line keeps it
        self.status(f"checking {message.done}/{message.total} · {slow}{message.running or 'every rule done, saving…'}")
        if message.slow and not self._slow_said:  # in full once a run: what is slow, and what would be faster
            self._slow_said = True
            self.notify(str(message.slow), title="a slow server", timeout=20, markup=False)
        self.checklist.progress(message)

    @on(msg.ChecksDone)
    def show_review(self, message: msg.ChecksDone) -> None:
        self.workspace.reviewed(message.review)  # saved already, off the UI thread (checking.py)
        self.status(message.verdict, whole=True)  # whose decisions made the verdict, or would: never cut
        self.checklist.show(message.review, message.order, message.wire)
        self.call_after_refresh(self._show_snapshot, message.worst)  # after a frame: a key pressed meanwhile goes first

    @on(msg.RerunAsked)
    def rerun(self, message: msg.RerunAsked) -> None:
        run_checks(self.workspace, self, message.only)

    @on(msg.Decided)
    def save_decision(self) -> None:
        self.saved(self.workspace.save())
        self._show_overview()  # the verdict a waiver changed, the review's notes

    @on(msg.Saved)
    def show_saved(self, message: msg.Saved) -> None:
        review = self.workspace.review
        if message.error is not None:
            self.notify(f"cannot save the review: {one_line(message.error, 200)}", severity="error", markup=False)
        elif message.say and review is not None and message.path is not None:
            # the news first, so the path shows at 80 columns though security's verdict is long (the run's end said
            # it, the Overview says it); one line, a long tail cut, but never what the repository's decisions would make
            self.status(f"saved to {message.path} · {verdict_said(review)}", whole=bool(claims.of(review)))

    @on(msg.LockCompared)
    def show_drift(self, message: msg.LockCompared) -> None:
        """The Overview says how far the server drifted from the lock (the Changes tab compared them)."""
        if message.result.snapshot is self.workspace.snapshot:
            self.main.query_one(OverviewPane).show_drift(message.result)

    def action_export(self) -> None:
        ws = self.workspace
        if ws.snapshot is None and ws.review is None:
            self.notify(ws.not_connected(), severity="warning", markup=False)
            return
        if (waiting := ws.waiting()) is not None:
            self.notify(waiting, markup=False)
            return
        if ws.review is None:  # before any run: the token report and the calls (NOT_CHECKED), saved as it is made
            self.saved(ws.save(ws.decided_on()), say=False)
        self.exporter.start()

    @on(msg.Exported)
    def show_exported(self, message: msg.Exported) -> None:
        self.exporter.exported(message)

    # ------------------------------------------------------------------------------ tools and calls
    def jump_to_tool(self, index: int) -> None:
        self.main.show_tab("tab-tools")
        self.tools.jump(index)

    @on(msg.AppAsked)
    def open_app(self, message: msg.AppAsked) -> None:
        """From a tool to the app it shows: the Resources tab, on its resource, read."""
        self.main.show_tab("tab-primitives")
        self.main.query_one(PrimitivesPane).open_app(message.uri)

    @on(msg.PreviewAsked)
    def preview_app(self, message: msg.PreviewAsked) -> None:
        self.previewer.ask(message.tool, message.headless)

    @on(msg.PreviewReady)
    def preview_ready(self, message: msg.PreviewReady) -> None:
        self.previewer.ready(message.found, message.headless)

    @on(msg.CallAsked)
    def edit_call(self, message: msg.CallAsked) -> None:
        self.caller.edit_highlighted(message.tool)

    def action_cancel_call(self) -> None:
        self.caller.cancel()

    @on(msg.CallChosen)
    def rerun_call(self, message: msg.CallChosen) -> None:
        self.caller.edit_past(message.call)

    @on(msg.CallDone)
    def show_call(self, message: msg.CallDone) -> None:
        self.caller.finished()
        self.main.flush_wire()  # the call's request and answer, for its detail in the Calls tab
        self._called(message.record.to_json())
        self.caller.show(message.record, self.main)

    @on(msg.CallRefused)
    def refused(self, message: msg.CallRefused) -> None:
        self._called(refused_call(message.tool, message.arguments))

    def _called(self, call: dict[str, Any]) -> None:
        if self.workspace.connection is not None:
            self.calls.made(call, self.workspace.connection.wire)
        self.saved(self.workspace.called(call), say=False)  # the status line keeps the call's outcome
        self.calls.show(self.workspace.call_log, self.workspace.target)

    # ------------------------------------------------------------------------------ resources and prompts
    @on(msg.Fetch)
    def fetch(self, message: msg.Fetch) -> None:
        assert isinstance(self.workspace.connection, Connection)
        self.workspace.connection.fetch(message)

    @on(msg.Show)
    def show_text(self, message: msg.Show) -> None:
        body = message.body
        self.push_screen(body if isinstance(body, Screen) else ResultScreen(body))
