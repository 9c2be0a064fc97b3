"""Keys the panes share: a table's Home and End move its cursor (Textual's DataTable scrolls sideways on them),
and a pane with a filter focuses it with `/` and leaves it with Escape, what was typed kept."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widgets import DataTable, Input, TabPane


class RowTable(DataTable[Any]):
    """A row table whose Home and End go to the first and last row, as in every list a TUI user knows."""

    BINDINGS = [
        Binding("home", "scroll_top", "First row", show=False),
        Binding("end", "scroll_bottom", "Last row", show=False),
    ]


class FilteredPane(TabPane):
    """A tab with an `Input` filter over a table: `/` goes to the filter, Escape back to the table (the filter
    stays as typed, so `q` and the other keys work again)."""

    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", id="filter", tooltip="Filter the current tab"),
        Binding("escape", "leave_filter", "Leave filter", id="leave-filter", show=False),
    ]

    def action_focus_filter(self) -> None:
        self.query_one(Input).focus()

    def action_leave_filter(self) -> None:
        self.query_one(DataTable).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape is the filter's only while the filter has the focus; else it is the app's (closing help)."""
        if action == "leave_filter":
            return isinstance(self.screen.focused, Input)
        return True
