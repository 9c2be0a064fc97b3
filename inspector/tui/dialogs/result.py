"""What came back: a tool call's result in full, and a tool in full, each in a read-only screen."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Collapsible, Static

from mcp_review.calls import CallRecord, describe_block
from mcp_review.text import one_line, visible
from mcp_review.tokens import Figure
from mcp_review.tui.clipboard import copy_out
from mcp_review.tui.dialogs.common import DIALOG_CSS, schema_note, schema_problems
from mcp_review.tui.footer import Footer


def result_text(record: CallRecord, output_schema: Any, tokens: Figure | None, style: Callable[[str], str]) -> Text:
    """Every content block, structuredContent checked against the outputSchema, isError, latency, the reply's
    tokens (`calls.reply_tokens`, the Wire's figure); `style` gives a status's style (see `styles.status_style`)."""
    out = Text()
    out.append(f"{one_line(record.tool, 80)} · {record.latency_ms:.0f} ms · {record.outcome}", style="bold")
    if tokens is not None:
        out.append(f" · reply {tokens} tokens{tokens.note}")
    out.append("\n")
    if record.failure or record.error is not None:
        out.append(visible(record.failure or json.dumps(record.error, indent=2, ensure_ascii=False), 20000))
        return out
    result = record.result if isinstance(record.result, dict) else {}
    for i, block in enumerate(result.get("content") or []):
        heading, body = describe_block(block)
        out.append(f"[{i}] {one_line(heading, 200)}\n", style="cyan")
        if body:
            out.append(visible(body, 20000) + "\n")
    if "structuredContent" in result:
        out.append("structuredContent:\n", style="cyan")
        out.append(visible(json.dumps(result["structuredContent"], indent=2, ensure_ascii=False), 20000) + "\n")
        if isinstance(output_schema, dict):
            problems = schema_problems(result["structuredContent"], output_schema)
            note = schema_note(output_schema)
            verdict = "; ".join(problems) or note or "conforms to the outputSchema"
            out.append(verdict + "\n", style=style("problem" if problems else "warn" if note else "pass"))
    out.append(f"isError: {json.dumps(result.get('isError', False))}\n")
    return out


class ResultScreen(ModalScreen[None]):
    """Something in full (a result, a finding with its evidence, a wire entry, a call): scrolled with the keys
    or the mouse, its text selectable, and copied whole with Copy (through the app's masking clipboard)."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "dismiss", "Close", id="close")]

    def __init__(self, body: Text, title: str = "") -> None:
        super().__init__()
        self.body, self.title_text = body, title

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            if self.title_text:
                yield Static(Text(f"{one_line(self.title_text, 120)}  (escape to close)", style="bold"))
            with VerticalScroll(id="result"):
                yield Static(self.body)
            with Horizontal(id="buttons"):
                yield Button("Copy", id="copy")
                yield Button("Close", id="close")
        yield Footer()  # its own keys, not the main screen's

    def on_mount(self) -> None:
        self.query_one("#result").focus()  # the arrow and page keys scroll it at once

    @on(Button.Pressed, "#copy")
    def copy(self) -> None:
        copy_out(self.app, self.body.plain, "the text")

    @on(Button.Pressed, "#close")
    def close(self) -> None:
        self.dismiss()


class ToolScreen(ModalScreen[None]):
    """One tool in full, in collapsible sections (description, findings, tokens, schemas, annotations)."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "dismiss", "Close", id="close-tool")]

    def __init__(self, name: str, sections: list[tuple[str, Text, bool]]) -> None:
        super().__init__()
        self.name_text, self.sections = name, sections

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(f"{self.name_text}  (escape to close)", style="bold"))
            with VerticalScroll(id="result"):
                for title, body, collapsed in self.sections:
                    with Collapsible(title=title, collapsed=collapsed):
                        yield Static(body)
            with Horizontal(id="buttons"):
                yield Button("Close", id="close")
        yield Footer()

    @on(Button.Pressed, "#close")
    def close(self) -> None:
        self.dismiss()
