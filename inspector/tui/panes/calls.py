"""The Calls tab: every call the reviewer made or refused here; Enter on one asks the app to call it again."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static, TabPane

from mcp_review.calls import call_command, outcome_said
from mcp_review.connection.wire import WireLog
from mcp_review.targets import Target
from mcp_review.text import one_line, visible
from mcp_review.tui.clipboard import copy_out
from mcp_review.tui.grid import Grid
from mcp_review.tui.messages import CallChosen
from mcp_review.tui.panes.table import show_detail
from mcp_review.tui.panes.wire import WireView


class CallsPane(TabPane):
    COLUMNS = ("tool", "consent", "outcome", "ms", "arguments")
    BINDINGS = [
        # before the table's own Enter, so the footer names it
        Binding("enter", "again", "Call again", id="call-again", priority=True, tooltip="The highlighted call, edited"),
        Binding("y", "copy_cli", "Copy as CLI", id="copy-cli", tooltip="The highlighted call, as CLI"),
        # not `j`: every table moves down with it
        Binding("Y", "copy_json", "Copy as JSON", id="copy-json", show=False, tooltip="The highlighted call, as JSON"),
    ]

    def __init__(self, wire_log: WireView, *, title: str, id: str) -> None:
        super().__init__(title, id=id)  # from the tab's declaration (screen.TABS)
        self.wire_log = wire_log  # shows the request and answer of each call
        self.calls: list[dict[str, Any]] = []
        self.target: Target | None = None  # the server they were made to (for `y`)
        self.wires: dict[int, WireLog] = {}  # id of a call made here -> the wire log its exchange is in

    def compose(self) -> ComposeResult:
        yield Static(Text("no calls yet: c calls the tool highlighted in the Tools tab"), id="calls-empty")
        yield Grid(self.COLUMNS, flex="arguments", zebra_stripes=True, id="calls")
        with VerticalScroll(classes="detail"):  # focusable: the keys and the mouse scroll it
            yield Static(id="call-detail")

    def made(self, call: dict[str, Any], wire: WireLog) -> None:
        """A call made here, now: its exchange is in `wire` (a saved one's is in no log here)."""
        self.wires[id(call)] = wire

    def show(self, calls: list[dict[str, Any]], target: Target | None = None) -> None:
        self.calls, self.target = calls, target or self.target
        # only the logs of the calls shown are kept: another server's log is let go with its calls
        self.wires = {id(c): self.wires[id(c)] for c in calls if id(c) in self.wires}
        self.query_one("#calls-empty").display = not calls
        self.query_one(Grid).show(calls, self.cells)  # the pane hears which call the cursor is on

    @staticmethod
    def cells(call: dict[str, Any]) -> tuple[Text, str, Text, int, Text]:
        return (
            Text(one_line(str(call["tool"]), 50)),
            call["consent"],
            Text(one_line(outcome_said(call), 40)),
            call["latencyMs"],
            Text(one_line(json.dumps(call["arguments"], ensure_ascii=False), 60)),
        )

    @on(Grid.RowHighlighted, "#calls")
    def show_call(self) -> None:
        """The highlighted call in full: its arguments, then the request and the answer as they crossed the wire."""
        call = self.highlighted()
        if call is None:
            show_detail(self, "#call-detail", "")
            return
        detail = Text(f"{one_line(str(call['tool']), 80)} · {call['consent']} · {one_line(outcome_said(call), 200)}")
        detail.append(f" · {call['latencyMs']} ms\n", style="bold")
        detail.append(visible(json.dumps(call["arguments"], indent=2, ensure_ascii=False), 20000) + "\n")
        for problem in call.get("sentInvalid") or []:  # why the inputSchema refuses them, as the editor said
            detail.append(f"invalid: {visible(str(problem), 400)}\n")
        wire, seq = self.wires.get(id(call)), call.get("seq")
        answer = wire.get(seq) if wire is not None and isinstance(seq, int) else None
        if seq is not None and answer is None:  # the same seq names another entry here
            detail.append("its exchange was recorded by an earlier session (a saved review, or another server's)\n")
        for entry in wire.pair_of(answer) if wire is not None and answer is not None else []:
            detail.append_text(self.wire_log.entry_text(entry, wire))
        show_detail(self, "#call-detail", detail)

    def highlighted(self) -> dict[str, Any] | None:
        table = next(self.query(Grid).results(Grid), None)  # none while the screen is torn down
        return None if table is None else table.current

    def action_copy_cli(self) -> None:
        """The highlighted call as an `mcp-review call` command against the server."""
        call = self.highlighted()
        if call is not None and self.target is not None:
            copy_out(self.app, call_command(call, self.target), "the call as an mcp-review call command")

    def action_copy_json(self) -> None:
        call = self.highlighted()
        if call is not None:
            named = {"name": call["tool"], "arguments": call["arguments"]}
            said = json.dumps(named, ensure_ascii=False, allow_nan=False)
            copy_out(self.app, said, "the call as JSON")

    @on(Grid.RowSelected, "#calls")
    def action_again(self) -> None:
        """Enter on a past call (or a click, or the palette): the app opens the call editor with its arguments."""
        call = self.highlighted()
        if call is not None:
            self.post_message(CallChosen(call))
