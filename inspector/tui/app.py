"""The review TUI: overview, tools with token costs, the checklist, the wire log; export.

One worker owns the connection for its whole life (it enters and leaves the session in one task);
screens put jobs on its queue and results come back as messages. Server text is shown with
`visible()` inside `rich.text.Text`: markup is never interpreted, escapes are made visible.

Bindings (each also in the command palette):

| key | id | action |
|---|---|---|
| r | run-checks | run the checklist (packs review and spec; the first run asks which tools checks may call) |
| R | choose-checks | choose packs and which tools checks may call (consent for all) |
| y / j | copy-cli / copy-json | copy the highlighted call (Calls tab) as an `mcp-review call` command or as JSON |
| u | rerun-rule | re-run the highlighted finding's rule and merge its findings |
| p | rerun-pack | re-run the highlighted finding's pack and merge its findings |
| c | call-tool | call the highlighted tool (arguments as JSON, validated live; consent for side effects) |
| x | cancel-call | cancel the running tool call (the server gets notifications/cancelled) |
| o | open-primitive | read the highlighted resource, fill a template, or get a prompt with arguments |
| w | waive | waive the highlighted fail or blocking finding (reason, who, optional expiry) |
| a | attest | attest the highlighted manual rule (who, note, pass or fail) |
| n | note | write a note on the highlighted finding (or on the review when none is), kept in the review |
| e | export | export the review (markdown, JSON, SARIF or JUnit) to a chosen path, with a markdown preview |
| / | filter | focus the filter of the current tab |
| ctrl+r | reconnect | connect again |
| ctrl+o | connect | pick a server from config files or recent ones, or type a command or URL |
| ? | help | show every key of the focused view |
| q | quit | quit |
"""

from __future__ import annotations

import contextlib
import json
import shlex
from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Static, TabbedContent

from checks.context import Options
from checks.core import DEFAULT_PACKS, Rule, load_rules, select
from inspector.calls import call_command, refused_call
from inspector.catalog import ServerSnapshot
from inspector.checking import CheckPlan, review_session
from inspector.configs import ConfigError
from inspector.connection.channel import HandlerError
from inspector.connection.session import ClientHandlers, Session
from inspector.connection.wire import WireEntry
from inspector.output import terminal_safe, write_text
from inspector.redact import remember
from inspector.review import Finding, Review, load_review, review_file
from inspector.targets import Target
from inspector.text import one_line, visible
from inspector.tokens import TokenCounter
from inspector.tui.asking import Asker
from inspector.tui.calling import Caller
from inspector.tui.commands import ToolJump
from inspector.tui.connection import Connection
from inspector.tui.dialogs import (
    CallScreen,
    ConfirmScreen,
    ConnectScreen,
    ElicitScreen,
    ExportScreen,
    ResultScreen,
    RunScreen,
    SampleScreen,
    known_servers,
    remember_recent,
    result_text,
    target_from_form,
)
from inspector.tui.messages import (
    CallChosen,
    CallDone,
    CallRefused,
    ChecksDone,
    ChecksProgress,
    Connected,
    ConnectionLost,
    Decided,
    Fetch,
    RerunAsked,
    Show,
)
from inspector.tui.panes.calls import CallsPane
from inspector.tui.panes.checklist import ChecklistPane
from inspector.tui.panes.logs import LogsPane
from inspector.tui.panes.overview import OverviewPane
from inspector.tui.panes.primitives import PrimitivesPane
from inspector.tui.panes.tail import TailPane
from inspector.tui.panes.tools import ToolsPane
from inspector.tui.panes.wire import WireLog, WirePane
from inspector.tui.settings import load_settings, save_settings
from inspector.tui.styles import status_style
from themes import TCSS, THEMES


class ReviewScreen(Screen[None]):
    ready = False

    def __init__(self, wire_log: WireLog, counter: TokenCounter) -> None:
        super().__init__()
        self.wire_log = wire_log
        self.counter = counter

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("connecting…", id="status")
        with TabbedContent(initial="tab-overview"):
            yield OverviewPane(self.counter)
            yield ToolsPane(self.counter)
            yield CallsPane()
            yield PrimitivesPane(self.counter)
            yield ChecklistPane(self.wire_log)
            yield WirePane(self.wire_log, self.counter)
            yield LogsPane(self.wire_log)
        yield Footer()

    def on_mount(self) -> None:
        for pane in self.query(TailPane):
            pane.reset()
        self.ready = True  # every pane is mounted: the wire may be drawn


class ReviewApp(App[None]):
    TITLE = "mcp-review"
    COMMANDS = App.COMMANDS | {ToolJump}
    CSS_PATH = TCSS
    # In the footer (in this order): r c w e R ? ctrl+o q; every binding is in the palette and in `?`.
    BINDINGS = [
        Binding("r", "run_checks", "Run checks", id="run-checks", tooltip="Run the chosen packs (R chooses)"),
        Binding("c", "call_tool", "Call tool", id="call-tool", tooltip="Call the highlighted tool (form or JSON)"),
        Binding("w", "waive", "Waive", id="waive", tooltip="Waive the highlighted finding, with a reason"),
        Binding("e", "export", "Export", id="export", tooltip="Markdown, JSON, SARIF or JUnit, with a preview"),
        Binding("R", "choose_checks", "Checks…", id="choose-checks", tooltip="Packs to run and tools checks may call"),
        Binding("question_mark", "show_help_panel", "Help", id="help"),
        Binding("ctrl+o", "connect", "Connect", id="connect", tooltip="From config files, recent ones, or typed"),
        Binding("q", "quit", "Quit", id="quit"),
        Binding("u", "rerun_rule", "Re-run rule", id="rerun-rule", show=False, tooltip="The highlighted finding's"),
        Binding("p", "rerun_rule('pack')", "Re-run pack", id="rerun-pack", show=False, tooltip="Its whole pack"),
        Binding("a", "attest", "Attest", id="attest", show=False, tooltip="Attest the highlighted manual rule"),
        Binding("n", "note", "Note", id="note", show=False, tooltip="A note on the highlighted finding, or the review"),
        Binding("o", "open_primitive", "Read / get", id="open-primitive", show=False, tooltip="A resource or prompt"),
        Binding("x", "cancel_call", "Cancel call", id="cancel-call", show=False, tooltip="Tells the server to stop"),
        Binding("y", "copy_cli", "Copy as CLI", id="copy-cli", show=False, tooltip="The highlighted call, as CLI"),
        Binding("j", "copy_json", "Copy as JSON", id="copy-json", show=False, tooltip="The highlighted call, as JSON"),
        Binding("slash", "focus_filter", "Filter", id="filter", show=False, tooltip="Filter the current tab"),
        Binding("ctrl+r", "reconnect", "Reconnect", id="reconnect", show=False, tooltip="The same server again"),
    ]

    def __init__(
        self, target: Target, *, era: str = "auto", export_dir: Path | None = None, state_dir: Path | None = None
    ) -> None:
        super().__init__()
        self.target = target
        self.era = era
        self.export_dir = export_dir or Path.cwd()
        self.counter = TokenCounter()
        self.snapshot: ServerSnapshot | None = None
        self.review: Review | None = None
        self.failure: str | None = None
        self.wire_log = WireLog()  # shown in the Wire and Stderr & logs tabs
        self.wire_pending: list[WireEntry] = []  # arrived since the last flush
        self.tool_tokens: list[dict[str, int]] = []  # each tool's breakdown in the default encoding
        self.token_totals: dict[str, int] = {}  # the whole tools/list, per encoding
        self.state_dir = state_dir
        self.review_path = review_file(target.public(), state_dir)
        self.check_packs: list[str] = list(DEFAULT_PACKS)
        self.check_calls = "none"
        self.check_probe = "off"  # active probes: "off", "security" or "security-all" (the run dialog asks)
        self.calls_chosen = False  # until the reviewer says which tools checks may call (asked on the first run)
        self.checking = False  # a checklist run is queued or running
        self.call_log: list[dict[str, Any]] = []  # every call made or refused here, for the review's coverage
        self.asker = Asker(self)  # the server's requests to the reviewer, one dialog at a time
        self.connection = Connection(self, self.handlers(), self.counter)
        self.caller = Caller(self, self.connection, self._status)  # the reviewer's tool calls

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        remembered = load_settings().get("theme")
        self.theme = (
            remembered if isinstance(remembered, str) and remembered in self.available_themes else THEMES[0].name
        )
        self.theme_changed_signal.subscribe(self, lambda theme: save_settings({"theme": theme.name}))
        self.main = ReviewScreen(self.wire_log, self.counter)
        self.push_screen(self.main)
        self.call_after_refresh(self.asker.painted.set)  # the server's requests wait for the first paint
        self.set_interval(0.1, self._flush_wire)
        self.connection.open(self.target, self.era, self.wire_pending)

    async def on_unmount(self) -> None:
        await self.connection.close()

    def copy_to_clipboard(self, text: str) -> None:
        """Every copy passes the sinks' rules: no secret, no control sequence reaches the clipboard."""
        super().copy_to_clipboard(terminal_safe(text))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's own (theme, keys, quit, screenshot) and every action bound to a key."""
        yield from super().get_system_commands(screen)
        for binding in self.BINDINGS:
            if isinstance(binding, Binding) and binding.tooltip:
                yield SystemCommand(binding.description, binding.tooltip, partial(self.run_action, binding.action))

    @property
    def tools(self) -> ToolsPane:
        return self.main.query_one(ToolsPane)

    @property
    def checklist(self) -> ChecklistPane:
        return self.main.query_one(ChecklistPane)

    # ------------------------------------------------------------------------------ the connection
    def handlers(self) -> ClientHandlers:
        """The server's requests (sampling, elicitation, roots) are answered by the reviewer in a dialog."""

        async def elicitation(params: dict[str, Any]) -> dict[str, Any]:
            answer = await self.asker.ask(ElicitScreen(params))
            return answer or {"action": "decline"}

        async def sampling(params: dict[str, Any]) -> dict[str, Any]:
            answer = await self.asker.ask(SampleScreen(params))
            if answer is None:
                raise HandlerError(-1, "the reviewer declined the sampling request")
            return answer

        return ClientHandlers(sampling=sampling, elicitation=elicitation, roots=self.asker.roots)

    def action_reconnect(self) -> None:
        self.snapshot = None
        self._status("connecting…")
        self.connection.open(self.target, self.era, self.wire_pending)

    def action_connect(self) -> None:
        current = self.target.url or " ".join(shlex.quote(p) for p in (self.target.command or "", *self.target.args))
        self.push_screen(ConnectScreen(known_servers(), current), self._connect_to)

    def _connect_to(self, values: dict[str, str] | None) -> None:
        if not values:
            return
        try:
            target = target_from_form(values)
        except (ValueError, ConfigError) as e:
            self.notify(str(e), severity="error", markup=False)
            return
        remember(target.secret_values())  # masked from here on: in saved settings, messages, the screen
        remember_recent(values)
        self.target = target
        self.review = None
        self.review_path = review_file(target.public(), self.state_dir)
        # a new pending list: the old session, still closing, appends to the old one
        self.wire_pending = []
        self.wire_log.clear()
        for pane in self.main.query(TailPane):
            pane.reset()
        self.call_log = []
        self.main.query_one(CallsPane).show(self.call_log)
        self.checklist.show(None)
        self.action_reconnect()

    @on(Connected)
    def show_snapshot(self, message: Connected) -> None:
        snap = message.snapshot
        self.snapshot = snap
        self.failure = None
        self.tool_tokens, self.token_totals = message.tool_tokens, message.token_totals
        if self.review is None and (saved := load_review(self.review_path)) is not None:
            self.review = saved  # the same server reviewed before: its findings and decisions come back
            self.call_log = [c for c in saved.coverage if c.get("purpose") == "reviewer"]
            self.checklist.show(saved)
            self.main.query_one(CallsPane).show(self.call_log)
        self._status(
            f"{one_line(snap.server_name, 60)} {one_line(snap.server_version or '', 20)} · "
            f"{snap.revision} ({snap.era} era) · {self.target.kind} · {len(snap.tools)} tools"
        )
        self._show_snapshot()
        self.main.query_one(PrimitivesPane).show(snap)

    def _show_snapshot(self) -> None:
        """The overview and the tools, with what the review found in them."""
        if self.snapshot is not None:
            self.main.query_one(OverviewPane).show(self.snapshot, self.target, self.token_totals, self.review)
            self.tools.show(self.snapshot, self.tool_tokens, self.review)

    @on(ConnectionLost)
    def show_failure(self, message: ConnectionLost) -> None:
        self.failure = message.reason
        self._status(f"connection failed: {one_line(message.reason, 200)} (ctrl+r to reconnect)", failed=True)
        self.main.query_one(OverviewPane).show_failure(message.reason, message.detail)

    def _status(self, text: str, failed: bool = False) -> None:
        with contextlib.suppress(NoMatches):  # a timer's last tick (a call's elapsed time) while the app closes
            status = self.main.query_one("#status", Static)
            status.update(Text(text))
            status.set_class(failed, "-failed")

    def _flush_wire(self) -> None:
        """Add what crossed the wire since the last tick (10 times a second). The tables keep the newest
        WIRE_ROWS rows, and a row's cells (its tokens too) are made only when it is shown: a flood costs
        a little bookkeeping per message and at most one redraw a tick. The filter searches every entry."""
        if not self.wire_pending or not self.main.ready:
            return
        batch = self.wire_pending[:]  # in place: the session holds this list's append
        self.wire_pending.clear()
        first, logs_first = len(self.wire_log.entries), len(self.wire_log.log_index)
        self.wire_log.add(batch)
        with contextlib.suppress(NoMatches):  # a last tick while the app closes: the panes are gone, the log is kept
            active = self.main.query_one(TabbedContent).active
            self.main.query_one(WirePane).show(first, shown=active == "tab-wire")
            self.main.query_one(LogsPane).show(logs_first, shown=active == "tab-logs")

    @on(TabbedContent.TabActivated)
    def _draw_stale(self, event: TabbedContent.TabActivated) -> None:
        """The Wire and logs tables catch up when shown: what arrived while they were hidden."""
        if isinstance(event.pane, TailPane):
            event.pane.catch_up()

    def action_focus_filter(self) -> None:
        pane = self.main.query_one(TabbedContent).active_pane
        filters = pane.query(Input) if pane is not None else None
        if filters:
            filters.first().focus()

    # ------------------------------------------------------------------------------ the checklist
    def action_run_checks(self, only: str | None = None) -> None:
        """Run the chosen packs with the chosen calling policy; `only` (a rule id or a pack) re-runs just that
        and merges its findings into the review. The Checklist shows every selected rule live meanwhile."""
        if self.snapshot is None:
            self.notify("not connected", severity="warning")
            return
        packs = [only.split(".")[0]] if only else self.check_packs
        ignore = [r for r in load_rules() if only and "." in only and r != only and r.startswith(packs[0] + ".")]
        callers = [r.id for r in select(packs, ignore) if "call" in r.modes]
        if callers and not self.calls_chosen:  # the reviewer decides what call rules may call, once
            self.action_choose_checks(f"{len(callers)} of the selected rules call tools to check their results.", only)
            return
        self._status(f"running {only or 'the checklist'}…")
        self.checking = True
        previous = self.review
        plan = CheckPlan(
            packs=packs,
            ignore=ignore,
            options=Options(
                calls=self.check_calls,  # type: ignore[arg-type]
                probe=frozenset() if self.check_probe == "off" else frozenset({self.check_probe}),
            ),
            waivers=previous.waivers if previous else (),
            attestations=previous.attestations if previous else (),
        )
        if not (only and previous):
            self.checklist.start_live(select(packs, ignore))

        async def job(session: Session, snapshot: ServerSnapshot) -> None:
            seen = 0

            def progress(done: int, total: int, rule: Rule | None, findings: Sequence[Finding]) -> None:
                nonlocal seen
                self.post_message(ChecksProgress(done, total, rule.id if rule else None, list(findings[seen:])))
                seen = len(findings)

            review = await review_session(session, snapshot, plan, progress)
            review.remarks = previous.remarks if previous else []  # the reviewer's notes outlive a re-run
            if only and previous is not None:
                previous.merge(review, only)
                review = previous
            self.post_message(ChecksDone(review))

        self.connection.submit(job)

    def action_choose_checks(self, why: str = "", only: str | None = None) -> None:
        """Packs and calling policy; consent before checks may call tools with side effects. Then run
        (`only`: the rule or pack whose re-run asked for it)."""

        def chosen(values: dict[str, Any] | None) -> None:
            if not values:
                return
            self.check_packs, calls = values["packs"], values["calls"]
            self.check_probe = values.get("probe", "off")
            self.calls_chosen = True
            if calls != "all":
                self.check_calls = calls
                self.action_run_checks(only)
                return

            def consent(yes: bool | None) -> None:
                self.check_calls = "all" if yes else "read-only"
                self.action_run_checks(only)

            message = "Checks may then call every tool, including ones that change or delete data. Allow it?"
            self.push_screen(ConfirmScreen("Consent to call every tool", message, yes="Allow"), consent)

        calls = self.check_calls if self.calls_chosen else "read-only"
        self.push_screen(RunScreen(self.check_packs, calls, why, self.check_probe), chosen)

    @on(ChecksProgress)
    def show_progress(self, message: ChecksProgress) -> None:
        self._status(f"checking {message.done}/{message.total} · {message.running or 'done'}")
        self.checklist.progress(message)

    @on(ChecksDone)
    def show_review(self, message: ChecksDone) -> None:
        self.review, self.checking = message.review, False
        self._save()
        counts = ", ".join(f"{n} {s}" for s, n in sorted(message.review.counts().items()))
        self._status(f"verdict {message.review.verdict} · {counts}")
        self.checklist.show(self.review)
        self._show_snapshot()

    @on(RerunAsked)
    def rerun(self, message: RerunAsked) -> None:
        self.action_run_checks(only=message.only)

    @on(Decided)
    def save_decision(self) -> None:
        self._save()
        assert self.review is not None
        self._status(f"verdict {self.review.verdict} · saved to {self.review_path}")

    def action_rerun_rule(self, what: str = "rule") -> None:
        self.checklist.rerun(what)

    def action_waive(self) -> None:
        self.checklist.waive()

    def action_attest(self) -> None:
        self.checklist.attest()

    def action_note(self) -> None:
        self.checklist.note()

    def _save(self) -> None:
        """After every change: findings, decisions and the call history survive a crash or a closed terminal."""
        if self.review is not None:
            self.review.record_calls(self.call_log, "reviewer")
            self.review.save(self.review_path)

    def action_export(self) -> None:
        from inspector.report import render

        if self.review is None:
            self.notify("run the checks first (r)", severity="warning")
            return
        self._save()
        review = self.review
        name = "".join(c if c.isalnum() or c in "-_." else "-" for c in review.server.get("name") or "server")

        def chosen(values: dict[str, str] | None) -> None:
            if not values:
                return
            path = Path(values["path"])
            path = path if path.is_absolute() else self.export_dir / path
            try:
                write_text(path, render(review, values["format"]))
            except OSError as e:
                self.notify(f"cannot write {path}: {e.strerror}", severity="error", markup=False)
                return
            self.notify(f"wrote {path}", markup=False)

        self.push_screen(ExportScreen(f"mcp-review-{name}", render(review, "md")), chosen)

    # ------------------------------------------------------------------------------ tools and calls
    def jump_to_tool(self, index: int) -> None:
        self.main.query_one(TabbedContent).active = "tab-tools"
        self.tools.jump(index)

    def action_call_tool(self) -> None:
        tool = self.tools.highlighted()
        if tool is None or not tool.name:
            self.notify("highlight a tool in the Tools tab first", severity="warning")
            return
        from checks.util import valid_arguments

        def chosen(arguments: dict[str, Any] | None) -> None:
            if arguments is not None:
                self.caller.consent_then_call(tool, arguments)

        self.push_screen(CallScreen(tool.raw, valid_arguments(tool)), chosen)

    def action_cancel_call(self) -> None:
        self.caller.cancel()

    @on(CallChosen)
    def rerun_call(self, message: CallChosen) -> None:
        """Enter on a past call opens the call editor with its arguments."""
        call = message.call
        tool = self.snapshot.tool(call["tool"]) if self.snapshot else None
        if tool is not None:
            self.push_screen(
                CallScreen(tool.raw, call["arguments"]),
                lambda args: args is not None and self.caller.consent_then_call(tool, args),
            )

    def action_copy_cli(self) -> None:
        call = self.main.query_one(CallsPane).highlighted()
        if call is not None:
            self.copy_to_clipboard(call_command(call, self.target))
            self.notify("copied as an mcp-review call command")

    def action_copy_json(self) -> None:
        call = self.main.query_one(CallsPane).highlighted()
        if call is not None:
            self.copy_to_clipboard(
                json.dumps({"name": call["tool"], "arguments": call["arguments"]}, ensure_ascii=False)
            )
            self.notify("copied as JSON")

    @on(CallDone)
    def show_call(self, message: CallDone) -> None:
        self.caller.finished()
        record = message.record
        self._called(record.to_json())
        tool = self.snapshot.tool(record.tool) if self.snapshot else None
        tokens = self.counter.count_json(record.result) if record.result is not None else None
        self._status(f"{record.tool}: {record.outcome} in {record.latency_ms:.0f} ms")
        schema = tool.get("outputSchema") if tool else None
        self.push_screen(ResultScreen(result_text(record, schema, tokens, partial(status_style, self))))

    @on(CallRefused)
    def refused(self, message: CallRefused) -> None:
        self._called(refused_call(message.tool, message.arguments))

    def _called(self, call: dict[str, Any]) -> None:
        self.call_log.append(call)
        self._save()
        self.main.query_one(CallsPane).show(self.call_log)

    # ------------------------------------------------------------------------------ resources and prompts
    def action_open_primitive(self) -> None:
        self.main.query_one(PrimitivesPane).open()

    @on(Fetch)
    def fetch(self, message: Fetch) -> None:
        async def job(session: Session, _snapshot: ServerSnapshot) -> None:
            reply = await session.complete(message.method, message.params)
            error = Text(visible(json.dumps(reply.error)))
            self.post_message(Show(message.render(reply.result) if reply.error is None else error))

        self.connection.submit(job)

    @on(Show)
    def show_text(self, message: Show) -> None:
        self.push_screen(ResultScreen(message.body))
