"""What every pane's table shares: resetting it, filtering, and filling it in bounded batches."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from textual.widgets import DataTable

BATCH_SECONDS = 0.03  # rows are added for this long, then the table measures and draws them before the next batch
Row = tuple[Sequence[Any], str | None]  # a row's cells and its key


def reset_table(table: DataTable[Any], columns: Sequence[str]) -> DataTable[Any]:
    """Empty a table, its column widths too (they follow what is shown, not what was shown before)."""
    table.clear(columns=True)
    for label in columns:
        table.add_column(label, key=label)
    return table


def split_filter(needle: str) -> tuple[set[str], str]:
    """A filter's `status:X` words (exact statuses) and the rest (text to find), lower case."""
    words = needle.lower().split()
    statuses = {w.removeprefix("status:") for w in words if w.startswith("status:")}
    return statuses, " ".join(w for w in words if not w.startswith("status:"))


class Filler:
    """Fills one table in batches of about BATCH_SECONDS, so thousands of rows never hold a key back (issue 12):
    Textual's DataTable measures every new row's cells on its next idle, all at once. `rows` is consumed lazily
    (cells are made batch by batch too); a newer `fill` stops an older one's batches; `then` runs once every
    row is in. A fill that fits in one batch is done when `fill` returns."""

    def __init__(self) -> None:
        self.generation = 0
        self.filling = False

    def fill(self, table: DataTable[Any], rows: Iterable[Row], then: Callable[[], None] | None = None) -> None:
        self.generation += 1
        self.filling = True
        self._batch(table, self.generation, iter(rows), then)

    def stop(self) -> None:
        """The table is about to show something else: no more batches of this fill."""
        self.generation += 1
        self.filling = False

    def _batch(
        self, table: DataTable[Any], generation: int, rows: Iterator[Row], then: Callable[[], None] | None
    ) -> None:
        if generation != self.generation or not table.is_attached:
            return  # a newer fill (a filter keystroke) replaced this one, or the app is closing
        deadline = time.perf_counter() + BATCH_SECONDS
        for cells, key in rows:
            table.add_row(*cells, key=key)
            if time.perf_counter() >= deadline:  # the rest after the table has measured and drawn these
                table.set_timer(0.01, lambda: self._batch(table, generation, rows, then))
                return
        self.filling = False
        if then is not None:
            then()
