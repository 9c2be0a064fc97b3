"""The reviewer's tool calls: consent first for a tool that may have side effects, one call at a time on the
connection worker through the reviewer's call gate (`calls.CallGate.for_reviewer`), its elapsed time and progress
in the status line, and a cancel that tells the server. The outcome comes back to the app as a message:
`CallDone`, or `CallRefused` when consent was refused."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from rich.text import Text
from textual.app import App
from textual.screen import Screen
from textual.timer import Timer

from mcp_review.calls import CallGate, CallRecord, Consent, consent_reason, reply_tokens
from mcp_review.catalog import Item, ServerSnapshot
from mcp_review.connection.session import Session
from mcp_review.tasks import Observation, TaskDriver, TaskRun, declared
from mcp_review.text import one_line, visible
from mcp_review.tui.dialogs import CallScreen, ConfirmScreen, ResultScreen, result_text
from mcp_review.tui.messages import CallDone, CallRefused
from mcp_review.tui.styles import status_style
from mcp_review.workspace import Workspace

TASK_WAIT = 600.0  # seconds a task run from the app may take before it is given up (and cancelled)
Act = Callable[[dict[str, Any], Consent | None], None]  # what follows the editor and consent (None: refused)


class Caller:
    def __init__(self, app: App[Any], ws: Workspace, status: Callable[[str], None]) -> None:
        self.app = app
        self.ws = ws  # its connection carries the calls
        self.status = status  # shows a line in the app's status bar
        self.running: asyncio.Future[CallRecord | None] | None = None
        self.calling = ""  # the tool of the call running (`running`), for what the server asks meanwhile
        self.driver: TaskDriver | None = None  # the task running, when the reviewer ran the tool as one
        self.ticker: Timer | None = None
        self.started = 0.0
        self.progress = ""
        self.inputs = 0  # the reviewer's keys and clicks on the main screen (the app counts them)
        self.inputs_at_start = 0

    def edit_highlighted(self, tool: Item | None) -> None:
        """The call editor on the tool highlighted in the Tools tab, every field empty (its examples and
        default shown as placeholders): nothing is sent that the reviewer did not type."""
        if tool is None or not tool.name:
            self.app.notify("highlight a tool in the Tools tab first", severity="warning")
            return
        self.edit(tool, {})

    def edit(self, tool: Item, arguments: dict[str, Any], act: Act | None = None) -> None:
        """The call editor on `tool`, filled with `arguments`; then consent if needed, and the call (or `act`)."""
        snapshot = self.ws.snapshot
        screen = CallScreen(tool.raw, arguments, declared(snapshot.era, snapshot.capabilities) if snapshot else None)
        self.app.push_screen(
            screen,
            lambda args: (
                None if args is None else self.consent_then_call(tool, args, act, screen.as_task, screen.sent_invalid)
            ),
        )

    def consent_then_call(
        self,
        tool: Item,
        arguments: dict[str, Any],
        act: Act | None = None,
        as_task: bool = False,
        sent_invalid: list[str] | None = None,
    ) -> None:
        """Consent when `tool` may have side effects; then the call (as a task when the reviewer chose it), or
        `act(arguments, consent)` (the app preview makes its own call, and opens without one when consent is
        refused). `sent_invalid`: why the arguments do not match the inputSchema, sent anyway on the reviewer's
        word: the same consent as any call, and the record says so."""
        then = act or partial(self._call_or_refuse, tool, as_task=as_task, sent_invalid=sent_invalid or [])
        reason = consent_reason(tool)
        if reason is None:
            then(arguments, "read-only")
            return

        def decided(yes: bool | None) -> None:
            if yes is None:  # escape: back to the editor, with what was typed
                self.edit(tool, arguments, act)
            else:
                then(arguments, "reviewer" if yes else None)

        message = Text(
            f"{one_line(tool.name or '', 80)} may have side effects: {reason}. Call it with these arguments?"
        )
        message.append("\n" + visible(json.dumps(arguments, indent=2, ensure_ascii=False), 4000), style="bold")
        if sent_invalid:
            message.append(f"\nsent as they are, though the inputSchema refuses them: {'; '.join(sent_invalid)}")
        self.app.push_screen(ConfirmScreen("Consent needed", message, back="Edit arguments"), decided)

    def _call_or_refuse(
        self,
        tool: Item,
        arguments: dict[str, Any],
        consent: Consent | None,
        as_task: bool = False,
        sent_invalid: list[str] | None = None,
    ) -> None:
        if consent is None:
            self.app.post_message(CallRefused(tool.name or "", arguments))
        else:
            self._call(tool, arguments, consent, as_task, sent_invalid or [])

    def edit_past(self, call: dict[str, Any]) -> None:
        """Enter on a past call opens the call editor with its arguments (when the server still has the tool)."""
        tool = self.ws.snapshot.tool(call["tool"]) if self.ws.snapshot else None
        if tool is not None:
            self.edit(tool, call["arguments"])

    def task_tool(self, task_id: str) -> str | None:
        """The tool of the reviewer's task `task_id`, when it is the one running."""
        run = self.driver.state if self.driver is not None else None
        return run.tool if run is not None and run.task_id == task_id else None

    @property
    def cancellable(self) -> bool:
        """A call or task runs: `x` cancels it (the footer shows it only then)."""
        return self.ticker is not None

    def cancel(self) -> None:
        """A task is asked to cancel (tasks/cancel, and its last status kept); a plain call is abandoned."""
        if self.driver is not None:
            self.driver.cancel()
        elif self.running is not None:
            self.running.cancel()

    def finished(self) -> None:
        """The call's result has arrived: the status line stops ticking."""
        if self.ticker is not None:
            self.ticker.stop()
            self.ticker = None
            self.app.refresh_bindings()  # `x` leaves the footer

    def show(self, record: CallRecord, main: Screen[Any]) -> None:
        """The call's outcome in the status line; its result (checked against the tool's output schema) in a
        dialog when the reviewer waited for it on `main`, else a notification: a call that ran in the
        background never takes the keys from what the reviewer turned to (the Calls tab has it in full)."""
        outcome = f"{one_line(record.tool, 60)}: {one_line(record.outcome, 120)} in {record.latency_ms:.0f} ms"
        self.status(outcome)
        if self.app.screen is not main or self.inputs != self.inputs_at_start:
            self.app.notify(f"{outcome} (the Calls tab shows it in full)", title="call finished", markup=False)
            return
        tool = self.ws.snapshot.tool(record.tool) if self.ws.snapshot else None
        wire = self.ws.connection.wire if self.ws.connection is not None else None
        tokens = reply_tokens(record, wire, self.ws.counter)
        schema = tool.get("outputSchema") if tool else None
        self.app.push_screen(ResultScreen(result_text(record, schema, tokens, partial(status_style, self.app))))

    def _call(
        self, tool: Item, arguments: dict[str, Any], consent: Consent, as_task: bool, sent_invalid: list[str]
    ) -> None:
        name = self.calling = tool.name or ""
        self.inputs_at_start = self.inputs
        self.started = time.monotonic()
        self.progress = ""
        self._tick(name)
        self.ticker = self.app.set_interval(0.5, lambda: self._tick(name))
        self.app.refresh_bindings()  # `x` joins the footer

        def progress(params: dict[str, Any]) -> None:
            total = f"/{params['total']}" if params.get("total") is not None else ""
            message = f" {one_line(str(params['message']), 60)}" if params.get("message") else ""
            self.progress = f" · progress {params.get('progress')}{total}{message}"
            self._tick(name)

        def status(run: TaskRun, seen: Observation) -> None:
            message = f": {one_line(seen.message, 60)}" if seen.message else ""
            self.progress = f" · task {one_line(str(seen.status), 20)}{message}"
            self._tick(name)

        def started(driver: TaskDriver) -> None:
            self.driver = driver

        async def as_a_task(gate: CallGate) -> CallRecord | None:
            try:
                made = await gate.run_task(
                    tool,
                    arguments,
                    purpose="reviewer",
                    consented=consented,
                    deadline=TASK_WAIT,
                    on_status=status,
                    started=started,
                    sent_invalid=sent_invalid,
                )
            finally:
                self.driver = None
            return None if made is None else made[0]

        consented = consent == "reviewer"

        async def job(session: Session, _snapshot: ServerSnapshot) -> None:
            gate = CallGate.for_reviewer(session)
            call = (
                as_a_task(gate)
                if as_task
                else gate.call(
                    tool,
                    arguments,
                    purpose="reviewer",
                    consented=consented,
                    on_progress=progress,
                    sent_invalid=sent_invalid,
                )
            )
            task = asyncio.ensure_future(call)
            self.running = task
            try:
                made = await task
                # the reviewer consented to what the gate asks consent for: it refuses nothing here
                record = made or CallRecord(name, arguments, consent, failure="not called: the policy refused it")
            except asyncio.CancelledError:  # the reviewer's cancel key; the server was told
                record = CallRecord(name, arguments, consent, failure="cancelled by the reviewer")
                record.latency_ms = (time.monotonic() - self.started) * 1000
            finally:
                self.running = None
            self.app.post_message(CallDone(record))

        assert self.ws.connection is not None
        self.ws.connection.submit(job)

    def _tick(self, name: str) -> None:
        elapsed = time.monotonic() - self.started
        # the key before the name and the progress: at 80 columns a long line is cut, never the way out
        self.status(f"calling {one_line(name, 40)} · {elapsed:.1f} s · x to cancel{self.progress}")
