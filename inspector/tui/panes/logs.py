"""The Logs tab: the server's stderr lines and its notifications/message logs, apart from the
protocol traffic, with mcp-review's note when a flood is no longer kept; Enter shows
one in full; `/` filters them."""

from __future__ import annotations

import json
from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import Input

from mcp_review.text import one_line
from mcp_review.tui.dialogs import ResultScreen
from mcp_review.tui.grid import Grid
from mcp_review.tui.panes.keys import FilteredPane
from mcp_review.tui.panes.tail import TailPane
from mcp_review.tui.panes.wire import WireView

EMPTY = "no log lines yet: the server's stderr and its notifications/message show here"


class LogsPane(TailPane, FilteredPane):
    COLUMNS = ("#", "source", "level", "text")

    def __init__(self, log: WireView, *, title: str, id: str) -> None:
        super().__init__(title, id=id)  # from the tab's declaration (screen.TABS)
        self.wire_log = log

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter the logs: text, source or level", id="log-filter")
        grid = Grid(self.COLUMNS, caps={"source": 24}, id="logs")
        grid.empty = EMPTY
        yield grid

    def show(self, first: int, shown: bool) -> None:
        super().show(first, shown)
        if shown:
            self.show_count(self.query_one(Grid).row_count, len(self.wire_log.log_index))

    def redraw(self, follow: bool = False) -> None:
        super().redraw(follow)
        needle, grid = self.query_one(Input).value.strip(), self.query_one(Grid)
        grid.empty = f"no line matches {needle!r}: / edits the filter, ctrl+u there clears it" if needle else EMPTY
        self.show_count(grid.row_count, len(self.wire_log.log_index))

    @on(Input.Changed, "#log-filter")
    def filter_logs(self) -> None:
        self.redraw()

    @on(Grid.RowSelected, "#logs")
    def open_line(self) -> None:
        i = self.query_one(Grid).current
        if i is not None:
            entry = self.wire_log.entries[self.wire_log.log_index[i]]
            self.app.push_screen(ResultScreen(self.wire_log.entry_text(entry), f"log line #{entry.seq}"))

    def rows(self, start: int = 0) -> Sequence[int]:
        """The lines from `start` on that the filter lets through; what it searches is made once a line."""
        count, needle = len(self.wire_log.log_index), self.query_one("#log-filter", Input).value.lower()
        if not needle:
            return range(start, count)
        texts = self.wire_log.log_texts
        texts += [" ".join(self.line(i)[:3]).lower() for i in range(len(texts), count)]
        return [i for i in range(start, count) if needle in texts[i]]

    def cells(self, i: int) -> tuple[Text, ...]:
        source, level, text, seq = self.line(i)
        return (Text(str(seq)), Text(one_line(source, 40)), Text(one_line(level, 12)), Text(one_line(text, 300)))

    def line(self, i: int) -> tuple[str, str, str, int]:
        """Log line i: its source, level, text and wire seq."""
        entry = self.wire_log.entries[self.wire_log.log_index[i]]
        params = entry.message.get("params") if isinstance(entry.message, dict) else None
        source: str = entry.direction
        level, text = "", entry.text or ""
        if entry.direction == "note":
            source = "mcp-review"
        elif entry.direction != "stderr":
            params = params if isinstance(params, dict) else {}
            data = params.get("data")
            source, level = f"log {params.get('logger') or ''}".strip(), str(params.get("level", ""))
            text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        return source, level, text, entry.seq
