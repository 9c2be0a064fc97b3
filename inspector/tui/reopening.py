"""The review saved before, reopened without holding a key: the workspace reads it in a thread of its own while the
server starts and lists (`Workspace.reopen`), the status line and the Overview say how far it is, and a thread
worker here orders its findings for the Checklist before the app is told (`Reopened`). A run, an export or a
decision waits until it is read (`Workspace.waiting` says so): each goes into that review."""

from __future__ import annotations

import time
from typing import Any

from textual.app import App

from mcp_review.review import Finding, Review
from mcp_review.tui.messages import Reopened, Reopening
from mcp_review.tui.panes.checklist import order_findings
from mcp_review.workspace import Reopening as State
from mcp_review.workspace import Workspace

EVERY = 0.2  # seconds between two progress messages (the reader reports each block of findings)


class Reopener:
    def __init__(self, app: App[Any], ws: Workspace) -> None:
        self.app = app
        self.ws = ws
        self.order: tuple[Review, tuple[list[Finding], list[str]]] | None = None  # ready for the Checklist
        self._said = 0.0

    def start(self) -> State | None:
        """Start reading the working server's saved review, if it has one."""
        state = self.ws.reopen(self._progress)
        if state is not None:
            self.app.run_worker(lambda: self._order(state), thread=True, group="reopen", exit_on_error=False)
        return state

    def _progress(self) -> None:  # from the workspace's reader thread
        now = time.monotonic()
        if now - self._said >= EVERY and (state := self.ws.reopening) is not None:
            self._said = now
            self.app.post_message(Reopening(state))

    def _order(self, state: State) -> None:
        """In a thread: wait for the review, order its findings (0.3 s over 110,000), then tell the app."""
        review = None if state.future.exception() else state.future.result()
        order = order_findings(review.findings) if review is not None else None
        if review is not None and order is not None:
            self.order = (review, order)
        self.app.post_message(Reopened(state, order))

    def order_of(self, review: Review | None) -> tuple[list[Finding], list[str]] | None:
        """The order made for `review` when it is the one reopened (else the Checklist makes it)."""
        return self.order[1] if self.order is not None and self.order[0] is review else None
