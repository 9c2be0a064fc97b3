"""Which server the app talks to: ctrl+o tries another one beside the working one and switches only once it
has answered (a typo leaves the current server, its tools and its review as they were), ctrl+r reconnects,
and ctrl+l's Auth view logs in again and reconnects with the new token."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp_review.connection.wire import WireEntry
from mcp_review.review import review_file
from mcp_review.targets import Target
from mcp_review.text import one_line
from mcp_review.tui.connection import Connection
from mcp_review.tui.dialogs import AuthScreen, ask_target
from mcp_review.tui.messages import Connected, ConnectionLost

if TYPE_CHECKING:
    from mcp_review.tui.app import ReviewApp


class Switcher:
    def __init__(self, app: ReviewApp) -> None:
        self.app = app
        self.trying: tuple[Connection, Target, list[WireEntry]] | None = None  # a server tried beside this one

    async def close(self) -> None:
        if self.trying is not None:
            await self.trying[0].close()

    def reconnect(self) -> None:
        app = self.app
        app.snapshot = None
        app.main.status("connecting…")
        app.connection.open(app.target, app.era, app.wire_pending)

    def auth(self) -> None:
        """The Auth view of an HTTP server; a new login there reconnects with its token."""
        app = self.app
        if not app.target.is_http:
            app.main.status("Auth: only an HTTP server is protected by OAuth")
            return

        def logged_in(token: str | None) -> None:
            if token:
                app.target = app.target.with_(bearer=token)
                self.reconnect()

        app.push_screen(AuthScreen(app.target.url or "", app.open_browser), logged_in)

    def connect(self) -> None:
        ask_target(self.app, self.app.target, self._try)

    def _try(self, target: Target) -> None:
        app = self.app
        if self.trying is not None:
            self.trying[0].stop()  # a server tried before this one ends once it has answered
        self.trying = (Connection(app, app.asker.handlers(), app.counter), target, [])
        app.main.status(f"connecting to {one_line(target.label(), 80)}… (the current server stays until then)")
        self.trying[0].open(target, app.era, self.trying[2])

    def answered(self, message: Connected) -> bool:
        """Whether `message` is the working connection's: a tried server that answered becomes it (with its own
        saved review, wire log and call history); an answer of a session replaced meanwhile is not."""
        if self.trying is not None and message.source is self.trying[0]:
            connection, target, wire = self.trying
            self.trying = None
            app = self.app
            app.connection.stop()
            app.connection = app.caller.connection = connection
            app.target = target
            app.review = None
            app.review_path = review_file(target.public(), app.state_dir)
            app.wire_pending = wire  # the old session, still closing, appends to the old list
            app.call_log = []
            app.main.forget()
        return message.source is self.app.connection

    def failed(self, message: ConnectionLost) -> bool:
        """Whether `message` ends the working connection; a tried server that failed only says so."""
        app = self.app
        if self.trying is not None and message.source is self.trying[0]:
            tried, self.trying = self.trying[1], None
            still = f"still connected to {one_line(app.target.label(), 80)}" if app.snapshot else "not connected"
            app.main.status(f"could not connect to {one_line(tried.label(), 80)}: {one_line(message.reason, 200)}")
            app.notify(f"{one_line(message.reason, 300)} ({still})", severity="error", markup=False)
            return False
        return message.source is app.connection
