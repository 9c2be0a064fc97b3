"""The Calls tab: every call the reviewer made or refused here; Enter on one asks the app to call it again."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import DataTable, TabPane

from inspector.calls import call_command
from inspector.targets import Target
from inspector.text import one_line
from inspector.tui.messages import CallChosen
from inspector.tui.panes.table import reset_table


class CallsPane(TabPane):
    COLUMNS = ("tool", "consent", "outcome", "ms", "arguments")

    def __init__(self) -> None:
        super().__init__("Calls", id="tab-calls")
        self.calls: list[dict[str, Any]] = []

    def compose(self) -> ComposeResult:
        yield DataTable(id="calls", cursor_type="row", zebra_stripes=True)

    def show(self, calls: list[dict[str, Any]]) -> None:
        self.calls = calls
        table = reset_table(self.query_one(DataTable), self.COLUMNS)
        for i, call in enumerate(calls):
            table.add_row(
                Text(one_line(str(call["tool"]), 50)),
                call["consent"],
                Text(one_line(str(call["outcome"]), 40)),
                call["latencyMs"],
                Text(one_line(json.dumps(call["arguments"], ensure_ascii=False), 60)),
                key=str(i),
            )

    def highlighted(self) -> dict[str, Any] | None:
        table = self.query_one(DataTable)
        return self.calls[table.cursor_row] if table.row_count and table.cursor_row < len(self.calls) else None

    def copy_cli(self, target: Target) -> None:
        """The highlighted call as an `mcp-review call` command against `target`."""
        call = self.highlighted()
        if call is not None:
            self.app.copy_to_clipboard(call_command(call, target))
            self.notify("copied as an mcp-review call command")

    def copy_json(self) -> None:
        call = self.highlighted()
        if call is not None:
            self.app.copy_to_clipboard(
                json.dumps({"name": call["tool"], "arguments": call["arguments"]}, ensure_ascii=False)
            )
            self.notify("copied as JSON")

    @on(DataTable.RowSelected, "#calls")
    def choose(self, event: DataTable.RowSelected) -> None:
        """Enter on a past call: the app opens the call editor with its arguments."""
        self.post_message(CallChosen(self.calls[event.cursor_row]))
