"""roots/list: the server asks which directories the client exposes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text

from mcp_review.tui.dialogs.answer import AnswerScreen


class RootsScreen(AnswerScreen):
    """roots/list: which directories the client exposes (the working directory is offered)."""

    heading = "The server asks which roots (directories) it may use"

    def describe(self) -> Text:
        return Text("Edit the list of roots to share, or decline to share none.")

    def draft(self) -> Any:
        cwd = Path.cwd()
        return [{"uri": cwd.as_uri(), "name": cwd.name}]

    def problems(self, value: Any) -> list[str]:
        ok = isinstance(value, list) and all(isinstance(r, dict) and isinstance(r.get("uri"), str) for r in value)
        return [] if ok else ['the answer is a list of {"uri": "file:///...", "name": "..."}']

    def answer(self, value: Any) -> dict[str, Any]:
        return {"roots": value}
