"""The Behaviour tab: what the server was observed doing (mcp_review.behaviour), per request: the files it opened
or changed, the connections and DNS lookups it attempted, the programs it started, each with where it lies in the
server's view and what the confinement answered. By default only what stands out (`behaviour.notable`: not the
reads of its own, the system's or its working directory's files); `a` shows every event. `/` filters, Enter shows
an event in full. Its title line says how the server runs (confined, observed, or why not)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static

from mcp_review import behaviour
from mcp_review.connection.wire import WireEntry
from mcp_review.text import one_line
from mcp_review.tui.dialogs import ResultScreen
from mcp_review.tui.grid import Grid
from mcp_review.tui.panes.keys import FilteredPane
from mcp_review.tui.panes.tail import TailPane
from mcp_review.tui.panes.wire import WireView

UNOBSERVED = (
    "nothing observed: the server runs unobserved (start mcp-review with --observe, or --calls all / --probe), "
    "or it is not a stdio server mcp-review started"
)


class BehaviourPane(TailPane, FilteredPane):
    COLUMNS = ("#", "request", "where", "result", "event")
    BINDINGS = [Binding("a", "all_events", "All events", id="behaviour-all", tooltip="Also its own files' reads")]

    def __init__(self, log: WireView, *, title: str, id: str) -> None:
        super().__init__(title, id=id)  # from the tab's declaration (screen.TABS)
        self.wire_log = log
        self.every = False  # every event, or only what stands out
        self.how = ""  # how the server runs, as its process's note said

    def compose(self) -> ComposeResult:
        yield Static(UNOBSERVED, id="behaviour-how")
        yield Input(placeholder="filter the events: path, host, program, request", id="behaviour-filter")
        grid = Grid(self.COLUMNS, caps={"request": 28, "where": 8, "result": 12}, id="behaviour")
        grid.empty = UNOBSERVED
        yield grid

    def show(self, first: int, shown: bool) -> None:
        for i in self.wire_log.event_index[first:]:
            entry = self.wire_log.entries[i]
            if entry.conn in self.wire_log.runs_said:
                self.how = self.wire_log.runs_said[entry.conn]
        super().show(first, shown)
        if shown:
            self._said()

    def redraw(self, follow: bool = False) -> None:
        super().redraw(follow)
        needle, grid = self.query_one(Input).value.strip(), self.query_one(Grid)
        grid.empty = (
            f"no event matches {needle!r}: / edits the filter, ctrl+u there clears it" if needle else UNOBSERVED
        )
        self._said()

    def _said(self) -> None:
        total = len(self.wire_log.event_index)
        self.show_count(self.query_one(Grid).row_count, total)
        which = "every event" if self.every else "what stands out (a: every event)"
        how = re.sub(r"\s*\([^)]*\)", "", self.how) or "how the server runs shows once it has started"
        self.query_one("#behaviour-how", Static).update(Text(f"{one_line(how, 200)} · {total:,} events · {which}"))

    def action_all_events(self) -> None:
        self.every = not self.every
        self.redraw()

    @on(Input.Changed, "#behaviour-filter")
    def filter_events(self) -> None:
        self.redraw()

    @on(Grid.RowSelected, "#behaviour")
    def open_event(self) -> None:
        i = self.query_one(Grid).current
        if i is not None:
            entry = self.wire_log.entries[self.wire_log.event_index[i]]
            self.app.push_screen(ResultScreen(self.wire_log.entry_text(entry), f"event #{entry.seq}"))

    def _entry(self, i: int) -> WireEntry:
        return self.wire_log.entries[self.wire_log.event_index[i]]

    def rows(self, start: int = 0) -> Sequence[int]:
        """The events from `start` on that the toggle and the filter let through."""
        needle = self.query_one("#behaviour-filter", Input).value.lower()
        count = len(self.wire_log.event_index)
        if self.every and not needle:
            return range(start, count)
        return [
            i
            for i in range(start, count)
            if (self.every or behaviour.notable(self._entry(i)))
            and (not needle or needle in " ".join(c.plain for c in self.cells(i)).lower())
        ]

    def cells(self, i: int) -> tuple[Text, ...]:
        entry = self._entry(i)
        event = entry.event or {}
        request = event.get("request")
        what = f"tools/call {event['tool']}" if event.get("tool") else str(event.get("method") or "")
        asked = f"#{request} {what}" + (" (after)" if event.get("phase") == "after" else "") if request else "start-up"
        return (
            Text(str(entry.seq)),
            Text(one_line(asked, 60)),
            Text(str(event.get("where", ""))),
            Text(str(event.get("result", "")), style="" if event.get("result") == "ok" else "bold"),
            Text(one_line(behaviour.said(entry), 300)),
        )
