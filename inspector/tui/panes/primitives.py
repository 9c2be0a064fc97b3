"""The Resources tab: the server's resources, resource templates and prompts, with their token
costs. Opening one (`o` or Enter; filling a template's or a prompt's arguments first) asks the app to read or
get it; an MCP App's resource (`ui://`, an app MIME type, or one a tool names) opens in its own screen
(`dialogs.app_page`: the tools that show it, its CSP, its page as text, its findings)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import TabPane

from mcp_review.apps import is_app_resource, links
from mcp_review.catalog import Item, ServerSnapshot
from mcp_review.costs import Costs
from mcp_review.review import Review
from mcp_review.text import one_line
from mcp_review.tokens import TokenCounter
from mcp_review.tui.dialogs import AppPageScreen, PromptScreen, TemplateScreen, app_page, prompt_text, resource_text
from mcp_review.tui.grid import Grid
from mcp_review.tui.messages import Fetch


class PrimitivesPane(TabPane):
    COLUMNS = ("kind", "name / uri", "description", "tokens")
    BINDINGS = [Binding("o", "open", "Read / get", id="open-primitive", tooltip="A resource or prompt")]

    def __init__(self, counter: TokenCounter, *, title: str, id: str) -> None:
        super().__init__(title, id=id)  # from the tab's declaration (screen.TABS)
        self.counter = counter
        self.snapshot: ServerSnapshot | None = None
        self.review: Review | None = None
        self.items: dict[str, list[int]] = {}  # each prompt's, resource's and template's tokens (`Costs`)
        self.apps: set[str] = set()  # the URIs the tools name

    def compose(self) -> ComposeResult:
        yield Grid(self.COLUMNS, flex="description", zebra_stripes=True, id="primitives")

    def show(self, snapshot: ServerSnapshot, costs: Costs, review: Review | None = None) -> None:
        """The resources, templates and prompts with their costs (the default encoding's, counted already)."""
        self.snapshot, self.review = snapshot, review
        figures = costs.counted(self.counter.encoding)
        self.items = figures.items if figures else {}
        self.apps = {link.uri for tool in snapshot.tools for link in links(tool)}
        listings = (snapshot.resources, snapshot.templates, snapshot.prompts)
        self.query_one(Grid).show([item for listing in listings for item in listing], self.cells)

    def cells(self, item: Item) -> tuple[str, Text, Text, int]:
        description = Text(one_line(item.description or "", 60))
        kind = "app" if item.kind == "resource" and self.is_app(item) else item.kind
        tokens = self.items.get(item.kind, [])
        return kind, Text(one_line(item.key, 60)), description, tokens[item.index] if item.index < len(tokens) else 0

    def is_app(self, item: Item) -> bool:
        return is_app_resource(item) or item.key in self.apps

    def open_app(self, uri: str) -> None:
        """The cursor on the resource `uri` when it is listed, and read it as an app (a dangling one too: its
        read's error says so)."""
        grid = self.query_one(Grid)
        grid.move_cursor(next((i for i, row in enumerate(grid.rows) if row.key == uri), grid.cursor_row))
        grid.focus()
        self._read(uri, app=True)

    def highlighted(self) -> Item | None:
        return self.query_one(Grid).current

    @on(Grid.RowSelected, "#primitives")
    def action_open(self) -> None:
        """Read the highlighted resource, fill a template then read it, or get a prompt with arguments."""
        item = self.highlighted()
        if item is None:
            return
        if item.kind == "resource":
            self._read(item.key, self.is_app(item))
        elif item.kind == "template":
            screen = TemplateScreen(item.key, item.raw)
            self.app.push_screen(screen, lambda values: None if values is None else self._read(screen.uri(values)))
        else:
            arguments = [
                a for a in item.get("arguments") or [] if isinstance(a, dict) and isinstance(a.get("name"), str)
            ]
            fields = [(a["name"], bool(a.get("required")), str(a.get("description") or "")) for a in arguments]
            self.app.push_screen(
                PromptScreen(item.key, item.raw, fields),
                lambda values: None if values is None else self._get_prompt(item.key, values),
            )

    def _read(self, uri: str, app: bool = False) -> None:
        def render(result: Any) -> Text | AppPageScreen:
            if app:  # its own screen: the tools that show it, its CSP, its page as text, its findings
                return AppPageScreen(app_page(self.snapshot, uri, result), self.review)
            return resource_text(uri, result)

        self.post_message(Fetch("resources/read", {"uri": uri}, render))

    def _get_prompt(self, name: str, arguments: dict[str, Any]) -> None:
        params = {"name": name, "arguments": arguments}
        self.post_message(Fetch("prompts/get", params, lambda result: prompt_text(name, result)))
