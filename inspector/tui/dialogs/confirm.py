"""Yes or no before something with consequences (calling a tool, opening a URL from the server)."""

from __future__ import annotations

from dataclasses import replace

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from mcp_review.tui.dialogs.common import DIALOG_CSS
from mcp_review.tui.footer import Footer


class ConfirmScreen(ModalScreen[bool | None]):
    """Yes or no, with the reason (and what exactly is at stake) stated. Escape means no, or with `back`
    None: go back (a button says where), nothing decided."""

    DEFAULT_CSS = DIALOG_CSS + "ConfirmScreen #result { height: auto; max-height: 20; }"
    BINDINGS = [
        Binding("escape", "back", "Cancel", id="cancel"),
        # a named key for each answer (as lazygit's y/n): Enter alone never decides, the focus starts on the text
        Binding("y", "answer(True)", "Yes", id="confirm-yes"),
        Binding("n", "answer(False)", "No", id="confirm-no"),
    ]

    def __init__(self, title: str, reason: str | Text, yes: str = "Call it", back: str = "") -> None:
        super().__init__()
        self.title_text, self.reason, self.yes, self.back = (
            title,
            Text(reason) if isinstance(reason, str) else reason,
            yes,
            back,
        )
        # one vocabulary: the footer names each key with its button's word (it said Yes, No and Cancel under
        # buttons saying Call it, Refuse and Edit arguments)
        self.no = "Refuse" if back else "Cancel"
        words = {"confirm-yes": yes, "confirm-no": self.no, "cancel": back or self.no}
        keys = self._bindings.key_to_bindings
        for key, bindings in keys.items():
            keys[key] = [replace(b, description=words.get(b.id or "", b.description)) for b in bindings]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="-small"):
            yield Static(Text(self.title_text, style="bold"))
            with VerticalScroll(id="result"):
                yield Static(self.reason)
            with Horizontal(id="buttons"):
                if self.back:
                    yield Button(self.back, id="back")
                yield Button(self.no, id="no")
                yield Button(self.yes, id="yes", variant="warning")
        yield Footer()  # its own keys, not the main screen's

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def action_back(self) -> None:
        self.dismiss(None if self.back else False)

    @on(Button.Pressed)
    def decide(self, event: Button.Pressed) -> None:
        if event.button.id == "back":
            self.action_back()
        else:
            self.dismiss(event.button.id == "yes")
