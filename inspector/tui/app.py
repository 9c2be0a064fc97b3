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

import asyncio
import contextlib
import json
import os
import re
import shlex
import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from itertools import groupby
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Header, Input, Static, TabbedContent, TabPane
from textual.widgets.data_table import CellDoesNotExist

from checks.context import Options
from checks.core import DEFAULT_PACKS, Rule, load_rules, select
from inspector.calls import CallRecord, Consent, call_tool, effective_hints, side_effect_reason
from inspector.catalog import ServerSnapshot
from inspector.checking import CheckPlan, review_session
from inspector.configs import ConfigError
from inspector.connection.channel import HandlerError
from inspector.connection.session import ClientHandlers, Session
from inspector.connection.wire import WireEntry
from inspector.output import terminal_safe, write_text
from inspector.redact import remember
from inspector.review import STATUSES, Attestation, Finding, Remark, Review, Waiver, load_review, review_file
from inspector.targets import (
    Target,
    http_target,
    is_secret_header,
    masked_args,
    secret_arg_positions,
    stdio_target,
)
from inspector.text import one_line, visible
from inspector.tokens import ENCODINGS, TokenCounter
from inspector.tui.asking import Asker
from inspector.tui.commands import ToolJump
from inspector.tui.connection import Connection
from inspector.tui.dialogs import (
    CallScreen,
    ConfirmScreen,
    ConnectScreen,
    DecisionScreen,
    ElicitScreen,
    ExportScreen,
    FillScreen,
    ResultScreen,
    RunScreen,
    SampleScreen,
    ToolScreen,
    prompt_text,
    resource_text,
    result_text,
)
from inspector.tui.messages import CallChosen, CallDone, ChecksDone, ChecksProgress, Connected, ConnectionLost, Show
from inspector.tui.panes.calls import CallsPane
from inspector.tui.panes.logs import LogsPane
from inspector.tui.panes.overview import OverviewPane
from inspector.tui.panes.primitives import PrimitivesPane
from inspector.tui.panes.table import reset_table
from inspector.tui.panes.tail import TailPane
from inspector.tui.panes.wire import WireLog, WirePane
from inspector.tui.settings import load_settings, save_settings
from themes import TCSS, THEMES

TOOL_CHUNK = 1000  # tools table rows added per screen refresh
COLUMNS = {  # every table's columns (ReviewScreen.reset)
    "#tools": ("tool", "total", "descr", "input", "output", "annotations", "status"),
    "#checks": ("status", "rule", "finding"),  # the subject leads the finding: it fits in 80 columns
}
RANK = {s: i for i, s in enumerate(STATUSES)}  # worst first
STATUS_STYLE = {"fail": "bold red", "blocking": "bold yellow", "warn": "yellow", "pass": "green"}
HINT_BADGES = (("readOnlyHint", "RO"), ("destructiveHint", "D"), ("idempotentHint", "I"), ("openWorldHint", "OW"))


def cli_command(call: dict[str, Any], target: Target) -> str:
    """The same call as a command line (secrets left out: --env values and the bearer are not copied)."""
    parts = ["mcp-review", "call", call["tool"], "--args", json.dumps(call["arguments"], ensure_ascii=False)]
    if call.get("consent") == "reviewer":
        parts.append("--yes")
    if target.kind == "stdio":
        parts += ["--", target.command or "", *masked_args(target.args)]
    else:
        parts += ["--url", target.url or ""] + (["--transport", "sse"] if target.kind == "sse" else [])
    return " ".join(shlex.quote(p) for p in parts)


def target_from_form(values: dict[str, str]) -> Target:
    """What the connect dialog gave: a config entry, a URL (headers, bearer) or a command line."""
    if values.get("config"):
        from inspector.configs import find_server

        return find_server(values["config"], values.get("name"))
    what = values.get("what", "").strip()
    if what.startswith(("http://", "https://")):
        headers = {}
        for pair in filter(None, (p.strip() for p in values.get("headers", "").split(";"))):
            key, found, value = pair.partition(":")
            if not found:
                raise ValueError(f"a header must look like K: V, got {pair!r}")
            headers[key.strip()] = value.strip()
        return http_target(what, headers=headers, bearer=values.get("bearer") or None)
    return stdio_target(shlex.split(what))


def expand_template(template: str, values: dict[str, str]) -> str:
    """RFC 6570 level 1: {name} becomes the percent-encoded value (enough for reading a resource by hand)."""
    from urllib.parse import quote

    return re.sub(r"\{[+#./;?&]?([A-Za-z0-9_]+)\}", lambda m: quote(values.get(m.group(1), ""), safe=""), template)


def rank(status: str) -> int:
    """Where a status sorts, worst first; anything else (waived, queued, running) after every real status."""
    return RANK.get(status, len(RANK))


def by_section(item: Finding | Rule) -> tuple[str, str]:
    """How the checklist groups rules and findings: pack, then seed section."""
    return item.pack, item.source


def split_filter(needle: str) -> tuple[set[str], str]:
    """A filter's `status:X` words (exact statuses) and the rest (text to find), lower case."""
    words = needle.lower().split()
    statuses = {w.removeprefix("status:") for w in words if w.startswith("status:")}
    return statuses, " ".join(w for w in words if not w.startswith("status:"))


def badges(tool: Any) -> Text:
    """Annotation badges: bright when the server set the hint, dim when it is the spec default."""
    out = Text()
    for hint, label in HINT_BADGES:
        value, explicit = effective_hints(tool)[hint]
        if value:
            out.append(f"{label} ", style="bold" if explicit else "dim")
    return out


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
            with TabPane("Tools", id="tab-tools"):
                yield Input(placeholder="filter by name or description; status:fail, status:warn…", id="tool-filter")
                yield DataTable(id="tools", cursor_type="row", zebra_stripes=True)
                yield Static(id="tool-detail")
            yield CallsPane()
            yield PrimitivesPane(self.counter)
            with TabPane("Checklist", id="tab-checks"):
                yield Input(
                    placeholder="filter findings: status:fail, status:blocking… and/or any text", id="check-filter"
                )
                yield DataTable(id="checks", cursor_type="row", zebra_stripes=True)
                yield Static(id="check-detail")
            yield WirePane(self.wire_log, self.counter)
            yield LogsPane(self.wire_log)
        yield Footer()

    def on_mount(self) -> None:
        self.reset("#checks")
        for pane in self.query(TailPane):
            pane.reset()
        self.ready = True  # every pane is mounted: the wire may be drawn

    def reset(self, selector: str) -> DataTable[Any]:
        return reset_table(self.query_one(selector, DataTable), COLUMNS[selector])


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
        self.tool_tokens: list[dict[str, int]] = []
        self.token_totals: dict[str, int] = {}  # the whole tools/list, per encoding
        self.state_dir = state_dir
        self.review_path = review_file(target.public(), state_dir)
        self.shown_findings: list[Finding | None] = []  # None: a group header row
        self.tool_sort: tuple[str, bool] = ("total", True)
        self.tool_fill = 0  # numbers each fill of the tools table: a newer one stops an older one's chunks
        self.tools_filling = False
        self.check_packs: list[str] = list(DEFAULT_PACKS)
        self.check_calls = "none"
        self.calls_chosen = False  # until the reviewer says which tools checks may call (asked on the first run)
        self.running_call: asyncio.Future[CallRecord] | None = None
        self.call_ticker: Timer | None = None
        self.call_started = 0.0
        self.call_progress = ""
        self.checking = False  # a checklist run is queued or running
        self.live: dict[str, str] = {}  # rule id -> queued, running or its worst status, while checks run
        self.call_log: list[dict[str, Any]] = []  # every call made or refused here, for the review's coverage
        self.asker = Asker(self)  # the server's requests to the reviewer, one dialog at a time
        self.connection = Connection(self, self.handlers(), self.counter)

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

    # ------------------------------------------------------------------------------------ actions
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
            options=Options(calls=self.check_calls),  # type: ignore[arg-type]
            waivers=previous.waivers if previous else (),
            attestations=previous.attestations if previous else (),
        )
        self.live = {}
        if not (only and previous):
            self._start_live(select(packs, ignore))

        async def job(session: Session, snapshot: ServerSnapshot) -> None:
            seen = 0

            def progress(done: int, total: int, rule: Rule | None, findings: Sequence[Finding]) -> None:
                nonlocal seen
                self.post_message(ChecksProgress(done, total, rule.id if rule else None, list(findings[seen:])))
                seen = len(findings)

            review = await review_session(session, snapshot, plan, progress)
            review.remarks = previous.remarks if previous else []  # the reviewer's notes outlive a re-run
            if only and previous is not None:
                replaced = (lambda f: f.rule == only) if "." in only else (lambda f: f.pack == only)
                previous.findings = [f for f in previous.findings if not replaced(f)] + review.findings
                previous.exchanges.update(review.exchanges)
                previous.apply_waivers()
                review = previous
            self.post_message(ChecksDone(review))

        self.connection.submit(job)

    def _start_live(self, rules: list[Rule]) -> None:
        """One row per selected rule, grouped like the findings: queued, then running, then its worst status."""
        self.live = {r.id: "queued" for r in rules}
        table = self.main.reset("#checks")
        self.shown_findings = []
        for (pack, source), group in groupby(sorted(rules, key=lambda r: (r.pack, r.source, r.id)), key=by_section):
            self._section_row(table, "", pack, source)
            for r in group:
                table.add_row(Text("queued", style="dim"), r.id, Text(one_line(r.summary, 200)), key=r.id)
                self.shown_findings.append(None)

    def _section_row(self, table: DataTable[Any], status: str, pack: str, source: str) -> None:
        """A header row for a pack and seed section: nothing to waive or attest on it."""
        table.add_row(
            Text(status, style=STATUS_STYLE.get(status, "")),
            Text(pack, style="bold"),
            Text(one_line(source, 200), style="bold"),
        )
        self.shown_findings.append(None)

    @on(ChecksProgress)
    def show_progress(self, message: ChecksProgress) -> None:
        label = message.running or "done"
        self._status(f"checking {message.done}/{message.total} · {label}")
        changed: dict[str, str] = {}
        for f in message.new:
            current = changed.get(f.rule) or self.live.get(f.rule)
            if current in (None, "queued", "running") or rank(f.status) < rank(current):
                changed[f.rule] = f.status
        if message.running:
            changed[message.running] = "running"
        table = self.main.query_one("#checks", DataTable)
        for rule_id, status in changed.items():
            if rule_id not in self.live:
                continue
            self.live[rule_id] = status
            style = "reverse" if status == "running" else STATUS_STYLE.get(status, "")
            with contextlib.suppress(CellDoesNotExist):  # the table was refilled (a filter typed meanwhile)
                table.update_cell(rule_id, "status", Text(status, style=style))

    def action_choose_checks(self, why: str = "", only: str | None = None) -> None:
        """Packs and calling policy; consent before checks may call tools with side effects. Then run
        (`only`: the rule or pack whose re-run asked for it)."""

        def chosen(values: dict[str, Any] | None) -> None:
            if not values:
                return
            self.check_packs, calls = values["packs"], values["calls"]
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
        self.push_screen(RunScreen(self.check_packs, calls, why), chosen)

    def action_rerun_rule(self, what: str = "rule") -> None:
        """Re-run the highlighted finding's rule (or, with `what="pack"`, its pack) and merge the findings."""
        finding = self._highlighted_finding()
        if finding is None:
            self.notify("highlight a finding in the Checklist tab", severity="warning")
            return
        self.action_run_checks(only=finding.pack if what == "pack" else finding.rule)

    def jump_to_tool(self, index: int) -> None:
        self.main.query_one(TabbedContent).active = "tab-tools"
        self.main.query_one("#tool-filter", Input).value = ""

        def there() -> None:
            table = self.main.query_one("#tools", DataTable)
            table.move_cursor(row=table.get_row_index(str(index)))
            table.focus()

        self._fill_tools("", then=there)

    @on(DataTable.HeaderSelected, "#tools")
    def sort_tools(self, event: DataTable.HeaderSelected) -> None:
        """Sort by the clicked column; clicking it again reverses. Numbers sort high first."""
        column = str(event.column_key.value)
        reverse = not self.tool_sort[1] if self.tool_sort[0] == column else column not in ("tool", "status")
        self.tool_sort = (column, reverse)
        self._sort_tools()

    def _sort_tools(self) -> None:
        column, reverse = self.tool_sort

        def key(value: Any) -> Any:
            if column == "status":
                return rank(str(value))
            return value.plain.lower() if isinstance(value, Text) else value

        self.main.query_one("#tools", DataTable).sort(column, key=key, reverse=reverse)

    def _highlighted_tool(self) -> Any:
        table = self.main.query_one("#tools", DataTable)
        if self.snapshot is None or not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self.snapshot.tools.items[int(key)] if key is not None else None

    def action_call_tool(self) -> None:
        tool = self._highlighted_tool()
        if tool is None or not tool.name:
            self.notify("highlight a tool in the Tools tab first", severity="warning")
            return
        from checks.util import valid_arguments

        def chosen(arguments: dict[str, Any] | None) -> None:
            if arguments is not None:
                self._consent_then_call(tool, arguments)

        self.push_screen(CallScreen(tool.raw, valid_arguments(tool)), chosen)

    def _consent_then_call(self, tool: Any, arguments: dict[str, Any]) -> None:
        reason = side_effect_reason(tool.raw)
        if reason is None:
            self._call(tool, arguments, "read-only")
            return

        def decided(yes: bool | None) -> None:
            if yes:
                self._call(tool, arguments, "reviewer")
            else:
                self.call_log.append(
                    {
                        "tool": tool.name,
                        "arguments": arguments,
                        "consent": "refused",
                        "purpose": "reviewer",
                        "outcome": "not called",
                        "latencyMs": 0,
                        "seq": None,
                    }
                )
                self._save()
                self._show_calls()

        message = f"{tool.name} may have side effects: {reason}. Call it with these arguments?"
        self.push_screen(ConfirmScreen("Consent needed", message), decided)

    def _call(self, tool: Any, arguments: dict[str, Any], consent: Consent) -> None:
        name = tool.name or ""
        self.call_started = time.monotonic()
        self.call_progress = ""
        self._call_status(name)
        self.call_ticker = self.set_interval(0.5, lambda: self._call_status(name))

        def progress(params: dict[str, Any]) -> None:
            total = f"/{params['total']}" if params.get("total") is not None else ""
            message = f" {one_line(str(params['message']), 60)}" if params.get("message") else ""
            self.call_progress = f" · progress {params.get('progress')}{total}{message}"
            self._call_status(name)

        async def job(session: Session, _snapshot: ServerSnapshot) -> None:
            task = asyncio.ensure_future(call_tool(session, name, arguments, consent=consent, on_progress=progress))
            self.running_call = task
            try:
                record = await task
            except asyncio.CancelledError:  # the reviewer's cancel key; the server was told
                record = CallRecord(name, arguments, consent, failure="cancelled by the reviewer")
                record.latency_ms = (time.monotonic() - self.call_started) * 1000
            finally:
                self.running_call = None
            self.post_message(CallDone(record))

        self.connection.submit(job)

    def _call_status(self, name: str) -> None:
        elapsed = time.monotonic() - self.call_started
        self._status(f"calling {one_line(name, 60)} · {elapsed:.1f} s{self.call_progress} · x to cancel")

    def action_cancel_call(self) -> None:
        if self.running_call is not None:
            self.running_call.cancel()

    def _show_calls(self) -> None:
        self.main.query_one(CallsPane).show(self.call_log)

    @on(CallChosen)
    def rerun_call(self, message: CallChosen) -> None:
        """Enter on a past call opens the call editor with its arguments."""
        call = message.call
        tool = self.snapshot.tool(call["tool"]) if self.snapshot else None
        if tool is not None:
            self.push_screen(
                CallScreen(tool.raw, call["arguments"]),
                lambda args: args is not None and self._consent_then_call(tool, args),
            )

    def action_copy_cli(self) -> None:
        call = self.main.query_one(CallsPane).highlighted()
        if call is not None:
            self.copy_to_clipboard(cli_command(call, self.target))
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
        if self.call_ticker is not None:
            self.call_ticker.stop()
            self.call_ticker = None
        record = message.record
        self.call_log.append(record.to_json())
        self._save()
        self._show_calls()
        tool = self.snapshot.tool(record.tool) if self.snapshot else None
        tokens = self.counter.count_json(record.result) if record.result is not None else None
        self._status(f"{record.tool}: {record.outcome} in {record.latency_ms:.0f} ms")
        self.push_screen(ResultScreen(result_text(record, tool.get("outputSchema") if tool else None, tokens)))

    def _save(self) -> None:
        """After every change: findings, decisions and the call history survive a crash or a closed terminal."""
        if self.review is None:
            return
        self.review.coverage = [c for c in self.review.coverage if c.get("purpose") != "reviewer"] + self.call_log
        self.review.save(self.review_path)

    def _highlighted_finding(self) -> Finding | None:
        table = self.main.query_one("#checks", DataTable)
        if not table.row_count or table.cursor_row >= len(self.shown_findings):
            return None
        return self.shown_findings[table.cursor_row]

    def action_waive(self) -> None:
        finding = self._highlighted_finding()
        if finding is None or finding.status not in ("fail", "blocking"):
            self.notify("highlight a fail or blocking finding in the Checklist tab", severity="warning")
            return

        def decided(values: dict[str, str] | None) -> None:
            if values and self.review is not None:
                waiver = Waiver(
                    finding.rule, values["why"], values["who"], finding.subject, values["expires"] or None, "tui"
                )
                self.review.waivers.append(waiver)
                self.review.apply_waivers()
                self._decided()

        self.push_screen(DecisionScreen("waive", finding, os.environ.get("USER", "")), decided)

    def action_attest(self) -> None:
        finding = self._highlighted_finding()
        if finding is None or "manual" not in finding.mode:
            self.notify("highlight a finding of a manual rule in the Checklist tab", severity="warning")
            return

        def decided(values: dict[str, str] | None) -> None:
            if values and self.review is not None:
                status = "fail" if values["status"] == "fail" else "pass"
                self.review.attestations.append(
                    Attestation(finding.rule, values["who"], values["why"], status, finding.subject, "tui")
                )
                finding.status, finding.message = status, f"attested by {values['who']}: {values['why']}"
                self.review.apply_waivers()
                self._decided()

        self.push_screen(DecisionScreen("attest", finding, os.environ.get("USER", "")), decided)

    def action_note(self) -> None:
        if self.review is None:
            self.notify("run the checks first (r): notes belong to a review", severity="warning")
            return
        finding = self._highlighted_finding()

        def decided(values: dict[str, str] | None) -> None:
            if values and self.review is not None:
                rule, subject = (finding.rule, finding.subject) if finding else (None, None)
                self.review.remarks.append(Remark(values["who"], values["why"], rule, subject))
                self._decided()

        self.push_screen(DecisionScreen("note", finding, os.environ.get("USER", "")), decided)

    def _decided(self) -> None:
        self._save()
        self._fill_checks(self.main.query_one("#check-filter", Input).value)
        assert self.review is not None
        self._status(f"verdict {self.review.verdict} · saved to {self.review_path}")

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

    def action_focus_filter(self) -> None:
        tabs = self.main.query_one(TabbedContent)
        target = {"tab-tools": "#tool-filter", "tab-checks": "#check-filter", "tab-wire": "#wire-filter"}.get(
            tabs.active or ""
        )
        if target:
            self.main.query_one(target, Input).focus()

    def action_connect(self) -> None:
        from inspector.configs import discover

        choices: list[tuple[str, str, dict[str, str]]] = [
            (r.get("what", ""), "recent", {"what": r.get("what", ""), "headers": r.get("headers", ""), "bearer": ""})
            for r in load_settings().get("recent", [])
            if isinstance(r, dict)
        ]
        choices += [
            (found.name, f"{found.client}: {found.source}", {"config": found.source, "name": found.name})
            for found in discover()
            if found.target is not None
        ]
        current = self.target.url or " ".join(shlex.quote(p) for p in (self.target.command or "", *self.target.args))
        self.push_screen(ConnectScreen(choices, current), self._connect_to)

    def _connect_to(self, values: dict[str, str] | None) -> None:
        if not values:
            return
        try:
            target = target_from_form(values)
        except (ValueError, ConfigError) as e:
            self.notify(str(e), severity="error", markup=False)
            return
        remember(target.secret_values())  # masked from here on: in saved settings, messages, the screen
        if "what" in values and not secret_arg_positions(shlex.split(values["what"])):  # never remember a secret
            headers = "; ".join(
                p for p in values.get("headers", "").split(";") if not is_secret_header(p.split(":")[0])
            )
            recent = [
                r for r in load_settings().get("recent", []) if isinstance(r, dict) and r.get("what") != values["what"]
            ]
            save_settings({"recent": [{"what": values["what"], "headers": headers.strip()}, *recent][:10]})
        self.target = target
        self.review = None
        self.review_path = review_file(target.public(), self.state_dir)
        self._clear_wire()
        self.call_log = []
        self._show_calls()
        self._fill_checks("")
        self.action_reconnect()

    def _clear_wire(self) -> None:
        # a new pending list: the old session, still closing, appends to the old one
        self.wire_pending = []
        self.wire_log.clear()
        for pane in self.main.query(TailPane):
            pane.reset()

    def action_reconnect(self) -> None:
        self.snapshot = None
        self._status("connecting…")
        self.connection.open(self.target, self.era, self.wire_pending)

    # ----------------------------------------------------------------------------------- messages
    def _detail(self, selector: str, body: Text) -> None:
        """Fill a detail pane; nothing while the screen is torn down (a table's last highlight comes late)."""
        with contextlib.suppress(NoMatches):
            self.main.query_one(selector, Static).update(body)

    def _status(self, text: str, failed: bool = False) -> None:
        with contextlib.suppress(NoMatches):  # a timer's last tick (a call's elapsed time) while the app closes
            status = self.main.query_one("#status", Static)
            status.update(Text(text))
            status.set_class(failed, "-failed")

    @on(Connected)
    def show_snapshot(self, message: Connected) -> None:
        snap = message.snapshot
        self.snapshot = snap
        self.failure = None
        self.tool_tokens, self.token_totals = message.tool_tokens, message.token_totals
        if self.review is None and (saved := load_review(self.review_path)) is not None:
            self.review = saved  # the same server reviewed before: its findings and decisions come back
            self.call_log = [c for c in saved.coverage if c.get("purpose") == "reviewer"]
            self._fill_checks("")
            self._show_calls()
        self._status(
            f"{one_line(snap.server_name, 60)} {one_line(snap.server_version or '', 20)} · "
            f"{snap.revision} ({snap.era} era) · {self.target.kind} · {len(snap.tools)} tools"
        )
        self._show_overview(snap)
        self._fill_tools("")
        self.main.query_one(PrimitivesPane).show(snap)

    def action_open_primitive(self) -> None:
        item = self.main.query_one(PrimitivesPane).highlighted() if self.snapshot is not None else None
        if item is None:
            return
        if item.kind == "resource":
            self._read(item.key)
        elif item.kind == "template":
            names = re.findall(r"\{[+#./;?&]?([A-Za-z0-9_]+)", item.key)
            self.push_screen(
                FillScreen(f"Fill {item.key}", item.raw, dict.fromkeys(names, ""), names),
                lambda values: values is not None and self._read(expand_template(item.key, values)),
            )
        else:
            arguments = [
                a for a in item.get("arguments") or [] if isinstance(a, dict) and isinstance(a.get("name"), str)
            ]
            required = [a["name"] for a in arguments if a.get("required")]
            self.push_screen(
                FillScreen(f"Get prompt {item.key}", item.raw, {a["name"]: "" for a in arguments}, required),
                lambda values: values is not None and self._get_prompt(item.key, values),
            )

    def _read(self, uri: str) -> None:
        async def job(session: Session, _snapshot: ServerSnapshot) -> None:
            reply = await session.complete("resources/read", {"uri": uri})
            body = resource_text(uri, reply.result) if reply.error is None else Text(visible(json.dumps(reply.error)))
            self.post_message(Show(body))

        self.connection.submit(job)

    def _get_prompt(self, name: str, arguments: dict[str, Any]) -> None:
        async def job(session: Session, _snapshot: ServerSnapshot) -> None:
            reply = await session.complete("prompts/get", {"name": name, "arguments": arguments})
            body = prompt_text(name, reply.result) if reply.error is None else Text(visible(json.dumps(reply.error)))
            self.post_message(Show(body))

        self.connection.submit(job)

    @on(Show)
    def show_text(self, message: Show) -> None:
        self.push_screen(ResultScreen(message.body))

    def _show_overview(self, snap: ServerSnapshot) -> None:
        self.main.query_one(OverviewPane).show(snap, self.target, self.token_totals, self.review)

    def _fill_tools(self, needle: str, then: Callable[[], None] | None = None) -> None:
        """The tools matching `needle` (text, and `status:X` words), costliest first, added TOOL_CHUNK rows at a
        time so 10,000 tools never freeze the screen; `then` runs once every row is in."""
        if self.snapshot is None:
            return
        self.main.reset("#tools")
        worst = self._worst_by_subject()
        statuses, text_needle = split_filter(needle)
        rows = []
        for item in self.snapshot.tools:
            text = f"{item.key} {item.description or ''}".lower()
            if (text_needle and text_needle not in text) or (statuses and worst.get(item.key, "") not in statuses):
                continue
            tokens = self.tool_tokens[item.index]
            rows.append((tokens["total"], item, tokens))
        self.tool_fill += 1
        self.tools_filling = True
        self._add_tool_rows(self.tool_fill, sorted(rows, key=lambda r: -r[0]), worst, then)

    def _add_tool_rows(
        self, fill: int, rows: list[Any], worst: dict[str, str], then: Callable[[], None] | None
    ) -> None:
        table = next(self.main.query("#tools").results(DataTable), None)
        if fill != self.tool_fill or table is None:
            return  # a newer fill (a filter keystroke) replaced this one, or the app is closing
        for total, item, tokens in rows[:TOOL_CHUNK]:
            status = worst.get(item.key, "")
            table.add_row(
                Text(one_line(item.key, 60), style="red" if item.problems else ""),
                total,
                tokens.get("description", 0),
                tokens.get("inputSchema", 0),
                tokens.get("outputSchema", 0),
                badges(item.raw),
                Text(status, style=STATUS_STYLE.get(status, "")),
                key=f"{item.index}",
            )
        if len(rows) > TOOL_CHUNK:  # the rest after the screen has drawn (and measured) these
            self.set_timer(0.02, partial(self._add_tool_rows, fill, rows[TOOL_CHUNK:], worst, then))
            return
        self.tools_filling = False
        if self.tool_sort != ("total", True):
            self._sort_tools()
        if then is not None:
            then()

    def _worst_by_subject(self) -> dict[str, str]:
        worst: dict[str, str] = {}
        for f in self.review.findings if self.review else []:
            if f.subject is None:
                continue
            status = f.effective if f.effective in RANK else "pass"  # a waived finding no longer counts against it
            current = worst.get(f.subject)
            if current is None or rank(status) < rank(current):
                worst[f.subject] = status
        return worst

    @on(DataTable.RowHighlighted, "#tools")
    def show_tool(self, event: DataTable.RowHighlighted) -> None:
        if self.snapshot is None or event.row_key.value is None:
            return
        item = self.snapshot.tools.items[int(event.row_key.value)]
        detail = Text()
        detail.append(f"{one_line(item.key, 100)}  (enter: all of it)\n", style="bold")
        for title, body, _collapsed in self._tool_sections(item, [self.counter]):
            detail.append(f"{title}\n", style="bold")
            detail.append_text(body)
            detail.append("\n")
        self._detail("#tool-detail", detail)

    @on(DataTable.RowSelected, "#tools")
    def open_tool(self, event: DataTable.RowSelected) -> None:
        if self.snapshot is None or event.row_key.value is None:
            return
        item = self.snapshot.tools.items[int(event.row_key.value)]
        counters = [self.counter] + [TokenCounter(e) for e in ENCODINGS if e != self.counter.encoding]
        self.push_screen(ToolScreen(one_line(item.key, 100), self._tool_sections(item, counters)))

    def _tool_sections(self, item: Any, counters: list[TokenCounter]) -> list[tuple[str, Text, bool]]:
        """(title, body, collapsed) of one tool: description, findings, tokens per encoding, schemas, hints."""
        raw = item.raw if isinstance(item.raw, dict) else {}
        description = Text(visible(item.description or "(no description)", 4000))
        if item.problems:
            description.append("\nproblems: " + "; ".join(item.problems), style="red")
        sections = [("description", description, False)]
        findings = Text()
        for f in self.review.findings if self.review else []:
            if f.subject == item.key and f.effective not in ("pass", "n/a"):
                findings.append(
                    f"{f.effective} {f.rule}: {one_line(f.message, 200)}\n", style=STATUS_STYLE.get(f.effective, "")
                )
        sections.append((f"findings ({len(findings.plain.splitlines())})", findings, False))
        tokens = Text()
        for counter in counters:
            breakdown = self.tool_tokens[item.index] if counter is self.counter else counter.breakdown(raw)
            tokens.append(f"{counter.encoding}: " + ", ".join(f"{k} {v}" for k, v in breakdown.items()) + "\n")
        sections.append(("tokens", tokens, False))
        for key in ("inputSchema", "outputSchema"):
            if key in raw:
                body = Text(visible(json.dumps(raw[key], indent=2, ensure_ascii=False), 20000))
                sections.append((key, body, key == "outputSchema"))
        hints = Text()
        for hint, (value, explicit) in effective_hints(raw).items():
            hints.append(f"{hint}: {json.dumps(value)} ({'set by the server' if explicit else 'spec default'})\n")
        sections.append(("annotations", hints, True))
        return sections

    @on(Input.Changed, "#tool-filter")
    def filter_tools(self, event: Input.Changed) -> None:
        self._fill_tools(event.value)

    @on(ChecksDone)
    def show_review(self, message: ChecksDone) -> None:
        self.review, self.checking = message.review, False
        self._save()
        counts = ", ".join(f"{n} {s}" for s, n in sorted(message.review.counts().items()))
        self._status(f"verdict {message.review.verdict} · {counts}")
        self._fill_checks("")
        self._fill_tools(self.main.query_one("#tool-filter", Input).value)
        if self.snapshot:
            self._show_overview(self.snapshot)

    def _fill_checks(self, needle: str) -> None:
        """Grouped by pack and seed section (a header row each, with its worst status), worst findings first."""
        row, was = self.main.query_one("#checks", DataTable).cursor_row, self._highlighted_finding()
        table = self.main.reset("#checks")
        statuses, text = split_filter(needle)
        findings = [
            f
            for f in (self.review.findings if self.review else [])
            if (not statuses or f.effective in statuses)
            and (not text or text in f"{f.effective} {f.rule} {f.subject or ''} {f.message}".lower())
        ]
        self.shown_findings = []
        ordered = sorted(findings, key=lambda f: (f.pack, f.source, rank(f.effective), f.rule))
        for (pack, source), group in groupby(ordered, key=by_section):
            items = list(group)
            self._section_row(table, items[0].effective, pack, source)  # worst first: the section's status
            for f in items:
                self.shown_findings.append(f)
                finding = Text(one_line(f.subject or "server", 40), style="bold")
                finding.append(": " + one_line(f.message, 200), style="")
                table.add_row(Text(f.effective, style=STATUS_STYLE.get(f.effective, "")), f.rule, finding)
        if was is not None:  # stay on the same finding (after a re-run, its successor) or at the same place
            same = ((i, f) for i, f in enumerate(self.shown_findings) if f)
            row = next((i for i, f in same if (f.rule, f.subject) == (was.rule, was.subject)), row)
        table.move_cursor(row=min(row, table.row_count - 1))

    @on(DataTable.RowHighlighted, "#checks")
    def show_finding(self, event: DataTable.RowHighlighted) -> None:
        """The finding in full, with the wire exchange that proves it."""
        if event.cursor_row >= len(self.shown_findings) or self.review is None:
            return
        f = self.shown_findings[event.cursor_row]
        if f is None:
            return
        detail = Text()
        detail.append(f"{f.effective} {f.rule} · {one_line(f.subject or 'server', 80)} · {f.mode}\n", style="bold")
        detail.append(visible(f.message, 4000) + "\n")
        detail.append(f"source: {f.source}\n", style="dim")
        if f.waiver:
            detail.append(f"waived by {f.waiver.by}: {f.waiver.reason}\n", style="yellow")
        by_seq = {e.seq: e for e in self.wire_log.entries}
        for seq in f.evidence[:3]:
            entry = by_seq.get(seq)
            if entry is not None:
                payload = entry.message if entry.message is not None else entry.http or entry.text
                detail.append(f"#{seq} {entry.direction} {entry.kind}: ", style="cyan")
                detail.append(visible(json.dumps(payload, ensure_ascii=False), 1500) + "\n")
        self._detail("#check-detail", detail)

    @on(Input.Changed, "#check-filter")
    def filter_checks(self, event: Input.Changed) -> None:
        self._fill_checks(event.value)

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

    @on(ConnectionLost)
    def show_failure(self, message: ConnectionLost) -> None:
        self.failure = message.reason
        self._status(f"connection failed: {one_line(message.reason, 200)} (ctrl+r to reconnect)", failed=True)
        self.main.query_one(OverviewPane).show_failure(message.reason, message.detail)
