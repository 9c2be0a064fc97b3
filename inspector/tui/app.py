"""The review TUI, a shell: it composes the panes (`screen.py`), binds the keys and routes messages; what
a key does lives in the module that owns it (checking, calling, asking, connection, the panes, the dialogs).
The footer and `?` list every binding, the command palette every one with a tooltip; the README tells them.
"""

from __future__ import annotations

import webbrowser
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual import events, on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import TabbedContent

from mcp_review.calls import refused_call
from mcp_review.catalog import ServerSnapshot
from mcp_review.checking import CheckPlan
from mcp_review.connection.wire import WireEntry
from mcp_review.output import terminal_safe, write_text
from mcp_review.report.json import chunks as review_chunks
from mcp_review.review import Review, load_review, review_file
from mcp_review.rules.context import Options
from mcp_review.rules.core import DEFAULT_PACKS
from mcp_review.targets import Target
from mcp_review.text import one_line
from mcp_review.themes import TCSS
from mcp_review.tokens import TokenCounter
from mcp_review.tui import messages as msg
from mcp_review.tui.asking import Asker
from mcp_review.tui.calling import Caller
from mcp_review.tui.checking import choose_checks, run_checks
from mcp_review.tui.commands import ToolJump, bound_commands
from mcp_review.tui.connection import Connection
from mcp_review.tui.dialogs import ResultScreen, export_review, remember_target
from mcp_review.tui.panes.calls import CallsPane
from mcp_review.tui.panes.changes import ChangesPane
from mcp_review.tui.panes.checklist import ChecklistPane
from mcp_review.tui.panes.overview import OverviewPane
from mcp_review.tui.panes.primitives import PrimitivesPane
from mcp_review.tui.panes.tools import ToolsPane
from mcp_review.tui.panes.wire import WireView
from mcp_review.tui.screen import ReviewScreen
from mcp_review.tui.settings import keep_theme
from mcp_review.tui.switching import Switcher


class ReviewApp(App[None]):
    TITLE = "mcp-review"
    COMMANDS = App.COMMANDS | {ToolJump}
    CSS_PATH = TCSS
    # Global keys; each tab's own are on its pane (panes/), each dialog's on the dialog. The footer shows the
    # focused tab's first, then these; the palette lists every one with a tooltip; README's keymap says them all.
    TABS = (
        ("tab-overview", "Overview"),
        ("tab-tools", "Tools"),
        ("tab-calls", "Calls"),
        ("tab-primitives", "Resources"),
        ("tab-checks", "Checklist"),
        ("tab-wire", "Wire"),
        ("tab-logs", "Logs"),
        ("tab-changes", "Changes"),
    )
    BINDINGS = [
        Binding("r", "run_checks", "Run checks", id="run-checks", tooltip="Run the chosen packs (R chooses)"),
        Binding("e", "export", "Export", id="export", tooltip="Markdown, JSON, SARIF or JUnit, with a preview"),
        Binding("question_mark", "toggle_help", "Help", id="help", tooltip="Show or hide the keys of this tab"),
        Binding("q", "quit", "Quit", id="quit"),
        Binding("R", "choose_checks", "Checks…", id="choose-checks", show=False, tooltip="Packs, calls and probes"),
        Binding("ctrl+o", "connect", "Connect", id="connect", show=False, tooltip="From config files, recent, typed"),
        Binding("ctrl+r", "reconnect", "Reconnect", id="reconnect", show=False, tooltip="The same server again"),
        Binding("ctrl+l", "auth", "Auth", id="auth", show=False, tooltip="OAuth: metadata, token, log in again"),
        Binding("x", "cancel_call", "Cancel call", id="cancel-call", show=False, tooltip="Tells the server to stop"),
        Binding("escape", "hide_help_panel", "Close help", id="close-help", show=False),
        # a key per tab, as lazygit numbers its panels; the tab bar shows each number
        *(
            Binding(f"{i}", f"show_tab({tab!r})", f"{name} tab", id=f"tab-{i}", show=False)
            for i, (tab, name) in enumerate(TABS, 1)
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
    ) -> None:
        """`plan`: the review options `mcp-review tui` was given, as `check` takes them (packs, ignored rules,
        calls and probes, the review config's waivers and attestations, the baseline); a `--calls` in it
        counts as the reviewer's choice of what checks may call."""
        super().__init__()
        self.target = target
        self.era = era
        self.export_dir = export_dir or Path.cwd()
        self.counter = TokenCounter()
        self.snapshot: ServerSnapshot | None = None
        self.review: Review | None = None
        self.failure: str | None = None
        self.wire_log = WireView()  # the Wire and Logs tabs' view of the current server's wire log
        self.wire_pending: list[WireEntry] = []  # arrived since the last flush
        self.tool_tokens: list[dict[str, int]] = []  # each tool's breakdown in the default encoding
        self.token_totals: dict[str, int] = {}  # the whole tools/list, per encoding
        self.state_dir = state_dir
        self.review_path = review_file(target.public(), state_dir)
        self.plan = plan or CheckPlan(packs=list(DEFAULT_PACKS))
        options = self.plan.options or Options()
        self.check_packs: list[str] = list(self.plan.packs)
        self.check_calls: str = options.calls
        # active probes: "off", "security" or "security-all" (the run dialog asks)
        self.check_probe = next((p for p in ("security-all", "security") if p in options.probe), "off")
        self.calls_chosen = plan is not None and plan.options is not None and options.calls != "none"
        self.checking = False  # a checklist run is queued or running
        self.call_log: list[dict[str, Any]] = []  # every call made or refused here, for the review's coverage
        self.asker = Asker(self)  # the server's requests to the reviewer, one dialog at a time
        self.connection = Connection(self, self.asker.handlers(), self.counter)
        self.open_browser: Callable[[str], Any] = webbrowser.open  # the Auth view's browser step (tests play it)
        self.switcher = Switcher(self)  # which server: ctrl+o, ctrl+r, ctrl+l
        self.caller = Caller(self, self.connection, lambda text: self.main.status(text))  # the reviewer's tool calls

    def on_mount(self) -> None:
        keep_theme(self)
        self.main = ReviewScreen(self.wire_log, self.counter)
        self.push_screen(self.main)
        self.call_after_refresh(self.asker.painted.set)  # the server's requests wait for the first paint
        self.set_interval(0.1, lambda: self.main.flush_wire(self.wire_pending))
        self.connection.open(self.target, self.era, self.wire_pending)
        for line in self.plan.notices:  # what a repository file asked for and was refused
            self.notify(line, title="refused", severity="warning", timeout=30, markup=False)  # the file's own words

    async def on_unmount(self) -> None:
        await self.switcher.close()
        await self.connection.close()

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
        self.switcher.auth()

    def action_connect(self) -> None:
        self.switcher.connect()

    @on(msg.Connected)
    def show_snapshot(self, message: msg.Connected) -> None:
        if not self.switcher.answered(message):
            return
        remember_target(self.target)  # only servers that answered, the one named on the command line too
        snap = message.snapshot
        self.snapshot = snap
        self.failure = None
        self.tool_tokens, self.token_totals = message.tool_tokens, message.token_totals
        if self.review is None and (saved := load_review(self.review_path)) is not None:
            self.review = saved  # the same server reviewed before: its findings and decisions come back
            self.call_log = [c for c in saved.coverage if c.get("purpose") == "reviewer"]
            self.checklist.show(saved)
            self.calls.show(self.call_log, self.target)
        self.sub_title = (  # the server's identity stays in the header; the status line says what happens
            f"{one_line(snap.server_name, 40)} {one_line(snap.server_version or '', 20)} · {snap.revision}"
        )
        self.main.status(
            f"{one_line(snap.server_name, 60)} {one_line(snap.server_version or '', 20)} · "
            f"{snap.revision} ({snap.era} era) · {self.target.kind} · {len(snap.tools)} tools"
        )
        self._show_snapshot()
        self.main.query_one(PrimitivesPane).show(snap)

    def _show_snapshot(self) -> None:
        """The overview and the tools, with what the review found in them."""
        if self.snapshot is not None:
            overview = self.main.query_one(OverviewPane)
            overview.show(self.snapshot, self.target, self.token_totals, self.review, self.tool_tokens)
            self.tools.show(self.snapshot, self.tool_tokens, self.review)
            self.main.query_one(ChangesPane).show(self.snapshot, self.review, self.export_dir)

    @on(msg.ConnectionLost)
    def show_failure(self, message: msg.ConnectionLost) -> None:
        if not self.switcher.failed(message):
            return
        self.failure = message.reason
        # what to do first: at 80 columns the reason is cut, the key is not
        self.main.status(f"connection failed (ctrl+r reconnects): {one_line(message.reason, 200)}", failed=True)
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
        """Escape belongs to the help panel only while it is shown."""
        return action != "hide_help_panel" or bool(self.screen.query("HelpPanel"))

    # ------------------------------------------------------------------------------ the checklist
    def action_run_checks(self, only: str | None = None) -> None:
        run_checks(self, only)

    def action_choose_checks(self, why: str = "", only: str | None = None) -> None:
        choose_checks(self, why, only)

    @on(msg.ChecksProgress)
    def show_progress(self, message: msg.ChecksProgress) -> None:
        self.main.status(f"checking {message.done}/{message.total} · {message.running or 'done'}")
        self.checklist.progress(message)

    @on(msg.ChecksDone)
    def show_review(self, message: msg.ChecksDone) -> None:
        self.review, self.checking = message.review, False  # saved already, off the UI thread (checking.py)
        self.main.status(message.verdict)
        self.checklist.show(self.review, message.order, message.wire)
        self.call_after_refresh(self._show_snapshot)  # after a frame: a key pressed meanwhile goes first

    @on(msg.RerunAsked)
    def rerun(self, message: msg.RerunAsked) -> None:
        run_checks(self, message.only)

    @on(msg.Decided)
    def save_decision(self) -> None:
        self._save()
        assert self.review is not None
        self.main.status(f"verdict {self.review.verdict} · saved to {self.review_path}")

    def _save(self, review: Review | None = None) -> None:
        """After every change: findings, decisions and the call history survive a crash or a closed terminal."""
        review = review or self.review
        if review is not None:
            review.record_calls(self.call_log, "reviewer")
            # streamed in blocks, each masked on its own: masking 100 MB (10,000 tools) as one string held the
            # interpreter, the app's loop too, for 0.15-0.25 s a pass (it runs in a thread, so keys should not wait)
            write_text(self.review_path, review_chunks(review))

    def action_export(self) -> None:
        if self.review is None:
            self.notify("run the checks first (r)", severity="warning")
            return
        self._save()
        export_review(self, self.review, self.export_dir)

    # ------------------------------------------------------------------------------ tools and calls
    def jump_to_tool(self, index: int) -> None:
        self.main.show_tab("tab-tools")
        self.tools.jump(index)

    @on(msg.CallAsked)
    def edit_call(self, message: msg.CallAsked) -> None:
        self.caller.edit_highlighted(message.tool)

    def action_cancel_call(self) -> None:
        self.caller.cancel()

    @on(msg.CallChosen)
    def rerun_call(self, message: msg.CallChosen) -> None:
        self.caller.edit_past(message.call, self.snapshot)

    @on(msg.CallDone)
    def show_call(self, message: msg.CallDone) -> None:
        self.caller.finished()
        self.main.flush_wire(self.wire_pending)  # the call's request and answer, for its detail in the Calls tab
        self._called(message.record.to_json())
        self.caller.show(message.record, self.snapshot, self.counter, self.main)

    @on(msg.CallRefused)
    def refused(self, message: msg.CallRefused) -> None:
        self._called(refused_call(message.tool, message.arguments))

    def _called(self, call: dict[str, Any]) -> None:
        self.call_log.append(call)
        self.calls.made(call, self.connection.wire)
        self._save()
        self.calls.show(self.call_log, self.target)

    # ------------------------------------------------------------------------------ resources and prompts
    @on(msg.Fetch)
    def fetch(self, message: msg.Fetch) -> None:
        self.connection.fetch(message)

    @on(msg.Show)
    def show_text(self, message: msg.Show) -> None:
        self.push_screen(ResultScreen(message.body))
