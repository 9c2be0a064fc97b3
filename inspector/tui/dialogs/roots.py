"""roots/list: the server asks which directories the client exposes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.text import Text

from mcp_review.tui.dialogs.answer import AnswerScreen


def own_directories(args: Sequence[str]) -> list[Path]:
    """The directories a stdio server was started with (a filesystem server's allowed ones): arguments that name
    an existing directory."""
    found: list[Path] = []
    for arg in args:
        path = Path(arg).expanduser()
        if not arg.startswith("-") and path.is_absolute() and path.is_dir() and path not in found:
            found.append(path)
    return found


class RootsScreen(AnswerScreen):
    """roots/list: which directories the client exposes. Offered: the directories the server was started with
    when it names any (`own_directories`), else the working directory."""

    heading = "The server asks which roots (directories) it may use"

    def __init__(self, params: dict[str, Any], own: Sequence[Path] = ()) -> None:
        super().__init__(params)
        self.own = list(own)

    def describe(self) -> Text:
        said = Text(
            "The server takes these roots as the directories it may work in: many (the filesystem server among them) "
            "replace the directories they were started with by this answer. "
        )
        said.append("Offered: the directories it was started with." if self.own else "Offered: the working directory.")
        return said.append(" Edit the list, or decline to share none.")

    def draft(self) -> Any:
        return [{"uri": p.as_uri(), "name": p.name} for p in self.own or [Path.cwd()]]

    def problems(self, value: Any) -> list[str]:
        ok = isinstance(value, list) and all(isinstance(r, dict) and isinstance(r.get("uri"), str) for r in value)
        return [] if ok else ['the answer is a list of {"uri": "file:///...", "name": "..."}']

    def answer(self, value: Any) -> dict[str, Any]:
        return {"roots": value}
