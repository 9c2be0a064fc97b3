"""Calling a tool: its arguments, from a form generated from its inputSchema or as raw JSON, validated live."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Checkbox, Static, TextArea

from mcp_review.text import one_line, visible
from mcp_review.tui.dialogs.common import DIALOG_CSS, schema_note, schema_problems
from mcp_review.tui.dialogs.form import FormDialog, SchemaForm, form_and_json
from mcp_review.untrusted import strict_loads


def argument_problems(text: str, schema: Any) -> list[str]:
    """Why `text` is not an argument object the tool's inputSchema accepts."""
    try:
        value = strict_loads(text or "{}")
    except ValueError as e:
        return [f"not JSON: {e}"]
    if not isinstance(value, dict):
        return ["arguments must be a JSON object"]
    return schema_problems(value, schema)


class CallScreen(FormDialog):
    """Arguments for one tool: a form generated from its inputSchema, or raw JSON; validated live. Returns them;
    `as_task` says whether the reviewer chose to run it as a task (offered when the server declares tasks)."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [
        Binding("ctrl+s", "submit", "Call", id="send-call"),
        Binding("ctrl+g", "toggle_task", "As a task", id="call-as-task", tooltip="When the server declares tasks"),
    ]

    def __init__(self, tool: Any, arguments: dict[str, Any], tasks: str | None = None) -> None:
        super().__init__()
        self.tool = tool
        self.arguments = arguments
        self.tasks = tasks  # the tasks revision the server declares (mcp_review.tasks.Flavour), or None
        self.as_task = False
        self.sent_invalid: list[str] = []  # why the arguments sent do not match the inputSchema ("Send anyway")
        self.problems: list[str] = []  # why the arguments typed do not, now

    def compose(self) -> ComposeResult:
        name = one_line(str(self.tool.get("name")), 80)
        form = SchemaForm(self.tool.get("inputSchema"), self.arguments, id="form")
        with Vertical(id="dialog"):
            yield Static(Text(f"call {name}", style="bold"))
            with VerticalScroll(id="about"):  # a few lines, scrolled: the form below always gets its rows
                yield Static(Text(visible(str(self.tool.get("description") or ""), 400)))
            yield from form_and_json(form, self.arguments)
            yield Static(id="problems")
            with Horizontal(id="buttons"):
                if self.tasks:
                    yield Checkbox("as a task", id="as-task", tooltip=f"run it as a task ({self.tasks} tasks)")
                yield Button("Cancel", id="cancel")
                yield Button("Send anyway", id="send-anyway", variant="warning", disabled=True)
                yield Button("Call", id="call", variant="primary")

    def draft_key(self) -> str:
        """Per tool and the arguments it opened with (a past call opens with its own)."""
        return f"call {self.tool.get('name')} {json.dumps(self.arguments, sort_keys=True)}"

    def on_mount(self) -> None:
        self._check()

    @on(TextArea.Changed)
    def _check(self) -> None:
        schema = self.tool.get("inputSchema")
        problems = argument_problems(self.query_one(TextArea).text, schema)
        # a JSON object the schema refuses may still be sent on purpose (a server's own validation tested by hand)
        anyway = bool(problems) and not argument_problems(self.query_one(TextArea).text, None)
        said = "\n".join(problems) + ("\nSend anyway sends them as they are (recorded so)" if anyway else "")
        self.query_one("#problems", Static).update(Text(said or schema_note(schema)))
        self.query_one("#call", Button).disabled = bool(problems)
        self.query_one("#send-anyway", Button).disabled = not anyway
        self.problems = problems

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The task key exists only where the server declares tasks (the footer does not offer it elsewhere)."""
        return bool(self.tasks) if action == "toggle_task" else True

    def action_toggle_task(self) -> None:
        self.query_one("#as-task", Checkbox).toggle()

    def submit(self, anyway: bool = False) -> None:
        if not self.query_one("#send-anyway" if anyway else "#call", Button).disabled:
            self.as_task = bool(self.tasks) and self.query_one("#as-task", Checkbox).value
            self.sent_invalid = list(self.problems) if anyway else []
            self.dismiss(strict_loads(self.query_one(TextArea).text or "{}"))

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        if event.button.id in ("call", "send-anyway"):
            self.submit(anyway=event.button.id == "send-anyway")
        elif event.button.id == "cancel":
            self.action_cancel()
