"""What every dialog does with keys: Escape closes it and keeps what was typed for the next time it opens,
Enter in a one-line field or ctrl+s submits, and its own footer says so (not the main screen's keys)."""

from __future__ import annotations

from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from textual import on
from textual.app import App, ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Select, TextArea

from mcp_review.tui.footer import Footer

T = TypeVar("T")
Draft = dict[str, Any]  # widget id -> its value
DRAFTS: WeakKeyDictionary[App[Any], dict[str, Draft]] = WeakKeyDictionary()  # per app: draft key -> what was typed
FIELDS = "Input, TextArea, Select, Checkbox"


class Dialog(ModalScreen[T]):
    """A modal dialog. Subclasses implement `submit` (validate, then `dismiss` with the answer) and, to have
    what was typed come back after Escape, `draft_key` (dialogs with the same key share a draft)."""

    AUTO_FOCUS = "Input, TextArea"  # typing goes into the first field at once, not onto a tab bar or a button
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="cancel"),
        Binding("ctrl+s", "submit", "Submit", id="submit"),
    ]

    def draft_key(self) -> str | None:
        """Which draft this dialog keeps; None keeps none."""
        return None

    def submit(self) -> None:
        raise NotImplementedError

    def on_mount(self) -> None:
        self.mount(Footer())
        draft = DRAFTS.get(self.app, {}).get(self.draft_key() or "")
        if draft:  # once the fields' first changes are handled (a form fills the editor from its own)
            self.call_after_refresh(self.restore, draft)

    def restore(self, draft: Draft) -> None:
        """The fields as they were, quietly: a field's change handler (a form writing the JSON editor, a format
        choosing the path) must not overwrite a field restored before it. The editor's own change still
        validates it."""
        with self.prevent(Input.Changed, Select.Changed, Checkbox.Changed):
            self._restore(draft)

    def _restore(self, draft: Draft) -> None:
        for widget in self.query(FIELDS):
            if widget.id in draft:
                if isinstance(widget, TextArea):
                    widget.text = draft[widget.id]
                else:
                    widget.value = draft[widget.id]  # type: ignore[attr-defined]

    def action_submit(self) -> None:
        self.submit()

    def action_cancel(self) -> None:
        """Close without an answer; what was typed is kept (a bearer token never is)."""
        key = self.draft_key()
        if key is not None:
            DRAFTS.setdefault(self.app, {})[key] = {
                widget.id: widget.text if isinstance(widget, TextArea) else widget.value  # type: ignore[attr-defined]
                for widget in self.query(FIELDS)
                if widget.id and not (isinstance(widget, Input) and widget.password)
            }
        self.dismiss(None)

    def dismiss(self, result: T | None = None) -> AwaitComplete:
        """An answer given: the draft is done with."""
        if result is not None and (key := self.draft_key()) is not None:
            DRAFTS.get(self.app, {}).pop(key, None)
        return super().dismiss(result)

    def buttons(self, label: str, button_id: str) -> ComposeResult:
        """The usual button row: Cancel (Escape's way: the draft is kept) and the primary button, which submits."""
        with Horizontal(id="buttons", classes="submit-row"):
            yield Button("Cancel", id="cancel")
            yield Button(label, id=button_id, variant="primary")

    @on(Button.Pressed, ".submit-row Button")
    def pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.variant == "primary":
            self.submit()
        else:
            self.action_cancel()

    @on(Input.Submitted)
    def entered(self, event: Input.Submitted) -> None:
        """Enter in a one-line field submits, as in any form."""
        event.stop()
        self.submit()
