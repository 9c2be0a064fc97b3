"""Yes or no before something with consequences (calling a tool, opening a URL from the server)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from inspector.tui.dialogs.common import DIALOG_CSS


class ConfirmScreen(ModalScreen[bool]):
    """Yes or no, with the reason stated. Escape means no."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "dismiss(False)", "Cancel", id="cancel")]

    def __init__(self, title: str, reason: str, yes: str = "Call it") -> None:
        super().__init__()
        self.title_text, self.reason, self.yes = title, reason, yes

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="-small"):
            yield Static(Text(self.title_text, style="bold"))
            yield Static(Text(self.reason))
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="no")
                yield Button(self.yes, id="yes", variant="warning")
        yield Footer()  # its own keys, not the main screen's

    @on(Button.Pressed)
    def decide(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")
