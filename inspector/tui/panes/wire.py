"""The Wire tab: every message that crossed the wire (a filter over all of them), and the highlighted one
in full. `WireView` is what it shows, shared with the Logs tab."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from mcp_review.behaviour import said
from mcp_review.connection.wire import WireEntry, WireLog
from mcp_review.report.markdown import item_of
from mcp_review.sandbox import RUNS
from mcp_review.text import one_line, visible
from mcp_review.tokens import TokenCounter
from mcp_review.tui.dialogs import ResultScreen
from mcp_review.tui.grid import Grid
from mcp_review.tui.panes.keys import FilteredPane
from mcp_review.tui.panes.table import show_detail
from mcp_review.tui.panes.tail import TailPane

SHOWN = 20_000  # characters of a message shown in a detail pane (its Copy view has the same)
MARGIN = 4096  # dumped past SHOWN: a secret that starts before the cut is whole when it is scrubbed
INDENTED = json.JSONEncoder(indent=2, ensure_ascii=False)


SEARCHED = 64 * 1024  # characters of a message's JSON the filter searches (a 20 MB one is searched in its start)
COMPACT = json.JSONEncoder(ensure_ascii=False)
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}  # what a request's row names


def dumped(message: object, limit: int, encoder: json.JSONEncoder = INDENTED) -> tuple[str, bool]:
    """A message's JSON up to about `limit` characters, and whether it was cut: dumped only as far as it is
    used, as dumping a 20 MB message whole would hold the screen for a second."""
    chunks, length = [], 0
    for chunk in encoder.iterencode(message):
        chunks.append(chunk)
        length += len(chunk)
        if length > limit:
            return "".join(chunks), True
    return "".join(chunks), False


def pretty(message: object, size: int) -> str:
    """A message as indented JSON, as far as it is shown (this runs on every move of a cursor)."""
    text, cut = dumped(message, SHOWN + MARGIN)
    return visible(text, SHOWN, cut=f"… [cut: the message is {size:,} bytes]") if cut else visible(text, SHOWN)


def request_label(entry: WireEntry) -> str:
    """A request's method with what it names: `tools/call search`, `resources/read file:///x`."""
    method, message = entry.method or "", entry.message
    params = message.get("params") if isinstance(message, dict) else None
    named = params.get(NAMED[method]) if method in NAMED and isinstance(params, dict) else None
    return f"{method} {one_line(named, 80)}" if isinstance(named, str) else method


def searched_in(entries: list[WireEntry], texts: list[str], bodies: dict[int, str], i: int) -> str:
    """What the filter searches in entry i of a view's log: its row, and its message's JSON (its first SEARCHED
    characters) or its text, lower case; made once into `bodies`. The filter's thread passes the lists it started
    with: another server's log clears the view under it, and nothing of the old log lands in the new one's."""
    found = bodies.get(i)
    if found is None:
        entry = entries[i]
        body = (entry.text or "") if entry.message is None else dumped(entry.message, SEARCHED, COMPACT)[0]
        found = bodies[i] = f"{texts[i]} {body[:SEARCHED]}".lower()
    return found


class WireView:
    """What the Wire and Logs tabs show of the wire log of the current server, in arrival order: its entries as
    they were flushed (see `ReviewScreen.flush_wire`), with each row's text, made once. Which answer answers which
    request is the wire log's link (`WireEntry.links`), read here, never worked out again."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.entries: list[WireEntry] = []
        self.at: dict[int, int] = {}  # seq -> the entry's place in `entries`
        self.labels: dict[int, str] = {}  # a request's seq -> its method and what it names (see `request_label`)
        self.bodies: dict[int, str] = {}  # entry -> what the filter searches: its row and its JSON, lower case
        self.info: list[tuple[str, str]] = []  # per entry: method or id, latency (see _info)
        self.log_index: list[int] = []  # the entries shown in the Logs pane: stderr, logs, what was dropped
        self.event_index: list[int] = []  # the entries shown in the Behaviour pane: what the server was seen doing
        self.runs_said: dict[int, str] = {}  # connection -> how its server runs, as its note says (`sandbox.Ran`)
        self.log_texts: list[str] = []  # what the Logs filter searches in each (made when first filtered)
        self.http_lines: dict[int, list[WireEntry]] = {}  # HTTP exchange -> its request and response lines
        self.texts: list[str] = []  # per entry, what the filter searches: the row as shown, lower case
        self.tokens: dict[int, str] = {}  # entry -> its tokens cell, counted once (a listing page: ~10 ms)
        self.t0 = 0.0

    def add(self, batch: Sequence[WireEntry]) -> None:
        for entry in batch:
            self.at[entry.seq] = len(self.entries)
            if entry.method is not None and entry.rpc_id is not None:
                self.labels[entry.seq] = request_label(entry)
            self.info.append(self._info(entry))
            self.texts.append(f"{entry.direction} {entry.kind} {self.info[-1][0]}".lower())
            self.entries.append(entry)
            if entry.http is not None and entry.exchange is not None:
                self.http_lines.setdefault(entry.exchange, []).append(entry)
            about_log = entry.direction == "note" and entry.conn == 0  # of no connection: what the log dropped
            if entry.direction == "stderr" or about_log or entry.method == "notifications/message":
                self.log_index.append(len(self.entries) - 1)
            elif entry.direction == "event":
                self.event_index.append(len(self.entries) - 1)
            elif entry.direction == "note" and (entry.text or "").startswith(RUNS):
                self.runs_said[entry.conn] = entry.text or ""

    def _info(self, entry: WireEntry) -> tuple[str, str]:
        """(method or id, latency): for an answer, the method of the request it answers and the milliseconds
        since that was sent (either way: the server's requests are answered by us), as the wire log linked them."""
        what = self.labels.get(entry.seq) or entry.method or (f"id {entry.rpc_id}" if entry.rpc_id is not None else "")
        if entry.http:
            what = f"{entry.http.get('method', '')} {entry.http.get('status', '')}".strip()
        elif entry.event is not None:
            what = said(entry)
        elif entry.text:
            what = entry.text[:200]
        self.t0 = self.t0 or entry.t
        link = entry.link if entry.message is not None and entry.method is None else None
        if link is None or link.ms is None:  # not an answer, or one that answers nothing recorded
            return (f"{what} · {link.state}" if link else what), ""
        state = "" if link.state == "paired" else f" ({link.state})"
        asked = self.labels.get(link.request or 0) or link.method
        return f"← #{link.request} {asked}{state} · {what}", f"{link.ms:.0f}"

    def searched(self, i: int) -> str:
        """What the filter searches in entry i (see `searched_in`)."""
        return searched_in(self.entries, self.texts, self.bodies, i)

    def pair(self, i: int) -> int | None:
        """Where the other side of entry i is: the request an answer answers, or a request's first answer."""
        entry = self.entries[i]
        link = entry.link
        seq = link.request if link is not None and link.answers else entry.answered[0] if entry.answered else None
        return None if seq is None else self.at.get(seq)

    def paired_with(self, entry: WireEntry, wire: WireLog | None = None) -> str:
        """The entry's link (in `wire`, else in this view), in words: what request it answers (and how soon), or
        which entries answered it."""
        link = entry.link
        if entry.method is None and link is not None and link.request is not None:
            request = wire.get(link.request) if wire is not None else None
            asked = (request_label(request) if request else self.labels.get(link.request)) or link.method or ""
            ms = f" after {link.ms:.0f} ms" if link.ms is not None else ""
            return f"answers #{link.request} {asked}{ms}" + ("" if link.state == "paired" else f" ({link.state})")
        if entry.answered:
            return "answered by " + ", ".join(f"#{seq}" for seq in entry.answered[:4])
        return "no answer yet" if entry.method is not None and entry.rpc_id is not None else ""

    def carried(self, entry: WireEntry) -> list[WireEntry]:
        """The HTTP request and response lines of the exchange that carried `entry` (a message), as shown here."""
        return self.http_lines.get(entry.exchange, []) if entry.exchange is not None and entry.http is None else []

    def entry_text(self, entry: WireEntry, wire: WireLog | None = None, subject: str | None = None) -> Text:
        """One entry (of `wire`, else of this view) in full: what it is, the HTTP request and response (headers too)
        of the exchange that carried it, its pretty JSON or text, and what mcp-review changed in it; bounded. With
        `subject` (a finding's), a listing shows only the subject's own item, as the markdown export quotes it."""
        out = Text()
        header = f"#{entry.seq} {entry.direction} {entry.kind}" + (f" · {entry.size:,} bytes" if entry.size else "")
        out.append(header + (f" · connection {entry.conn}\n" if entry.conn else "\n"), style="bold cyan")
        if pairing := self.paired_with(entry, wire):
            out.append(pairing + "\n", style="cyan")
        carried = (wire or self).carried(entry)
        for line in [entry] if entry.http is not None else carried[:4]:
            out.append(visible(json.dumps(line.http, indent=2, ensure_ascii=False), 8000) + "\n", style="dim")
        item = item_of(entry.message, subject) if entry.http is None else None
        if item is not None:
            out.append(f"{item[0]}, the entry of {one_line(subject or '', 80)} (the whole message: ", style="dim")
            out.append(f"#{entry.seq} in the Wire tab)\n", style="dim")
            out.append(pretty(item[1], entry.size) + "\n")
        elif entry.http is None:
            payload = entry.message if entry.message is not None else entry.event or entry.text
            out.append((visible(payload, SHOWN) if isinstance(payload, str) else pretty(payload, entry.size)) + "\n")
        if entry.notes:
            out.append("mcp-review changed: " + visible("; ".join(entry.notes), 2000) + "\n", style="dim")
        return out


EMPTY = "nothing crossed the wire yet: ctrl+r reconnects, ctrl+o connects to another server"


class WirePane(TailPane, FilteredPane):
    """Every entry, filtered by what it says (its row and its message, see `WireView.searched`): a new filter is
    applied in a thread, so typing into it never waits on a big log; `p` goes to an entry's pair."""

    COLUMNS = (
        "#",
        "t (s)",
        "dir",
        "kind",
        "ms",
        "bytes",
        "tokens",
        "method / id",
    )  # at 80 columns only the last is cut

    BINDINGS = [Binding("p", "pair", "Pair", id="wire-pair", tooltip="The request an answer answers, or its answer")]

    def __init__(self, log: WireView, counter: TokenCounter, *, title: str, id: str) -> None:
        super().__init__(title, id=id)  # from the tab's declaration (screen.TABS)
        self.wire_log = log
        self.counter = counter

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter the wire log", id="wire-filter")
        # only the drawn rows and the newest are measured (a row's tokens are counted to draw it): the columns
        # start as wide as most entries need, so they seldom move while scrolling
        least = {"t (s)": 7, "dir": 4, "kind": 12, "ms": 4, "bytes": 6, "tokens": 6}
        grid = Grid(self.COLUMNS, caps={"t (s)": 9, "bytes": 9}, least=least, sample=0, id="wire")
        grid.empty = EMPTY
        yield grid
        with VerticalScroll(classes="detail"):  # focusable: the keys and the mouse scroll it
            yield Static(id="wire-detail")

    def show(self, first: int, shown: bool) -> None:
        super().show(first, shown)
        count = len(self.wire_log.entries)
        self.query_one("#wire-filter", Input).placeholder = f"filter the wire log ({count:,} entries): text, JSON"
        if shown:
            self.show_count(self.query_one(Grid).row_count, count)

    def needle(self) -> str:
        return self.query_one("#wire-filter", Input).value.lower()

    def rows(self, start: int = 0) -> Sequence[int]:
        needle, view = self.needle(), self.wire_log
        count = len(view.entries)
        return [i for i in range(start, count) if needle in view.searched(i)] if needle else range(start, count)

    def redraw(self, follow: bool = False) -> None:
        """Without a filter at once; with one, searched in a thread (the first search of a big log dumps every
        message once), then shown if it is still the filter typed."""
        if not self.needle():
            super().redraw(follow)
            self.query_one(Grid).empty = EMPTY
            self.show_count(self.query_one(Grid).row_count, len(self.wire_log.entries))
            return
        search = partial(self._search, self.needle(), follow)
        self.run_worker(search, thread=True, exclusive=True, group="wire-filter")

    def _search(self, needle: str, follow: bool) -> None:
        view, worker = self.wire_log, get_current_worker()
        entries, texts, bodies, rows = view.entries, view.texts, view.bodies, []
        count = len(entries)  # an entry is added after its row's text
        for i in range(count):
            if i % 500 == 0 and (worker.is_cancelled or entries is not view.entries):
                return
            if needle in searched_in(entries, texts, bodies, i):
                rows.append(i)
        self.app.call_from_thread(self._searched, needle, entries, (rows, count), follow)

    def _searched(self, needle: str, entries: list[WireEntry], found: tuple[list[int], int], follow: bool) -> None:
        """The search's rows, if the filter and the log are still those it searched, and what arrived since."""
        view, grid = self.wire_log, self.query_one(Grid)
        if needle != self.needle() or entries is not view.entries:
            return
        rows, searched = found  # the entries found among the first `searched`
        rows += self.rows(searched)
        at_end = follow and grid.row_count > 0 and grid.cursor_row == grid.row_count - 1
        grid.show(rows, self.cells, cursor=len(rows) - 1 if at_end else None)
        grid.empty = f"no entry matches {needle!r}: / edits the filter, ctrl+u there clears it"
        self.show_count(len(rows), len(entries))

    def cells(self, i: int) -> tuple[Text, ...]:
        """#, seconds since the first entry, direction, kind, ms, bytes, tokens, method or id."""
        entry, (what, latency) = self.wire_log.entries[i], self.wire_log.info[i]
        tokens = self.wire_log.tokens.get(i)
        if tokens is None:
            tokens = "" if entry.message is None else str(self.counter.count_sent(entry.message, entry.size))
            self.wire_log.tokens[i] = tokens
        cells = (str(entry.seq), f"{entry.t - self.wire_log.t0:.3f}", entry.direction, entry.kind)
        return (*map(Text, cells), Text(latency), Text(str(entry.size)), Text(tokens), Text(one_line(what, 60)))

    @on(Input.Changed, "#wire-filter")
    def filter_wire(self) -> None:
        self.redraw()

    def highlighted(self) -> WireEntry | None:
        i = self.query_one(Grid).current
        return None if i is None else self.wire_log.entries[i]

    @on(Grid.RowHighlighted, "#wire")
    def show_entry(self) -> None:
        entry = self.highlighted()
        detail = self.wire_log.entry_text(entry) if entry else Text("no entry matches the filter", style="dim")
        show_detail(self, "#wire-detail", detail)

    def action_pair(self) -> None:
        """To the other side of the highlighted entry (the filter is cleared when it hides it)."""
        i = self.query_one(Grid).current
        other = None if i is None else self.wire_log.pair(i)
        if other is None:
            self.notify("this entry answers no request, and no answer to it was recorded")
            return
        grid = self.query_one(Grid)
        if other in grid.rows:
            grid.move_cursor(grid.rows.index(other))
            return
        with self.prevent(Input.Changed):  # shown at once, not searched again
            self.query_one(Input).value = ""
        self.redraw()
        # once the grid has its new height: scrolled sooner, the cursor's row was clamped to the filtered rows' height
        self.call_after_refresh(grid.move_cursor, other)

    @on(Grid.RowSelected, "#wire")
    def open_entry(self) -> None:
        """Enter: the entry in full, in a scrollable view with Copy."""
        entry = self.highlighted()
        if entry is not None:
            self.app.push_screen(ResultScreen(self.wire_log.entry_text(entry), f"wire entry #{entry.seq}"))
