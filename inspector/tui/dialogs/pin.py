"""Pinning the lock is a decision: what would be pinned unapproved, by class, and a tick per unapproved breaking or
safety change the reviewer pins as it is (else the pin is refused: approve it with a, or tick it)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Checkbox, Static

from mcp_review.diff import CLASSES
from mcp_review.text import one_line, plural
from mcp_review.tui.dialogs.base import Dialog
from mcp_review.tui.dialogs.common import DIALOG_CSS

GRAVE = ("breaking", "safety")  # never pinned unapproved without a tick of its own
MAX_TICKS = 40  # more grave changes than this are approved in the Changes tab (a, A) before a pin


def unapproved_counts(changes: Sequence[Any]) -> str:
    """'2 breaking, 4 safety' of the changes with no approval, worst class first ('none' when every one is)."""
    counts = Counter(c.change_class for c in changes if c.approval is None)
    return ", ".join(f"{counts[c]} {c}" for c in CLASSES if counts[c]) or "none"


class PinScreen(Dialog[bool | None]):
    """Asks before `mcp-review.lock` is written from the live server: how many changes are approved, which are not
    (by class), and one tick per unapproved breaking or safety change. True: pin."""

    DEFAULT_CSS = DIALOG_CSS + "PinScreen #grave { height: auto; max-height: 5; }"
    AUTO_FOCUS = "Checkbox, #pin"
    BINDINGS = [Binding("ctrl+s", "submit", "Pin", id="pin-it")]

    def __init__(self, lock_name: str, changes: Sequence[Any]) -> None:
        super().__init__()
        self.lock_name, self.changes = lock_name, list(changes)
        self.grave = [c for c in self.changes if c.approval is None and c.change_class in GRAVE]

    def compose(self) -> ComposeResult:
        approved = sum(c.approval is not None for c in self.changes)
        with Vertical(id="dialog", classes="-small"):
            yield Static(Text(f"Pin {self.lock_name} from the live server?", style="bold"))
            said = f"{approved} approved; not approved: {unapproved_counts(self.changes)}"
            yield Static(Text(f"{plural(len(self.changes), 'change')} since the lock: {said}"))
            if len(self.grave) > MAX_TICKS:
                yield Static(Text(f"{len(self.grave)} breaking or safety changes are not approved: approve them first"))
            elif self.grave:
                yield Static(Text("tick each breaking or safety change to pin it unapproved:"))
                with VerticalScroll(id="grave"):
                    for i, c in enumerate(self.grave):
                        label = f"{c.change_class} {c.kind} {one_line(c.key, 40)}: {one_line('; '.join(c.reasons), 80)}"
                        yield Checkbox(Text(label), compact=True, id=f"grave-{i}")  # a row each: at 80x24 all fit
            yield Static(id="problems")
            yield from self.buttons("Pin", "pin")

    def submit(self) -> None:
        if len(self.grave) > MAX_TICKS:
            self.query_one("#problems", Static).update(Text("approve the breaking and safety changes first (a, A)"))
            return
        unticked = [box for box in self.query(Checkbox) if not box.value]
        if unticked:
            self.query_one("#problems", Static).update(
                Text(f"{len(unticked)} breaking or safety changes not approved: approve them (a) or tick each")
            )
            unticked[0].focus()
            return
        self.dismiss(True)
