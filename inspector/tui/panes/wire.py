"""The Wire tab: every message that crossed the wire (a filter over all of them), and the highlighted one
in full. `WireView` is what it shows, shared with the Logs tab."""

from __future__ import annotations

import json
from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from mcp_review.connection.wire import WireEntry, WireLog
from mcp_review.text import one_line, visible
from mcp_review.tokens import TokenCounter
from mcp_review.tui.dialogs import ResultScreen
from mcp_review.tui.grid import Grid
from mcp_review.tui.panes.keys import FilteredPane
from mcp_review.tui.panes.table import show_detail
from mcp_review.tui.panes.tail import TailPane

TOKENS_EXACT = 256 * 1024  # messages up to this size have their tokens counted, larger ones estimated


SHOWN = 20_000  # characters of a message shown in a detail pane (its Copy view has the same)
MARGIN = 4096  # dumped past SHOWN: a secret that starts before the cut is whole when it is scrubbed
INDENTED = json.JSONEncoder(indent=2, ensure_ascii=False)


def pretty(message: object, size: int) -> str:
    """A message as indented JSON, dumped only as far as it is shown: this runs on every move of a cursor,
    and dumping a 20 MB message whole would hold the screen for a second to show 20,000 characters of it."""
    chunks, length = [], 0
    for chunk in INDENTED.iterencode(message):
        chunks.append(chunk)
        length += len(chunk)
        if length > SHOWN + MARGIN:
            return visible("".join(chunks), SHOWN, cut=f"… [cut: the message is {size:,} bytes]")
    return visible("".join(chunks), SHOWN)


class WireView:
    """What the Wire and Logs tabs show of the wire log of the current server, in arrival order: its entries as
    they were flushed (see `ReviewScreen.flush_wire`), with each row's text, made once. Which answer answers which
    request is the wire log's link (`WireEntry.links`), read here, never worked out again."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.entries: list[WireEntry] = []
        self.info: list[tuple[str, str]] = []  # per entry: method or id, latency (see _info)
        self.log_index: list[int] = []  # the entries shown in the Logs pane: stderr, logs, what was dropped
        self.log_texts: list[str] = []  # what the Logs filter searches in each (made when first filtered)
        self.http_lines: dict[int, list[WireEntry]] = {}  # HTTP exchange -> its request and response lines
        self.texts: list[str] = []  # per entry, what the filter searches: the row as shown, lower case
        self.tokens: dict[int, str] = {}  # entry -> its tokens cell, counted once (a listing page: ~10 ms)
        self.t0 = 0.0

    def add(self, batch: Sequence[WireEntry]) -> None:
        for entry in batch:
            self.info.append(self._info(entry))
            self.texts.append(f"{entry.direction} {entry.kind} {self.info[-1][0]}".lower())
            self.entries.append(entry)
            if entry.http is not None and entry.exchange is not None:
                self.http_lines.setdefault(entry.exchange, []).append(entry)
            about_log = entry.direction == "note" and entry.conn == 0  # of no connection: what the log dropped
            if entry.direction == "stderr" or about_log or entry.method == "notifications/message":
                self.log_index.append(len(self.entries) - 1)

    def _info(self, entry: WireEntry) -> tuple[str, str]:
        """(method or id, latency): for an answer, the method of the request it answers and the milliseconds
        since that was sent (either way: the server's requests are answered by us), as the wire log linked them."""
        what = entry.method or (f"id {entry.rpc_id}" if entry.rpc_id is not None else "")
        if entry.http:
            what = f"{entry.http.get('method', '')} {entry.http.get('status', '')}".strip()
        elif entry.text:
            what = entry.text[:200]
        self.t0 = self.t0 or entry.t
        link = entry.link if entry.message is not None and entry.method is None else None
        if link is None or link.ms is None:  # not an answer, or one that answers nothing recorded
            return (f"{what} · {link.state}" if link else what), ""
        state = "" if link.state == "paired" else f" ({link.state})"
        return f"{what} · {link.method}{state}", f"{link.ms:.0f}"

    def carried(self, entry: WireEntry) -> list[WireEntry]:
        """The HTTP request and response lines of the exchange that carried `entry` (a message), as shown here."""
        return self.http_lines.get(entry.exchange, []) if entry.exchange is not None and entry.http is None else []

    def entry_text(self, entry: WireEntry, wire: WireLog | None = None) -> Text:
        """One entry (of `wire`, else of this view) in full: what it is, the HTTP request and response (headers too)
        of the exchange that carried it, its pretty JSON or text, and what mcp-review changed in it; bounded."""
        out = Text()
        header = f"#{entry.seq} {entry.direction} {entry.kind}" + (f" · {entry.size:,} bytes" if entry.size else "")
        out.append(header + (f" · connection {entry.conn}\n" if entry.conn else "\n"), style="bold cyan")
        carried = (wire or self).carried(entry)
        for line in [entry] if entry.http is not None else carried[:4]:
            out.append(visible(json.dumps(line.http, indent=2, ensure_ascii=False), 8000) + "\n", style="dim")
        if entry.http is None:
            payload = entry.message if entry.message is not None else entry.text
            out.append((visible(payload, SHOWN) if isinstance(payload, str) else pretty(payload, entry.size)) + "\n")
        if entry.notes:
            out.append("mcp-review changed: " + visible("; ".join(entry.notes), 2000) + "\n", style="dim")
        return out


class WirePane(TailPane, FilteredPane):
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

    def __init__(self, log: WireView, counter: TokenCounter, *, title: str, id: str) -> None:
        super().__init__(title, id=id)  # from the tab's declaration (screen.TABS)
        self.wire_log = log
        self.counter = counter

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter the wire log", id="wire-filter")
        # only the drawn rows and the newest are measured (a row's tokens are counted to draw it): the columns
        # start as wide as most entries need, so they seldom move while scrolling
        least = {"t (s)": 7, "dir": 4, "kind": 12, "ms": 4, "bytes": 6, "tokens": 6}
        yield Grid(self.COLUMNS, caps={"t (s)": 9, "bytes": 9}, least=least, sample=0, id="wire")
        with VerticalScroll(classes="detail"):  # focusable: the keys and the mouse scroll it
            yield Static(id="wire-detail")

    def show(self, first: int, shown: bool) -> None:
        super().show(first, shown)
        count = len(self.wire_log.entries)
        self.query_one("#wire-filter", Input).placeholder = f"filter the wire log ({count:,} entries)"

    def rows(self, start: int = 0) -> list[int]:
        needle = self.query_one("#wire-filter", Input).value.lower()
        texts = self.wire_log.texts
        return [i for i in range(start, len(texts)) if not needle or needle in texts[i]]

    def cells(self, i: int) -> tuple[Text, ...]:
        """#, seconds since the first entry, direction, kind, ms, bytes, tokens, method or id."""
        entry, (what, latency) = self.wire_log.entries[i], self.wire_log.info[i]
        tokens = self.wire_log.tokens.get(i)
        if tokens is None:
            if entry.message is None:
                tokens = ""
            elif entry.size <= TOKENS_EXACT:
                tokens = str(self.counter.count_json(entry.message))
            else:  # counting megabytes would stall the screen: about 4 bytes a token
                tokens = f"≈{entry.size // 4:,}"
            self.wire_log.tokens[i] = tokens
        cells = (str(entry.seq), f"{entry.t - self.wire_log.t0:.3f}", entry.direction, entry.kind)
        return (*map(Text, cells), Text(latency), Text(str(entry.size)), Text(tokens), Text(one_line(what, 36)))

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

    @on(Grid.RowSelected, "#wire")
    def open_entry(self) -> None:
        """Enter: the entry in full, in a scrollable view with Copy."""
        entry = self.highlighted()
        if entry is not None:
            self.app.push_screen(ResultScreen(self.wire_log.entry_text(entry), f"wire entry #{entry.seq}"))
