"""A virtual table for thousands of rows (issue 12): the tables of every tab.

A row is whatever the pane holds (a tool, a finding, a wire entry's index); the pane gives the rows and a
function that makes a row's cells, and the grid makes cells only for the rows it draws. Showing 10,000 tools
is storing a list; a screenful of cells is all that is ever made, so no key waits on a big table, and the
same table can hold a whole wire log.

Why not Textual's `DataTable`: it makes and measures every cell of every row as the row is added, and
rebuilds its row offsets over all rows on each batch (10,000 tools took 1.7-2.9 s to fill, with key waits of
0.3 s per batch, bench/tui.py). Why not `textual-fastdatatable` (Harlequin's, the one made for big tables):
it keeps rows in a pyarrow table (a 30 MB dependency) and shows plain values, where our cells are styled
`Text` (status colours, server text already neutralised) made from the pane's own objects.

Column widths follow what is drawn: the header, the first SAMPLE and the last TAIL rows when the rows change
(a log's widest numbers are its newest), then any row drawn (a column only grows, up to MAX_WIDTH). When the
columns do not fit, those with a cap give way to it first, then the `flex` column takes what is left (down to
MIN_FLEX), so at 80 columns only that one is cut and nothing scrolls sideways; on a wide terminal every
column has its natural width.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

Cell = Text | str | int | float
SAMPLE = 100  # rows measured when the rows change (the rest as they are drawn)
TAIL = 20  # and the last rows
MADE = 2_000  # rows whose cells are kept; past that the cache starts again
MAX_WIDTH = 60  # a column's widest (the flex column's: FLEX_WIDTH)
FLEX_WIDTH = 300
MIN_FLEX = 12  # the flex column's narrowest: below it the grid scrolls sideways


def as_text(cell: Cell) -> Text:
    """A cell as Text: numbers right-aligned, strings as they are (never read as markup)."""
    if isinstance(cell, Text):
        return cell
    if isinstance(cell, int | float):
        return Text(f"{cell}", justify="right")
    return Text(cell)


class Grid(ScrollView, can_focus=True, inherit_bindings=False):
    """Rows with a cursor: arrows, Page Up/Down, Home/End; Enter (or a click on the cursor's row) selects it;
    a click on a header says which column (the pane sorts)."""

    COMPONENT_CLASSES = {"grid--header", "grid--cursor", "grid--even-row"}
    DEFAULT_CSS = """
    Grid {
        background: $surface;
        color: $foreground;
        height: 1fr;
        & > .grid--header { text-style: bold; background: $panel; color: $foreground; }
        & > .grid--even-row { background: $surface-lighten-1 50%; }
        & > .grid--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .grid--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
    }
    """
    # its own keys only (not the scroll container's ten, which `?` listed before the tab's at 80x24): j/k/g/G as in
    # lazygit, less and vim (Harlequin's tables too), each beside the key it repeats (`?` puts them on one line)
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "first", "First row", show=False),
        Binding("end", "last", "Last row", show=False),
        Binding("enter", "select", "Select", show=False),
        Binding("left", "scroll_left", "Scroll left", show=False),
        Binding("right", "scroll_right", "Scroll right", show=False),
        Binding("j", "move(1)", "Down", show=False),
        Binding("k", "move(-1)", "Up", show=False),
        Binding("g", "first", "First row", show=False),
        Binding("G", "last", "Last row", show=False),
    ]

    class GridMessage(Message):
        def __init__(self, grid: Grid) -> None:
            super().__init__()
            self.grid = grid

        @property
        def control(self) -> Grid:
            return self.grid

    class RowMessage(GridMessage):
        def __init__(self, grid: Grid, cursor_row: int) -> None:
            super().__init__(grid)
            self.cursor_row = cursor_row

    class RowHighlighted(RowMessage):
        """The cursor is on a row (it moved, or the rows under it changed)."""

    class RowSelected(RowMessage):
        """Enter on a row, or a click on the cursor's row."""

    class HeaderSelected(GridMessage):
        """A click on a column's header (the pane sorts by it)."""

        def __init__(self, grid: Grid, column: str) -> None:
            super().__init__(grid)
            self.column = column

    def __init__(
        self,
        columns: Sequence[str],
        *,
        flex: str | None = None,
        caps: Mapping[str, int] | None = None,
        least: Mapping[str, int] | None = None,
        sample: int = SAMPLE,
        zebra_stripes: bool = False,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.columns = tuple(columns)
        self.labels = list(columns)  # what the header shows (a pane marks its sort there)
        self.flex = self.columns.index(flex) if flex else len(columns) - 1
        self.caps = dict(caps or {})  # column -> the width it gives way to when the columns do not fit
        self.least = [max(cell_len(c), (least or {}).get(c, 0)) for c in columns]  # what a column always has
        self.most = [FLEX_WIDTH if j == self.flex else MAX_WIDTH for j in range(len(columns))]
        self.zebra = zebra_stripes
        self.sample = sample  # rows measured when the rows change: fewer when cells are costly to make
        self.rows: list[Any] = []
        self.cursor_row = 0
        self._cells: Callable[[Any], Sequence[Cell]] = lambda _row: ()
        self._made: dict[int, list[Text]] = {}
        self.widths = list(self.least)
        self.widened = False  # a column grew since the layout was made
        self.empty = ""  # what an empty table says in its first row: why, and what to press (the pane sets it)

    # ----------------------------------------------------------------- what a pane calls
    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def current(self) -> Any:
        """The row under the cursor (the pane's own object), or None when there is none."""
        return self.rows[self.cursor_row] if self.cursor_row < len(self.rows) else None

    def show(self, rows: Sequence[Any], cells: Callable[[Any], Sequence[Cell]], cursor: int | None = None) -> None:
        """Show these rows (instead of any before), with their cells made by `cells` when drawn. The cursor
        goes to `cursor`, else stays on the row it was on (where it is now) or at its place; the pane hears
        which row it is on."""
        was = self.current
        self.rows, self._cells, self._made = list(rows), cells, {}
        self.widths = [max(w, cell_len(label)) for w, label in zip(self.least, self.labels, strict=True)]
        for i in {*range(min(len(self.rows), self.sample)), *range(max(0, len(self.rows) - TAIL), len(self.rows))}:
            self._row(i)
        if cursor is None and was is not None:
            with contextlib.suppress(ValueError):
                cursor = self.rows.index(was)
        self.cursor_row = max(0, min(self.cursor_row if cursor is None else cursor, len(self.rows) - 1))
        self._resize()
        self._scroll_to_cursor()
        self.post_message(self.RowHighlighted(self, self.cursor_row))

    def append(self, rows: Sequence[Any]) -> None:
        """More rows at the end (a log that grows): a cursor on the last row follows them, as `tail -f`;
        elsewhere it stays."""
        following = bool(self.rows) and self.cursor_row == len(self.rows) - 1
        self.rows.extend(rows)
        if rows:
            self._row(len(self.rows) - 1)
        self._resize()
        if following and rows:
            self.move_cursor(len(self.rows) - 1)

    def redraw(self) -> None:
        """The pane's objects changed (a status, a label): make the drawn cells again."""
        self._made = {}
        self.refresh()

    def move_cursor(self, row: int) -> None:
        self.cursor_row = max(0, min(row, len(self.rows) - 1))
        self._scroll_to_cursor()
        self.refresh()
        self.post_message(self.RowHighlighted(self, self.cursor_row))

    def get_cell_at(self, at: tuple[int, int]) -> Cell:
        """A cell as the pane made it (tests read the table with it)."""
        return self._cells(self.rows[at[0]])[at[1]]

    # ----------------------------------------------------------------- keys and the mouse
    def action_move(self, by: int) -> None:
        self.move_cursor(self.cursor_row + by)

    def action_page(self, by: int) -> None:
        """A page down scrolls a page and the cursor with it, as `less` and lazygit do (moving only the cursor to
        the screen's last row, the first PageDown showed nothing new)."""
        step = by * max(1, self._visible_rows() - 1)
        top = max(0, min(round(self.scroll_y) + step, len(self.rows) - self._visible_rows()))
        self.scroll_to(y=top, animate=False, immediate=True)
        self.move_cursor(self.cursor_row + step)  # where it was on the screen, unless the rows end first

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(len(self.rows) - 1)

    def action_select(self) -> None:
        if self.rows:
            self.post_message(self.RowSelected(self, self.cursor_row))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:  # the header: which column
            x, right = offset.x + round(self.scroll_x), 0
            for column, width in zip(self.columns, self._layout(), strict=True):
                right += width + 2
                if x < right:
                    self.post_message(self.HeaderSelected(self, column))
                    return
            return
        row = round(self.scroll_y) + offset.y - 1
        if row < len(self.rows):
            if row == self.cursor_row:
                self.action_select()
            else:
                self.move_cursor(row)

    def on_resize(self) -> None:
        self._resize()
        self._scroll_to_cursor()  # fewer rows fit: the cursor's stays on screen

    def on_focus(self) -> None:
        self.refresh()  # the cursor's colours follow the focus

    def on_blur(self) -> None:
        self.refresh()

    # ----------------------------------------------------------------- drawing
    def _row(self, i: int) -> list[Text]:
        """Row i's cells as Text, made once (up to MADE rows kept); a wider cell widens its column."""
        made = self._made.get(i)
        if made is None:
            if len(self._made) >= MADE:
                self._made = {}
            made = self._made[i] = [as_text(c) for c in self._cells(self.rows[i])]
            for j, text in enumerate(made[: len(self.widths)]):
                width = min(text.cell_len, self.most[j])
                if width > self.widths[j]:
                    self.widths[j] = width
                    self.widened = True
        return made

    def _layout(self) -> list[int]:
        """Each column's width on screen: its natural width if all fit; else capped columns give way to their
        caps, and the flex column takes what is left (at least MIN_FLEX, or its natural width if less)."""
        widths, room = list(self.widths), self.scrollable_content_region.width - 2 * len(self.widths)
        if sum(widths) > room:
            for j, column in enumerate(self.columns):
                widths[j] = max(self.least[j], min(widths[j], self.caps.get(column, widths[j])))
            rest = room - sum(widths) + widths[self.flex]
            widths[self.flex] = max(rest, min(widths[self.flex], MIN_FLEX))
        return widths

    def render_lines(self, crop: Region) -> list[Strip]:
        lines = super().render_lines(crop)
        if self.widened:  # a row drawn now was wider than its column: after this frame the columns move over
            self.call_later(self._resize)
        return lines

    def _resize(self) -> None:
        """The scrollable size: as wide as the columns with the flex one at its narrowest, so a vertical
        scrollbar coming and going never makes the grid scroll sideways."""
        self.widened = False
        widths = self._layout()
        widths[self.flex] = min(widths[self.flex], MIN_FLEX)
        self.virtual_size = Size(sum(widths) + 2 * len(widths), len(self.rows) + 1)
        self.refresh()

    def _visible_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)  # the header is always drawn

    def _scroll_to_cursor(self) -> None:
        top, shown = round(self.scroll_y), self._visible_rows()
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False, immediate=True)
        elif self.cursor_row >= top + shown:
            self.scroll_to(y=self.cursor_row - shown + 1, animate=False, immediate=True)

    def render_line(self, y: int) -> Strip:
        width, base = self.scrollable_content_region.width, self.rich_style
        style, over = Style(), None
        if y == 0:
            cells, style = [Text(label) for label in self.labels], self.get_component_rich_style("grid--header")
        else:
            i = round(self.scroll_y) + y - 1
            if not self.rows and y == 1 and self.empty:
                empty = Text(f" {self.empty}", style=base + Style(dim=True), end="", no_wrap=True)
                return Strip(empty.render(self.app.console)).crop(0, width).extend_cell_length(width, base)
            if i >= len(self.rows):
                return Strip.blank(width, base)
            cells = self._row(i)
            if self.zebra and i % 2:
                style = self.get_component_rich_style("grid--even-row")
            if i == self.cursor_row:
                over = self.get_component_rich_style("grid--cursor")
        line = Text(style=base + style, end="", no_wrap=True)
        for w, cell in zip(self._layout(), cells, strict=False):
            piece = cell.copy()
            piece.truncate(w, overflow="ellipsis")
            gap = " " * (w - piece.cell_len)
            line.append(" ")
            if cell.justify == "right":
                line.append(gap)
            line.append_text(piece)
            line.append(("" if cell.justify == "right" else gap) + " ")
        if over is not None:
            over += Style(dim=False)  # a dim cell (a default badge) stays readable on the cursor's colours
            line.stylize(over)
        strip = Strip(line.render(self.app.console), line.cell_len)
        x = round(self.scroll_x)
        return strip.crop(x, x + width).extend_cell_length(width, base + style + (over or Style()))
