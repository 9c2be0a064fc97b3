"""The base of every dialog that answers the server (elicitation, sampling, roots) or fills in arguments."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static, TextArea

from mcp_review.text import visible
from mcp_review.tui.dialogs.common import DIALOG_CSS
from mcp_review.tui.dialogs.form import FormDialog, SchemaForm, form_and_json

DECLINE_ALL: dict[str, Any] = {}  # what AnswerScreen returns for "decline this and every request waiting"
LATER: dict[str, Any] = {}  # ... for "not now": the request waits, set aside (`tab_after` says which tab to show)


class AnswerScreen(FormDialog):
    """The server asks the client for something: show what, let the reviewer edit an answer, accept or decline.

    Subclasses say what is shown, the answer prefilled (JSON), how to validate it, and how an accepted
    answer becomes the result sent back. `None` means declined.
    """

    DEFAULT_CSS = DIALOG_CSS
    # Asked by the server on its own (not within the reviewer's own call, see `Asker`): no field takes the keys until
    # the reviewer picks one, and `q` and `r` (which a modal screen keeps from the app) still quit and run the
    # checklist, however often the server asks again (a sampling loop keeps a dialog up for good).
    AUTO_FOCUS = "#decline"
    BINDINGS = [
        Binding("escape", "decline", "Decline", id="decline"),
        Binding("ctrl+s", "submit", "Accept", id="accept"),
        Binding("ctrl+d", "decline_all", "Decline all waiting", id="decline-all"),
        Binding("r", "app.run_checks", "Run checks", id="answer-run-checks"),
        Binding("q", "app.quit", "Quit", id="answer-quit"),
        # the tab keys stay the tab keys: the request is set aside (it waits, `i` brings it back) and the tab shows
        *(
            Binding(f"{i}", f"set_aside({i})", f"Set aside, tab {i}", id=f"answer-tab-{i}", show=False)
            for i in range(1, 10)
        ),
    ]
    heading = "The server asks"
    waiting = 0  # requests from the server queued behind this one (the app sets it)
    asked_by = ""  # which call asks, when one does (the app sets it: `asking.asked_for`)
    accept_label, decline_label = "Accept", "Decline"  # the buttons' words (a dialog the reviewer opened says more)
    tab_after = 0  # the tab the reviewer asked for when setting the request aside (LATER)

    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__()
        self.params = params

    def describe(self) -> Text:
        return Text(visible(json.dumps(self.params, indent=2, ensure_ascii=False), 4000))

    def draft(self) -> Any:
        return {}

    def form(self, draft: Any) -> SchemaForm | None:
        """A form for the answer, when its shape is a schema (elicitation)."""
        return None

    def extra_buttons(self) -> ComposeResult:
        yield from ()

    def problems(self, value: Any) -> list[str]:
        return []

    def live(self, value: Any) -> Text | None:
        """What the answer does, drawn as it is typed (a template's URI); None: nothing to draw."""
        return None

    def answer(self, value: Any) -> dict[str, Any]:
        return value  # type: ignore[no-any-return]

    def compose(self) -> ComposeResult:
        queued = f" · {self.waiting} more waiting (ctrl+d declines all)" if self.waiting else ""
        draft = self.draft()
        form = self.form(draft)
        # with a form, what is asked (an elicitation's message and schema) takes at most a third: the form the rest
        above = "-above-form" if form is not None and form.fields else ""
        # a line naming the call that asks costs what is asked a line, so the form keeps its rows at 80x24
        with Vertical(id="dialog", classes=f"{above} -asked" if self.asked_by else above):
            yield Static(Text(f"{self.heading}{queued}", style="bold"))
            if self.asked_by:
                yield Static(Text(self.asked_by, style="italic"), id="asked-for")
            with VerticalScroll(id="result"):
                yield Static(self.describe())
            yield from form_and_json(form, draft)
            yield Static(id="live")
            yield Static(id="problems")
            with Horizontal(id="buttons"):
                yield from self.extra_buttons()
                if self.waiting:
                    yield Button(f"Decline all {self.waiting + 1}", id="decline-all")
                yield Button(self.decline_label, id="decline")
                yield Button(self.accept_label, id="accept", variant="primary")

    def on_mount(self) -> None:
        self._check()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """ctrl+d only when other requests wait (the footer shows it then)."""
        return bool(self.waiting) if action == "decline_all" else super().check_action(action, parameters)

    def _value(self) -> tuple[Any, list[str]]:
        try:
            value = json.loads(self.query_one(TextArea).text or "null")
        except ValueError as e:
            return None, [f"not JSON: {e}"]
        return value, self.problems(value)

    @on(TextArea.Changed)
    def _check(self) -> None:
        value, problems = self._value()
        live = self.live(value)
        self.query_one("#live", Static).display = live is not None
        self.query_one("#live", Static).update(live or "")
        self.query_one("#problems", Static).update(Text("\n".join(problems)))
        self.query_one("#accept", Button).disabled = bool(problems)

    def submit(self) -> None:
        value, problems = self._value()
        if not problems:
            self.dismiss(self.answer(value))

    def action_decline(self) -> None:
        self.action_cancel()

    @on(Button.Pressed, "#accept")
    def pressed_accept(self) -> None:
        self.submit()

    @on(Button.Pressed, "#decline")
    def pressed_decline(self) -> None:
        self.action_decline()

    def action_set_aside(self, tab: int) -> None:
        self.tab_after = tab
        self.dismiss(LATER)

    @on(Button.Pressed, "#decline-all")
    def action_decline_all(self) -> None:
        self.dismiss(DECLINE_ALL if self.waiting else None)
