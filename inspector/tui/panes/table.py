"""What the panes share: their filters' syntax, and their detail views."""

from __future__ import annotations

import contextlib

from rich.text import Text
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.widgets import Static


def split_filter(needle: str) -> tuple[set[str], str]:
    """A filter's `status:X` words (exact statuses) and the rest (text to find), lower case."""
    words = needle.lower().split()
    statuses = {w.removeprefix("status:") for w in words if w.startswith("status:")}
    return statuses, " ".join(w for w in words if not w.startswith("status:"))


def show_detail(pane: Widget, selector: str, detail: Text | str) -> None:
    """The pane's detail view shows `detail`; a table's last highlight, which comes late while the screen is
    torn down, finds no view and changes nothing."""
    with contextlib.suppress(NoMatches):
        pane.query_one(selector, Static).update(detail)
