"""A tab whose table follows a growing log: it keeps the newest WIRE_ROWS rows, makes a row's cells only
when the row is shown, and draws nothing while hidden (it catches up when its tab is shown)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.widgets import DataTable, TabPane

from inspector.tui.panes.table import reset_table

WIRE_ROWS = 500  # rows kept in the wire and log tables (the newest); the filter searches every entry


class TailPane(TabPane):
    COLUMNS: tuple[str, ...] = ()
    stale = False  # something arrived while the tab was hidden

    def rows(self, start: int = 0) -> Sequence[int]:
        """The indexes to show from `start` on (those the filter lets through)."""
        raise NotImplementedError

    def cells(self, i: int) -> tuple[Text, ...]:
        raise NotImplementedError

    def reset(self) -> DataTable[Any]:
        return reset_table(self.query_one(DataTable), self.COLUMNS)

    def show(self, first: int, shown: bool) -> None:
        """Rows from `first` on arrived: add them now if the tab is shown, else when it is."""
        if shown:
            self.append(self.rows(first))
        else:
            self.stale = True

    def catch_up(self) -> None:
        """The tab is shown: draw what arrived while it was hidden."""
        if self.stale:
            self.stale = False
            self.redraw()

    def redraw(self) -> None:
        self.reset()
        self.append(self.rows()[-WIRE_ROWS:])

    def append(self, new: Sequence[int]) -> None:
        """Add rows `new`, or redraw the newest WIRE_ROWS when the table would grow too long."""
        table = self.query_one(DataTable)
        if table.row_count + len(new) > WIRE_ROWS * 3 // 2:
            table = self.reset()
            new = self.rows()[-WIRE_ROWS:]
        for i in new:
            table.add_row(*self.cells(i), key=str(i))
