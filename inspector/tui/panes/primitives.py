"""The Resources & prompts tab: the server's resources, resource templates and prompts, with their token
costs; the app reads or gets the highlighted one."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, TabPane

from inspector.catalog import Item, ServerSnapshot
from inspector.text import one_line
from inspector.tokens import TokenCounter
from inspector.tui.panes.table import reset_table


class PrimitivesPane(TabPane):
    COLUMNS = ("kind", "name / uri", "description", "tokens")

    def __init__(self, counter: TokenCounter) -> None:
        super().__init__("Resources & prompts", id="tab-primitives")
        self.counter = counter
        self.snapshot: ServerSnapshot | None = None

    def compose(self) -> ComposeResult:
        yield DataTable(id="primitives", cursor_type="row", zebra_stripes=True)

    def show(self, snapshot: ServerSnapshot) -> None:
        self.snapshot = snapshot
        table = reset_table(self.query_one(DataTable), self.COLUMNS)
        for listing in (snapshot.resources, snapshot.templates, snapshot.prompts):
            for item in listing:
                table.add_row(
                    item.kind,
                    Text(one_line(item.key, 60)),
                    Text(one_line(item.description or "", 60)),
                    self.counter.count_json(item.raw),
                    key=f"{item.kind}:{item.index}",
                )

    def highlighted(self) -> Item | None:
        table = self.query_one(DataTable)
        if self.snapshot is None or not table.row_count:
            return None
        kind, index = str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value).split(":")
        return self.snapshot.lists[kind].items[int(index)]  # type: ignore[index]
