"""What every pane's table shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.widgets import DataTable


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
