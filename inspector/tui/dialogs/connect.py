"""Connecting: a server found in config files or a recent one, or a command or URL typed in."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Static

from inspector.text import one_line
from inspector.tui.dialogs.common import DIALOG_CSS


class ConnectScreen(ModalScreen[dict[str, str] | None]):
    """Pick a server found in config files or a recent one, or type a command or URL (with headers, bearer)."""

    DEFAULT_CSS = DIALOG_CSS + "#choices { height: 1fr; }"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="cancel-connect")]

    def __init__(self, choices: list[tuple[str, str, dict[str, str]]], current: str) -> None:
        super().__init__()
        self.choices = choices  # (label, where from, form values)
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text("Connect to an MCP server (enter a row, or type below and press Connect)", style="bold"))
            yield DataTable(id="choices", cursor_type="row")
            yield Input(
                value=self.current,
                placeholder="a command (python server.py) or a URL (http://127.0.0.1:8000/mcp)",
                id="what",
            )
            yield Input(placeholder="headers, e.g. X-Team: a; X-Env: dev (HTTP only)", id="headers")
            yield Input(placeholder="bearer token (HTTP only; not remembered)", password=True, id="bearer")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Connect", id="connect", variant="primary")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("server", "from")
        for i, (label, where, _values) in enumerate(self.choices):
            table.add_row(Text(one_line(label, 80)), Text(one_line(where, 60)), key=str(i))

    def on_data_table_row_selected(self, event: Any) -> None:
        self.dismiss(self.choices[int(event.row_key.value)][2])

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        if event.button.id != "connect":
            self.dismiss(None)
            return
        values = {key: self.query_one(f"#{key}", Input).value.strip() for key in ("what", "headers", "bearer")}
        if values["what"]:
            self.dismiss(values)
