"""elicitation/create: the server asks the reviewer for input, as a form or as a URL to visit.

The spec has three answers: `accept` (with the content), `decline` (the reviewer said no) and `cancel` (dismissed
without choosing). Escape is cancel, as closing any dialog is; the Decline button is the explicit no.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Button

from mcp_review.text import visible
from mcp_review.tui.dialogs.answer import AnswerScreen
from mcp_review.tui.dialogs.common import schema_problems
from mcp_review.tui.dialogs.confirm import ConfirmScreen
from mcp_review.tui.dialogs.form import SchemaForm


class ElicitScreen(AnswerScreen):
    """elicitation/create: a form (edited as JSON, checked against requestedSchema) or a URL, never opened here."""

    heading = "The server asks for input (elicitation)"
    BINDINGS = [Binding("escape", "cancel_request", "Cancel (no choice)", id="cancel-request")]
    CANCEL: dict[str, Any] = {"action": "cancel"}  # dismissed without choosing (the spec's third answer)
    DECLINE: dict[str, Any] = {"action": "decline"}  # the reviewer's explicit no

    @property
    def is_url(self) -> bool:
        return self.params.get("mode") == "url"

    def describe(self) -> Text:
        out = Text()
        out.append(visible(str(self.params.get("message", "")), 2000) + "\n\n")
        if self.is_url:
            out.append("It asks you to open this URL (mcp-review does not open it):\n", style="bold")
            out.append(visible(str(self.params.get("url", "")), 2000))
        else:
            out.append("requested schema:\n", style="bold")
            out.append(visible(json.dumps(self.params.get("requestedSchema"), indent=2, ensure_ascii=False), 4000))
        return out

    def draft(self) -> Any:
        """Empty: the form shows each field's examples and default, and nothing is sent the reviewer did not type."""
        return {}

    def form(self, draft: Any) -> SchemaForm | None:
        return None if self.is_url else SchemaForm(self.params.get("requestedSchema"), draft, id="form")

    def extra_buttons(self) -> ComposeResult:
        if self.is_url:
            yield Button("Open URL…", id="open-url")
        yield Button("Cancel", id="cancel-request")

    def action_decline(self) -> None:
        self.dismiss(self.DECLINE)

    @on(Button.Pressed, "#cancel-request")
    def action_cancel_request(self) -> None:
        self.dismiss(self.CANCEL)

    @on(Button.Pressed, "#open-url")
    def open_url(self) -> None:
        """Only with the reviewer's consent, and only http(s): the URL comes from the server."""
        url = str(self.params.get("url", ""))
        if not url.startswith(("https://", "http://")):
            self.notify("not an http(s) URL: not opened", severity="warning")
            return

        def decided(yes: bool | None) -> None:
            if yes:
                import webbrowser

                webbrowser.open(url)

        reason = f"The server wants you to visit:\n{visible(url, 2000)}\nOpen it in your browser?"
        self.app.push_screen(ConfirmScreen("Open a URL from the server", reason, yes="Open"), decided)

    def problems(self, value: Any) -> list[str]:
        return [] if self.is_url else schema_problems(value, self.params.get("requestedSchema"))

    def answer(self, value: Any) -> dict[str, Any]:
        return {"action": "accept"} if self.is_url else {"action": "accept", "content": value}
