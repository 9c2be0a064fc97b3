"""The Behaviour tab (key 0): what the observed server did, per request, as a reviewer reads it at 80 columns:
how it runs on top, what stands out by default (the program it started, a connection the confinement refused),
`a` for every event (its own files' reads too), `/` to filter."""

from __future__ import annotations

from textual.widgets import Input, Static

from mcp_review.targets import Confinement, stdio_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.grid import Grid
from tests.support import fixture_argv
from tests.tui_pilot import show_tab, until


def cells(grid: Grid, column: int) -> list[str]:
    return [str(grid.get_cell_at((i, column))) for i in range(grid.row_count)]


async def test_the_behaviour_tab_shows_what_stands_out_and_every_event_on_a(tmp_path):
    target = stdio_target(fixture_argv("defects", "phones-home"))
    target = target.with_(confinement=Confinement(observe=True, run="tui-behaviour"))
    app = ReviewApp(target, state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await show_tab(pilot, app, "tab-behaviour")
        pane = app.main.query_one("#tab-behaviour")
        grid = pane.query_one("#behaviour", Grid)
        await until(pilot, lambda: any("203.0.113.7:443" in e for e in cells(grid, 4)))
        how = str(pane.query_one("#behaviour-how", Static).render())
        assert how.startswith("the server runs confined by bubblewrap, observed by strace · "), how
        events = cells(grid, 4)
        assert events[0].startswith("started '") and "refused: ENETUNREACH" in events[-1], events
        assert cells(grid, 1)[-1].endswith("tools/list") and cells(grid, 3)[-1] == "ENETUNREACH"
        notable = grid.row_count
        await pilot.press("a")
        await until(pilot, lambda: grid.row_count > notable)
        assert "every event" in str(pane.query_one("#behaviour-how", Static).render())
        pane.query_one(Input).value = "203.0.113"
        await until(pilot, lambda: grid.row_count == 1)
