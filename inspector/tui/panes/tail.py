"""A tab whose table follows a growing log: every entry is a row (the grid makes a row's cells only when the
row is drawn), and a hidden tab adds nothing until it is shown."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import TabPane

from inspector.tui.grid import Grid


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
        """The tab is shown: draw what arrived while it was hidden."""
        if self.stale:
            self.stale = False
            self.redraw()

    def redraw(self) -> None:
        self.query_one(Grid).show(self.rows(), self.cells)
