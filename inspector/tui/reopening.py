"""The review saved before, reopened without holding a key: the workspace reads it in a thread of its own while the
server starts and lists (`Workspace.reopen`), the status line and the Overview say how far it is, and a thread
worker here makes what the screen shows of it (`Shown`) before the app is told (`Reopened`). A run, an export or a
decision waits until it is read (`Workspace.waiting` says so): each goes into that review."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from textual.app import App

from mcp_review.review import Review
from mcp_review.tui.messages import Reopened, Reopening
from mcp_review.tui.panes.ordering import Order, order_findings
from mcp_review.tui.panes.tools import worst_by_subject
from mcp_review.workspace import Reopening as State
from mcp_review.workspace import Workspace

EVERY = 0.2  # seconds between two progress messages (the reader reports each block of findings)


@dataclass(frozen=True)
class Shown:
    """What the screen shows of a reopened review that takes a while over 110,000 findings, made off the loop."""

    review: Review
    order: Order  # the Checklist's (`order_findings`: 0.4 s)
    worst: dict[str, str]  # the Tools and Skills tabs' (`worst_by_subject`: 0.1 s)


class Reopener:
    def __init__(self, app: App[Any], ws: Workspace) -> None:
        self.app = app
        self.ws = ws
        self.shown: Shown | None = None  # ready for the screen
        self._said = 0.0

    def start(self) -> State | None:
        """Start reading the working server's saved review, if it has one."""
        state = self.ws.reopen(self._progress)
        if state is not None:
            self.app.run_worker(lambda: self._made(state), thread=True, group="reopen", exit_on_error=False)
        return state

    def _progress(self) -> None:  # from the workspace's reader thread
        now = time.monotonic()
        if now - self._said >= EVERY and (state := self.ws.reopening) is not None:
            self._said = now
            self.app.post_message(Reopening(state))

    def _made(self, state: State) -> None:
        """In a thread: wait for the review, make what the screen shows of it, then tell the app."""
        review = None if state.future.exception() else state.future.result()
        if review is not None:
            self.shown = Shown(review, order_findings(review.findings), worst_by_subject(review))
        self.app.post_message(Reopened(state, self.shown if review is not None else None))

    def shown_of(self, review: Review | None) -> Shown | None:
        """What was made for `review` when it is the one reopened (else the screen makes it)."""
        return self.shown if self.shown is not None and self.shown.review is review else None
