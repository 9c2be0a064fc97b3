"""Keys the panes share: a pane with a filter focuses it with `/` and leaves it with Escape, what was typed
kept (the tables' own keys are on `Grid`)."""

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

    def action_focus_filter(self) -> None:
        self.query_one(Input).focus()

    def action_leave_filter(self) -> None:
        self.query_one(Grid).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape is the filter's only while the filter has the focus; else it is the app's (closing help)."""
        if action == "leave_filter":
            return isinstance(self.screen.focused, Input)
        return True
