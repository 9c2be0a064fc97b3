"""A tab whose table follows a growing log: every entry is a row (the grid makes a row's cells only when the
row is drawn), and a hidden tab adds nothing until it is shown."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import TabPane

from mcp_review.tui.grid import Grid


class TailPane(TabPane):
    stale = False  # something arrived while the tab was hidden

    def rows(self, start: int = 0) -> Sequence[int]:
        """The indexes to show from `start` on (those the filter lets through)."""
        raise NotImplementedError

    def cells(self, i: int) -> tuple[Text, ...]:
        raise NotImplementedError

    def show(self, first: int, shown: bool) -> None:
        """Rows from `first` on arrived: add them now if the tab is shown, else when it is."""
        if shown:
            self.query_one(Grid).append(self.rows(first))
        else:
            self.stale = True

    def catch_up(self) -> None:
        """The tab is shown: draw what arrived while it was hidden (a cursor left on the last row follows it,
        as it does while the tab is shown)."""
        if self.stale:
            self.stale = False
            self.redraw(follow=True)

    def redraw(self, follow: bool = False) -> None:
        grid, rows = self.query_one(Grid), self.rows()
        at_end = follow and grid.row_count > 0 and grid.cursor_row == grid.row_count - 1
        grid.show(rows, self.cells, cursor=len(rows) - 1 if at_end else None)
