"""The app as its helpers (checking, switching) see it: a status line, dialogs, notifications and messages. Its
state is the workspace's (`mcp_review.workspace`): a helper reads and changes it there, never on the app."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen

R = TypeVar("R")


class Shell(Protocol):
    def status(self, text: str, failed: bool = False, whole: bool = False) -> None:
        """A line in the status bar, over the tabs; `whole`: wrapped, never cut (a verdict line)."""

    def ask(self, screen: Screen[R], then: Callable[[R | None], Any]) -> None:
        """A dialog; `then` gets its answer."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def post_message(self, message: Message) -> bool:
        """To the app, from any thread."""
