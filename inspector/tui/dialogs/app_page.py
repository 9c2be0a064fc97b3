"""An MCP App's resource as a reviewer reads it (issue 23): the tools that show it, its CSP and permissions as a
table, its HTML as plain text with a find, and what the `apps` rules said about it.

The page is server text, so hostile: it is never rendered and never read as markup; each line drawn goes through
`visible()` inside `rich.text.Text`. It may be megabytes (one minified line, or millions of empty ones): it is cut
into rows of at most ROW_CHARS characters, at most MAX_ROWS of them, once when it is read (C-speed string splits);
the grid makes a row's cells only when it draws the row, and the find scans the rows' lower-case text, so neither
a key nor a keystroke waits on the whole page.
"""

from __future__ import annotations

import io
import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from mcp_review.apps import Page, linked, take
from mcp_review.catalog import ServerSnapshot
from mcp_review.review import Review, rank
from mcp_review.text import one_line, visible
from mcp_review.tui.dialogs.common import DIALOG_CSS
from mcp_review.tui.footer import Footer
from mcp_review.tui.grid import Grid
from mcp_review.tui.messages import PreviewAsked
from mcp_review.tui.styles import status_style

ROW_CHARS = 64  # a line is shown in rows of this many characters (the html column at 80 columns: none is cut)
MAX_ROWS = 100_000  # rows of the page shown (20 MB at most; the rules analyse PAGE_CHARS of it)
DOMAINS = ("_meta.ui.domain", "_meta.openai/widgetDomain")


@dataclass
class HtmlRows:
    """The page cut into rows: (line number, text) each, and their lower-case text for the find."""

    rows: list[tuple[int, str]]
    lower: list[str]
    cut: bool  # the page has more than MAX_ROWS rows


def html_rows(html: str) -> HtmlRows:
    """Lines are read lazily (a page of five million line breaks is not five million strings at once); only
    `\n` breaks one, any other separator is shown escaped inside its line."""

    def pieces() -> Iterator[tuple[int, str]]:
        for number, line in enumerate(io.StringIO(html, newline="\n"), 1):
            line = line.removesuffix("\n")
            for start in range(0, max(len(line), 1), ROW_CHARS):
                yield number, line[start : start + ROW_CHARS]

    rows = list(itertools.islice(pieces(), MAX_ROWS + 1))
    cut = len(rows) > MAX_ROWS
    rows = rows[:MAX_ROWS]
    return HtmlRows(rows, [text.lower() for _, text in rows], cut)


def declarations(page: Page) -> list[tuple[str, str]]:
    """(key, value) of what the page declares to its host: each CSP entry, each permission, its domain."""
    out = []
    for where, _kind, entries in page.csp():
        for entry in entries if isinstance(entries, list) else [entries]:
            out.append((where, entry if isinstance(entry, str) else json.dumps(entry)))
    domains = [page.ui.get("domain"), page.meta.get("openai/widgetDomain")]
    permissions = page.ui.get("permissions")
    names = permissions if isinstance(permissions, list) else list(permissions) if isinstance(permissions, dict) else []
    out += [("_meta.ui.permissions", str(name)) for name in names]
    if permissions is not None and not names:
        out.append(("_meta.ui.permissions", json.dumps(permissions)))
    for where, value in zip(DOMAINS, domains, strict=True):
        if value is not None:
            out.append((where, value if isinstance(value, str) else json.dumps(value)))
    return out


def app_page(snapshot: ServerSnapshot | None, uri: str, result: Any) -> Page:
    """The app resource `uri` as `resources/read` gave it, with the tools of `snapshot` that name it."""
    page = (linked(snapshot).get(uri) if snapshot is not None else None) or Page(uri, None)  # every app it lists
    take(page, result)
    return page


def summary(page: Page, review: Review | None, style: Callable[[str], str]) -> Text:
    """Its linkage, then the `apps` rules' findings about it (or how to get them); `style` gives a status's style
    (see `styles.status_style`)."""
    out = Text()
    out.append(f"{one_line(page.uri, 100)}\n", style="bold")
    out.append(f"{one_line(page.mime or '(no MIME type)', 60)} · {len(page.html):,} characters")
    out.append(f" · {page.error}\n" if page.error else "\n")
    names = ", ".join(one_line(t.key, 40) for t in page.tools[:10])
    more = f" and {len(page.tools) - 10} more" if len(page.tools) > 10 else ""
    out.append("shown by: " + (names + more if names else "no tool names it") + "\n")
    if review is None:
        out.append("findings: run the checklist (r)", style="dim")
        return out
    findings = [f for f in review.findings if f.subject == page.uri and f.rule.startswith("apps.")]
    findings.sort(key=lambda f: rank(f.effective))  # worst first: a fail is on screen at 80x24
    out.append(f"findings ({len(findings)})" + ("" if findings else ": none about it"), style="bold")
    for f in findings:
        out.append(f"\n{f.effective} {f.rule}: {one_line(f.message, 300)}", style=style(f.effective))
    return out


class AppPageScreen(ModalScreen[None]):
    """One app resource: linkage and findings, the declarations table, the page's text with a find (`/`)."""

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    #dialog { width: 100%; height: 100%; }
    #app-summary { height: auto; max-height: 7; }
    #app-csp { height: auto; max-height: 6; }
    #app-find { margin: 0; }
    #app-html { height: 1fr; min-height: 4; }
    """
    )
    BINDINGS = [
        Binding("escape", "close", "Close", id="close-app", tooltip="From the find: back to the page"),
        Binding("slash", "find", "Find in page", id="find-in-page"),
        Binding("b", "browser", "Browser", id="page-browser", tooltip="The app in your browser, with a tool's result"),
    ]

    def __init__(self, page: Page, review: Review | None) -> None:
        super().__init__()
        self.page, self.review = page, review
        self.html = html_rows(page.html)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            with VerticalScroll(id="app-summary"):
                yield Static(summary(self.page, self.review, lambda status: status_style(self.app, status)))
            yield Grid(("declared in", "value"), flex="value", id="app-csp")
            yield Input(placeholder="find in the page (its text, never rendered)", id="app-find", compact=True)
            yield Grid(("line", "html"), flex="html", id="app-html")
        yield Footer()

    def on_mount(self) -> None:
        rows = declarations(self.page) or [("(none)", "no CSP, permissions or domain declared")]
        self.query_one("#app-csp", Grid).show(rows, lambda r: (Text(r[0]), Text(one_line(r[1], 200))))
        self.find("")
        self.query_one("#app-html", Grid).focus()

    @on(Input.Changed, "#app-find")
    def changed(self, event: Input.Changed) -> None:
        self.find(event.value)

    def find(self, needle: str) -> None:
        """The page's rows that contain `needle` (case aside; a match across two rows of one long line is not
        found), every row when it is empty."""
        needle, lower = needle.lower(), self.html.lower
        shown = range(len(lower)) if not needle else [i for i, text in enumerate(lower) if needle in text]
        grid = self.query_one("#app-html", Grid)
        what = f"html · {len(shown):,} row{'' if len(shown) == 1 else 's'}" + (" found" if needle else "")
        grid.labels = ["line", what + (f" (the page cut at {MAX_ROWS:,})" if self.html.cut else "")]
        grid.show(shown, self.cells)

    def cells(self, i: int) -> tuple[int, Text]:
        number, text = self.html.rows[i]
        return number, Text(visible(text, newlines=False))

    def action_close(self) -> None:
        if isinstance(self.focused, Input):
            self.query_one("#app-html", Grid).focus()
        else:
            self.dismiss()

    def action_browser(self) -> None:
        """The app in the reviewer's browser (tui/previewing.py), fed by the first tool that shows it."""
        if isinstance(self.focused, Input):
            return
        if not self.page.tools:
            self.notify("no tool shows this app: a host opens one only with a tool's result", severity="warning")
            return
        self.app.post_message(PreviewAsked(self.page.tools[0]))

    def action_find(self) -> None:
        self.query_one("#app-find", Input).focus()
