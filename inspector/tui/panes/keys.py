"""Keys the panes share: a pane with a filter focuses it with `/` and leaves it with Escape, what was typed
kept (the tables' own keys are on `Grid`); the filter's frame counts what it lets through."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input, TabPane

from mcp_review.tui.grid import Grid


class FilteredPane(TabPane):
    """A tab with an `Input` filter over a table: `/` goes to the filter, Escape back to the table (the filter
    stays as typed, so `q` and the other keys work again)."""

    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", id="filter", tooltip="Filter the current tab"),
        Binding("escape", "leave_filter", "Leave filter", id="leave-filter", show=False),
    ]

    def show_count(self, shown: int, total: int) -> None:
        """The filter's frame says how many of the rows it lets through ("2 of 10,000"), while it filters."""
        filter_input = self.query_one(Input)
        filter_input.border_title = f"{shown:,} of {total:,}" if filter_input.value.strip() else None

    @property
    def count(self) -> str:
        """What the filter's frame says ("" when nothing is filtered)."""
        return str(self.query_one(Input).border_title or "")

    def action_focus_filter(self) -> None:
        self.query_one(Input).focus()

    def action_leave_filter(self) -> None:
        self.query_one(Grid).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape is the filter's only while the filter has the focus; else it is the app's (closing help)."""
        if action == "leave_filter":
            return isinstance(self.screen.focused, Input)
        return True
