"""The Tools tab: every tool with its token costs, annotation badges and worst finding; a filter (text and
`status:X` words), sorting by any column, and the highlighted tool in full (Enter: every section); `a` on a tool
that shows an MCP App opens its resource in the Resources tab."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static

from mcp_review.apps import links
from mcp_review.calls import effective_hints
from mcp_review.catalog import Item, ServerSnapshot
from mcp_review.costs import Costs
from mcp_review.encodings import ENCODINGS
from mcp_review.review import STATUSES, Review, rank
from mcp_review.text import one_line, visible
from mcp_review.tokens import ESTIMATES, TokenCounter
from mcp_review.tui.dialogs import ToolScreen
from mcp_review.tui.grid import Cell, Grid
from mcp_review.tui.messages import AppAsked, CallAsked, PreviewAsked
from mcp_review.tui.panes.keys import FilteredPane
from mcp_review.tui.panes.table import show_detail, split_filter
from mcp_review.tui.styles import status_style

HINT_BADGES = (("readOnlyHint", "RO"), ("destructiveHint", "D"), ("idempotentHint", "I"), ("openWorldHint", "OW"))


def badges(tool: Any) -> Text:
    """Annotation badges: bright when the server set the hint, dim when it is the spec default. A read-only tool
    shows no default D or I: the spec gives them meaning only when readOnlyHint is false (a dim `RO D` read as a
    contradiction); one the server set itself is shown, as it said it."""
    out, hints = Text(), effective_hints(tool)
    read_only = hints["readOnlyHint"][0]
    for hint, label in HINT_BADGES:
        value, explicit = hints[hint]
        if value and (explicit or not (read_only and hint in ("destructiveHint", "idempotentHint"))):
            out.append(f"{label} ", style="bold" if explicit else "dim")
    return out


def worst_by_subject(review: Review | None) -> dict[str, str]:
    """Each subject's worst status; a waived finding no longer counts against it. One pass over every finding
    (110,000 on 10,000 tools): made once per review shown, off the app's loop where it can be (`ChecksDone`,
    `Reopened`), each status ranked by a dict look-up."""
    ranks: dict[str, int] = {status: i for i, status in enumerate(STATUSES)}
    passed, none = ranks["pass"], len(STATUSES)
    worst: dict[str, int] = {}
    for f in review.findings if review else []:
        if f.subject is not None and (at := ranks.get(f.effective, passed)) < worst.get(f.subject, none):
            worst[f.subject] = at
    return {subject: STATUSES[at] for subject, at in worst.items()}


def searched(tool: Item) -> str:
    """What the filter searches in a tool: its name, description and its arguments' names, lower case."""
    schema = tool.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    arguments = " ".join(map(str, properties)) if isinstance(properties, dict) else ""
    return f"{tool.key} {tool.description or ''} {arguments}".lower()


class ToolRow(NamedTuple):
    item: Item
    tokens: dict[str, int]  # its breakdown in the default encoding
    status: str  # its worst finding's


DIGITS = re.compile(r"(\d+)")


def natural(name: str) -> list[str | int]:
    """A name's sort key as a reader expects it: `tool_9` before `tool_10`, case aside."""
    return [int(part) if part.isdigit() else part for part in DIGITS.split(name.lower())]


SORT_KEYS: dict[str, Callable[[ToolRow], Any]] = {
    "tool": lambda r: natural(r.item.key),
    "total": lambda r: r.tokens["total"],
    "descr": lambda r: r.tokens.get("description", 0),
    "input": lambda r: r.tokens.get("inputSchema", 0),
    "output": lambda r: r.tokens.get("outputSchema", 0),
    "annotations": lambda r: badges(r.item.raw).plain,
    "status": lambda r: rank(r.status),
}


class ToolsPane(FilteredPane):
    COLUMNS = ("tool", "total", "descr", "input", "output", "annotations", "status")
    BINDINGS = [
        Binding("c", "call", "Call", id="call-tool", tooltip="Call the highlighted tool (form or JSON)"),
        Binding("a", "app", "App", id="open-app", tooltip="The app resource this tool shows (Resources tab)"),
        Binding("b", "browser", "Browser", id="app-browser", tooltip="Its app in your browser (b again: close)"),
        # no display needed: what `mcp-review app TOOL --headless` does, from the app
        Binding("B", "headless", "Headless", id="app-headless", tooltip="Its app in a confined headless Chromium"),
        Binding("s", "sort", "Sort", id="sort", tooltip="By the next column (its header shows ▲ or ▼)"),
        Binding("S", "sort(True)", "Reverse sort", id="reverse-sort", show=False, tooltip="The other way round"),
    ]

    def __init__(self, counter: TokenCounter, *, title: str, id: str) -> None:
        super().__init__(title, id=id)  # from the tab's declaration (screen.TABS)
        self.counter = counter
        self.snapshot: ServerSnapshot | None = None
        self.review: Review | None = None
        self.costs: Costs | None = None  # the snapshot's: each tool's breakdown, per encoding
        self.tool_tokens: list[dict[str, int]] = []  # each tool's breakdown in the default encoding
        self.worst: dict[str, str] = {}  # each tool's worst status in the review
        self.texts: list[str] = []  # what the filter searches in each tool, lower case
        self.sorting: tuple[str, bool] = ("total", True)
        self.apps = False  # does any tool name an app? `a` and `b` are in the footer only then (80 columns fit)

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter by name, description, argument; status:fail…", id="tool-filter")
        grid = Grid(self.COLUMNS, flex="tool", zebra_stripes=True, id="tools")
        grid.empty = "no tools yet: connecting (ctrl+r reconnects, ctrl+o connects to another server)"
        yield grid
        yield Static(id="tool-detail")

    def show(self, snapshot: ServerSnapshot, costs: Costs, review: Review | None, worst: dict[str, str]) -> None:
        """The tools with their costs (the default encoding's, counted before the connection said it was up) and
        their worst findings (`worst_by_subject` of `review`, made once per review, not per keystroke)."""
        figures = costs.counted(self.counter.encoding)
        listed = snapshot is not self.snapshot  # a review shown again on the same listing: its texts are made
        self.snapshot, self.costs, self.review = snapshot, costs, review
        self.tool_tokens = figures.tools if figures else [{"total": 0} for _ in snapshot.tools]
        self.worst = worst
        if listed:
            self.texts = [searched(item) for item in snapshot.tools]
            apps = any(links(item) for item in snapshot.tools)
            if apps != self.apps:
                self.apps = apps
                self.refresh_bindings()
        self.refill(self.query_one(Input).value)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The app keys only for a server with an app: a server of plain tools keeps its footer to what it can do."""
        return self.apps if action in ("app", "browser", "headless") else super().check_action(action, parameters)

    def jump(self, index: int) -> None:
        """Show every tool again and highlight this one."""
        self.query_one(Input).value = ""
        self.refill("")
        self._cursor_to(index)
        self.query_one(Grid).focus()

    def _cursor_to(self, index: int) -> None:
        """The cursor on the tool `index` of the snapshot (where the filter and the order put it)."""
        table = self.query_one(Grid)
        table.move_cursor(next((i for i, row in enumerate(table.rows) if row.item.index == index), 0))

    def highlighted(self) -> Item | None:
        table = next(self.query(Grid).results(Grid), None)  # none while the screen is torn down
        row = None if table is None else table.current
        return None if row is None else row.item

    def refill(self, needle: str) -> None:
        """The tools matching `needle` (text, and `status:X` words), in the chosen order (costliest first)."""
        if self.snapshot is None:
            return
        statuses, text_needle = split_filter(needle)
        rows = []
        for item, text in zip(self.snapshot.tools, self.texts, strict=True):
            status = self.worst.get(item.key, "")
            if (text_needle and text_needle not in text) or (statuses and status not in statuses):
                continue
            rows.append(ToolRow(item, self.tool_tokens[item.index], status))
        column, reverse = self.sorting
        rows.sort(key=SORT_KEYS[column], reverse=reverse)
        table = self.query_one(Grid)
        table.labels = [f"{c} {'▼' if reverse else '▲'}" if c == column else c for c in self.COLUMNS]
        table.empty = (
            f"no tool matches {needle.strip()!r}: / edits the filter, ctrl+u there clears it"
            if self.snapshot.tools
            else "this server lists no tools: ctrl+o connects to another"
        )
        table.show(rows, self.cells)
        self.show_count(len(rows), len(self.snapshot.tools))

    def cells(self, row: ToolRow) -> tuple[Cell, ...]:
        item, tokens = row.item, row.tokens
        return (
            Text(one_line(item.key, 60), style=status_style(self.app, "problem") if item.problems else ""),
            tokens["total"],
            tokens.get("description", 0),
            tokens.get("inputSchema", 0),
            tokens.get("outputSchema", 0),
            badges(item.raw),
            Text(row.status, style=status_style(self.app, row.status)),
        )

    @on(Input.Changed, "#tool-filter")
    def filter_tools(self, event: Input.Changed) -> None:
        self.refill(event.value)

    def action_call(self) -> None:
        self.post_message(CallAsked(self.highlighted()))

    def action_app(self) -> None:
        item = self.highlighted()
        found = links(item) if item is not None else []
        if found:
            self.post_message(AppAsked(found[0].uri))
        else:
            self.notify("this tool names no app resource (_meta.ui.resourceUri, openai/outputTemplate)")

    def action_browser(self) -> None:
        self.post_message(PreviewAsked(self.highlighted()))

    def action_headless(self) -> None:
        self.post_message(PreviewAsked(self.highlighted(), headless=True))

    @on(Grid.HeaderSelected, "#tools")
    def sort_tools(self, event: Grid.HeaderSelected) -> None:
        """Sort by the clicked column; clicking it again reverses."""
        self.sort_by(event.column)

    def action_sort(self, reverse: bool = False) -> None:
        """`s`: the next column; `S`: the same column the other way round."""
        column = self.sorting[0]
        self.sort_by(column if reverse else self.COLUMNS[(self.COLUMNS.index(column) + 1) % len(self.COLUMNS)])

    def sort_by(self, column: str) -> None:
        """Sort by `column` (its header shows ▼ high or Z first, ▲ low or A first); the current one again
        reverses. Numbers sort high first, names and statuses A-Z. The cursor stays on its tool."""
        reverse = not self.sorting[1] if self.sorting[0] == column else column not in ("tool", "status")
        self.sorting = (column, reverse)
        item = self.highlighted()
        self.refill(self.query_one(Input).value)
        if item is not None:
            self._cursor_to(item.index)

    @on(Grid.RowHighlighted, "#tools")
    def show_tool(self) -> None:
        """The highlighted tool in the detail pane (the grid says so whenever its rows change too), so the
        detail is always the tool `c` would call."""
        item = self.highlighted()
        detail = Text()
        if item is None:  # an empty table (a filter that matches nothing): no tool to describe
            detail.append("no tool matches the filter" if self.snapshot and self.snapshot.tools else "", style="dim")
        else:
            detail.append(f"{one_line(item.key, 100)}  (enter: all of it)\n", style="bold")
            for title, body, _collapsed in self.sections(item, [self.counter.encoding]):
                detail.append(f"{title}\n", style="bold")
                detail.append_text(body)
                detail.append("\n")
        show_detail(self, "#tool-detail", detail)

    @on(Grid.RowSelected, "#tools")
    def open_tool(self) -> None:
        item = self.highlighted()
        if item is None:
            return
        encodings = [self.counter.encoding] + [e for e in ENCODINGS if e != self.counter.encoding]
        self.app.push_screen(ToolScreen(one_line(item.key, 100), self.sections(item, encodings)))

    def sections(self, item: Item, encodings: list[str]) -> list[tuple[str, Text, bool]]:
        """(title, body, collapsed) of one tool: description, findings, tokens per encoding (as counted: one not
        counted yet says so), schemas, hints."""
        raw = item.raw if isinstance(item.raw, dict) else {}
        description = Text(visible(item.description or "(no description)", 4000))
        if item.problems:
            description.append("\nproblems: " + "; ".join(item.problems), style=status_style(self.app, "problem"))
        sections = [("description", description, False)]
        app = Text()
        for link in links(item):
            app.append(f"{one_line(link.uri, 120)} (its {link.key}; a: open it)\n")
        if app:
            sections.append(("app", app, False))
        findings = Text()
        for f in self.review.findings if self.review else []:
            if f.subject == item.key and f.effective not in ("pass", "n/a"):
                style = status_style(self.app, f.effective)
                findings.append(f"{f.effective} {f.rule}: {one_line(f.message, 200)}\n", style=style)
        sections.append((f"findings ({len(findings.plain.splitlines())})", findings, False))
        tokens = Text()
        for encoding in encodings:
            figures = self.costs.counted(encoding) if self.costs else None
            said = ", ".join(f"{k} {v}" for k, v in figures.tools[item.index].items()) if figures else "counting…"
            tokens.append(f"{encoding} (estimate): " if encoding in ESTIMATES else f"{encoding}: ")
            tokens.append(said + "\n")
        sections.append(("tokens", tokens, False))
        for key in ("inputSchema", "outputSchema"):
            if key in raw:
                body = Text(visible(json.dumps(raw[key], indent=2, ensure_ascii=False), 20000))
                sections.append((key, body, key == "outputSchema"))
        hints = Text()
        for hint, (value, explicit) in effective_hints(raw).items():
            hints.append(f"{hint}: {json.dumps(value)} ({'set by the server' if explicit else 'spec default'})\n")
        sections.append(("annotations", hints, True))
        return sections
