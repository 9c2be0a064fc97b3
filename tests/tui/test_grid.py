"""The virtual table every tab uses (inspector/tui/grid.py), on its own in a small app: cells are made only for
the rows drawn, the cursor stays on screen, the mouse and the keys work, and columns fit the width. The
panes on it are proven against real servers in test_tui*.py."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult

from mcp_review.tui.grid import SAMPLE, Grid


class GridApp(App[None]):
    def __init__(self, rows: list[Any]) -> None:
        super().__init__()
        self.rows, self.made, self.heard = rows, [], []

    def compose(self) -> ComposeResult:
        yield Grid(("name", "n", "about"), flex="about", caps={"name": 20}, zebra_stripes=True, id="grid")

    def on_mount(self) -> None:
        self.query_one(Grid).show(self.rows, self.cells)

    def cells(self, row: int) -> tuple[Text, int, str]:
        self.made.append(row)
        return Text(f"row{row}"), row * 10, f"about row {row}"

    def on_grid_row_highlighted(self, event: Grid.RowHighlighted) -> None:
        self.heard.append(("highlighted", event.cursor_row))

    def on_grid_row_selected(self, event: Grid.RowSelected) -> None:
        self.heard.append(("selected", event.cursor_row))

    def on_grid_header_selected(self, event: Grid.HeaderSelected) -> None:
        self.heard.append(("header", event.column))


def drawn(grid: Grid) -> list[str]:
    return [grid.render_line(y).text for y in range(grid.scrollable_content_region.height)]


async def test_a_hundred_thousand_rows_show_at_once_and_only_drawn_rows_are_made():
    app = GridApp(list(range(100_000)))
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(Grid)
        await pilot.pause()
        assert grid.row_count == 100_000
        assert len(set(app.made)) <= SAMPLE + 30, "cells are made for the sampled and the drawn rows only"
        grid.focus()
        await pilot.press("end")
        await pilot.pause()
        assert grid.cursor_row == 99_999 and " row99999 " in "\n".join(drawn(grid)), "the last row is drawn"
        assert len(set(app.made)) <= SAMPLE + 60


async def test_the_cursor_stays_on_screen_and_the_pane_hears_every_move():
    app = GridApp(list(range(500)))
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(Grid)
        grid.focus()
        for key in ("pagedown", "pagedown", "down", "pageup", "end", "home", "up"):
            await pilot.press(key)
            top = round(grid.scroll_y)
            assert top <= grid.cursor_row < top + grid.scrollable_content_region.height - 1, key
            assert app.heard[-1] == ("highlighted", grid.cursor_row)
        assert grid.cursor_row == 0
        await pilot.press("enter")
        assert app.heard[-1] == ("selected", 0)


async def test_the_first_pagedown_scrolls_a_page_and_j_k_g_g_move_as_in_lazygit():
    """PageDown scrolls the rows a page and the cursor with them (it used to move the cursor to the screen's last
    row and show nothing new); j, k, g and G are down, up, first and last."""
    app = GridApp(list(range(500)))
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(Grid)
        grid.focus()
        page = grid.scrollable_content_region.height - 2  # the header is always drawn; a row stays for context
        await pilot.press("pagedown")
        assert round(grid.scroll_y) == page and grid.cursor_row == page, "the first PageDown shows new rows"
        assert f" row{page + page} " in "\n".join(drawn(grid))
        await pilot.press("j", "j", "k")
        assert grid.cursor_row == page + 1
        await pilot.press("pageup")
        assert round(grid.scroll_y) == 0 and grid.cursor_row == 1
        await pilot.press("G")
        assert grid.cursor_row == 499 and " row499 " in "\n".join(drawn(grid))
        await pilot.press("pagedown")
        assert grid.cursor_row == 499, "past the end the cursor stays on the last row"
        await pilot.press("g")
        assert grid.cursor_row == 0 and round(grid.scroll_y) == 0


async def test_a_click_on_a_header_names_its_column_and_a_second_click_on_a_row_selects_it():
    app = GridApp(list(range(50)))
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(Grid)
        await pilot.pause()
        header = drawn(grid)[0]
        await pilot.click(Grid, offset=(header.index(" n ") + 1, 0))
        assert app.heard[-1] == ("header", "n")
        await pilot.click(Grid, offset=(header.index("about") + 1, 0))
        assert app.heard[-1] == ("header", "about")
        await pilot.click(Grid, offset=(2, 3))
        assert grid.cursor_row == 2 and app.heard[-1] == ("highlighted", 2)
        await pilot.click(Grid, offset=(2, 3))
        assert app.heard[-1] == ("selected", 2)


@pytest.mark.quick
async def test_the_flex_column_takes_the_rest_and_a_wider_row_widens_its_column_up_to_its_cap():
    rows = [1] * (SAMPLE + 400)
    rows[SAMPLE + 300] = 12345  # wider than the sampled first and last rows
    app = GridApp(rows)
    async with app.run_test(size=(60, 20)) as pilot:
        grid = app.query_one(Grid)
        await pilot.pause()
        width = grid.scrollable_content_region.width
        assert all(len(line) == width for line in drawn(grid)), "every line fills the width, nothing more"
        assert grid.virtual_size.width <= width, "nothing scrolls sideways"
        before = grid.widths[1]
        grid.move_cursor(SAMPLE + 300)  # drawn now: its n, 123450, widens the column
        await pilot.pause()
        await pilot.pause()
        assert before == len("10") and grid.widths[1] == len("123450")
        grid.rows[SAMPLE + 300] = 10**40  # a cell far wider than the name's cap: still within the width
        grid.redraw()
        await pilot.pause()
        assert all(len(line) == width for line in drawn(grid))


@pytest.mark.quick
async def test_cells_are_text_never_markup():
    app = GridApp([])
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(Grid)
        grid.show(["[red]x[/red]", "[link=https://evil]y"], lambda s: (s, 1, s))
        await pilot.pause()
        lines = drawn(grid)
        assert "[red]x[/red]" in lines[1] and "[link=https://evil]y" in lines[2]


async def test_the_cursor_keeps_its_row_follows_a_growing_tail_and_stays_on_screen_after_a_resize():
    app = GridApp(list(range(300)))
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(Grid)
        grid.move_cursor(250)
        grid.show([r for r in range(300) if r % 2 == 0], app.cells)  # a filter: row 250 is still there
        assert grid.current == 250, "the cursor stays on its row, wherever the filter puts it"
        grid.show(list(range(300)), app.cells)
        assert grid.current == 250, "and again when the filter is cleared"
        grid.action_last()
        grid.append([300, 301])
        assert grid.current == 301, "a cursor on the last row follows the tail"
        grid.move_cursor(10)
        grid.append([302])
        assert grid.current == 10, "elsewhere it stays"
        grid.move_cursor(22)
        await pilot.pause()
        await pilot.resize_terminal(60, 12)
        await pilot.pause()
        top = round(grid.scroll_y)
        assert top <= 22 < top + grid.scrollable_content_region.height - 1, "the cursor's row is still on screen"


async def test_an_empty_filter_and_back_never_makes_the_grid_scroll_sideways():
    app = GridApp(list(range(300)))
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(Grid)

        def long(row: int) -> tuple[str, int, str]:
            return f"row{row}", row, "a long description " * 10  # wider than the room: the flex column is cut

        grid.show([], long)  # no vertical scrollbar: the whole width is the grid's
        await pilot.pause()
        grid.show(list(range(300)), long)  # the scrollbar is back
        await pilot.pause()
        await pilot.pause()
        assert grid.virtual_size.width <= grid.scrollable_content_region.width
        assert grid.max_scroll_x == 0
